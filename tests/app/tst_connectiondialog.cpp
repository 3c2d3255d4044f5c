// ConnectionDialog offscreen: the form round-trips settings, refuses bad ones, and tests a real server.
#include "connectiondialog.h"
#include "testsupport.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QSpinBox>

class TestConnectionDialog : public QObject
{
    Q_OBJECT
private slots:
    void readOnlyByDefault();
    void settingsRoundTrip();
    void refusesInvalidSettings();
    void testButtonReportsTheServer();
    void testButtonReportsRefusal();
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
    s.port = SandboxServer::freePort();
    dialog.setSettings(s);
    QTest::mouseClick(dialog.testButton(), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(dialog.statusText().contains(QLatin1String("refused")), 10000);
}

QTEST_MAIN(TestConnectionDialog)
#include "tst_connectiondialog.moc"
