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

QTEST_GUILESS_MAIN(TestConnectionOptions)
#include "tst_connectionoptions.moc"
