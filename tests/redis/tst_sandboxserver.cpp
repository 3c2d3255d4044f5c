// SandboxServer: private servers start, answer, pause, restart empty, die with us, and say why they cannot
// start.
#include "testsupport.h"
#include "tlsfixture.h"
#include "sandboxfixture.h"

#include <QTemporaryDir>

#include <csignal>

class TestSandboxServer : public QObject
{
    Q_OBJECT
private slots:
    void startsAndAnswers();
    void twoSandboxesGetDifferentPorts();
    void pauseMakesClientsTimeOutAndResumeRecovers();
    void restartKeepsThePortAndLosesTheData();
    void killIsACrashForClients();
    void destructorLeavesNoProcess();
    void unixSocket();
    void aServerThatCannotStartSaysWhy_data();
    void aServerThatCannotStartSaysWhy();
    void extraConfigLinesApply();
    void tlsOnlySandbox();
    void tlsSandboxThatCannotBeProbedSaysWhy();
};

static bool processExists(qint64 pid)
{
    return pid > 0 && ::kill(pid_t(pid), 0) == 0;
}

void TestSandboxServer::startsAndAnswers()
{
    SandboxServer server;
    LS_START(server);
    QVERIFY(server.isRunning());
    QVERIFY(server.port() > 0);
    QVERIFY(processExists(server.pid()));
    RedisConnection c(server.connectionSettings());
    LS_OPEN(c);
    const RedisResult r = c.command({"PING"});
    QVERIFY(r.ok());
    QCOMPARE(r.reply.bytes(), QByteArray("PONG"));
    // Persistence is off: nothing a test writes may reach a disk.
    const RedisResult save = c.command({"CONFIG", "GET", "save"});
    QCOMPARE(save.reply.at(1).bytes(), QByteArray());
    QCOMPARE(c.command({"CONFIG", "GET", "appendonly"}).reply.at(1).bytes(), QByteArray("no"));
    QCOMPARE(c.command({"CONFIG", "GET", "bind"}).reply.at(1).bytes(), QByteArray("127.0.0.1"));
}

void TestSandboxServer::twoSandboxesGetDifferentPorts()
{
    SandboxServer a, b;
    LS_START(a);
    LS_START(b);
    QVERIFY(a.port() != b.port());
    QVERIFY(a.directory() != b.directory());
}

void TestSandboxServer::pauseMakesClientsTimeOutAndResumeRecovers()
{
    SandboxServer server;
    LS_START(server);
    ConnectionSettings s = server.connectionSettings();
    s.commandTimeoutMs = 200;
    RedisConnection c(s);
    LS_OPEN(c);
    QVERIFY(server.pause());
    QVERIFY(server.isPaused());
    const RedisResult r = c.command({"PING"});
    QCOMPARE(r.error.code(), RedisError::Code::Timeout);
    QVERIFY2(r.error.message().contains(QLatin1String("No reply from 127.0.0.1:")),
             qPrintable(r.error.message()));
    QVERIFY(!c.isOpen()); // a timed-out connection may still get the late reply: it is dropped
    QVERIFY(server.resume());
    QVERIFY(c.command({"PING"}).ok()); // reopened by itself
}

void TestSandboxServer::restartKeepsThePortAndLosesTheData()
{
    SandboxServer server;
    LS_START(server);
    const int port = server.port();
    const qint64 oldPid = server.pid();
    RedisConnection c(server.connectionSettings());
    LS_OPEN(c);
    QVERIFY(c.command({"SET", "lock", "A"}).ok());
    QVERIFY(server.restart());
    QCOMPARE(server.port(), port);
    QVERIFY(server.pid() != oldPid);
    QVERIFY(!processExists(oldPid));
    RedisConnection fresh(server.connectionSettings());
    LS_OPEN(fresh);
    QVERIFY(fresh.command({"GET", "lock"}).reply.isNil());
}

void TestSandboxServer::killIsACrashForClients()
{
    SandboxFixture server;
    LS_SANDBOX(server);
    RedisConnection &c = server.admin();
    c.setAutoReconnect(false);
    const qint64 pid = server.pid();
    server.kill();
    QVERIFY(!server.isRunning());
    QVERIFY(!processExists(pid));
    const RedisResult r = c.command({"PING"});
    QVERIFY(!r.ok());
    QVERIFY2(r.error.code() == RedisError::Code::ConnectionClosed, qPrintable(r.error.message()));
    const RedisResult again = c.command({"PING"});
    QCOMPARE(again.error.code(), RedisError::Code::NotConnected);
}

void TestSandboxServer::destructorLeavesNoProcess()
{
    qint64 pid = 0;
    QString dir;
    {
        SandboxServer server;
        LS_START(server);
        pid = server.pid();
        dir = server.directory();
        QVERIFY(QFileInfo::exists(dir));
    }
    QVERIFY(!processExists(pid));
    QVERIFY(!QFileInfo::exists(dir));
}

void TestSandboxServer::unixSocket()
{
    SandboxServer::Options options;
    options.unixSocket = true;
    SandboxServer server(options);
    LS_START(server);
    ConnectionSettings s;
    s.socketPath = server.socketPath();
    s.readOnly = false;
    RedisConnection c(s);
    LS_OPEN(c);
    QVERIFY(c.command({"SET", "k", "v"}).ok());
    QCOMPARE(c.command({"GET", "k"}).reply.bytes(), QByteArray("v"));
}

void TestSandboxServer::aServerThatCannotStartSaysWhy_data()
{
    QTest::addColumn<QString>("executable"); // empty: redis-server from PATH
    QTest::addColumn<QStringList>("configLines");
    QTest::addColumn<QStringList>("said"); // each of these is in the error
    QTest::newRow("missing executable: how to install")
        << QStringLiteral("/nonexistent/redis-server") << QStringList()
        << QStringList {QStringLiteral("apt-get install redis-server")};
    QTest::newRow("bad config: the server's own words")
        << QString() << QStringList {QStringLiteral("maxmemory-policy no-such-policy")}
        << QStringList {QStringLiteral("maxmemory-policy"), QStringLiteral("exited with code")};
}

void TestSandboxServer::aServerThatCannotStartSaysWhy()
{
    QFETCH(QString, executable);
    QFETCH(QStringList, configLines);
    QFETCH(QStringList, said);
    SandboxServer::Options options;
    options.executable = executable;
    options.configLines = configLines;
    SandboxServer server(options);
    QVERIFY(!server.start());
    for (const QString &words : said)
        QVERIFY2(server.errorString().contains(words), qPrintable(server.errorString()));
}

void TestSandboxServer::extraConfigLinesApply()
{
    SandboxServer::Options options;
    options.configLines << QStringLiteral("notify-keyspace-events KEA");
    SandboxServer server(options);
    LS_START(server);
    RedisConnection c(server.connectionSettings());
    LS_OPEN(c);
    const QByteArray flags = c.command({"CONFIG", "GET", "notify-keyspace-events"}).reply.at(1).bytes();
    QVERIFY2(flags.contains('K') && flags.contains('E'), flags.constData());
}

void TestSandboxServer::tlsOnlySandbox()
{
    TlsFixture certs;
    QVERIFY2(certs.create(), qPrintable(certs.errorString()));
    SandboxServer server(certs.sandboxOptions(true));
    LS_START(server); // readiness was probed over TLS, with the client certificate
    const ConnectionSettings s = server.connectionSettings();
    QVERIFY(s.tls.enabled);
    QCOMPARE(s.tls.caFile, certs.caFile());
    RedisConnection c(s);
    LS_OPEN(c);
    QCOMPARE(c.command({"CONFIG", "GET", "port"}).reply.at(1).bytes(), QByteArray("0"));
    QCOMPARE(c.command({"CONFIG", "GET", "tls-auth-clients"}).reply.at(1).bytes(), QByteArray("yes"));
    QVERIFY(server.restart()); // same port, still TLS
    QVERIFY(c.command({"PING"}).ok() || c.command({"PING"}).ok());
}

void TestSandboxServer::tlsSandboxThatCannotBeProbedSaysWhy()
{
    TlsFixture certs;
    QVERIFY2(certs.create(), qPrintable(certs.errorString()));
    SandboxServer::Options options = certs.sandboxOptions();
    options.tls->client.caFile = certs.otherCaFile();
    options.readyTimeoutMs = 600;
    SandboxServer server(options);
    QVERIFY(!server.start());
    QVERIFY2(server.errorString().contains(QLatin1String("was rejected")), qPrintable(server.errorString()));
}

QTEST_GUILESS_MAIN(TestSandboxServer)
#include "tst_sandboxserver.moc"
