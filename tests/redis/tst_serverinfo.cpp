// ServerInfo: what the status bar shows, read from a real server with read-only commands.
#include "redis/serverinfo.h"
#include "sandboxfixture.h"
#include "testsupport.h"

class TestServerInfo : public QObject
{
    Q_OBJECT
private slots:
    void describesAStandaloneServer();
    void worksOnAReadOnlyConnection();
    void reportsALostServer();
};

void TestServerInfo::describesAStandaloneServer()
{
    SandboxFixture server;
    LS_SANDBOX(server);
    RedisConnection &c = server.admin();
    for (int i = 0; i < 5; ++i)
        QVERIFY(c.command({"SET", "k" + QByteArray::number(i), "v"}).ok());
    RedisError error;
    const ServerInfo info = ServerInfo::fetch(c, &error);
    QVERIFY2(!error, qPrintable(error.message()));
    const QByteArray serverSection = c.command({"INFO", "server"}).reply.bytes();
    QVERIFY2(serverSection.contains("redis_version:" + info.version.toUtf8()), qPrintable(info.version));
    QCOMPARE(info.mode, QStringLiteral("standalone"));
    QCOMPARE(info.role, QStringLiteral("master"));
    QCOMPARE(info.keys, 5);
    QCOMPARE(info.db, 0);
    QVERIFY(info.roundTripMs >= 0);
    QCOMPARE(info.clientId, c.clientId());
    QCOMPARE(info.endpoint, server.connectionSettings().endpoint());
    QVERIFY(!info.readOnly);
    QCOMPARE(info.summary(), QStringLiteral("Redis %1 · standalone · db 0 · 5 keys").arg(info.version));
}

void TestServerInfo::worksOnAReadOnlyConnection()
{
    SandboxFixture server;
    LS_SANDBOX(server);
    RedisConnection &admin = server.admin();
    QVERIFY(admin
                .command({"ACL", "SETUSER", "viewer", "on", ">pw", "~*", "&*", "-@all", "+@read",
                          "+@connection", "+@pubsub", "+info"})
                .ok());
    const qint64 writesBefore = TestSupport::writeCommandCalls(admin);
    ConnectionSettings s = server.connectionSettings();
    s.readOnly = true;
    s.user = QStringLiteral("viewer");
    s.password = QStringLiteral("pw");
    RedisConnection c(s);
    LS_OPEN(c);
    RedisError error;
    const ServerInfo info = ServerInfo::fetch(c, &error);
    QVERIFY2(!error, qPrintable(error.message()));
    QVERIFY(info.isValid());
    QVERIFY(info.readOnly);
    QCOMPARE(info.keys, 0);
    QCOMPARE(TestSupport::writeCommandCalls(admin), writesBefore);
}

void TestServerInfo::reportsALostServer()
{
    SandboxFixture server;
    LS_SANDBOX(server);
    RedisConnection &c = server.admin();
    c.setAutoReconnect(false);
    server.kill();
    RedisError error;
    const ServerInfo info = ServerInfo::fetch(c, &error);
    QVERIFY(!info.isValid());
    QVERIFY(error.breaksConnection());
}

QTEST_GUILESS_MAIN(TestServerInfo)
#include "tst_serverinfo.moc"
