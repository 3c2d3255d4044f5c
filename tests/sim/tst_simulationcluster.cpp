// Simulations on a real Redis Cluster (3 cluster-enabled redis-servers): locks spread over every master,
// Redisson companions in their lock's slot, a slot resharded in the middle of a run, the sandbox cluster of
// a scenario, and what a cluster cannot run (Redlock). Pub/sub waiters listen sharded (SSUBSCRIBE, SPUBLISH)
// on a Redis 7 cluster, as Redisson >= 3.22 does, or the classic way when the scenario asks.
#include "locks/lockcatalog.h"
#include "redis/clusterslot.h"
#include "redis/sandboxcluster.h"
#include "sim/scenarioparser.h"
#include "simtestsupport.h"
#include "testsupport.h"

#include <QSet>

using SimTest::parse;

class TestSimulationCluster : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void locksOnEveryMasterWithoutViolations_data();
    void locksOnEveryMasterWithoutViolations();
    void companionsLiveInTheLocksSlot_data();
    void companionsLiveInTheLocksSlot();
    void reshardingMidRunIsSurvived();
    void pubsubWaitersListenAsRedissonDoesOnRedis7_data();
    void pubsubWaitersListenAsRedissonDoesOnRedis7();
    void sandboxClusterOfAScenario();
    void redlockOnAClusterIsRefused();

private:
    QByteArray idOf(int master);
    int masterOfKey(const QByteArray &key);
    RedisResult ask(int master, const RedisCommand &args);
    qint64 scriptCalls(int master);

    std::unique_ptr<SandboxCluster> m_cluster;
};

void TestSimulationCluster::initTestCase()
{
    m_cluster = std::make_unique<SandboxCluster>();
    LS_START(*m_cluster);
}

RedisResult TestSimulationCluster::ask(int master, const RedisCommand &args)
{
    RedisConnection c(m_cluster->master(master).connectionSettings());
    if (const RedisError e = c.open())
        return RedisResult::failure(e);
    return c.command(args);
}

QByteArray TestSimulationCluster::idOf(int master)
{
    return ask(master, {"CLUSTER", "MYID"}).reply.bytes();
}

int TestSimulationCluster::masterOfKey(const QByteArray &key)
{
    RedisError error;
    const ClusterSlotMap map = m_cluster->slotMap(&error);
    const ClusterSlotMap::Node *owner = map.masterOfKey(key);
    for (int i = 0; owner && i < m_cluster->masterCount(); ++i) {
        if (m_cluster->master(i).port() == owner->port)
            return i;
    }
    return -1;
}

qint64 TestSimulationCluster::scriptCalls(int master)
{
    RedisConnection c(m_cluster->master(master).connectionSettings());
    if (c.open())
        return -1;
    return TestSupport::commandCalls(c, "evalsha") + TestSupport::commandCalls(c, "eval");
}

void TestSimulationCluster::locksOnEveryMasterWithoutViolations_data()
{
    QTest::addColumn<QString>("algorithm");
    QTest::newRow("set-nx-px-lua") << QStringLiteral("set-nx-px-lua");
    QTest::newRow("redisson-reentrant") << QStringLiteral("redisson-reentrant");
    QTest::newRow("redisson-fair") << QStringLiteral("redisson-fair");
}

void TestSimulationCluster::locksOnEveryMasterWithoutViolations()
{
    QFETCH(QString, algorithm);
    // Three locks, one on each master: the first key prefix (in a fixed order) whose lock keys spread so.
    QByteArray prefix;
    for (int n = 0; n < 1000 && prefix.isEmpty(); ++n) {
        const QByteArray candidate = "lockscope:sim:" + algorithm.toUtf8() + QByteArray::number(n) + ":";
        QSet<int> masters;
        for (int i = 0; i < 3; ++i)
            masters << masterOfKey(candidate + "lock:" + QByteArray::number(i));
        if (masters.size() == 3)
            prefix = candidate;
    }
    QVERIFY(!prefix.isEmpty());

    QList<qint64> before;
    for (int m = 0; m < 3; ++m)
        before << scriptCalls(m);
    // Worker w uses lock w % 3: two workers (of different processes) contend for each lock.
    const Scenario scenario = parse(
        R"({"lockscope_scenario": 1, "id": "t", "title": "t",
        "algorithm": {"id": ")"
        + algorithm.toUtf8() + R"(", "lease_ms": 2000, "retry": {"strategy": "fixed", "interval_ms": 2}},
        "workload": {"processes": 2, "threads_per_process": 3, "locks": 3, "lock_choice": "own",
                     "duration_s": 20, "operations": 25, "key_prefix": ")"
        + prefix + R"(", "critical_section": {"distribution": "uniform", "min_ms": 0.2, "max_ms": 1}},
        "resource": {"counter": true, "counter_initial": 10000}})");
    Simulation::Options options;
    options.server = m_cluster->seedSettings(); // --cluster 127.0.0.1:PORT --read-write
    Simulation sim(scenario, options);
    sim.start();
    QVERIFY(sim.waitFinished(60000));
    QVERIFY2(sim.state() == Simulation::State::Finished, qPrintable(sim.errorString()));
    const RunReport r = sim.report();
    QCOMPARE(r.metrics.cycles, 6 * 25);
    QCOMPARE(r.safety.violations(), 0);
    QVERIFY(r.safety.counterObserved);
    QCOMPARE(r.safety.counterActual, r.safety.counterExpected);
    QVERIFY2(r.server.startsWith(QLatin1String("cluster ")), qPrintable(r.server));
    // Every master ran the releases of its lock (a script in every algorithm here): 2 workers × 25 cycles.
    for (int m = 0; m < 3; ++m)
        QVERIFY2(scriptCalls(m) - before.at(m) >= 50, qPrintable(QStringLiteral("master %1").arg(m)));
}

void TestSimulationCluster::pubsubWaitersListenAsRedissonDoesOnRedis7_data()
{
    QTest::addColumn<QString>("algorithm");
    QTest::addColumn<QString>("pubsub"); // the scenario's algorithm.retry.pubsub
    QTest::addColumn<bool>("sharded"); // what must reach the server
    QTest::newRow("reentrant, auto") << QStringLiteral("redisson-reentrant") << QStringLiteral("auto")
                                     << true;
    QTest::newRow("fair, auto") << QStringLiteral("redisson-fair") << QStringLiteral("auto") << true;
    QTest::newRow("rw, auto") << QStringLiteral("redisson-rw") << QStringLiteral("auto") << true;
    QTest::newRow("reentrant, classic")
        << QStringLiteral("redisson-reentrant") << QStringLiteral("classic") << false;
}

void TestSimulationCluster::pubsubWaitersListenAsRedissonDoesOnRedis7()
{
    QFETCH(QString, algorithm);
    QFETCH(QString, pubsub);
    QFETCH(bool, sharded);
    const QByteArray prefix = "lockscope:sim:pubsub:" + algorithm.toUtf8() + pubsub.toUtf8() + ":";
    const int owner = masterOfKey(prefix + "lock:0");
    QVERIFY(owner >= 0);
    auto calls = [&](const char *command) {
        RedisConnection c(m_cluster->master(owner).connectionSettings());
        return c.open() ? -1 : TestSupport::commandCalls(c, command);
    };
    const char *commands[] = {"ssubscribe", "spublish", "subscribe", "publish"};
    QList<qint64> before;
    for (const char *command : commands)
        before << calls(command);
    // Four workers of two processes hand one lock round; a waiter that were not woken by the release's
    // message would sleep out the holder's 30 s lease, and the 60 cycles would not fit in the run's 25 s.
    const Scenario scenario = parse(
        R"({"lockscope_scenario": 1, "id": "t", "title": "t",
        "algorithm": {"id": ")"
        + algorithm.toUtf8() + R"(", "lease_ms": 30000, "watchdog": true, "acquire_timeout_ms": 20000,
                      "retry": {"strategy": "pubsub", "pubsub": ")"
        + pubsub.toUtf8() + R"("}},
        "workload": {"processes": 2, "threads_per_process": 2, "locks": 1, "duration_s": 25, "operations": 15,
                     "key_prefix": ")"
        + prefix + R"(", "critical_section": {"ms": 1}}})");
    Simulation::Options options;
    options.server = m_cluster->seedSettings();
    Simulation sim(scenario, options);
    sim.start();
    QVERIFY(sim.waitFinished(60000));
    QVERIFY2(sim.state() == Simulation::State::Finished, qPrintable(sim.errorString()));
    const RunReport r = sim.report();
    QCOMPARE(r.metrics.cycles, 4 * 15);
    QCOMPARE(r.safety.violations(), 0);
    QCOMPARE(r.pubSub, sharded ? QStringLiteral("sharded") : QStringLiteral("classic"));
    QList<qint64> delta;
    for (int i = 0; i < 4; ++i)
        delta << calls(commands[i]) - before.at(i);
    const QString seen = QStringLiteral("SSUBSCRIBE %1, SPUBLISH %2, SUBSCRIBE %3, PUBLISH %4")
                             .arg(delta[0])
                             .arg(delta[1])
                             .arg(delta[2])
                             .arg(delta[3]);
    if (sharded)
        QVERIFY2(delta[0] > 0 && delta[1] > 0 && delta[2] == 0 && delta[3] == 0, qPrintable(seen));
    else
        QVERIFY2(delta[0] == 0 && delta[1] == 0 && delta[2] > 0 && delta[3] > 0, qPrintable(seen));
}

void TestSimulationCluster::companionsLiveInTheLocksSlot_data()
{
    QTest::addColumn<QString>("algorithm");
    QTest::newRow("redisson-reentrant") << QStringLiteral("redisson-reentrant");
    QTest::newRow("redisson-fair") << QStringLiteral("redisson-fair");
    QTest::newRow("redisson-rw") << QStringLiteral("redisson-rw");
    QTest::newRow("fenced") << QStringLiteral("fenced");
}

void TestSimulationCluster::companionsLiveInTheLocksSlot()
{
    QFETCH(QString, algorithm);
    LockClient client;
    const QByteArray name = "lockscope:sim:lock:3";
    const auto lock = LockCatalog::create(algorithm, client, name, 1, LockOptions());
    QVERIFY(lock);
    RedisConnection c(m_cluster->master(0).connectionSettings());
    LS_OPEN(c);
    const qint64 slot = c.command({"CLUSTER", "KEYSLOT", name}).reply.toInteger();
    QCOMPARE(slot, qint64(ClusterSlot::of(name)));
    QList<QByteArray> companions = lock->keys();
    if (!lock->waitChannel().isEmpty())
        companions << lock->waitChannel(); // sharded pub/sub would route it by slot too
    QVERIFY(companions.size() >= 2);
    for (const QByteArray &key : std::as_const(companions)) {
        const RedisResult r = c.command({"CLUSTER", "KEYSLOT", key});
        QVERIFY2(r.ok(), qPrintable(r.error.message()));
        QVERIFY2(r.reply.toInteger() == slot, key.constData());
    }
}

void TestSimulationCluster::reshardingMidRunIsSurvived()
{
    const QByteArray prefix = "lockscope:sim:reshard:";
    const QByteArray key = prefix + "lock:0";
    const int slot = ClusterSlot::of(key);
    const int from = masterOfKey(key);
    const int to = (from + 1) % 3;
    QVERIFY(from >= 0);
    const Scenario scenario = parse(R"({"lockscope_scenario": 1, "id": "t", "title": "t",
        "algorithm": {"id": "set-nx-px-lua", "lease_ms": 2000, "retry": {"strategy": "fixed", "interval_ms": 2}},
        "workload": {"processes": 2, "threads_per_process": 2, "duration_s": 30, "key_prefix": ")"
                                    + prefix + R"(",
                     "critical_section": {"distribution": "uniform", "min_ms": 0.2, "max_ms": 1}},
        "resource": {"counter": true, "counter_initial": 100000}})");
    Simulation::Options options;
    options.server = m_cluster->seedSettings();
    Simulation sim(scenario, options);
    sim.start();
    QTRY_VERIFY_WITH_TIMEOUT(sim.history() && sim.history()->size() > 100, 20000);

    // Move the lock's slot to another master, as redis-cli --cluster reshard does: IMPORTING/MIGRATING,
    // the keys over with MIGRATE (new keys meanwhile get ASK), then every master learns the new owner.
    const QByteArray s = QByteArray::number(slot);
    QVERIFY(ask(to, {"CLUSTER", "SETSLOT", s, "IMPORTING", idOf(from)}).ok());
    QVERIFY(ask(from, {"CLUSTER", "SETSLOT", s, "MIGRATING", idOf(to)}).ok());
    for (int round = 0; round < 50; ++round) {
        const RedisResult keys = ask(from, {"CLUSTER", "GETKEYSINSLOT", s, "100"});
        QVERIFY(keys.ok());
        if (keys.reply.size() == 0)
            break;
        RedisCommand migrate {"MIGRATE", "127.0.0.1", QByteArray::number(m_cluster->master(to).port()),
                              "",        "0",         "5000",
                              "KEYS"};
        for (const RedisReply &k : keys.reply.elements())
            migrate << k.bytes();
        const RedisResult moved = ask(from, migrate);
        QVERIFY2(moved.ok(), qPrintable(moved.error.message()));
    }
    for (int m : {to, from, 3 - to - from})
        QVERIFY(ask(m, {"CLUSTER", "SETSLOT", s, "NODE", idOf(to)}).ok());
    QTRY_COMPARE_WITH_TIMEOUT(masterOfKey(key), to, 5000);

    // The workers carry on against the new owner.
    const qint64 atMove = scriptCalls(to);
    QTRY_VERIFY_WITH_TIMEOUT(scriptCalls(to) - atMove > 100, 15000);
    sim.requestStop();
    QVERIFY(sim.waitFinished(20000));
    QCOMPARE(sim.state(), Simulation::State::Finished);
    const RunReport r = sim.report();
    QCOMPARE(r.safety.violations(), 0);
    QCOMPARE(r.safety.counterActual, r.safety.counterExpected);
    // The redirections are in the history as the failed operations they were.
    int redirected = 0;
    for (const HistoryEvent &e : sim.history()->events()) {
        const QByteArray detail = sim.history()->text(e);
        if (detail.contains("MOVED") || detail.contains("ASK")) {
            QVERIFY(e.phase == HistoryEvent::Phase::Info || e.phase == HistoryEvent::Phase::Fail);
            ++redirected;
        }
    }
    QVERIFY(redirected > 0);
}

void TestSimulationCluster::sandboxClusterOfAScenario()
{
    Simulation sim(parse(R"({"lockscope_scenario": 1, "id": "t", "title": "t",
        "servers": {"cluster": true},
        "algorithm": {"id": "redisson-reentrant", "lease_ms": 2000, "retry": {"strategy": "pubsub"}},
        "workload": {"processes": 2, "threads_per_process": 2, "locks": 4, "duration_s": 20, "operations": 20,
                     "critical_section": {"distribution": "uniform", "min_ms": 0.2, "max_ms": 1}},
        "resource": {"counter": true}})"));
    sim.start();
    QVERIFY(sim.waitFinished(60000));
    QVERIFY2(sim.state() == Simulation::State::Finished, qPrintable(sim.errorString()));
    const RunReport r = sim.report();
    QVERIFY2(r.server.startsWith(QLatin1String("sandbox cluster ")), qPrintable(r.server));
    QCOMPARE(r.server.count(u','), 2); // three masters
    QCOMPARE(r.metrics.cycles, 4 * 20);
    QCOMPARE(r.safety.violations(), 0);
    QCOMPARE(r.safety.counterActual, r.safety.counterExpected);
}

void TestSimulationCluster::redlockOnAClusterIsRefused()
{
    Scenario scenario;
    QStringList errors;
    QVERIFY(!ScenarioParser().parse(R"({"lockscope_scenario": 1, "id": "t", "title": "t",
        "servers": {"cluster": true}, "algorithm": {"id": "redlock"}})",
                                    &scenario, &errors));
    QVERIFY2(errors.join(u'\n').contains(QLatin1String("algorithm.id: redlock needs independent masters")),
             qPrintable(errors.join(u'\n')));

    // A cluster given by the user: the run refuses before touching it.
    Simulation::Options options;
    options.server = m_cluster->seedSettings();
    Simulation sim(parse(R"({"lockscope_scenario": 1, "id": "t", "title": "t",
        "algorithm": {"id": "redlock", "lease_ms": 2000}, "workload": {"duration_s": 1}})"),
                   options);
    sim.start();
    QVERIFY(sim.waitFinished(20000));
    QCOMPARE(sim.state(), Simulation::State::Failed);
    QVERIFY2(sim.errorString().contains(QLatin1String("algorithm.id: redlock")),
             qPrintable(sim.errorString()));
}

QTEST_GUILESS_MAIN(TestSimulationCluster)
#include "tst_simulationcluster.moc"
