// ConnectionDialog offscreen: the form round-trips settings, refuses bad ones, and tests a real server.
#include "connection/connectiondialog.h"
#include "redis/sandboxsentinelgroup.h"
#include "testsupport.h"
#include "tlsfixture.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QSpinBox>
#include <QTabWidget>

class TestConnectionDialog : public QObject
{
    Q_OBJECT
private slots:
    void readOnlyByDefault();
    void settingsRoundTrip();
    void refusesInvalidSettings();
    void testButtonReportsTheServer();
    void testButtonReportsRefusal();
    void tlsAndSshRoundTrip();
    void insecureTlsShowsAWarning();
    void tlsNeedsTcp();
    void testOverTls();
    void connectModeHasNoProfileTab();
    void profileModeRoundTrip();
    void profileModeValidation();
    void clusterAndSentinelRoundTrip();
    void listsTheSentinelsMastersAndTestsThroughThem();
};

void TestConnectionDialog::readOnlyByDefault()
{
    ConnectionDialog dialog;
    QVERIFY(dialog.settings().readOnly);
    auto *warning = dialog.findChild<QLabel *>(QStringLiteral("writeWarning"));
    QVERIFY(warning);
    QVERIFY(!warning->isVisibleTo(&dialog));
    dialog.findChild<QCheckBox *>(QStringLiteral("readOnlyCheck"))->setChecked(false);
    QVERIFY(warning->isVisibleTo(&dialog));
}

void TestConnectionDialog::settingsRoundTrip()
{
    ConnectionSettings s;
    s.host = QStringLiteral("redis.internal");
    s.port = 6380;
    s.db = 4;
    s.user = QStringLiteral("ops");
    s.password = QStringLiteral("pw");
    s.readOnly = false;
    s.connectTimeoutMs = 1500;
    s.commandTimeoutMs = 2500;
    ConnectionDialog dialog;
    dialog.setSettings(s);
    QCOMPARE(dialog.settings(), s);
    s.socketPath = QStringLiteral("/run/redis.sock");
    dialog.setSettings(s);
    QCOMPARE(dialog.settings().socketPath, s.socketPath);
    QVERIFY(!dialog.findChild<QLineEdit *>(QStringLiteral("hostEdit"))->isEnabled());
}

void TestConnectionDialog::refusesInvalidSettings()
{
    ConnectionDialog dialog;
    auto *ok = dialog.findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok);
    QVERIFY(ok->isEnabled());
    dialog.findChild<QLineEdit *>(QStringLiteral("hostEdit"))->setText(QString());
    QVERIFY(!ok->isEnabled());
    QVERIFY(!dialog.testButton()->isEnabled());
    QVERIFY2(dialog.statusText().contains(QLatin1String("host is empty")), qPrintable(dialog.statusText()));
    dialog.findChild<QLineEdit *>(QStringLiteral("hostEdit"))->setText(QStringLiteral("localhost"));
    dialog.findChild<QLineEdit *>(QStringLiteral("userEdit"))->setText(QStringLiteral("alice"));
    QVERIFY(!ok->isEnabled());
    QVERIFY(dialog.statusText().contains(QLatin1String("without a password")));
    dialog.findChild<QRadioButton *>(QStringLiteral("socketRadio"))->setChecked(true);
    dialog.findChild<QLineEdit *>(QStringLiteral("userEdit"))->clear();
    QVERIFY(!ok->isEnabled());
    QVERIFY(dialog.statusText().contains(QLatin1String("Unix socket")));
}

void TestConnectionDialog::testButtonReportsTheServer()
{
    SandboxServer server;
    LS_START(server);
    ConnectionDialog dialog;
    dialog.setSettings(server.connectionSettings());
    QTest::mouseClick(dialog.testButton(), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(dialog.statusText().contains(QLatin1String("Connected")), 10000);
    QVERIFY2(dialog.statusText().contains(QLatin1String("standalone")), qPrintable(dialog.statusText()));
    QVERIFY(dialog.testButton()->isEnabled());
}

void TestConnectionDialog::testButtonReportsRefusal()
{
    ConnectionDialog dialog;
    ConnectionSettings s;
    s.port = LoopbackPorts::freePort();
    dialog.setSettings(s);
    QTest::mouseClick(dialog.testButton(), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(dialog.statusText().contains(QLatin1String("refused")), 10000);
}

void TestConnectionDialog::tlsAndSshRoundTrip()
{
    ConnectionSettings s;
    s.host = QStringLiteral("redis.internal");
    s.port = 6380;
    s.tls.enabled = true;
    s.tls.caFile = QStringLiteral("/etc/hostname"); // any readable file passes validation
    s.tls.certFile = QStringLiteral("/etc/hostname");
    s.tls.keyFile = QStringLiteral("/etc/hostname");
    s.tls.serverName = QStringLiteral("redis.prod");
    s.ssh.enabled = true;
    s.ssh.host = QStringLiteral("bastion");
    s.ssh.port = 2222;
    s.ssh.user = QStringLiteral("ops");
    s.ssh.jumpHosts = QStringLiteral("jump");
    ConnectionDialog dialog;
    dialog.setSettings(s);
    QCOMPARE(dialog.settings(), s);
    QVERIFY(dialog.findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok)->isEnabled());
    auto *tabs = dialog.findChild<QTabWidget *>(QStringLiteral("tabs"));
    QVERIFY(tabs->tabText(1).contains(QStringLiteral("✔")));
    QVERIFY(tabs->tabText(2).contains(QStringLiteral("✔")));
}

void TestConnectionDialog::insecureTlsShowsAWarning()
{
    ConnectionDialog dialog;
    auto *warning = dialog.findChild<QLabel *>(QStringLiteral("insecureWarning"));
    QVERIFY(warning->isHidden()); // (on a tab not shown yet: isHidden, not isVisible)
    QVERIFY(dialog.settings().tls.verifyPeer); // verification on by default
    dialog.findChild<QCheckBox *>(QStringLiteral("tlsCheck"))->setChecked(true);
    dialog.findChild<QCheckBox *>(QStringLiteral("insecureCheck"))->setChecked(true);
    QVERIFY(!warning->isHidden());
    QVERIFY(!dialog.settings().tls.verifyPeer);
    QVERIFY(dialog.findChild<QTabWidget *>(QStringLiteral("tabs"))->tabText(1).contains(QStringLiteral("⚠")));
}

void TestConnectionDialog::tlsNeedsTcp()
{
    ConnectionDialog dialog;
    dialog.findChild<QRadioButton *>(QStringLiteral("socketRadio"))->setChecked(true);
    dialog.findChild<QLineEdit *>(QStringLiteral("socketEdit"))->setText(QStringLiteral("/tmp/x.sock"));
    dialog.findChild<QCheckBox *>(QStringLiteral("tlsCheck"))->setChecked(true);
    QVERIFY2(dialog.statusText().contains(QLatin1String("TCP only")), qPrintable(dialog.statusText()));
    QVERIFY(!dialog.testButton()->isEnabled());
    dialog.findChild<QCheckBox *>(QStringLiteral("tlsCheck"))->setChecked(false);
    dialog.findChild<QLineEdit *>(QStringLiteral("caFileEdit"))->setText(QStringLiteral("/nonexistent.pem"));
    QVERIFY(dialog.testButton()->isEnabled()); // TLS off: its fields do not matter
}

void TestConnectionDialog::testOverTls()
{
    TlsFixture certs;
    QVERIFY2(certs.create(), qPrintable(certs.errorString()));
    SandboxServer server(certs.sandboxOptions());
    LS_START(server);
    ConnectionDialog dialog;
    dialog.setSettings(server.connectionSettings());
    QTest::mouseClick(dialog.testButton(), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(dialog.statusText().contains(QLatin1String("Connected")), 10000);
    dialog.findChild<QLineEdit *>(QStringLiteral("caFileEdit"))->setText(certs.otherCaFile());
    QTest::mouseClick(dialog.testButton(), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(dialog.statusText().contains(QLatin1String("was rejected")), 10000);
}

void TestConnectionDialog::connectModeHasNoProfileTab()
{
    ConnectionDialog dialog;
    auto *tabs = dialog.findChild<QTabWidget *>(QStringLiteral("tabs"));
    QCOMPARE(tabs->count(), 3);
    QVERIFY(!dialog.findChild<QComboBox *>(QStringLiteral("passwordStorageCombo"))->isVisibleTo(&dialog));
}

void TestConnectionDialog::profileModeRoundTrip()
{
    ConnectionProfile p = ConnectionProfile::create(QStringLiteral("prod-eu"));
    p.settings.host = QStringLiteral("redis.prod");
    p.settings.user = QStringLiteral("oncall");
    p.settings.tls.enabled = true;
    p.passwordStorage = ConnectionProfile::PasswordStorage::Keychain;
    p.color = QStringLiteral("#dc2626");
    p.production = true;
    p.lockPatterns = {QStringLiteral("lock:*"), QStringLiteral("{orders}:lock:*")};
    p.scanCount = 1000;
    ConnectionDialog dialog(nullptr, ConnectionDialog::Mode::EditProfile);
    dialog.setProfile(p);
    QCOMPARE(dialog.profile(), p);
    auto *tabs = dialog.findChild<QTabWidget *>(QStringLiteral("tabs"));
    QCOMPARE(tabs->count(), 4);
    QCOMPARE(tabs->widget(0)->objectName(), QStringLiteral("profileTab"));
    auto *password = dialog.findChild<QLineEdit *>(QStringLiteral("passwordEdit"));
    QVERIFY(password->text().isEmpty()); // the saved password is never put back into the form
    QVERIFY(password->placeholderText().contains(QLatin1String("keychain")));
    QVERIFY(dialog.typedPassword().isEmpty());
    password->setText(QStringLiteral("new-pw"));
    QCOMPARE(dialog.typedPassword(), QStringLiteral("new-pw"));
    QVERIFY(dialog.profile().settings.password.isEmpty());
    QVERIFY(dialog.findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok)->isEnabled());
}

void TestConnectionDialog::profileModeValidation()
{
    ConnectionDialog dialog(nullptr, ConnectionDialog::Mode::EditProfile);
    ConnectionProfile p = ConnectionProfile::create(QStringLiteral("x"));
    dialog.setProfile(p);
    auto *ok = dialog.findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok);
    QVERIFY(ok->isEnabled());
    dialog.findChild<QLineEdit *>(QStringLiteral("profileNameEdit"))->clear();
    QVERIFY(!ok->isEnabled());
    QVERIFY(dialog.statusText().contains(QLatin1String("name")));
    dialog.findChild<QLineEdit *>(QStringLiteral("profileNameEdit"))->setText(QStringLiteral("ok"));
    dialog.findChild<QLineEdit *>(QStringLiteral("userEdit"))->setText(QStringLiteral("ops"));
    QVERIFY2(dialog.statusText().contains(QLatin1String("needs a password")),
             qPrintable(dialog.statusText()));
    dialog.findChild<QComboBox *>(QStringLiteral("passwordStorageCombo"))
        ->setCurrentIndex(2); // ask every time
    QVERIFY2(ok->isEnabled(), qPrintable(dialog.statusText()));
    dialog.findChild<QPlainTextEdit *>(QStringLiteral("lockPatternsEdit"))
        ->setPlainText(QStringLiteral("lock:*\n\n  a:*  "));
    QCOMPARE(dialog.profile().lockPatterns, (QStringList {QStringLiteral("lock:*"), QStringLiteral("a:*")}));
}

void TestConnectionDialog::clusterAndSentinelRoundTrip()
{
    ConnectionDialog dialog;
    auto *topology = dialog.findChild<QComboBox *>(QStringLiteral("topologyCombo"));
    auto *sentinels = dialog.findChild<QLineEdit *>(QStringLiteral("sentinelsEdit"));
    auto *ok = dialog.findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok);
    QVERIFY(topology && sentinels && ok);
    QVERIFY(!sentinels->isVisibleTo(&dialog)); // only for Sentinel

    ConnectionSettings cluster;
    cluster.host = QStringLiteral("10.0.0.5");
    cluster.port = 7000;
    cluster.cluster = true;
    dialog.setSettings(cluster);
    QCOMPARE(topology->currentIndex(), 1);
    QCOMPARE(dialog.settings(), cluster);

    ConnectionSettings sentinel;
    sentinel.sentinel.nodes = QStringList {"s1:26379", "s2:26379"};
    sentinel.sentinel.masterName = QStringLiteral("orders");
    dialog.setSettings(sentinel);
    QCOMPARE(topology->currentIndex(), 2);
    QVERIFY(sentinels->isVisibleTo(&dialog));
    QCOMPARE(sentinels->text(), QStringLiteral("s1:26379, s2:26379"));
    QCOMPARE(dialog.settings().sentinel, sentinel.sentinel);
    QVERIFY(ok->isEnabled());

    sentinels->clear();
    QVERIFY(!ok->isEnabled());
    QVERIFY2(dialog.statusText().contains(QLatin1String("sentinel")), qPrintable(dialog.statusText()));
    sentinels->setText(QStringLiteral("s1:26379"));
    dialog.findChild<QComboBox *>(QStringLiteral("masterCombo"))->setEditText(QString());
    QVERIFY(!ok->isEnabled());
    QVERIFY2(dialog.statusText().contains(QLatin1String("master")), qPrintable(dialog.statusText()));
}

void TestConnectionDialog::listsTheSentinelsMastersAndTestsThroughThem()
{
    SandboxSentinelGroup group;
    LS_START(group);
    ConnectionDialog dialog;
    ConnectionSettings s = group.settings();
    s.sentinel.masterName.clear();
    s.readOnly = true;
    dialog.setSettings(s);
    auto *list = dialog.findChild<QPushButton *>(QStringLiteral("listMastersButton"));
    auto *master = dialog.findChild<QComboBox *>(QStringLiteral("masterCombo"));
    QVERIFY(list && master && list->isEnabled());
    QTest::mouseClick(list, Qt::LeftButton);
    QTRY_COMPARE_WITH_TIMEOUT(master->count(), 1, 10000);
    QCOMPARE(master->itemText(0), group.masterName());
    QVERIFY2(dialog.statusText().contains(
                 QStringLiteral("%1 at 127.0.0.1:%2").arg(group.masterName()).arg(group.node(0).port())),
             qPrintable(dialog.statusText()));
    master->setCurrentIndex(0);
    QCOMPARE(dialog.settings().sentinel.masterName, group.masterName());
    QTest::mouseClick(dialog.testButton(), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(dialog.statusText().contains(QLatin1String("Connected")), 10000);
}

QTEST_MAIN(TestConnectionDialog)
#include "tst_connectiondialog.moc"
