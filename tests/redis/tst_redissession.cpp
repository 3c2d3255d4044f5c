// RedisSession: the GUI's non-blocking connection; every result arrives as a signal on the caller's thread.
#include "redis/redissession.h"
#include "testsupport.h"

#include <QSignalSpy>

class TestRedisSession : public QObject
{
    Q_OBJECT
private slots:
    void opensAndReportsInfo();
    void failsWithAClearMessage();
    void runsCommandsWithCallbacks();
    void losesAndRegainsTheServer();
    void newerOpenSupersedesOlder();
    void destroyingDuringAPausedCommandDoesNotHang();
};

void TestRedisSession::opensAndReportsInfo()
{
    SandboxServer server;
    LS_START(server);
    RedisSession session;
    QSignalSpy opened(&session, &RedisSession::opened);
    QSignalSpy opening(&session, &RedisSession::opening);
    session.open(server.connectionSettings());
    QCOMPARE(opening.count(), 1);
    QVERIFY(session.isBusy());
    QVERIFY(opened.wait(10000));
    QVERIFY(session.isOpen());
    QVERIFY(!session.isBusy());
    const auto info = opened.at(0).at(0).value<ServerInfo>();
    QCOMPARE(info.mode, QStringLiteral("standalone"));
    QCOMPARE(session.info().version, info.version);
}

void TestRedisSession::failsWithAClearMessage()
{
    RedisSession session;
    QSignalSpy failed(&session, &RedisSession::failed);
    ConnectionSettings s;
    s.port = LoopbackPorts::freePort();
    session.open(s);
    QVERIFY(failed.wait(10000));
    const auto error = failed.at(0).at(0).value<RedisError>();
    QCOMPARE(error.code(), RedisError::Code::ConnectionRefused);
    QVERIFY(error.message().contains(QString::number(s.port)));
    QVERIFY(!session.isOpen());
}

void TestRedisSession::runsCommandsWithCallbacks()
{
    SandboxServer server;
    LS_START(server);
    RedisSession session;
    QSignalSpy opened(&session, &RedisSession::opened);
    session.open(server.connectionSettings());
    QVERIFY(opened.wait(10000));
    QList<RedisResult> results;
    QObject context;
    session.run({"SET", "k", "v"}, &context, [&](const RedisResult &r) { results << r; });
    session.run({"GET", "k"}, &context, [&](const RedisResult &r) { results << r; });
    QTRY_COMPARE_WITH_TIMEOUT(results.size(), 2, 10000);
    QCOMPARE(results.at(1).reply.bytes(), QByteArray("v"));

    // A callback whose context died before the result arrived is dropped, not called on a dangling object.
    bool called = false;
    auto *gone = new QObject;
    session.run({"PING"}, gone, [&](const RedisResult &) { called = true; });
    delete gone;
    session.run({"PING"}, &context, [&](const RedisResult &r) { results << r; });
    QTRY_COMPARE_WITH_TIMEOUT(results.size(), 3, 10000);
    QVERIFY(!called);
}

void TestRedisSession::losesAndRegainsTheServer()
{
    SandboxServer server;
    LS_START(server);
    RedisSession session;
    QSignalSpy opened(&session, &RedisSession::opened);
    QSignalSpy lost(&session, &RedisSession::connectionLost);
    session.open(server.connectionSettings());
    QVERIFY(opened.wait(10000));
    server.kill();
    session.refreshInfo();
    QVERIFY(lost.wait(10000));
    QVERIFY(!session.isOpen());
    LS_START(server); // same port
    session.refreshInfo();
    QVERIFY(opened.wait(10000));
    QVERIFY(session.isOpen());
    QCOMPARE(opened.count(), 2);
}

void TestRedisSession::newerOpenSupersedesOlder()
{
    SandboxServer a, b;
    LS_START(a);
    LS_START(b);
    RedisSession session;
    QSignalSpy opened(&session, &RedisSession::opened);
    session.open(a.connectionSettings());
    session.open(b.connectionSettings());
    // Jobs run in order: once this later command has answered, any result of open(a) has arrived too.
    bool answered = false;
    QObject context;
    session.run({"PING"}, &context, [&](const RedisResult &) { answered = true; });
    QTRY_VERIFY_WITH_TIMEOUT(answered, 10000);
    QCOMPARE(opened.count(), 1);
    QCOMPARE(session.info().endpoint, b.connectionSettings().endpoint());
}

void TestRedisSession::destroyingDuringAPausedCommandDoesNotHang()
{
    SandboxServer server;
    LS_START(server);
    ConnectionSettings s = server.connectionSettings();
    s.commandTimeoutMs = 60000;
    auto session = std::make_unique<RedisSession>();
    QSignalSpy opened(session.get(), &RedisSession::opened);
    session->open(s);
    QVERIFY(opened.wait(10000));
    QVERIFY(server.pause());
    QObject context;
    session->run({"PING"}, &context, [](const RedisResult &) {});
    QElapsedTimer timer;
    timer.start();
    session.reset(); // must interrupt the blocked command instead of waiting out its 60 s timeout
    QVERIFY2(timer.elapsed() < 30000, "the session destructor waited for the command timeout");
    QVERIFY(server.resume());
}

QTEST_GUILESS_MAIN(TestRedisSession)
#include "tst_redissession.moc"
