// Secrets stay secret: with every debug log category on, the password given to the CLI (through the
// environment, the only way it accepts one) appears in no argument list, no log line, no error message and
// no exported file — also when it is wrong, and also through an SSH-less, TLS-less plain connection where
// nothing else would hide it.
#include "testsupport.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QTemporaryDir>

namespace {

const QString kPassword = QStringLiteral("pw-Zq7-secret-4e1b");
const QString kWrong = QStringLiteral("pw-wrong-9d0c-secret");

QProcessEnvironment loudEnvironment(const QString &password)
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("LS_SECRET"), password);
    env.insert(QStringLiteral("QT_LOGGING_RULES"), QStringLiteral("lockscope.*.debug=true"));
    return env;
}

} // namespace

class TestSecrets : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void noPasswordInOutputLogsOrFiles_data();
    void noPasswordInOutputLogsOrFiles();
    void wrongPasswordIsNotEchoed();
    void noPasswordInTheArgumentList();
    void passwordOnTheCommandLineIsRefused();

private:
    SandboxServer m_server;
    QTemporaryDir m_dir;
};

void TestSecrets::initTestCase()
{
    LS_START(m_server);
    RedisConnection admin(m_server.connectionSettings());
    LS_OPEN(admin);
    QVERIFY(
        admin.command({"ACL", "SETUSER", "sim", "on", ">" + kPassword.toUtf8(), "~*", "&*", "+@all"}).ok());
}

void TestSecrets::noPasswordInOutputLogsOrFiles_data()
{
    QTest::addColumn<QStringList>("args");
    const QString port = QString::number(m_server.port());
    const QStringList login {"--port", port, "--user", "sim", "--password-env", "LS_SECRET"};
    QTest::newRow("ping") << QStringList {"ping"} + login;
    QTest::newRow("inspect") << QStringList {"inspect", "--json"} + login;
    QTest::newRow("simulate with exports") << QStringList {"simulate",
                                                           "--preset",
                                                           "seed-redisson-reentrant",
                                                           "--read-write",
                                                           "--duration",
                                                           "0.5",
                                                           "--json",
                                                           m_dir.filePath(QStringLiteral("report.json")),
                                                           "--events",
                                                           m_dir.filePath(QStringLiteral("events.csv"))}
            + login;
    QTest::newRow("lock") << QStringList {"lock",         "--algorithm", "set-nx-px-lua",
                                          "--read-write", "--hold-ms",   "100"}
            + login;
}

void TestSecrets::noPasswordInOutputLogsOrFiles()
{
    QFETCH(QStringList, args);
    const auto r = TestSupport::run(TestSupport::cliPath(), args, loudEnvironment(kPassword), 60000);
    QVERIFY(r.finished);
    QVERIFY2(r.exitCode == 0 || r.exitCode == 3, qPrintable(QString::number(r.exitCode) + r.err));
    QVERIFY2(r.err.contains(QLatin1String("AUTH")),
             "debug logging was not on (the AUTH command is logged by name)");
    QVERIFY(!r.out.contains(kPassword));
    QVERIFY(!r.err.contains(kPassword));
    // Every file the command wrote (the exports asked for must exist, or this proves nothing).
    for (const QString &a : std::as_const(args)) {
        if (a.startsWith(m_dir.path()))
            QVERIFY2(QFileInfo(a).size() > 100, qPrintable(a));
    }
    QDirIterator it(m_dir.path(), QDir::Files);
    while (it.hasNext()) {
        QFile f(it.next());
        QVERIFY(f.open(QIODevice::ReadOnly));
        QVERIFY2(!f.readAll().contains(kPassword.toUtf8()), qPrintable(f.fileName()));
    }
}

void TestSecrets::wrongPasswordIsNotEchoed()
{
    for (const QString &command : {QStringLiteral("ping"), QStringLiteral("inspect")}) {
        const auto r = TestSupport::run(TestSupport::cliPath(),
                                        {command, "--port", QString::number(m_server.port()), "--user", "sim",
                                         "--password-env", "LS_SECRET"},
                                        loudEnvironment(kWrong));
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(QLatin1String("Authentication failed")), qPrintable(r.err));
        QVERIFY(!r.err.contains(kWrong));
        QVERIFY(!r.out.contains(kWrong));
    }
}

void TestSecrets::noPasswordInTheArgumentList()
{
    // What `ps` shows every user of the machine: the CLI's argv, read while it runs.
    QProcess cli;
    cli.setProcessEnvironment(loudEnvironment(kPassword));
    cli.start(TestSupport::cliPath(),
              {"inspect", "--watch", "--port", QString::number(m_server.port()), "--user", "sim",
               "--password-env", "LS_SECRET"});
    QVERIFY(cli.waitForStarted());
    QByteArray err;
    // Connected and scanning: the debug log shows the first SCAN.
    QTRY_VERIFY_WITH_TIMEOUT((err += cli.readAllStandardError()).contains("SCAN"), 15000);
    QFile cmdline(QStringLiteral("/proc/%1/cmdline").arg(cli.processId()));
    QVERIFY(cmdline.open(QIODevice::ReadOnly));
    const QByteArray argv = cmdline.readAll();
    QVERIFY(argv.contains("LS_SECRET"));
    QVERIFY(!argv.contains(kPassword.toUtf8()));
    cli.terminate();
    QVERIFY(cli.waitForFinished(10000));
    QVERIFY(!(err + cli.readAll()).contains(kPassword.toUtf8()));
}

void TestSecrets::passwordOnTheCommandLineIsRefused()
{
    const auto r
        = TestSupport::run(TestSupport::cliPath(),
                           {"ping", "--port", QString::number(m_server.port()), "--password", kPassword});
    QCOMPARE(r.exitCode, 2);
    QVERIFY(!r.err.contains(kPassword) || r.err.contains(QLatin1String("Unknown option")));
}

QTEST_GUILESS_MAIN(TestSecrets)
#include "tst_secrets.moc"
