// The on-call scenario end to end, offscreen, with a real (private) Secret Service: a profile for a TLS-only
// Redis with an ACL user, its password in the keychain, connected from the main window without a prompt;
// the PRODUCTION and TLS marks while connected; an entry that can no longer be read asks again; and no
// password in any settings file. Skips (saying why) where GNOME Keyring or D-Bus are not installed.
#include "common/aboutdialog.h"
#include "keychainfixture.h"
#include "mainwindow.h"
#include "connection/passwordprompt.h"
#include "connection/profilecredentials.h"
#include "profiles/profilestore.h"
#include "profiles/secretstore.h"
#include "redis/redissession.h"
#include "connection/serverbadge.h"
#include "testsupport.h"
#include "tlsfixture.h"

#include <QCheckBox>
#include <QDirIterator>
#include <QLabel>
#include <QLineEdit>
#include <QSettings>
#include <QStandardPaths>
#include <QStatusBar>

#include <sys/stat.h>

class TestProfileKeychain : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void cleanup();
    void savedPasswordGoesToTheKeychainOnly();
    void connectsToTlsOnlyRedisWithAnAclUserFromTheKeychain();
    void profileFromTheCommandLine();
    void unreadableEntryAsksAgainAndCanRememberIt();
    void duplicateCopiesTheSecretAndDeleteRemovesIt();
    void insecureTlsShowsAWarningMark();
    void switchingToAskRemovesTheKeychainEntry();
    void noPasswordInAnySettingsFile();

private:
    ConnectionProfile tlsProfile(const QString &name) const;
    ConnectionProfile saveWithPassword(MainWindow &window, ConnectionProfile profile,
                                       const QString &password);
    AppOptions noSandbox() const;

    KeychainFixture m_keychain;
    bool m_available = false;
    TlsFixture m_certs;
    std::unique_ptr<SandboxServer> m_redis;
    const QString m_password = QStringLiteral("kc-secret-8d2e");
};

#define NEED_KEYCHAIN() \
    do { \
        if (!m_available) \
            QSKIP(qPrintable(QStringLiteral("no private keychain: ") + m_keychain.errorString())); \
    } while (false)

void TestProfileKeychain::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true); // settings under ~/.qttest, never the user's own
    QDir(QStandardPaths::writableLocation(QStandardPaths::GenericConfigLocation)
         + QStringLiteral("/LockScope"))
        .removeRecursively();
    m_available = m_keychain.start();
    if (!m_available)
        KeychainFixture::disableKeychainForThisProcess();
    QVERIFY2(m_certs.create(), qPrintable(m_certs.errorString()));
    m_redis = std::make_unique<SandboxServer>(m_certs.sandboxOptions());
    LS_START(*m_redis);
    RedisConnection admin(m_redis->connectionSettings());
    LS_OPEN(admin);
    QVERIFY(TestSupport::addReadOnlyUser(admin, "oncall", m_password.toUtf8()));
    QVERIFY(admin.command({"SET", "lock:orders:42", "owner-1"}).ok());
}

void TestProfileKeychain::cleanup()
{
    ProfileStore store;
    for (const ConnectionProfile &p : store.profiles()) {
        QString error;
        store.remove(p.id, &error);
    }
}

AppOptions TestProfileKeychain::noSandbox() const
{
    AppOptions options;
    options.connection.serverGiven = true; // start idle-ish: a refused port, not a sandbox
    options.connection.settings.port = LoopbackPorts::freePort();
    return options;
}

ConnectionProfile TestProfileKeychain::tlsProfile(const QString &name) const
{
    ConnectionProfile p = ConnectionProfile::create(name);
    p.settings = m_redis->connectionSettings();
    p.settings.host = QStringLiteral("localhost");
    p.settings.readOnly = true;
    p.settings.user = QStringLiteral("oncall");
    p.passwordStorage = ConnectionProfile::PasswordStorage::Keychain;
    p.production = true;
    p.color = QStringLiteral("#7c3aed");
    return p;
}

ConnectionProfile TestProfileKeychain::saveWithPassword(MainWindow &window, ConnectionProfile profile,
                                                        const QString &password)
{
    std::optional<ProfileCredentials::Saved> saved;
    window.credentials()->save(profile, password, [&](const ProfileCredentials::Saved &s) { saved = s; });
    if (!QTest::qWaitFor([&] { return saved.has_value(); }, 10000) || !saved->profile)
        return {};
    return *saved->profile;
}

void TestProfileKeychain::savedPasswordGoesToTheKeychainOnly()
{
    NEED_KEYCHAIN();
    MainWindow window(noSandbox());
    const ConnectionProfile saved = saveWithPassword(window, tlsProfile(QStringLiteral("prod")), m_password);
    QCOMPARE(saved.passwordStorage, ConnectionProfile::PasswordStorage::Keychain);
    const SecretStore::Result r = window.credentials()->secrets()->readNow(saved.keychainKey());
    QVERIFY2(r.ok(), qPrintable(r.error));
    QCOMPARE(r.secret, m_password);
    QFile file(ProfileStore::defaultFilePath());
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray contents = file.readAll();
    QVERIFY(contents.contains("oncall"));
    QVERIFY(!contents.contains(m_password.toUtf8()));
    struct stat st;
    QVERIFY(::stat(QFile::encodeName(file.fileName()).constData(), &st) == 0);
    QCOMPARE(int(st.st_mode & 0777), 0600);
}

void TestProfileKeychain::connectsToTlsOnlyRedisWithAnAclUserFromTheKeychain()
{
    NEED_KEYCHAIN();
    MainWindow window(noSandbox());
    window.show();
    QTRY_COMPARE_WITH_TIMEOUT(window.serverBadge()->state(), ServerBadge::State::Failed, 10000);
    const ConnectionProfile saved
        = saveWithPassword(window, tlsProfile(QStringLiteral("prod-eu")), m_password);
    QVERIFY(!saved.id.isEmpty());
    window.connectToProfile(saved);
    QTRY_COMPARE_WITH_TIMEOUT(window.serverBadge()->state(), ServerBadge::State::Connected, 15000);
    QVERIFY(!window.findChild<PasswordPrompt *>()); // the keychain answered: no prompt
    QVERIFY(window.session()->settings().tls.enabled);
    QCOMPARE(window.session()->settings().user, QStringLiteral("oncall"));
    QCOMPARE(window.session()->info().keys, 1); // DBSIZE as the ACL user, over TLS
    const QStringList marks = window.serverBadge()->marks();
    QVERIFY2(marks.contains(QStringLiteral("PRODUCTION")) && marks.contains(QStringLiteral("prod-eu"))
                 && marks.contains(QStringLiteral("TLS")),
             qPrintable(marks.join(u',')));
    QCOMPARE(window.serverBadge()->modeText(), QStringLiteral("READ-ONLY"));
    QVERIFY(window.windowTitle().contains(QLatin1String("[PRODUCTION]")));
    QVERIFY(window.statusBar()->styleSheet().contains(QLatin1String("#7c3aed"))); // the profile's colour
    QCOMPARE(window.currentProfile()->id, saved.id); // what the inspector reads its patterns from
    // The About box names the connected server's version
    QVERIFY2(AboutDialog::text(window.session()->info()).contains(window.session()->info().version),
             qPrintable(AboutDialog::text(window.session()->info())));
    QVERIFY(window.session()->info().version.startsWith(QLatin1String("7.")));
    // Disconnecting removes the marks
    window.useSandbox();
    QTRY_COMPARE_WITH_TIMEOUT(window.serverBadge()->state(), ServerBadge::State::Connected, 20000);
    QVERIFY(window.serverBadge()->marks().isEmpty());
    QVERIFY(!window.currentProfile());
    QCOMPARE(window.windowTitle(), QStringLiteral("LockScope"));
    QVERIFY(window.statusBar()->styleSheet().isEmpty());
}

void TestProfileKeychain::profileFromTheCommandLine()
{
    NEED_KEYCHAIN();
    ConnectionProfile saved;
    {
        MainWindow setup(noSandbox());
        saved = saveWithPassword(setup, tlsProfile(QStringLiteral("Prod EU")), m_password);
    }
    AppOptions options;
    QString message;
    QCOMPARE(AppOptions::parse({QStringLiteral("lockscope"), QStringLiteral("--profile"),
                                QStringLiteral("prod eu"), QStringLiteral("--db"), QStringLiteral("0")},
                               &options, &message),
             AppOptions::Outcome::Run);
    QVERIFY(options.connection.profile);
    QVERIFY(options.connection.settings.password.isEmpty()); // read from the keychain by the window
    MainWindow window(options);
    QTRY_COMPARE_WITH_TIMEOUT(window.serverBadge()->state(), ServerBadge::State::Connected, 15000);
    QCOMPARE(window.currentProfile()->id, saved.id);
    QVERIFY(!window.isOnSandbox());
    QVERIFY(window.serverBadge()->marks().contains(QStringLiteral("Prod EU")));
    QCOMPARE(
        AppOptions::parse({QStringLiteral("lockscope"), QStringLiteral("--profile"), QStringLiteral("nope")},
                          &options, &message),
        AppOptions::Outcome::ExitUsage);
    QVERIFY2(message.contains(QLatin1String("no such profile")), qPrintable(message));
}

void TestProfileKeychain::unreadableEntryAsksAgainAndCanRememberIt()
{
    NEED_KEYCHAIN();
    MainWindow window(noSandbox());
    window.show();
    const ConnectionProfile saved = saveWithPassword(window, tlsProfile(QStringLiteral("prod")), m_password);
    // The entry disappears behind LockScope's back (deleted in the keyring manager, another machine...)
    QVERIFY(window.credentials()->secrets()->removeNow(saved.keychainKey()).ok());
    window.connectToProfile(saved);
    PasswordPrompt *prompt = nullptr;
    QVERIFY(QTest::qWaitFor(
        [&] { return (prompt = window.findChild<PasswordPrompt *>()) && prompt->isVisible(); }, 10000));
    QVERIFY2(prompt->findChild<QLabel *>(QStringLiteral("reasonLabel"))
                 ->text()
                 .contains(QLatin1String("cannot be read")),
             "the prompt says why it asks");
    QVERIFY(prompt->rememberCheck()->isVisible()); // a keychain is there: offer to save it again
    prompt->passwordEdit()->setText(m_password);
    prompt->rememberCheck()->setChecked(true);
    prompt->accept();
    QTRY_COMPARE_WITH_TIMEOUT(window.serverBadge()->state(), ServerBadge::State::Connected, 15000);
    QTRY_COMPARE_WITH_TIMEOUT(window.credentials()->secrets()->readNow(saved.keychainKey()).secret,
                              m_password, 10000);
}

void TestProfileKeychain::duplicateCopiesTheSecretAndDeleteRemovesIt()
{
    NEED_KEYCHAIN();
    MainWindow window(noSandbox());
    const ConnectionProfile saved = saveWithPassword(window, tlsProfile(QStringLiteral("prod")), m_password);
    std::optional<ProfileCredentials::Saved> copy;
    window.credentials()->duplicate(saved, [&](const ProfileCredentials::Saved &s) { copy = s; });
    QTRY_VERIFY_WITH_TIMEOUT(copy.has_value(), 10000);
    QVERIFY2(copy->profile, qPrintable(copy->error));
    SecretStore *secrets = window.credentials()->secrets();
    QCOMPARE(secrets->readNow(copy->profile->keychainKey()).secret, m_password);
    std::optional<QString> removed;
    window.credentials()->remove(*copy->profile, [&](const QString &error) { removed = error; });
    QTRY_VERIFY_WITH_TIMEOUT(removed.has_value(), 10000);
    QVERIFY2(removed->isEmpty(), qPrintable(*removed));
    QCOMPARE(secrets->readNow(copy->profile->keychainKey()).status, SecretStore::Status::NotFound);
    QCOMPARE(secrets->readNow(saved.keychainKey()).secret, m_password); // the original keeps its own
}

void TestProfileKeychain::insecureTlsShowsAWarningMark()
{
    NEED_KEYCHAIN();
    MainWindow window(noSandbox());
    ConnectionProfile p = tlsProfile(QStringLiteral("lab"));
    p.production = false;
    p.settings.tls.caFile = m_certs.otherCaFile(); // would be rejected...
    p.settings.tls.verifyPeer = false; // ...but verification is off
    const ConnectionProfile saved = saveWithPassword(window, p, m_password);
    window.connectToProfile(saved);
    QTRY_COMPARE_WITH_TIMEOUT(window.serverBadge()->state(), ServerBadge::State::Connected, 15000);
    const QStringList marks = window.serverBadge()->marks();
    QVERIFY2(marks.contains(QStringLiteral("⚠ TLS UNVERIFIED")), qPrintable(marks.join(u',')));
    QVERIFY(!marks.contains(QStringLiteral("PRODUCTION")));
}

void TestProfileKeychain::switchingToAskRemovesTheKeychainEntry()
{
    NEED_KEYCHAIN();
    MainWindow window(noSandbox());
    ConnectionProfile saved = saveWithPassword(window, tlsProfile(QStringLiteral("prod")), m_password);
    saved.passwordStorage = ConnectionProfile::PasswordStorage::Ask;
    saved = saveWithPassword(window, saved, QString());
    QCOMPARE(saved.passwordStorage, ConnectionProfile::PasswordStorage::Ask);
    QTRY_COMPARE_WITH_TIMEOUT(window.credentials()->secrets()->readNow(saved.keychainKey()).status,
                              SecretStore::Status::NotFound, 10000);
}

void TestProfileKeychain::noPasswordInAnySettingsFile()
{
    // Whatever ran before (profiles saved, windows closed, geometry stored), no file holds the password.
    {
        MainWindow window(noSandbox());
        saveWithPassword(window, tlsProfile(QStringLiteral("last")), m_password);
        window.close();
    }
    const QString config = QStandardPaths::writableLocation(QStandardPaths::GenericConfigLocation);
    QDirIterator it(config, QDir::Files, QDirIterator::Subdirectories);
    int files = 0;
    while (it.hasNext()) {
        QFile f(it.next());
        QVERIFY(f.open(QIODevice::ReadOnly));
        QVERIFY2(!f.readAll().contains(m_password.toUtf8()), qPrintable(f.fileName()));
        struct stat st;
        QVERIFY(::stat(QFile::encodeName(f.fileName()).constData(), &st) == 0);
        QVERIFY2((st.st_mode & 0077) == 0,
                 qPrintable(f.fileName() + QStringLiteral(" is readable by others")));
        ++files;
    }
    QVERIFY2(files >= 2, "the profiles file and the window's settings file");
}

QTEST_MAIN(TestProfileKeychain)
#include "tst_profilekeychain.moc"
