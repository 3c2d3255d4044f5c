// ConnectionProfile: its JSON form carries everything but the password, reads INI-typed values back, and
// validation says what is wrong.
#include "profiles/connectionprofile.h"

#include <QJsonDocument>
#include <QTest>

class TestConnectionProfile : public QObject
{
    Q_OBJECT
private slots:
    void newProfilesAreReadOnly();
    void jsonRoundTripWithoutPassword();
    void readsStringTypedValues();
    void validation_data();
    void validation();
    void summary();
};

static ConnectionProfile fullProfile()
{
    ConnectionProfile p = ConnectionProfile::create(QStringLiteral("prod-eu"));
    ConnectionSettings &s = p.settings;
    s.host = QStringLiteral("redis.prod.internal");
    s.port = 6380;
    s.user = QStringLiteral("oncall");
    s.password = QStringLiteral("never-in-json-4b1d");
    s.db = 2;
    s.connectTimeoutMs = 4000;
    s.commandTimeoutMs = 2500;
    s.readOnly = true;
    s.tls.enabled = true;
    s.tls.caFile = QStringLiteral("/etc/ssl/redis-ca.pem");
    s.tls.certFile = QStringLiteral("/home/me/redis.crt");
    s.tls.keyFile = QStringLiteral("/home/me/redis.key");
    s.tls.serverName = QStringLiteral("redis.prod");
    s.ssh.enabled = true;
    s.ssh.host = QStringLiteral("bastion.prod");
    s.ssh.port = 2222;
    s.ssh.user = QStringLiteral("me");
    s.ssh.identityFile = QStringLiteral("/home/me/.ssh/id_ed25519");
    s.ssh.jumpHosts = QStringLiteral("jump.corp");
    s.ssh.configFile = QStringLiteral("/home/me/.ssh/config");
    p.passwordStorage = ConnectionProfile::PasswordStorage::Keychain;
    p.color = QStringLiteral("#dc2626");
    p.production = true;
    p.lockPatterns = {QStringLiteral("lock:*"), QStringLiteral("{orders}:lock:*")};
    p.scanCount = 500;
    p.scanMaxOps = 5000;
    return p;
}

void TestConnectionProfile::newProfilesAreReadOnly()
{
    const ConnectionProfile p = ConnectionProfile::create(QStringLiteral("x"));
    QVERIFY(p.settings.readOnly);
    QVERIFY(p.settings.tls.verifyPeer);
    QVERIFY(!p.production);
    QCOMPARE(p.id.size(), 36);
    QVERIFY(p.id != ConnectionProfile::create(QStringLiteral("x")).id);
    QCOMPARE(p.keychainKey(), QStringLiteral("profile/") + p.id);
    QString error;
    QVERIFY(ConnectionProfile::fromJson(QJsonObject {{"name", "bare"}}, &error).settings.readOnly);
}

void TestConnectionProfile::jsonRoundTripWithoutPassword()
{
    const ConnectionProfile p = fullProfile();
    const QJsonObject json = p.toJson();
    const QByteArray text = QJsonDocument(json).toJson();
    QVERIFY2(!text.contains("never-in-json-4b1d"), text.constData());
    QString error;
    ConnectionProfile back = ConnectionProfile::fromJson(json, &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    ConnectionProfile expected = p;
    expected.settings.password.clear();
    QCOMPARE(back, expected);
}

void TestConnectionProfile::readsStringTypedValues()
{
    const QJsonObject ini {{"name", "from-ini"},
                           {"port", "7001"},
                           {"readOnly", "false"},
                           {"production", "true"},
                           {"scanCount", "1000"},
                           {"passwordStorage", "ask"},
                           {"tls", QJsonObject {{"enabled", "true"}, {"verifyPeer", "false"}}}};
    QString error;
    const ConnectionProfile p = ConnectionProfile::fromJson(ini, &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QCOMPARE(p.settings.port, 7001);
    QVERIFY(!p.settings.readOnly);
    QVERIFY(p.production);
    QCOMPARE(p.scanCount, 1000);
    QCOMPARE(p.passwordStorage, ConnectionProfile::PasswordStorage::Ask);
    QVERIFY(p.settings.tls.enabled);
    QVERIFY(!p.settings.tls.verifyPeer);
    ConnectionProfile::fromJson(QJsonObject {{"name", "x"}, {"passwordStorage", "plaintext"}}, &error);
    QVERIFY2(error.contains(QLatin1String("unknown password storage")), qPrintable(error));
    ConnectionProfile::fromJson(QJsonObject {}, &error);
    QVERIFY2(error.contains(QLatin1String("no name")), qPrintable(error));
}

void TestConnectionProfile::validation_data()
{
    QTest::addColumn<QString>("change");
    QTest::addColumn<QString>("expected");
    QTest::newRow("ok") << ""
                        << "";
    QTest::newRow("no name") << "name"
                             << "give the profile a name";
    QTest::newRow("colour") << "color"
                            << "#rrggbb";
    QTest::newRow("scan count") << "scan"
                                << "SCAN COUNT 5 is out of range";
    QTest::newRow("empty pattern") << "pattern"
                                   << "must not be empty";
    QTest::newRow("user without storage") << "user"
                                          << "needs a password";
    QTest::newRow("bad port") << "port"
                              << "out of range";
    QTest::newRow("negative budget") << "budget"
                                     << "commands per second is out of range";
}

void TestConnectionProfile::validation()
{
    QFETCH(QString, change);
    QFETCH(QString, expected);
    ConnectionProfile p = ConnectionProfile::create(QStringLiteral("v"));
    p.settings.user = QStringLiteral("ops");
    p.passwordStorage = ConnectionProfile::PasswordStorage::Ask; // the password is not in the profile: fine
    if (change == QLatin1String("name"))
        p.name = QStringLiteral("  ");
    else if (change == QLatin1String("color"))
        p.color = QStringLiteral("red");
    else if (change == QLatin1String("scan"))
        p.scanCount = 5;
    else if (change == QLatin1String("budget"))
        p.scanMaxOps = -1;
    else if (change == QLatin1String("pattern"))
        p.lockPatterns = {QStringLiteral("lock:*"), QStringLiteral(" ")};
    else if (change == QLatin1String("user"))
        p.passwordStorage = ConnectionProfile::PasswordStorage::None;
    else if (change == QLatin1String("port"))
        p.settings.port = 0;
    const QString problem = p.validate();
    if (expected.isEmpty())
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
    else
        QVERIFY2(problem.contains(expected), qPrintable(problem));
}

void TestConnectionProfile::summary()
{
    QCOMPARE(fullProfile().summary(),
             QStringLiteral("oncall@redis.prod.internal:6380 (TLS, via ssh me@bastion.prod:2222)"));
}

QTEST_GUILESS_MAIN(TestConnectionProfile)
#include "tst_connectionprofile.moc"
