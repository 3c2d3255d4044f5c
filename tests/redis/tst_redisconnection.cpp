// RedisConnection against real servers: commands, pipelining, binary keys, timeouts, auth, ACL users,
// the read-only guard, reconnects, pub/sub waits and interrupts.
#include "testsupport.h"
#include "sandboxfixture.h"

#include <QElapsedTimer>

#include <thread>

class TestRedisConnection : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void commandsAndReplyTypes();
    void serverErrorsAreValues();
    void pipelining();
    void streamingPipeline();
    void binaryKeysAndValues();
    void selectsTheDatabaseAndNamesTheClient();
    void connectionRefusedNamesHostAndPort();
    void badSettingsAreRefusedBeforeConnecting();
    void timeoutOnAPausedServer();
    void wrongPassword();
    void missingPassword();
    void passwordForAServerWithoutOne();
    void aclUser();
    void aUserLimitedToReadsConnects();
    void readOnlyGuardRefusesBeforeSending();
    void readOnlyGuardRefusesAWholePipeline();
    void reconnectsAfterRestart();
    void explicitReconnect();
    void pubSubWaitWithTimeout();
    void interruptFromAnotherThread();

private:
    SandboxFixture m_server;
};

void TestRedisConnection::initTestCase()
{
    LS_SANDBOX(m_server);
}

void TestRedisConnection::commandsAndReplyTypes()
{
    RedisConnection &c = m_server.admin();
    QCOMPARE(c.command({"SET", "t:str", "hello"}).reply, RedisReply::status("OK"));
    QCOMPARE(c.command({"GET", "t:str"}).reply, RedisReply::string("hello"));
    QVERIFY(c.command({"GET", "t:missing"}).reply.isNil());
    QCOMPARE(c.command({"INCR", "t:n"}).reply, RedisReply::integer(1));
    QCOMPARE(c.command({"HSET", "t:h", "a:1", "2"}).reply.toInteger(), 1);
    const RedisResult all = c.command({"HGETALL", "t:h"});
    QVERIFY(all.ok());
    QCOMPARE(all.reply, RedisReply::array({RedisReply::string("a:1"), RedisReply::string("2")}));
    QVERIFY(c.commandsSent() > 0);
    QVERIFY(c.clientId() > 0);
}

void TestRedisConnection::serverErrorsAreValues()
{
    RedisConnection &c = m_server.admin();
    QVERIFY(c.command({"HSET", "t:hash", "f", "v"}).ok());
    const RedisResult wrong = c.command({"GET", "t:hash"});
    QCOMPARE(wrong.error.code(), RedisError::Code::WrongType);
    QVERIFY(wrong.reply.isError());
    QVERIFY(wrong.error.message().startsWith(QLatin1String("WRONGTYPE")));
    QVERIFY(c.isOpen()); // a server error does not break the connection
    const RedisResult noscript = c.command({"EVALSHA", "0000000000000000000000000000000000000000", "0"});
    QCOMPARE(noscript.error.code(), RedisError::Code::NoScript);
    const RedisResult unknown = c.command({"NOSUCHCMD"});
    QCOMPARE(unknown.error.code(), RedisError::Code::Server);
    QVERIFY(unknown.error.message().contains(QLatin1String("unknown command")));
    QCOMPARE(c.command({}).error.code(), RedisError::Code::BadArgument);
    QVERIFY(c.command({"PING"}).ok());
}

void TestRedisConnection::pipelining()
{
    RedisConnection &c = m_server.admin();
    QList<RedisCommand> commands;
    for (int i = 0; i < 1000; ++i)
        commands.append(RedisCommand {"INCR", "t:pipe"});
    commands.append(
        RedisCommand {"GET", "t:hash"}); // WRONGTYPE in the middle of a pipeline stays local to its reply
    commands.append(RedisCommand {"GET", "t:pipe"});
    const QList<RedisResult> results = c.pipeline(commands);
    QCOMPARE(results.size(), 1002);
    for (int i = 0; i < 1000; ++i)
        QCOMPARE(results.at(i).reply.toInteger(), i + 1);
    QCOMPARE(results.at(1000).error.code(), RedisError::Code::WrongType);
    QCOMPARE(results.at(1001).reply.bytes(), QByteArray("1000"));
    QCOMPARE(c.pendingReplies(), 0);
}

void TestRedisConnection::streamingPipeline()
{
    RedisConnection &c = m_server.admin();
    for (int i = 0; i < 10; ++i)
        QVERIFY(!c.append({"RPUSH", "t:list", QByteArray::number(i)}));
    QCOMPARE(c.pendingReplies(), 10);
    // command() refuses to interleave with replies still owed, rather than mixing them up
    QCOMPARE(c.command({"PING"}).error.code(), RedisError::Code::BadArgument);
    for (int i = 0; i < 10; ++i)
        QCOMPARE(c.readReply().reply.toInteger(), i + 1);
    QCOMPARE(c.pendingReplies(), 0);
    QVERIFY(c.command({"PING"}).ok());
}

void TestRedisConnection::binaryKeysAndValues()
{
    RedisConnection &c = m_server.admin();
    const QByteArray key("lock:\x00\xff\r\n bin", 13);
    const QByteArray value("\x00\x01\x02 value \xfe", 12);
    QVERIFY(c.command({"SET", key, value}).ok());
    QCOMPARE(c.command({"GET", key}).reply.bytes(), value);
    QCOMPARE(c.command({"STRLEN", key}).reply.toInteger(), 12);
    const RedisResult scan = c.command({"SCAN", "0", "MATCH", "lock:*", "COUNT", "1000"});
    QVERIFY(scan.ok());
    bool found = false;
    for (const RedisReply &k : scan.reply.at(1).elements())
        found = found || k.bytes() == key;
    QVERIFY2(found, "the binary key must come back from SCAN byte for byte");
    QVERIFY(c.command({"SET", "", "empty key"}).ok());
    QCOMPARE(c.command({"GET", ""}).reply.bytes(), QByteArray("empty key"));
}

void TestRedisConnection::selectsTheDatabaseAndNamesTheClient()
{
    ConnectionSettings s = m_server.connectionSettings();
    s.db = 3;
    s.clientName = QStringLiteral("lockscope-test-db3");
    RedisConnection c(s);
    LS_OPEN(c);
    QVERIFY(c.command({"SET", "only-in-db3", "1"}).ok());
    QVERIFY(m_server.admin().command({"GET", "only-in-db3"}).reply.isNil());
    const QByteArray list = m_server.admin().command({"CLIENT", "LIST"}).reply.bytes();
    QVERIFY2(list.contains("name=lockscope-test-db3") && list.contains("db=3"), list.constData());

    s.db = 100000;
    RedisConnection outOfRange(s);
    const RedisError e = outOfRange.open();
    QCOMPARE(e.code(), RedisError::Code::BadSettings);
    QVERIFY2(e.message().contains(QLatin1String("Cannot select database 100000")), qPrintable(e.message()));
}

void TestRedisConnection::connectionRefusedNamesHostAndPort()
{
    ConnectionSettings s;
    s.port = LoopbackPorts::freePort();
    RedisConnection c(s);
    const RedisError e = c.open();
    QCOMPARE(e.code(), RedisError::Code::ConnectionRefused);
    QVERIFY2(e.message().contains(QStringLiteral("127.0.0.1:%1").arg(s.port)), qPrintable(e.message()));
    QVERIFY(!c.isOpen());
    QCOMPARE(c.command({"PING"}).error.code(), RedisError::Code::NotConnected);

    ConnectionSettings sock;
    sock.socketPath = QStringLiteral("/nonexistent/redis.sock");
    RedisConnection viaSocket(sock);
    const RedisError se = viaSocket.open();
    QVERIFY(se.breaksConnection());
    QVERIFY2(se.message().contains(QLatin1String("/nonexistent/redis.sock")), qPrintable(se.message()));
}

void TestRedisConnection::badSettingsAreRefusedBeforeConnecting()
{
    ConnectionSettings s = m_server.connectionSettings();
    s.port = 0;
    RedisConnection c(s);
    const RedisError e = c.open();
    QCOMPARE(e.code(), RedisError::Code::BadSettings);
    QVERIFY(e.message().contains(QLatin1String("1 to 65535")));
}

void TestRedisConnection::timeoutOnAPausedServer()
{
    SandboxServer server;
    LS_START(server);
    ConnectionSettings s = server.connectionSettings();
    s.commandTimeoutMs = 150;
    s.connectTimeoutMs = 150;
    RedisConnection c(s);
    LS_OPEN(c);
    QVERIFY(server.pause());
    const RedisResult r = c.command({"GET", "x"});
    QCOMPARE(r.error.code(), RedisError::Code::Timeout);
    QVERIFY2(r.error.message().contains(QLatin1String("within 150 ms")), qPrintable(r.error.message()));
    // Opening a connection to a paused server: the kernel accepts, the handshake times out.
    RedisConnection fresh(s);
    QCOMPARE(fresh.open().code(), RedisError::Code::Timeout);
    QVERIFY(server.resume());
    QVERIFY(c.command({"PING"}).ok());
}

void TestRedisConnection::wrongPassword()
{
    SandboxServer server(SandboxFixture::withPassword(QStringLiteral("right-password")));
    LS_START(server);
    ConnectionSettings s = server.connectionSettings();
    s.password = QStringLiteral("wrong-password");
    RedisConnection c(s);
    const RedisError e = c.open();
    QCOMPARE(e.code(), RedisError::Code::AuthFailed);
    QVERIFY2(e.message().contains(QLatin1String("Authentication failed"))
                 && e.message().contains(QLatin1String("rejected")),
             qPrintable(e.message()));
    QVERIFY(!e.message().contains(QLatin1String("wrong-password")));
    s.password = QStringLiteral("right-password");
    RedisConnection good(s);
    LS_OPEN(good);
}

void TestRedisConnection::missingPassword()
{
    SandboxServer server(SandboxFixture::withPassword(QStringLiteral("pw")));
    LS_START(server);
    RedisConnection c(server.connectionSettings());
    const RedisError e = c.open();
    QCOMPARE(e.code(), RedisError::Code::NoAuth);
    QVERIFY2(e.message().contains(QLatin1String("requires a password")), qPrintable(e.message()));
}

void TestRedisConnection::passwordForAServerWithoutOne()
{
    ConnectionSettings s = m_server.connectionSettings();
    s.password = QStringLiteral("unneeded");
    RedisConnection c(s);
    const RedisError e = c.open();
    QCOMPARE(e.code(), RedisError::Code::AuthFailed);
    QVERIFY2(e.message().contains(QLatin1String("no password set")), qPrintable(e.message()));
}

void TestRedisConnection::aclUser()
{
    SandboxFixture server;
    LS_SANDBOX(server);
    RedisConnection &admin = server.admin();
    QVERIFY(admin
                .command({"ACL", "SETUSER", "reader", "on", ">reader-pw", "~*", "&*", "+@read",
                          "+@connection", "+@pubsub", "-@write"})
                .ok());
    QVERIFY(admin.command({"SET", "k", "v"}).ok());

    ConnectionSettings s = server.connectionSettings();
    s.user = QStringLiteral("reader");
    s.password = QStringLiteral("reader-pw");
    s.readOnly = false; // let the server's ACL, not our guard, refuse the write here
    RedisConnection reader(s);
    LS_OPEN(reader);
    QCOMPARE(reader.command({"GET", "k"}).reply.bytes(), QByteArray("v"));
    const RedisResult denied = reader.command({"SET", "k", "w"});
    QCOMPARE(denied.error.code(), RedisError::Code::NoPermission);

    s.password = QStringLiteral("bad");
    RedisConnection badPassword(s);
    const RedisError e = badPassword.open();
    QCOMPARE(e.code(), RedisError::Code::AuthFailed);
    QVERIFY2(e.message().contains(QLatin1String("user 'reader'")), qPrintable(e.message()));
    s.user = QStringLiteral("nobody");
    RedisConnection unknownUser(s);
    QCOMPARE(unknownUser.open().code(), RedisError::Code::AuthFailed);
}

void TestRedisConnection::aUserLimitedToReadsConnects()
{
    // `+@read` alone: no CLIENT, no PING. The server still answers (with NOPERM), so it is there; the
    // connection opens and reads, and what it may not run stays refused, one command at a time.
    SandboxFixture server;
    LS_SANDBOX(server);
    RedisConnection &admin = server.admin();
    QVERIFY(admin.command({"ACL", "SETUSER", "reads-only", "on", ">pw", "~*", "+@read"}).ok());
    QVERIFY(admin.command({"SET", "k", "v"}).ok());
    ConnectionSettings s = server.connectionSettings();
    s.user = QStringLiteral("reads-only");
    s.password = QStringLiteral("pw");
    RedisConnection reader(s);
    LS_OPEN(reader);
    QCOMPARE(reader.clientId(), qint64(-1)); // CLIENT ID was refused: unknown, not a number
    QCOMPARE(reader.command({"GET", "k"}).reply.bytes(), QByteArray("v"));
    QCOMPARE(reader.command({"PING"}).error.code(), RedisError::Code::NoPermission);
    QVERIFY(reader.isOpen());
}

void TestRedisConnection::readOnlyGuardRefusesBeforeSending()
{
    SandboxFixture server;
    LS_SANDBOX(server);
    RedisConnection &admin = server.admin();
    QVERIFY(admin.command({"SET", "lock:a", "owner"}).ok());
    const qint64 setsBefore = TestSupport::commandCalls(admin, "set");
    const qint64 writesBefore = TestSupport::writeCommandCalls(admin);

    ConnectionSettings s = server.connectionSettings();
    s.readOnly = true;
    RedisConnection ro(s);
    LS_OPEN(ro);
    for (const RedisCommand &write :
         QList<RedisCommand> {{"SET", "lock:a", "x"},
                              {"DEL", "lock:a"},
                              {"EVAL", "return redis.call('del', KEYS[1])", "1", "lock:a"},
                              {"PEXPIRE", "lock:a", "1"},
                              {"FLUSHALL"},
                              {"PUBLISH", "ch", "0"},
                              {"CONFIG", "SET", "notify-keyspace-events", "KEA"}}) {
        const RedisResult r = ro.command(write);
        QCOMPARE(r.error.code(), RedisError::Code::ReadOnlyRefused);
        QVERIFY2(r.error.message().contains(QString::fromUtf8(write.first())), qPrintable(r.error.message()));
    }
    QCOMPARE(ro.command({"GET", "lock:a"}).reply.bytes(), QByteArray("owner"));
    QCOMPARE(TestSupport::commandCalls(admin, "set"), setsBefore);
    QCOMPARE(TestSupport::writeCommandCalls(admin), writesBefore);
    QCOMPARE(admin.command({"EXISTS", "lock:a"}).reply.toInteger(), 1);
}

void TestRedisConnection::readOnlyGuardRefusesAWholePipeline()
{
    ConnectionSettings s = m_server.connectionSettings();
    s.readOnly = true;
    RedisConnection ro(s);
    LS_OPEN(ro);
    const qint64 getsBefore = TestSupport::commandCalls(m_server.admin(), "get");
    const QList<RedisResult> results = ro.pipeline({{"GET", "a"}, {"DEL", "a"}, {"GET", "b"}});
    QCOMPARE(results.size(), 3);
    for (const RedisResult &r : results)
        QCOMPARE(r.error.code(), RedisError::Code::ReadOnlyRefused);
    QCOMPARE(TestSupport::commandCalls(m_server.admin(), "get"), getsBefore);
    QVERIFY(ro.append({"DEL", "a"}));
    QCOMPARE(ro.pendingReplies(), 0);
}

void TestRedisConnection::reconnectsAfterRestart()
{
    SandboxFixture server;
    LS_SANDBOX(server);
    RedisConnection &c = server.admin();
    QVERIFY(c.command({"SET", "k", "v"}).ok());
    QVERIFY(server.restart());
    // The old socket is dead: the first command reports it, the next one reconnects by itself.
    const RedisResult lost = c.command({"GET", "k"});
    QVERIFY2(lost.error.code() == RedisError::Code::ConnectionClosed, qPrintable(lost.error.message()));
    QVERIFY2(lost.error.message().contains(QLatin1String("closed the connection")),
             qPrintable(lost.error.message()));
    const RedisResult back = c.command({"GET", "k"});
    QVERIFY2(back.ok(), qPrintable(back.error.message()));
    QVERIFY(back.reply.isNil()); // restarted without persistence
}

void TestRedisConnection::explicitReconnect()
{
    SandboxServer server;
    LS_START(server);
    RedisConnection c(server.connectionSettings());
    c.setAutoReconnect(false);
    LS_OPEN(c);
    server.kill();
    QVERIFY(!c.command({"PING"}).ok());
    QCOMPARE(c.command({"PING"}).error.code(), RedisError::Code::NotConnected);
    QCOMPARE(c.reconnect().code(), RedisError::Code::ConnectionRefused);
    LS_START(server);
    QVERIFY(!c.reconnect());
    QVERIFY(c.command({"PING"}).ok());
    QVERIFY(c.clientId() > 0);
}

void TestRedisConnection::pubSubWaitWithTimeout()
{
    RedisConnection subscriber(m_server.connectionSettings());
    LS_OPEN(subscriber);
    QVERIFY(!subscriber.append({"SUBSCRIBE", "redisson_lock__channel:{t}"}));
    const RedisResult confirm = subscriber.readReply(2000);
    QVERIFY2(confirm.ok(), qPrintable(confirm.error.message()));
    QCOMPARE(confirm.reply.at(0).bytes(), QByteArray("subscribe"));
    // Nothing published: the wait ends with Timeout and the connection stays usable.
    const RedisResult none = subscriber.readReply(50);
    QCOMPARE(none.error.code(), RedisError::Code::Timeout);
    QVERIFY(subscriber.isOpen());
    QCOMPARE(m_server.admin().command({"PUBLISH", "redisson_lock__channel:{t}", "0"}).reply.toInteger(), 1);
    const RedisResult message = subscriber.readReply(2000);
    QVERIFY2(message.ok(), qPrintable(message.error.message()));
    QCOMPARE(message.reply,
             RedisReply::array({RedisReply::string("message"),
                                RedisReply::string("redisson_lock__channel:{t}"), RedisReply::string("0")}));
}

void TestRedisConnection::interruptFromAnotherThread()
{
    SandboxServer server;
    LS_START(server);
    ConnectionSettings s = server.connectionSettings();
    s.commandTimeoutMs = 60000;
    RedisConnection c(s);
    LS_OPEN(c);
    QVERIFY(server.pause());
    // Whether interrupt() lands before or during the blocked read, the command must end as Interrupted.
    std::thread interrupter([&c] {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        c.interrupt();
    });
    const RedisResult r = c.command({"PING"});
    interrupter.join();
    QCOMPARE(r.error.code(), RedisError::Code::Interrupted);
    QVERIFY(server.resume());
    QVERIFY(!c.open());
    QVERIFY(c.command({"PING"}).ok());
}

QTEST_GUILESS_MAIN(TestRedisConnection)
#include "tst_redisconnection.moc"
