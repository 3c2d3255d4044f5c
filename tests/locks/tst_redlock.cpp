// Redlock over real independent servers: quorum with servers killed and paused, per-server timeouts,
// release everywhere after a failed round, validity spent, the client clock-rate hook, extension, and the
// per-server results a caller can show.
#include "locktestsupport.h"

#include "locks/lockcatalog.h"
#include "locks/redlock.h"

#include <QScopeGuard>

#include <thread>

using namespace LockTest;

class TestRedlock : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void init();
    void quorumMath();
    void allServersGrant();
    void twoOfThreeIsAQuorum();
    void oneOfThreeFailsAndReleasesEverywhere();
    void pausedServerCostsOnlyItsTimeout();
    void anotherHolderOnTwoServersWins();
    void spentValidityIsRefused();
    void clockRateChangesValidity();
    void extend();
    void fiveServersTwoPaused();
    void quorumWithPausedServers_data();
    void quorumWithPausedServers();
    void serversRefusingEvalshaGetEval();

private:
    QList<SandboxServer *> servers(int n);
    std::unique_ptr<DistributedLock> make(LockClient &client, qint64 leaseMs, qint64 acquireTimeoutMs = 0);
    SandboxServer m_servers[5];
    std::unique_ptr<RedisConnection> m_admin[5];
};

void TestRedlock::initTestCase()
{
    for (int i = 0; i < 5; ++i) {
        LS_START(m_servers[i]);
        m_admin[i] = std::make_unique<RedisConnection>(m_servers[i].connectionSettings());
        LS_OPEN(*m_admin[i]);
    }
}

void TestRedlock::init()
{
    for (int i = 0; i < 5; ++i) {
        if (!m_servers[i].isRunning())
            QVERIFY2(m_servers[i].restart(), qPrintable(m_servers[i].errorString()));
        m_admin[i]->command({"PING"}); // a connection to a restarted server reconnects on the next command
        QVERIFY(m_admin[i]->command({"FLUSHALL"}).ok());
    }
}

QList<SandboxServer *> TestRedlock::servers(int n)
{
    QList<SandboxServer *> list;
    for (int i = 0; i < n; ++i)
        list << &m_servers[i];
    return list;
}

std::unique_ptr<DistributedLock> TestRedlock::make(LockClient &client, qint64 leaseMs,
                                                   qint64 acquireTimeoutMs)
{
    LockOptions o = LockCatalog::find(QStringLiteral("redlock"))->defaults;
    o.leaseMs = leaseMs;
    o.acquireTimeoutMs = acquireTimeoutMs;
    o.retryIntervalMs = 40;
    o.retryJitterMs = 20;
    return LockCatalog::create(QStringLiteral("redlock"), client, "t:red", 1, o);
}

void TestRedlock::quorumMath()
{
    QCOMPARE(Redlock::quorumFor(1), 1);
    QCOMPARE(Redlock::quorumFor(3), 2);
    QCOMPARE(Redlock::quorumFor(4), 3);
    QCOMPARE(Redlock::quorumFor(5), 3);
    LockClient client;
    auto lock = make(client, 10000);
    QCOMPARE(static_cast<Redlock *>(lock.get())->driftMs(10000), 102); // 10000 × 0.01 + 2
    QCOMPARE(static_cast<Redlock *>(lock.get())->driftMs(300), 5);
}

void TestRedlock::allServersGrant()
{
    LockClient client;
    QString error;
    Worker w = openWorker(servers(3), &error);
    auto lock = make(client, 10000);
    const AcquireResult r = lock->tryAcquire(w.servers);
    QVERIFY2(r.acquired(), qPrintable(r.describe()));
    QCOMPARE(r.votes.size(), 3);
    QCOMPARE(r.grantedCount(), 3);
    QCOMPARE(r.quorum, 2);
    QCOMPARE(r.commands, 3);
    QCOMPARE(r.validityMs, 10000 - r.elapsedMs - 102);
    QVERIFY(r.validityMs > 10000 - 102 - 1000);
    for (int i = 0; i < 3; ++i) {
        QCOMPARE(r.votes[i].server, m_servers[i].connectionSettings().endpoint());
        QVERIFY(r.votes[i].granted);
        QCOMPARE(r.votes[i].reply, RedisReply::status("OK"));
        QCOMPARE(get(*m_admin[i], "t:red"), r.token); // the same token everywhere
        QVERIFY(pttl(*m_admin[i], "t:red") > 9000);
    }
    const qint64 left = static_cast<Redlock *>(lock.get())->validityRemainingMs();
    QVERIFY(left > 0 && left <= r.validityMs);
    const ReleaseResult released = lock->release(w.servers);
    QCOMPARE(released.outcome, ReleaseResult::Outcome::Released);
    QCOMPARE(released.votes.size(), 3);
    for (int i = 0; i < 3; ++i) {
        QVERIFY(released.votes[i].granted);
        QVERIFY(!exists(*m_admin[i], "t:red"));
    }
}

void TestRedlock::twoOfThreeIsAQuorum()
{
    LockClient client;
    QString error;
    Worker w = openWorker(servers(3), &error);
    m_servers[2].kill();
    auto lock = make(client, 10000);
    const AcquireResult r = lock->tryAcquire(w.servers);
    QVERIFY2(r.acquired(), qPrintable(r.describe()));
    QCOMPARE(r.grantedCount(), 2);
    QVERIFY(r.votes[0].granted && r.votes[1].granted);
    QVERIFY(!r.votes[2].granted);
    QVERIFY2(r.votes[2].error, "the dead server's vote carries its error");
    const ReleaseResult released = lock->release(w.servers);
    QCOMPARE(released.outcome, ReleaseResult::Outcome::Released);
    QVERIFY(!exists(*m_admin[0], "t:red") && !exists(*m_admin[1], "t:red"));
}

void TestRedlock::oneOfThreeFailsAndReleasesEverywhere()
{
    LockClient client;
    QString error;
    Worker w = openWorker(servers(3), &error);
    m_servers[1].kill();
    m_servers[2].kill();
    Listener deletes(m_servers[0].connectionSettings());
    QVERIFY(m_admin[0]->command({"CONFIG", "SET", "notify-keyspace-events", "Kg$"}).ok());
    QVERIFY(deletes.psubscribe("__keyspace@0__:t:red"));
    auto lock = make(client, 10000);
    const AcquireResult r = lock->tryAcquire(w.servers);
    QCOMPARE(r.outcome, AcquireResult::Outcome::Refused);
    QCOMPARE(r.grantedCount(), 1);
    QVERIFY(r.votes[0].granted); // server 1 said yes...
    QVERIFY(!lock->isHeld());
    QVERIFY(!exists(*m_admin[0], "t:red")); // ...and got its key back at once
    QCOMPARE(deletes.drain(200),
             (QList<Message> {{"__keyspace@0__:t:red", "set"},
                              {"__keyspace@0__:t:red", "expire"},
                              {"__keyspace@0__:t:red", "del"}}));
    QVERIFY(m_admin[0]->command({"CONFIG", "SET", "notify-keyspace-events", ""}).ok());

    auto retrying = make(client, 10000, 300);
    const AcquireResult timedOut = retrying->acquire(w.servers);
    QCOMPARE(timedOut.outcome, AcquireResult::Outcome::TimedOut);
    QVERIFY(timedOut.attempts >= 2); // random delays of 40 ± 20 ms between rounds
    QVERIFY(!exists(*m_admin[0], "t:red"));
}

void TestRedlock::pausedServerCostsOnlyItsTimeout()
{
    LockClient client;
    QString error;
    Worker w = openWorker(servers(3), &error);
    QVERIFY(m_servers[2].pause());
    auto resume = qScopeGuard([&] { m_servers[2].resume(); });
    auto lock = make(client, 10000);
    const AcquireResult r = lock->tryAcquire(w.servers);
    QVERIFY2(r.acquired(), qPrintable(r.describe()));
    QCOMPARE(r.grantedCount(), 2);
    QCOMPARE(r.votes[2].error.code(), RedisError::Code::Timeout);
    QVERIFY2(r.votes[2].latencyUs < 1000 * 1000, qPrintable(QString::number(r.votes[2].latencyUs)));
    QVERIFY(r.endUs - r.startUs < 1000 * 1000);
    QCOMPARE(w.connections[2]->settings().commandTimeoutMs,
             m_servers[2].connectionSettings().commandTimeoutMs);
    const ReleaseResult released = lock->release(w.servers);
    QCOMPARE(released.outcome, ReleaseResult::Outcome::Released);
    QVERIFY(released.votes[2].error);
    resume.dismiss();
    QVERIFY(m_servers[2].resume());
    // The resumed server may still execute the SET that waited in its socket buffer: a late grant nobody
    // can take back, which only its lease ends. It carries our token and a TTL, never anything else.
    const QByteArray late = get(*m_admin[2], "t:red");
    QVERIFY(late.isEmpty() || (late == r.token && pttl(*m_admin[2], "t:red") <= 10000));
}

void TestRedlock::anotherHolderOnTwoServersWins()
{
    LockClient client;
    QString error;
    Worker w = openWorker(servers(3), &error);
    QVERIFY(m_admin[0]->command({"SET", "t:red", "someone-else", "PX", "10000"}).ok());
    QVERIFY(m_admin[1]->command({"SET", "t:red", "someone-else", "PX", "10000"}).ok());
    auto lock = make(client, 10000);
    const AcquireResult r = lock->tryAcquire(w.servers);
    QCOMPARE(r.outcome, AcquireResult::Outcome::Refused);
    QCOMPARE(r.grantedCount(), 1);
    QVERIFY(r.votes[0].reply.isNil() && r.votes[1].reply.isNil() && r.votes[2].granted);
    QCOMPARE(get(*m_admin[0], "t:red"), QByteArray("someone-else"));
    QCOMPARE(get(*m_admin[1], "t:red"), QByteArray("someone-else"));
    QVERIFY(!exists(*m_admin[2], "t:red")); // our lone vote was given back
    QCOMPARE(lock->release(w.servers).outcome, ReleaseResult::Outcome::NotOwner);
    QCOMPARE(get(*m_admin[0], "t:red"), QByteArray("someone-else"));
}

void TestRedlock::spentValidityIsRefused()
{
    LockClient client;
    std::atomic<int> replies = 0;
    FaultHooks slow;
    slow.afterReceive = [&](qint64, const RedisResult &) {
        if (replies++ == 0)
            std::this_thread::sleep_for(
                std::chrono::milliseconds(150)); // the round takes longer than the lease
    };
    client.setFaultHooks(slow);
    QString error;
    Worker w = openWorker(servers(3), &error);
    LockOptions o = LockCatalog::find(QStringLiteral("redlock"))->defaults;
    o.leaseMs = 100;
    o.acquireTimeoutMs = 0;
    o.serverTimeoutMs = 1000;
    auto lock = LockCatalog::create(QStringLiteral("redlock"), client, "t:red", 1, o);
    const AcquireResult r = lock->tryAcquire(w.servers);
    QCOMPARE(r.outcome, AcquireResult::Outcome::ValiditySpent);
    QCOMPARE(r.grantedCount(), 3); // every server said yes...
    QVERIFY(r.elapsedMs >= 150);
    QVERIFY(r.validityMs <= 0); // ...but nothing was left of the lease
    QVERIFY(!lock->isHeld());
    for (int i = 0; i < 3; ++i)
        QVERIFY(!exists(*m_admin[i], "t:red"));
}

void TestRedlock::clockRateChangesValidity()
{
    for (const double rate : {1.0, 0.5}) {
        LockClient::Options co;
        co.clockRate = rate;
        LockClient client(co);
        FaultHooks slow;
        slow.afterReceive
            = [](qint64, const RedisResult &) { std::this_thread::sleep_for(std::chrono::milliseconds(20)); };
        client.setFaultHooks(slow);
        QString error;
        Worker w = openWorker(servers(3), &error);
        LockOptions o = LockCatalog::find(QStringLiteral("redlock"))->defaults;
        o.leaseMs = 1000;
        o.acquireTimeoutMs = 0;
        o.serverTimeoutMs = 1000;
        auto lock = LockCatalog::create(QStringLiteral("redlock"), client, "t:red", 1, o);
        const AcquireResult r = lock->tryAcquire(w.servers);
        QVERIFY2(r.acquired(), qPrintable(r.describe()));
        QCOMPARE(r.validityMs, 1000 - r.elapsedMs - 12);
        const double realMs = double(r.endUs - r.startUs) / 1000.0;
        // The slow clock sees half of the (at least 60 ms) round: it believes in more validity than there is.
        QVERIFY2(r.elapsedMs >= qint64(60 * rate) - 1, qPrintable(QString::number(r.elapsedMs)));
        QVERIFY2(r.elapsedMs <= qint64(realMs * rate) + 1,
                 qPrintable(QStringLiteral("%1 %2").arg(r.elapsedMs).arg(realMs)));
        QVERIFY(lock->release(w.servers).ok());
    }
}

void TestRedlock::extend()
{
    LockClient client;
    QString error;
    Worker w = openWorker(servers(3), &error);
    auto lock = make(client, 300);
    QVERIFY(lock->tryAcquire(w.servers).acquired());
    const ExtendResult e = lock->extend(w.servers, 5000);
    QVERIFY2(e.ok(), qPrintable(e.describe()));
    QCOMPARE(e.votes.size(), 3);
    QVERIFY(e.validityMs > 4000);
    for (int i = 0; i < 3; ++i)
        QVERIFY(pttl(*m_admin[i], "t:red") > 4000);
    QVERIFY(static_cast<Redlock *>(lock.get())->validityRemainingMs() > 4000);
    for (int i = 0; i < 3; ++i)
        QVERIFY(m_admin[i]->command({"DEL", "t:red"}).ok());
    QCOMPARE(lock->extend(w.servers, 5000).outcome, ExtendResult::Outcome::Lost);
    QVERIFY(!lock->isHeld());
}

void TestRedlock::fiveServersTwoPaused()
{
    LockClient client;
    QString error;
    Worker w = openWorker(servers(5), &error);
    QVERIFY(m_servers[3].pause());
    QVERIFY(m_servers[4].pause());
    auto resume = qScopeGuard([&] {
        m_servers[3].resume();
        m_servers[4].resume();
    });
    auto lock = make(client, 10000);
    const AcquireResult r = lock->tryAcquire(w.servers);
    QVERIFY2(r.acquired(), qPrintable(r.describe()));
    QCOMPARE(r.quorum, 3);
    QCOMPARE(r.grantedCount(), 3);
    QVERIFY(lock->release(w.servers).ok());
}

void TestRedlock::quorumWithPausedServers_data()
{
    QTest::addColumn<int>("masters");
    QTest::addColumn<int>("paused");
    QTest::addColumn<bool>("acquired");
    QTest::newRow("3 masters, 1 paused: 2 votes, a quorum") << 3 << 1 << true;
    QTest::newRow("3 masters, 2 paused: 1 vote, no quorum") << 3 << 2 << false;
    QTest::newRow("5 masters, 2 paused: 3 votes, a quorum") << 5 << 2 << true;
    QTest::newRow("5 masters, 3 paused: 2 votes, no quorum") << 5 << 3 << false;
}

void TestRedlock::quorumWithPausedServers()
{
    QFETCH(int, masters);
    QFETCH(int, paused);
    QFETCH(bool, acquired);
    LockClient client;
    QString error;
    Worker w = openWorker(servers(masters), &error);
    QVERIFY2(!w.connections.empty(), qPrintable(error));
    // The last `paused` masters are frozen (SIGSTOP): they accept bytes and never answer.
    for (int i = masters - paused; i < masters; ++i)
        QVERIFY(m_servers[i].pause());
    auto resume = qScopeGuard([&] {
        for (int i = masters - paused; i < masters; ++i)
            m_servers[i].resume();
    });
    LockOptions o = LockCatalog::find(QStringLiteral("redlock"))->defaults;
    o.leaseMs = 10000;
    o.acquireTimeoutMs = 0;
    o.serverTimeoutMs = 40; // a frozen server costs 40 ms, not the connection's timeout
    auto lock = LockCatalog::create(QStringLiteral("redlock"), client, "t:red", 1, o);
    QList<AcquireResult> rounds;
    lock->setAttemptObserver([&](const AcquireResult &attempt) { rounds << attempt; });
    const AcquireResult r = lock->tryAcquire(w.servers);

    QCOMPARE(r.acquired(), acquired);
    QCOMPARE(r.quorum, masters / 2 + 1);
    QCOMPARE(r.grantedCount(), masters - paused);
    QCOMPARE(r.votes.size(), masters);
    for (int i = 0; i < masters; ++i) {
        const ServerVote &v = r.votes.at(i);
        QCOMPARE(v.server, m_servers[i].connectionSettings().endpoint());
        if (i < masters - paused) {
            QVERIFY2(v.granted, qPrintable(v.server)); // a live master says yes, won or lost
            QCOMPARE(v.reply, RedisReply::status("OK"));
        } else {
            QVERIFY(!v.granted);
            QCOMPARE(v.error.code(), RedisError::Code::Timeout);
            QVERIFY2(v.latencyUs < 500 * 1000, qPrintable(QString::number(v.latencyUs)));
        }
    }
    QVERIFY2(r.endUs - r.startUs < 1000 * 1000, qPrintable(QString::number(r.endUs - r.startUs)));
    // The observer saw that one round, with the same votes.
    QCOMPARE(rounds.size(), 1);
    QCOMPARE(rounds.first().grantedCount(), masters - paused);
    QCOMPARE(rounds.first().outcome, r.outcome);
    QCOMPARE(lock->isHeld(), acquired);
    for (int i = 0; i < masters - paused; ++i) {
        if (acquired) {
            QCOMPARE(get(*m_admin[i], "t:red"), r.token);
            QVERIFY(pttl(*m_admin[i], "t:red") > 9000);
        } else {
            QVERIFY2(!exists(*m_admin[i], "t:red"), "a lost round leaves nothing held on the live masters");
        }
    }
    if (acquired) {
        QVERIFY(r.validityMs > 9000);
        QCOMPARE(lock->release(w.servers).outcome, ReleaseResult::Outcome::Released);
        for (int i = 0; i < masters - paused; ++i)
            QVERIFY(!exists(*m_admin[i], "t:red"));
    } else {
        QCOMPARE(r.outcome, AcquireResult::Outcome::Refused);
    }
    resume.dismiss();
    for (int i = masters - paused; i < masters; ++i) {
        QVERIFY(m_servers[i].resume());
        // A thawed master may still run the SET that waited in its socket: a late grant with our token and a
        // TTL, which nobody can take back — only its lease ends it.
        const QByteArray late = get(*m_admin[i], "t:red");
        QVERIFY(late.isEmpty() || (late == r.token && pttl(*m_admin[i], "t:red") <= 10000));
    }
}

void TestRedlock::serversRefusingEvalshaGetEval()
{
    // Two of three servers do not let this user run EVALSHA (ACL): the release goes there as EVAL.
    std::vector<std::unique_ptr<RedisConnection>> connections;
    LockServers list;
    const auto dropUsers = qScopeGuard([this] {
        for (int i = 0; i < 2; ++i)
            m_admin[i]->command({"ACL", "DELUSER", "noevalsha"});
    });
    for (int i = 0; i < 3; ++i) {
        ConnectionSettings s = m_servers[i].connectionSettings();
        if (i < 2) {
            QVERIFY(m_admin[i]
                        ->command({"ACL", "SETUSER", "noevalsha", "reset", "on", ">pw", "~*", "&*", "+@all",
                                   "-evalsha"})
                        .ok());
            s.user = QStringLiteral("noevalsha");
            s.password = QStringLiteral("pw");
        }
        connections.push_back(std::make_unique<RedisConnection>(s));
        LS_OPEN(*connections.back());
        list << connections.back().get();
    }
    LockClient client;
    auto lock = make(client, 10000);
    for (const int expectedCommands : {5, 3}) { // EVALSHA everywhere, EVAL where refused; then EVAL at once
        QVERIFY(lock->tryAcquire(list).acquired());
        const ReleaseResult released = lock->release(list);
        QCOMPARE(released.outcome, ReleaseResult::Outcome::Released);
        QCOMPARE(released.commands, expectedCommands);
        for (int i = 0; i < 3; ++i) {
            QVERIFY2(released.votes[i].granted, qPrintable(released.votes[i].error.message()));
            QVERIFY(!exists(*m_admin[i], "t:red"));
        }
    }
    QVERIFY(list[0]->scriptsByEval() && list[1]->scriptsByEval());
    QVERIFY(!list[2]->scriptsByEval());
}

QTEST_GUILESS_MAIN(TestRedlock)
#include "tst_redlock.moc"
