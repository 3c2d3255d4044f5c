// ClusterConnection and SandboxCluster on a real 3-master cluster (one replica each) started once for this
// executable: routing by slot, MOVED after resharding a slot, ASK during a migration, the read-only guard.
#include "redis/clusterconnection.h"
#include "redis/clusterslot.h"
#include "redis/sandboxcluster.h"
#include "testsupport.h"

class TestClusterConnection : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void theSandboxIsAClusterOfThreeMastersWithReplicas();
    void routesEveryKeyToTheMasterOfItsSlot();
    void evalIsRoutedByItsFirstKey();
    void followsMovedAfterASlotIsResharded();
    void followsAskDuringAMigration();
    void readOnlyConnectionFollowsAskToo();
    void refusesANodeThatIsNotInACluster();
    void keyOfFindsTheRoutingKey();

private:
    // Moves `slot` (and its keys) to master `to`, as redis-cli --cluster reshard does; `finish` false stops
    // half-way (slot MIGRATING/IMPORTING, keys moved) for ASK.
    void moveSlot(int slot, int to, bool finish = true);
    QByteArray idOf(int master);
    int masterIndexOfSlot(int slot);
    QByteArray keyInSlotOf(int master, const QByteArray &prefix);

    std::unique_ptr<SandboxCluster> m_cluster;
};

static RedisResult ask(SandboxServer &node, const RedisCommand &args)
{
    RedisConnection c(node.connectionSettings());
    if (const RedisError e = c.open())
        return RedisResult::failure(e);
    return c.command(args);
}

void TestClusterConnection::initTestCase()
{
    SandboxCluster::Options options;
    options.replicasPerMaster = 1;
    m_cluster = std::make_unique<SandboxCluster>(options);
    LS_START(*m_cluster);
}

QByteArray TestClusterConnection::idOf(int master)
{
    return ask(m_cluster->master(master), {"CLUSTER", "MYID"}).reply.bytes();
}

int TestClusterConnection::masterIndexOfSlot(int slot)
{
    RedisError error;
    const ClusterSlotMap map = m_cluster->slotMap(&error);
    const ClusterSlotMap::Node *owner = map.masterOf(slot);
    for (int i = 0; owner && i < m_cluster->masterCount(); ++i) {
        if (m_cluster->master(i).port() == owner->port)
            return i;
    }
    return -1;
}

QByteArray TestClusterConnection::keyInSlotOf(int master, const QByteArray &prefix)
{
    for (int n = 0; n < 10000; ++n) {
        const QByteArray key = prefix + QByteArray::number(n);
        if (masterIndexOfSlot(ClusterSlot::of(key)) == master)
            return key;
    }
    return {};
}

void TestClusterConnection::moveSlot(int slot, int to, bool finish)
{
    const int from = masterIndexOfSlot(slot);
    QVERIFY(from >= 0 && from != to);
    const QByteArray s = QByteArray::number(slot);
    SandboxServer &source = m_cluster->master(from);
    SandboxServer &target = m_cluster->master(to);
    QVERIFY(ask(target, {"CLUSTER", "SETSLOT", s, "IMPORTING", idOf(from)}).ok());
    QVERIFY(ask(source, {"CLUSTER", "SETSLOT", s, "MIGRATING", idOf(to)}).ok());
    const RedisResult keys = ask(source, {"CLUSTER", "GETKEYSINSLOT", s, "1000"});
    QVERIFY(keys.ok());
    if (keys.reply.size() > 0) {
        RedisCommand migrate {"MIGRATE", "127.0.0.1", QByteArray::number(target.port()), "", "0",
                              "5000",    "KEYS"};
        for (const RedisReply &k : keys.reply.elements())
            migrate << k.bytes();
        const RedisResult r = ask(source, migrate);
        QVERIFY2(r.ok(), qPrintable(r.error.message()));
    }
    if (!finish)
        return;
    for (int i = 0; i < m_cluster->masterCount(); ++i)
        QVERIFY(ask(m_cluster->master(i), {"CLUSTER", "SETSLOT", s, "NODE", idOf(to)}).ok());
    // Every master agrees before the test goes on (the epoch bump spreads by gossip).
    QTRY_COMPARE_WITH_TIMEOUT(masterIndexOfSlot(slot), to, 5000);
}

void TestClusterConnection::theSandboxIsAClusterOfThreeMastersWithReplicas()
{
    RedisError error;
    const ClusterSlotMap map = m_cluster->slotMap(&error);
    QVERIFY2(!error, qPrintable(error.message()));
    QCOMPARE(map.masters().size(), 3);
    QVERIFY(map.coversAllSlots());
    for (int i = 0; i < 3; ++i) {
        QCOMPARE(map.masters().at(i).port, m_cluster->master(i).port());
        QCOMPARE(map.replicasOf(map.masters().at(i)).size(), 1);
        QCOMPARE(map.replicasOf(map.masters().at(i)).first().port, m_cluster->replicasOf(i).first()->port());
        QVERIFY(ask(m_cluster->master(i), {"CLUSTER", "INFO"}).reply.bytes().contains("cluster_state:ok"));
        // The server itself says it runs as a cluster node.
        QVERIFY(ask(m_cluster->master(i), {"INFO", "server"}).reply.bytes().contains("redis_mode:cluster"));
    }
}

void TestClusterConnection::routesEveryKeyToTheMasterOfItsSlot()
{
    ClusterConnection cluster(m_cluster->seedSettings());
    LS_OPEN(cluster);
    QList<int> perMaster(3, 0);
    for (int i = 0; i < 60; ++i) {
        const QByteArray key = "route:" + QByteArray::number(i);
        const RedisResult r = cluster.command({"SET", key, QByteArray::number(i)});
        QVERIFY2(r.ok(), qPrintable(r.error.message()));
        const int owner = masterIndexOfSlot(ClusterSlot::of(key));
        QVERIFY(owner >= 0);
        ++perMaster[owner];
        // The key is really on that master's own dataset.
        QCOMPARE(ask(m_cluster->master(owner), {"GET", key}).reply.bytes(), QByteArray::number(i));
    }
    for (int count : perMaster)
        QVERIFY2(count > 0, "60 keys should spread over all three masters");
    QCOMPARE(cluster.movedFollowed(), 0);
    QCOMPARE(cluster.command({"GET", "route:7"}).reply.bytes(), QByteArray("7"));
    // A keyless command goes to a master.
    QVERIFY(cluster.command({"PING"}).ok());
}

void TestClusterConnection::evalIsRoutedByItsFirstKey()
{
    ClusterConnection cluster(m_cluster->seedSettings());
    LS_OPEN(cluster);
    for (int master = 0; master < 3; ++master) {
        const QByteArray key = keyInSlotOf(master, "eval:");
        QVERIFY(!key.isEmpty());
        const RedisResult r = cluster.command(
            {"EVAL", "return redis.call('SET', KEYS[1], ARGV[1], 'PX', 5000)", "1", key, "held"});
        QVERIFY2(r.ok(), qPrintable(r.error.message()));
        QCOMPARE(ask(m_cluster->master(master), {"GET", key}).reply.bytes(), QByteArray("held"));
    }
    QCOMPARE(cluster.movedFollowed(), 0);
}

void TestClusterConnection::followsMovedAfterASlotIsResharded()
{
    ClusterConnection cluster(m_cluster->seedSettings());
    LS_OPEN(cluster);
    const QByteArray key = keyInSlotOf(0, "moved:");
    QVERIFY(cluster.command({"SET", key, "before"}).ok());
    const int slot = ClusterSlot::of(key);
    QCOMPARE(cluster.slotMap().masterOf(slot)->port, m_cluster->master(0).port());

    moveSlot(slot, 2);
    // The connection's map is now stale: the old master answers MOVED, which is followed.
    const RedisResult r = cluster.command({"GET", key});
    QVERIFY2(r.ok(), qPrintable(r.error.message()));
    QCOMPARE(r.reply.bytes(), QByteArray("before"));
    QCOMPARE(cluster.movedFollowed(), 1);
    QCOMPARE(cluster.slotMap().masterOf(slot)->port, m_cluster->master(2).port());
    // The map was read again: the next command goes straight to the new master.
    QVERIFY(cluster.command({"SET", key, "after"}).ok());
    QCOMPARE(cluster.movedFollowed(), 1);
    QCOMPARE(ask(m_cluster->master(2), {"GET", key}).reply.bytes(), QByteArray("after"));
}

void TestClusterConnection::followsAskDuringAMigration()
{
    ClusterConnection cluster(m_cluster->seedSettings());
    LS_OPEN(cluster);
    const QByteArray key = keyInSlotOf(1, "ask:");
    QVERIFY(cluster.command({"SET", key, "migrating"}).ok());
    const int slot = ClusterSlot::of(key);
    moveSlot(slot, 0, false); // half-way: the key is on master 0, the slot still belongs to master 1
    const RedisResult r = cluster.command({"GET", key});
    QVERIFY2(r.ok(), qPrintable(r.error.message()));
    QCOMPARE(r.reply.bytes(), QByteArray("migrating"));
    QCOMPARE(cluster.askFollowed(), 1);
    QCOMPARE(cluster.movedFollowed(), 0);
    // ASK does not change the map: the slot is still master 1's until the migration ends.
    QCOMPARE(cluster.slotMap().masterOf(slot)->port, m_cluster->master(1).port());
    for (int i = 0; i < 3; ++i)
        QVERIFY(ask(m_cluster->master(i), {"CLUSTER", "SETSLOT", QByteArray::number(slot), "NODE", idOf(0)})
                    .ok());
    QTRY_COMPARE_WITH_TIMEOUT(masterIndexOfSlot(slot), 0, 5000);
}

void TestClusterConnection::readOnlyConnectionFollowsAskToo()
{
    ClusterConnection writer(m_cluster->seedSettings());
    LS_OPEN(writer);
    const QByteArray key = keyInSlotOf(2, "ro:");
    QVERIFY(writer.command({"SET", key, "seen"}).ok());
    const int slot = ClusterSlot::of(key);
    moveSlot(slot, 1, false);

    ConnectionSettings s = m_cluster->seedSettings();
    s.readOnly = true;
    ClusterConnection reader(s);
    LS_OPEN(reader);
    QCOMPARE(reader.command({"GET", key}).reply.bytes(), QByteArray("seen"));
    QCOMPARE(reader.askFollowed(), 1);
    const RedisResult refused = reader.command({"SET", key, "x"});
    QCOMPARE(refused.error.code(), RedisError::Code::ReadOnlyRefused);
    for (int i = 0; i < 3; ++i)
        QVERIFY(ask(m_cluster->master(i), {"CLUSTER", "SETSLOT", QByteArray::number(slot), "NODE", idOf(1)})
                    .ok());
    QTRY_COMPARE_WITH_TIMEOUT(masterIndexOfSlot(slot), 1, 5000);
}

void TestClusterConnection::refusesANodeThatIsNotInACluster()
{
    SandboxServer plain;
    LS_START(plain);
    ConnectionSettings s = plain.connectionSettings();
    s.cluster = true;
    ClusterConnection cluster(s);
    const RedisError e = cluster.open();
    QVERIFY(e);
    QVERIFY2(e.message().contains(QLatin1String("not a Redis Cluster node")), qPrintable(e.message()));
}

void TestClusterConnection::keyOfFindsTheRoutingKey()
{
    QCOMPARE(ClusterConnection::keyOf({"GET", "a"}).value_or("-"), QByteArray("a"));
    QCOMPARE(ClusterConnection::keyOf({"eval", "s", "2", "k1", "k2", "v"}).value_or("-"), QByteArray("k1"));
    QVERIFY(!ClusterConnection::keyOf({"EVAL", "s", "0"}).has_value());
    QVERIFY(!ClusterConnection::keyOf({"PING"}).has_value());
    QVERIFY(!ClusterConnection::keyOf({"CLUSTER", "SLOTS"}).has_value());
    QVERIFY(!ClusterConnection::keyOf({"info", "server"}).has_value());
}

QTEST_GUILESS_MAIN(TestClusterConnection)
#include "tst_clusterconnection.moc"
