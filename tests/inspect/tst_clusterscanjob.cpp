// ClusterScanJob and LockScanner on a real 3-master cluster with a replica each (started once): every lock
// found once with its node and slot, companions in the lock's slot, refreshes routed to each key's master.
#include "inspect/clusterscanjob.h"
#include "inspect/lockscanner.h"
#include "inspect/samplelocks.h"
#include "redis/clusterconnection.h"
#include "redis/clusterslot.h"
#include "redis/sandboxcluster.h"
#include "testsupport.h"

#include <QSignalSpy>

class TestClusterScanJob : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void scansEveryMasterOnceAndTagsNodeAndSlot();
    void failsClearlyOnANodeThatIsNotInACluster();
    void scannerListsTheClusterAndRefreshesOnEachNode();

private:
    std::unique_ptr<SandboxCluster> m_cluster;
    QHash<QByteArray, QString> m_nodeOf; // lock → its master's endpoint
    QByteArray m_client;
};

void TestClusterScanJob::initTestCase()
{
    qRegisterMetaType<QList<LockRecord>>();
    qRegisterMetaType<QList<QByteArray>>();
    SandboxCluster::Options options;
    options.replicasPerMaster = 1;
    m_cluster = std::make_unique<SandboxCluster>(options);
    LS_START(*m_cluster);
    ClusterConnection cluster(m_cluster->seedSettings());
    LS_OPEN(cluster);
    m_client = SampleLocks::redissonClientId();
    for (int i = 0; i < 30; ++i) {
        const QByteArray name = "res:" + QByteArray::number(i);
        QVERIFY(cluster.command({"HSET", name, m_client + ":1", "1"}).ok());
        QVERIFY(cluster.command({"PEXPIRE", name, "600000"}).ok());
        m_nodeOf.insert(name, cluster.slotMap().masterOfKey(name)->endpoint());
    }
    QVERIFY(cluster.command({"RPUSH", "redisson_lock_queue:{res:4}", m_client + ":2"}).ok());
    QVERIFY(
        cluster.command({"ZADD", "redisson_lock_timeout:{res:4}", "9999999999999", m_client + ":2"}).ok());
    for (int i = 0; i < 200; ++i)
        QVERIFY(cluster.command({"SET", "filler:" + QByteArray::number(i), "x"}).ok());
    for (int i = 0; i < m_cluster->masterCount(); ++i) {
        RedisConnection c(m_cluster->master(i).connectionSettings());
        LS_OPEN(c);
        QCOMPARE(c.command({"WAIT", "1", "5000"}).reply.toInteger(), 1); // replicas hold the same locks
    }
}

void TestClusterScanJob::scansEveryMasterOnceAndTagsNodeAndSlot()
{
    ConnectionSettings seed = m_cluster->seedSettings();
    seed.port = m_cluster->master(2).port(); // any node will do
    ScanOptions options;
    options.count = 50;
    ClusterScanJob job(seed, options);
    QHash<QByteArray, LockRecord> found;
    int pages = 0;
    while (!job.atEnd() && pages < 1000) {
        ++pages;
        for (const LockRecord &r : job.nextPage()) {
            QVERIFY2(!found.contains(r.key) || found.value(r.key).node == r.node, r.key.constData());
            found.insert(r.key, r);
        }
    }
    QVERIFY2(!job.error(), qPrintable(job.error().message()));
    QCOMPARE(job.masters().size(), 3);
    QCOMPARE(found.size(), m_nodeOf.size());
    for (auto it = m_nodeOf.cbegin(); it != m_nodeOf.cend(); ++it) {
        QCOMPARE(found.value(it.key()).node, it.value());
        QCOMPARE(found.value(it.key()).slot, ClusterSlot::of(it.key()));
    }
    const LockRecord fair = found.value("res:4");
    QCOMPARE(fair.queueLength, 1);
    QVERIFY(!fair.companions.isEmpty());
    for (const LockCompanion &c : fair.companions)
        QCOMPARE(ClusterSlot::of(c.key), fair.slot);
    const ScanProgress p = job.progress();
    QVERIFY(p.finished);
    QCOMPARE(p.locks, qint64(m_nodeOf.size()));
    QCOMPARE(p.scannedKeys, qint64(m_nodeOf.size() + 2 + 200)); // masters only: no key counted twice
    QCOMPARE(p.fraction, 1.0);
}

void TestClusterScanJob::failsClearlyOnANodeThatIsNotInACluster()
{
    SandboxServer plain;
    LS_START(plain);
    ClusterScanJob job(plain.connectionSettings(), ScanOptions());
    QVERIFY(job.nextPage().isEmpty());
    QVERIFY(job.atEnd());
    QVERIFY2(job.error().message().contains(QLatin1String("not a Redis Cluster node")),
             qPrintable(job.error().message()));
}

void TestClusterScanJob::scannerListsTheClusterAndRefreshesOnEachNode()
{
    // A node given as a plain server: the scanner asks it, learns it is a cluster node, and scans them all.
    ConnectionSettings settings = m_cluster->master(1).connectionSettings();
    settings.readOnly = true;
    LockScanner scanner;
    scanner.setConnectionSettings(settings);
    QSignalSpy pages(&scanner, &LockScanner::pageReady);
    QSignalSpy finished(&scanner, &LockScanner::scanFinished);
    QVERIFY(scanner.start(ScanOptions()));
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 30000);
    QHash<QByteArray, LockRecord> found;
    for (const auto &args : pages)
        for (const LockRecord &r : args.at(0).value<QList<LockRecord>>())
            found.insert(r.key, r);
    QCOMPARE(found.size(), m_nodeOf.size());

    // A refresh reads each lock on its own master: one lock per master, one of them released meanwhile.
    // Not res:4: its waiters' queue outlives a deleted hash, so the lock would rightly still be listed.
    QList<LockRecord> asked;
    QSet<QString> nodes;
    for (const LockRecord &r : std::as_const(found)) {
        if (!nodes.contains(r.node) && r.key != "res:4") {
            nodes.insert(r.node);
            asked << r;
        }
    }
    QCOMPARE(asked.size(), 3);
    ClusterConnection writer(m_cluster->seedSettings());
    LS_OPEN(writer);
    QVERIFY(writer.command({"DEL", asked.first().key}).ok());
    QSignalSpy probed(&scanner, &LockScanner::probed);
    QSignalSpy probeFailed(&scanner, &LockScanner::probeFailed);
    QVERIFY(scanner.refresh(asked));
    QTRY_COMPARE_WITH_TIMEOUT(probed.count() + probeFailed.count(), 1, 10000);
    QCOMPARE(probeFailed.count(), 0);
    const QList<LockRecord> records = probed.first().at(0).value<QList<LockRecord>>();
    const QList<QByteArray> gone = probed.first().at(1).value<QList<QByteArray>>();
    QCOMPARE(gone, QList<QByteArray> {asked.first().key});
    QCOMPARE(records.size(), 2);
    for (const LockRecord &r : records) {
        QCOMPARE(r.node, m_nodeOf.value(r.key));
        QCOMPARE(r.slot, ClusterSlot::of(r.key));
    }
}

QTEST_GUILESS_MAIN(TestClusterScanJob)
#include "tst_clusterscanjob.moc"
