// ConnectionOptions and ConnectionSettings: parsing, defaults, and errors that say what is allowed.
#include "connectionoptions.h"

#include <QCommandLineParser>
#include <QTest>

class TestConnectionOptions : public QObject
{
    Q_OBJECT
private slots:
    void defaultsAreReadOnlyLocalhost();
    void readsEveryOption();
    void passwordComesFromTheEnvironment();
    void rejectsBadValues_data();
    void rejectsBadValues();
    void settingsValidation();
    void endpointNeverShowsThePassword();
    void tlsOptions();
    void tlsOptionsImplyTls();
    void insecureIsWarnedAbout();
    void sshOptions();
    void sshDestinations_data();
    void sshDestinations();
    void clusterAndSentinelOptions();
    void sentinelLogin();
    void hostPortParsing();
    void serverOnThisMachine_data();
    void serverOnThisMachine();
};

static bool parse(const QStringList &args, ConnectionOptions *out, QString *error)
{
    QCommandLineParser parser;
    ConnectionOptions::addTo(parser);
    if (!parser.parse(QStringList {QStringLiteral("prog")} + args)) {
        *error = parser.errorText();
        return false;
    }
    return ConnectionOptions::read(parser, out, error);
}

void TestConnectionOptions::defaultsAreReadOnlyLocalhost()
{
    ConnectionOptions o;
    QString error;
    QVERIFY2(parse({}, &o, &error), qPrintable(error));
    QCOMPARE(o.settings.host, QStringLiteral("127.0.0.1"));
    QCOMPARE(o.settings.port, 6379);
    QVERIFY(o.settings.readOnly);
    QVERIFY(!o.sandbox);
    QVERIFY(!o.serverGiven);
}

void TestConnectionOptions::readsEveryOption()
{
    ConnectionOptions o;
    QString error;
    QVERIFY2(parse({"--host", "redis.example", "--port", "7000", "--db", "3", "--read-write", "--timeout",
                    "250", "--connect-timeout", "900"},
                   &o, &error),
             qPrintable(error));
    QCOMPARE(o.settings.host, QStringLiteral("redis.example"));
    QCOMPARE(o.settings.port, 7000);
    QCOMPARE(o.settings.db, 3);
    QCOMPARE(o.settings.commandTimeoutMs, 250);
    QCOMPARE(o.settings.connectTimeoutMs, 900);
    QVERIFY(!o.settings.readOnly);
    QVERIFY(o.serverGiven);

    QVERIFY(parse({"--socket", "/tmp/r.sock"}, &o, &error));
    QVERIFY(o.settings.usesSocket());
    QCOMPARE(o.settings.endpoint(), QStringLiteral("unix:/tmp/r.sock"));
    QVERIFY(parse({"--sandbox"}, &o, &error));
    QVERIFY(o.sandbox);
}

void TestConnectionOptions::passwordComesFromTheEnvironment()
{
    qputenv("LS_TEST_PASSWORD", "s3cret");
    ConnectionOptions o;
    QString error;
    QVERIFY2(parse({"--user", "alice", "--password-env", "LS_TEST_PASSWORD"}, &o, &error), qPrintable(error));
    QCOMPARE(o.settings.user, QStringLiteral("alice"));
    QCOMPARE(o.settings.password, QStringLiteral("s3cret"));
    qunsetenv("LS_TEST_PASSWORD_UNSET");
    QVERIFY(!parse({"--password-env", "LS_TEST_PASSWORD_UNSET"}, &o, &error));
    QVERIFY2(error.contains(QLatin1String("LS_TEST_PASSWORD_UNSET is not set")), qPrintable(error));
    QVERIFY(!parse({"--password", "x"}, &o, &error)); // there is no way to pass a password in argv
}

void TestConnectionOptions::rejectsBadValues_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("expected");
    QTest::newRow("port zero") << QStringList {"--port", "0"}
                               << "--port 0: expected a whole number from 1 to 65535";
    QTest::newRow("port text") << QStringList {"--port", "http"} << "--port http";
    QTest::newRow("db negative") << QStringList {"--db", "-1"} << "--db -1";
    QTest::newRow("timeout") << QStringList {"--timeout", "0"} << "--timeout 0";
    QTest::newRow("sandbox and host") << QStringList {"--sandbox", "--host", "x"} << "do not combine";
    QTest::newRow("user without password") << QStringList {"--user", "bob"} << "needs a password";
    QTest::newRow("missing CA file") << QStringList {"--cacert", "/nonexistent/ca.pem"} << "does not exist";
    QTest::newRow("cert without key") << QStringList {"--tls", "--cert", "/etc/hostname"} << "both files";
    QTest::newRow("tls over a socket") << QStringList {"--tls", "--socket", "/tmp/x.sock"} << "TCP only";
    QTest::newRow("sandbox with tls") << QStringList {"--sandbox", "--tls"} << "do not combine it with TLS";
    QTest::newRow("ssh key without ssh") << QStringList {"--ssh-identity", "/etc/hostname"} << "need --ssh";
    QTest::newRow("ssh bad port") << QStringList {"--ssh", "bastion:99999"} << "1 to 65535";
    QTest::newRow("ssh option injection")
        << QStringList {"--ssh", "-oProxyCommand=x"} << "must not start with";
}

void TestConnectionOptions::rejectsBadValues()
{
    QFETCH(QStringList, args);
    QFETCH(QString, expected);
    ConnectionOptions o;
    QString error;
    QVERIFY(!parse(args, &o, &error));
    QVERIFY2(error.contains(expected), qPrintable(error));
}

void TestConnectionOptions::settingsValidation()
{
    ConnectionSettings s;
    QVERIFY(s.validate().isEmpty());
    s.host = QStringLiteral("  ");
    QVERIFY(s.validate().contains(QLatin1String("host is empty")));
    s.host = QStringLiteral("::1");
    QCOMPARE(s.endpoint(), QStringLiteral("[::1]:6379"));
    s.port = 70000;
    QVERIFY(s.validate().contains(QLatin1String("1 to 65535")));
    s.port = 6379;
    s.clientName = QStringLiteral("has space");
    QVERIFY(!s.validate().isEmpty());
}

void TestConnectionOptions::endpointNeverShowsThePassword()
{
    ConnectionSettings s;
    s.user = QStringLiteral("alice");
    s.password = QStringLiteral("hunter2");
    QVERIFY(!s.endpoint().contains(QLatin1String("hunter2")));
    QVERIFY(!s.endpoint().contains(QLatin1String("alice")));
}

void TestConnectionOptions::tlsOptions()
{
    ConnectionOptions o;
    QString error;
    QVERIFY2(parse({}, &o, &error), qPrintable(error));
    QVERIFY(!o.settings.tls.enabled);
    QVERIFY(o.settings.tls.verifyPeer); // verification is on unless asked otherwise
    QVERIFY2(parse({"--host", "redis.example", "--tls", "--cacert", "/etc/hostname", "--cert",
                    "/etc/hostname", "--key", "/etc/hostname", "--sni", "redis.internal"},
                   &o, &error),
             qPrintable(error));
    QVERIFY(o.settings.tls.enabled);
    QVERIFY(o.settings.tls.verifyPeer);
    QCOMPARE(o.settings.tls.caFile, QStringLiteral("/etc/hostname"));
    QCOMPARE(o.settings.tls.certFile, QStringLiteral("/etc/hostname"));
    QCOMPARE(o.settings.tls.keyFile, QStringLiteral("/etc/hostname"));
    QCOMPARE(o.settings.tls.serverName, QStringLiteral("redis.internal"));
    QCOMPARE(o.settings.tlsName(), QStringLiteral("redis.internal"));
    QCOMPARE(o.settings.describe(), QStringLiteral("redis.example:6379 (TLS)"));
    QVERIFY(ConnectionOptions::securityWarning(o.settings).isEmpty());
}

void TestConnectionOptions::tlsOptionsImplyTls()
{
    for (const QStringList &args : {QStringList {"--cacert", "/etc/hostname"}, QStringList {"--sni", "x"},
                                    QStringList {"--insecure"}}) {
        ConnectionOptions o;
        QString error;
        QVERIFY2(parse(args, &o, &error), qPrintable(error));
        QVERIFY2(o.settings.tls.enabled, qPrintable(args.join(u' ')));
    }
}

void TestConnectionOptions::insecureIsWarnedAbout()
{
    ConnectionOptions o;
    QString error;
    QVERIFY2(parse({"--tls", "--insecure"}, &o, &error), qPrintable(error));
    QVERIFY(!o.settings.tls.verifyPeer);
    const QString warning = ConnectionOptions::securityWarning(o.settings);
    QVERIFY2(warning.startsWith(QLatin1String("warning: TLS certificate verification is OFF")),
             qPrintable(warning));
    QVERIFY(o.settings.describe().contains(QLatin1String("NOT verified")));
}

void TestConnectionOptions::sshOptions()
{
    ConnectionOptions o;
    QString error;
    QVERIFY2(parse({"--host", "10.0.0.5", "--ssh", "ops@bastion.example:2222", "--ssh-identity",
                    "/etc/hostname", "--ssh-jump", "jump.example", "--ssh-config", "/etc/hostname"},
                   &o, &error),
             qPrintable(error));
    QVERIFY(o.settings.ssh.enabled);
    QCOMPARE(o.settings.ssh.user, QStringLiteral("ops"));
    QCOMPARE(o.settings.ssh.host, QStringLiteral("bastion.example"));
    QCOMPARE(o.settings.ssh.port, 2222);
    QCOMPARE(o.settings.ssh.identityFile, QStringLiteral("/etc/hostname"));
    QCOMPARE(o.settings.ssh.jumpHosts, QStringLiteral("jump.example"));
    QCOMPARE(o.settings.ssh.configFile, QStringLiteral("/etc/hostname"));
    QCOMPARE(o.settings.describe(), QStringLiteral("10.0.0.5:6379 (via ssh ops@bastion.example:2222)"));
}

void TestConnectionOptions::sshDestinations_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("user");
    QTest::addColumn<QString>("host");
    QTest::addColumn<int>("port");
    QTest::newRow("host") << "bastion"
                          << ""
                          << "bastion" << 0;
    QTest::newRow("user@host") << "ops@bastion"
                               << "ops"
                               << "bastion" << 0;
    QTest::newRow("host:port") << "bastion:22"
                               << ""
                               << "bastion" << 22;
    QTest::newRow("ipv6") << "ops@[fd00::1]:2200"
                          << "ops"
                          << "fd00::1" << 2200;
    QTest::newRow("bare ipv6") << "fd00::1"
                               << ""
                               << "fd00::1" << 0;
    QTest::newRow("at in user") << "ops@corp@bastion"
                                << "ops@corp"
                                << "bastion" << 0;
}

void TestConnectionOptions::sshDestinations()
{
    QFETCH(QString, text);
    QFETCH(QString, user);
    QFETCH(QString, host);
    QFETCH(int, port);
    ConnectionSettings::Ssh ssh;
    QString error;
    QVERIFY2(ConnectionOptions::parseSshDestination(text, &ssh, &error), qPrintable(error));
    QCOMPARE(ssh.user, user);
    QCOMPARE(ssh.host, host);
    QCOMPARE(ssh.port, port);
    QVERIFY(!ConnectionOptions::parseSshDestination(QStringLiteral("@bastion"), &ssh, &error));
    QVERIFY(!ConnectionOptions::parseSshDestination(QStringLiteral("[fd00::1"), &ssh, &error));
}

void TestConnectionOptions::clusterAndSentinelOptions()
{
    ConnectionOptions o;
    QString error;
    QVERIFY2(parse({"--cluster", "10.0.0.5:7000"}, &o, &error), qPrintable(error));
    QVERIFY(o.settings.cluster);
    QVERIFY(o.serverGiven);
    QCOMPARE(o.settings.host, QStringLiteral("10.0.0.5"));
    QCOMPARE(o.settings.port, 7000);
    QVERIFY(o.settings.readOnly);
    QCOMPARE(o.settings.describe(), QStringLiteral("cluster via 10.0.0.5:7000"));

    QVERIFY2(parse({"--sentinel", "s1:26379", "--sentinel", "[::1]:26380", "--master", "orders"}, &o, &error),
             qPrintable(error));
    QCOMPARE(o.settings.sentinel.nodes, (QStringList {"s1:26379", "[::1]:26380"}));
    QCOMPARE(o.settings.sentinel.masterName, QStringLiteral("orders"));
    QVERIFY(!o.settings.cluster);
    QVERIFY(o.settings.describe().startsWith(QLatin1String("master 'orders' via sentinel s1:26379")));
    // Without --master the CLI lists the names: parsing accepts it, the settings alone do not.
    QVERIFY2(parse({"--sentinel", "s1:26379"}, &o, &error), qPrintable(error));
    QVERIFY(o.settings.validate().contains(QLatin1String("--master")));

    for (const QStringList &bad :
         {QStringList {"--cluster", "nohost"}, QStringList {"--cluster", "h:0"},
          QStringList {"--cluster", "h:1", "--host", "x"}, QStringList {"--cluster", "h:1", "--sandbox"},
          QStringList {"--cluster", "h:1", "--sentinel", "s:2"}, QStringList {"--master", "m"},
          QStringList {"--sentinel", "s"}, QStringList {"--cluster", "h:1", "--db", "2"},
          QStringList {"--sentinel", "s:1", "--master", "m", "--socket", "/tmp/x"}}) {
        QVERIFY2(!parse(bad, &o, &error), qPrintable(bad.join(u' ')));
        QVERIFY(!error.isEmpty());
    }
}

void TestConnectionOptions::sentinelLogin()
{
    // The sentinels' own login comes from its own variable and never becomes the data nodes' login.
    ConnectionOptions o;
    QString error;
    qputenv("LS_TEST_SENTINEL_PASSWORD", "sentinel-secret");
    QVERIFY2(parse({"--sentinel", "s1:26379", "--master", "m", "--sentinel-user", "watcher",
                    "--sentinel-password-env", "LS_TEST_SENTINEL_PASSWORD"},
                   &o, &error),
             qPrintable(error));
    QCOMPARE(o.settings.sentinel.user, QStringLiteral("watcher"));
    QCOMPARE(o.settings.sentinel.password, QStringLiteral("sentinel-secret"));
    QVERIFY(o.settings.password.isEmpty());
    QVERIFY(o.settings.user.isEmpty());
    QVERIFY(!o.settings.describe().contains(QLatin1String("sentinel-secret")));

    qunsetenv("LS_TEST_SENTINEL_UNSET");
    const QList<QPair<QStringList, QString>> bad {
        {{"--sentinel", "s1:26379", "--master", "m", "--sentinel-password-env", "LS_TEST_SENTINEL_UNSET"},
         QStringLiteral("LS_TEST_SENTINEL_UNSET is not set")},
        {{"--sentinel", "s1:26379", "--master", "m", "--sentinel-user", "watcher"},
         QStringLiteral("--sentinel-user watcher needs a password")},
        {{"--host", "h", "--sentinel-password-env", "LS_TEST_SENTINEL_PASSWORD"},
         QStringLiteral("give --sentinel host:port too")},
    };
    for (const auto &[arguments, expected] : bad) {
        QVERIFY2(!parse(arguments, &o, &error), qPrintable(arguments.join(u' ')));
        QVERIFY2(error.contains(expected), qPrintable(error));
    }
    qunsetenv("LS_TEST_SENTINEL_PASSWORD");
}

void TestConnectionOptions::hostPortParsing()
{
    QString host;
    int port = 0;
    QVERIFY(ConnectionSettings::parseHostPort(QStringLiteral("127.0.0.1:7000"), &host, &port));
    QCOMPARE(host, QStringLiteral("127.0.0.1"));
    QCOMPARE(port, 7000);
    QVERIFY(ConnectionSettings::parseHostPort(QStringLiteral("[fe80::1]:26379"), &host, &port));
    QCOMPARE(host, QStringLiteral("fe80::1"));
    QCOMPARE(port, 26379);
    for (const char *bad : {"", "host", "host:", ":1", "host:65536", "host:x", "fe80::1:5", "[::1]"})
        QVERIFY2(!ConnectionSettings::parseHostPort(QString::fromLatin1(bad), &host, &port), bad);
}

void TestConnectionOptions::serverOnThisMachine_data()
{
    QTest::addColumn<QString>("host");
    QTest::addColumn<QString>("socket");
    QTest::addColumn<bool>("viaSsh");
    QTest::addColumn<bool>("viaSentinel");
    QTest::addColumn<bool>("here");
    QTest::newRow("127.0.0.1") << "127.0.0.1" << "" << false << false << true;
    QTest::newRow("127.0.0.2") << "127.0.0.2" << "" << false << false << true;
    QTest::newRow("localhost") << "localhost" << "" << false << false << true;
    QTest::newRow("::1") << "::1" << "" << false << false << true;
    QTest::newRow("unix socket") << "redis.example" << "/run/redis.sock" << false << false << true;
    QTest::newRow("remote host") << "redis.example" << "" << false << false << false;
    QTest::newRow("remote address") << "10.0.0.7" << "" << false << false << false;
    // The tunnel's local end is on loopback; the server is where the bastion says.
    QTest::newRow("loopback through ssh") << "127.0.0.1" << "" << true << false << false;
    QTest::newRow("through sentinel") << "127.0.0.1" << "" << false << true << false;
}

void TestConnectionOptions::serverOnThisMachine()
{
    QFETCH(QString, host);
    QFETCH(QString, socket);
    QFETCH(bool, viaSsh);
    QFETCH(bool, viaSentinel);
    ConnectionSettings s;
    s.host = host;
    s.socketPath = socket;
    s.ssh.enabled = viaSsh;
    s.ssh.host = QStringLiteral("bastion.example");
    if (viaSentinel) {
        s.sentinel.nodes = {QStringLiteral("127.0.0.1:26379")};
        s.sentinel.masterName = QStringLiteral("mymaster");
    }
    QTEST(s.onThisMachine(), "here");
}

QTEST_GUILESS_MAIN(TestConnectionOptions)
#include "tst_connectionoptions.moc"
