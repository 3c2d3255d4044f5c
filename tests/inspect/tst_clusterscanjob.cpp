// ClusterScanJob and LockScanner on a real 3-master cluster with a replica each (started once): every lock
// found once with its node and slot, companions in the lock's slot, refreshes routed to each key's master.
// Clusters of their own for what breaks one: a slot half migrated (ASK/MOVED followed), a master killed or
// frozen, the whole cluster down (CLUSTERDOWN): the scan ends and says what it could not see. Waiters on a
// cluster: sharded subscribers on the channel's slot owner plus classic ones on any master.
#include "inspect/clusterscanjob.h"
#include "inspect/lockactions.h"
#include "inspect/lockscanner.h"
#include "inspect/samplelocks.h"
#include "redis/clusterconnection.h"
#include "redis/clusterslot.h"
#include "redis/sandboxcluster.h"
#include "testsupport.h"

#include <QSignalSpy>

namespace {

// Every page of `job` (bounded), the last version of each record kept; a key listed on two nodes fails.
QHash<QByteArray, LockRecord> scanToEnd(ClusterScanJob &job, QString *problem)
{
    QHash<QByteArray, LockRecord> found;
    for (int pages = 0; !job.atEnd() && pages < 10000; ++pages) {
        for (const LockRecord &r : job.nextPage()) {
            if (found.contains(r.key) && found.value(r.key).node != r.node)
                *problem += QStringLiteral("%1 listed on %2 and %3\n")
                                .arg(QString::fromUtf8(r.key), found.value(r.key).node, r.node);
            found.insert(r.key, r);
        }
    }
    if (!job.atEnd())
        *problem += QStringLiteral("the scan did not end\n");
    return found;
}

// "slots 10922-16383", as ClusterScanJob::missing() names a master's slots.
QString slotsText(const ClusterSlotMap &map, const ClusterSlotMap::Node &node)
{
    QStringList ranges;
    for (const auto &[first, last] : map.slotsOf(node))
        ranges << QStringLiteral("%1-%2").arg(first).arg(last);
    return QStringLiteral("slots ") + ranges.join(QStringLiteral(", "));
}

SandboxServer *serverAt(SandboxCluster &cluster, const ClusterSlotMap::Node &node)
{
    for (int i = 0; i < cluster.masterCount(); ++i) {
        if (cluster.master(i).port() == node.port)
            return &cluster.master(i);
    }
    return nullptr;
}

QByteArray clusterState(SandboxServer &node)
{
    RedisConnection c(node.connectionSettings());
    const QByteArray info = c.open() ? QByteArray() : c.command({"CLUSTER", "INFO"}).reply.bytes();
    const qsizetype at = info.indexOf("cluster_state:");
    return at < 0 ? QByteArray() : info.mid(at + 14, info.indexOf('\r', at) - at - 14);
}

QString unreadText(const ScanProgress &p)
{
    QStringList out;
    for (auto [reason, n] : p.unreadReasons.asKeyValueRange())
        out << QStringLiteral("%1 × %2").arg(n).arg(reason);
    return out.join(QStringLiteral("; "));
}

} // namespace

class TestClusterScanJob : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void scansEveryMasterOnceAndTagsNodeAndSlot();
    void failsClearlyOnANodeThatIsNotInACluster();
    void scannerListsTheClusterAndRefreshesOnEachNode();
    void followsAHalfMigratedSlot();
    void skipsAMasterThatIsDown_data();
    void skipsAMasterThatIsDown();
    void clusterDownLeavesTheResultIncomplete();
    void countsShardedAndClassicWaitersAndWakesThemTheirWay();

private:
    // Thirty Redisson locks res:0… held by m_client, spread over the masters; `nodeOf` gets each lock's
    // master. False if a write failed.
    bool writeLocks(ClusterConnection &cluster, QHash<QByteArray, QString> *nodeOf) const;

    std::unique_ptr<SandboxCluster> m_cluster;
    QHash<QByteArray, QString> m_nodeOf; // lock → its master's endpoint
    QByteArray m_client;
};

bool TestClusterScanJob::writeLocks(ClusterConnection &cluster, QHash<QByteArray, QString> *nodeOf) const
{
    for (int i = 0; i < 30; ++i) {
        const QByteArray name = "res:" + QByteArray::number(i);
        if (!cluster.command({"HSET", name, m_client + ":1", "1"}).ok()
            || !cluster.command({"PEXPIRE", name, "600000"}).ok())
            return false;
        nodeOf->insert(name, cluster.slotMap().masterOfKey(name)->endpoint());
    }
    return true;
}

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
    QVERIFY(writeLocks(cluster, &m_nodeOf));
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

void TestClusterScanJob::followsAHalfMigratedSlot()
{
    // A slot in the middle of a resharding: the source answers ASK for the keys already moved, the target
    // MOVED for the keys it imports (it serves them to ASKING clients only). Each key is read where it is.
    SandboxCluster cluster;
    LS_START(cluster);
    ClusterConnection writer(cluster.seedSettings());
    LS_OPEN(writer);
    const int slot = ClusterSlot::of("{mig}");
    const ClusterSlotMap::Node source = *writer.slotMap().masterOf(slot);
    ClusterSlotMap::Node target;
    for (const ClusterSlotMap::Node &n : writer.slotMap().masters()) {
        if (!(n == source)) {
            target = n;
            break;
        }
    }
    SandboxServer *sourceServer = serverAt(cluster, source);
    SandboxServer *targetServer = serverAt(cluster, target);
    QVERIFY(sourceServer && targetServer);

    QHash<QByteArray, QString> expected; // key → the node that holds it once half the slot has moved
    QList<QByteArray> moving;
    for (int i = 0; i < 12; ++i) {
        const QByteArray redisson = "{mig}:order:" + QByteArray::number(i);
        QVERIFY(writer.command({"HSET", redisson, m_client + ":1", "1"}).ok());
        QVERIFY(writer.command({"PEXPIRE", redisson, "600000"}).ok());
        const QByteArray plain = "lock:{mig}:" + QByteArray::number(i);
        QVERIFY(writer.command({"SET", plain, SampleLocks::randomHex32(), "PX", "600000"}).ok());
        for (const QByteArray &key : {redisson, plain}) {
            expected.insert(key, (i % 2 ? target : source).endpoint());
            if (i % 2)
                moving << key;
        }
    }
    for (int i = 0; i < 9; ++i) { // locks in slots nobody moves
        const QByteArray key = "order:" + QByteArray::number(i);
        QVERIFY(writer.command({"HSET", key, m_client + ":1", "1"}).ok());
        QVERIFY(writer.command({"PEXPIRE", key, "600000"}).ok());
        expected.insert(key, writer.slotMap().masterOfKey(key)->endpoint());
    }
    // Copied, not moved: on both ends, the source (still the slot's owner) serves it.
    const QByteArray copied = "{mig}:order:copied";
    QVERIFY(writer.command({"HSET", copied, m_client + ":1", "1"}).ok());
    QVERIFY(writer.command({"PEXPIRE", copied, "600000"}).ok());
    expected.insert(copied, source.endpoint());

    RedisConnection from(sourceServer->connectionSettings());
    RedisConnection to(targetServer->connectionSettings());
    LS_OPEN(from);
    LS_OPEN(to);
    const QByteArray slotText = QByteArray::number(slot);
    const QByteArray sourceId = from.command({"CLUSTER", "MYID"}).reply.bytes();
    const QByteArray targetId = to.command({"CLUSTER", "MYID"}).reply.bytes();
    QVERIFY(to.command({"CLUSTER", "SETSLOT", slotText, "IMPORTING", sourceId}).ok());
    QVERIFY(from.command({"CLUSTER", "SETSLOT", slotText, "MIGRATING", targetId}).ok());
    const QByteArray port = QByteArray::number(target.port);
    RedisCommand migrate {"MIGRATE", target.host.toUtf8(), port, "", "0", "5000", "KEYS"};
    migrate << moving;
    RedisResult r = from.command(migrate);
    QVERIFY2(r.ok(), qPrintable(r.error.message()));
    r = from.command({"MIGRATE", target.host.toUtf8(), port, "", "0", "5000", "COPY", "KEYS", copied});
    QVERIFY2(r.ok(), qPrintable(r.error.message()));
    // As any client sees it now.
    r = from.command({"TYPE", moving.first()});
    QVERIFY2(r.error.message().startsWith(QLatin1String("ASK ")), qPrintable(r.error.message()));
    r = to.command({"TYPE", moving.first()});
    QVERIFY2(r.error.message().startsWith(QLatin1String("MOVED ")), qPrintable(r.error.message()));

    // With the probes on the scan's connection, and on a pool of probe connections.
    for (const int probeConnections : {0, 2}) {
        ScanOptions options;
        options.count = 5; // many pages: redirected keys arrive among others
        options.probeConnections = probeConnections;
        ClusterScanJob job(cluster.seedSettings(), options);
        QString problem;
        const QHash<QByteArray, LockRecord> found = scanToEnd(job, &problem);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
        QVERIFY2(!job.error(), qPrintable(job.error().message()));
        QVERIFY2(job.missing().isEmpty(), qPrintable(job.missing().join(u'\n')));
        QVERIFY2(job.progress().unreadableKeys == 0, qPrintable(unreadText(job.progress())));
        QCOMPARE(found.size(), expected.size());
        for (auto it = expected.cbegin(); it != expected.cend(); ++it) {
            QVERIFY2(found.contains(it.key()), it.key().constData());
            QCOMPARE(found.value(it.key()).node, it.value());
            QCOMPARE(found.value(it.key()).slot, ClusterSlot::of(it.key()));
            QVERIFY2(found.value(it.key()).pttlMs > 0, it.key().constData()); // read whole, not just TYPE
        }
        QCOMPARE(job.progress().locks, qint64(expected.size()));
        QVERIFY(job.progress().finished);
    }
}

void TestClusterScanJob::skipsAMasterThatIsDown_data()
{
    QTest::addColumn<bool>("frozen");
    QTest::newRow("killed") << false; // connection refused at once
    QTest::newRow("frozen") << true; // SIGSTOP: it accepts connections and never answers
}

void TestClusterScanJob::skipsAMasterThatIsDown()
{
    QFETCH(bool, frozen);
    SandboxCluster cluster;
    LS_START(cluster);
    ClusterConnection writer(cluster.seedSettings());
    LS_OPEN(writer);
    QHash<QByteArray, QString> nodeOf;
    QVERIFY(writeLocks(writer, &nodeOf));
    const ClusterSlotMap map = writer.slotMap();
    ClusterSlotMap::Node dead;
    dead.host = cluster.master(1).host(); // not the seed: the slot map is read from master 0
    dead.port = cluster.master(1).port();
    if (frozen)
        QVERIFY(cluster.master(1).pause());
    else
        cluster.master(1).kill();

    ConnectionSettings seed = cluster.seedSettings();
    seed.connectTimeoutMs = 1000;
    seed.commandTimeoutMs = 1000; // how long the frozen master is waited for
    ScanOptions options;
    options.count = 10;
    ClusterScanJob job(seed, options);
    QElapsedTimer timer;
    timer.start();
    QString problem;
    const QHash<QByteArray, LockRecord> found = scanToEnd(job, &problem);
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    QVERIFY2(timer.elapsed() < 10000, qPrintable(QString::number(timer.elapsed())));
    QVERIFY2(!job.error(), qPrintable(job.error().message()));
    QCOMPARE(job.masters().size(), 3);
    QCOMPARE(job.missing().size(), 1);
    const QString prefix = QStringLiteral("%1 (%2): ").arg(dead.endpoint(), slotsText(map, dead));
    QVERIFY2(job.missing().first().startsWith(prefix), qPrintable(job.missing().first()));
    int reachable = 0;
    for (auto it = nodeOf.cbegin(); it != nodeOf.cend(); ++it) {
        if (it.value() == dead.endpoint()) {
            QVERIFY(!found.contains(it.key()));
            continue;
        }
        ++reachable;
        QVERIFY2(found.contains(it.key()), it.key().constData());
        QCOMPARE(found.value(it.key()).node, it.value());
    }
    QVERIFY(reachable > 0 && reachable < nodeOf.size());
    QCOMPARE(found.size(), reachable);
    QVERIFY(job.progress().finished);
    QCOMPARE(job.progress().fraction, 1.0);
    if (frozen)
        QVERIFY(cluster.master(1).resume());
}

void TestClusterScanJob::clusterDownLeavesTheResultIncomplete()
{
    // Full coverage required (Redis's default): one master gone and every node refuses key reads.
    SandboxCluster::Options o;
    o.configLines << QStringLiteral("cluster-require-full-coverage yes");
    SandboxCluster cluster(o);
    LS_START(cluster);
    ClusterConnection writer(cluster.seedSettings());
    LS_OPEN(writer);
    QHash<QByteArray, QString> nodeOf;
    QVERIFY(writeLocks(writer, &nodeOf));
    const QString dead = cluster.master(2).connectionSettings().endpoint();
    cluster.master(2).kill();
    QTRY_VERIFY_WITH_TIMEOUT(
        clusterState(cluster.master(0)) == "fail" && clusterState(cluster.master(1)) == "fail", 20000);

    ClusterScanJob job(cluster.seedSettings(), ScanOptions());
    QString problem;
    const QHash<QByteArray, LockRecord> found = scanToEnd(job, &problem);
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    QVERIFY2(!job.error(), qPrintable(job.error().message()));
    QCOMPARE(job.missing().size(), 1);
    QVERIFY2(job.missing().first().startsWith(dead + QLatin1String(" (slots ")),
             qPrintable(job.missing().first()));
    QVERIFY(found.isEmpty()); // nothing could be read, and nothing is shown as if it had been
    const ScanProgress p = job.progress();
    const qint64 onLiveNodes
        = std::count_if(nodeOf.cbegin(), nodeOf.cend(), [&](const QString &n) { return n != dead; });
    QCOMPARE(p.scannedKeys, onLiveNodes);
    QCOMPARE(p.unreadableKeys, onLiveNodes);
    for (auto [reason, n] : p.unreadReasons.asKeyValueRange())
        QVERIFY2(reason.contains(QLatin1String("CLUSTERDOWN")), qPrintable(unreadText(p)));
}

void TestClusterScanJob::countsShardedAndClassicWaitersAndWakesThemTheirWay()
{
    // A Redisson lock with two waiters sharded-subscribed on its slot's master (Redisson >= 3.22 on Redis 7)
    // and one classic subscriber on another master: all three wait, and the scan must say so and how.
    const QByteArray name = "waited:lock";
    const QByteArray channel = "redisson_lock__channel:{waited:lock}";
    ClusterConnection cluster(m_cluster->seedSettings());
    LS_OPEN(cluster);
    QVERIFY(cluster.command({"HSET", name, m_client + ":1", "1"}).ok());
    QVERIFY(cluster.command({"PEXPIRE", name, "600000"}).ok());
    const ClusterSlotMap::Node owner = *cluster.slotMap().masterOfKey(name);
    ClusterSlotMap::Node other;
    for (const ClusterSlotMap::Node &n : cluster.slotMap().masters()) {
        if (n.endpoint() != owner.endpoint())
            other = n;
    }
    auto subscriber = [&](const ClusterSlotMap::Node &node, const QByteArray &command) {
        ConnectionSettings s = m_cluster->seedSettings();
        s.host = node.host;
        s.port = node.port;
        s.cluster = false;
        auto c = std::make_unique<RedisConnection>(s);
        if (c->open() || !c->command({command, channel}).ok())
            return std::unique_ptr<RedisConnection>();
        return c;
    };
    std::unique_ptr<RedisConnection> sharded[]
        = {subscriber(owner, "SSUBSCRIBE"), subscriber(owner, "SSUBSCRIBE")};
    std::unique_ptr<RedisConnection> classic = subscriber(other, "SUBSCRIBE");
    QVERIFY(sharded[0] && sharded[1] && classic);

    ClusterScanJob job(m_cluster->seedSettings(), ScanOptions());
    QString problem;
    const LockRecord r = scanToEnd(job, &problem).value(name);
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    QCOMPARE(r.node, owner.endpoint());
    QCOMPARE(r.waiters(), 3);
    QCOMPARE(r.shardedSubscribers, 2);
    QVERIFY2(r.unknownReason(QStringLiteral("waiters")).isEmpty(),
             qPrintable(r.unknownReason(QStringLiteral("waiters"))));
    QVERIFY2(r.hasDiagnosis(QStringLiteral("contended")), qPrintable(r.waitersBasis));
    for (const LockDiagnosis &d : r.diagnoses) {
        if (d.code == QLatin1String("contended")) {
            QVERIFY2(
                d.evidence.contains(QLatin1String("2 sharded (PUBSUB SHARDNUMSUB on ") + owner.endpoint())
                    && d.evidence.contains(QLatin1String("1 classic (PUBSUB NUMSUB summed over 3 masters)")),
                qPrintable(d.evidence));
        }
    }

    // A live refresh of that one lock counts the same way.
    LockScanner scanner;
    ConnectionSettings settings = m_cluster->seedSettings();
    settings.readOnly = true;
    scanner.setConnectionSettings(settings);
    QSignalSpy probed(&scanner, &LockScanner::probed);
    QVERIFY(scanner.refresh({r}));
    QTRY_COMPARE_WITH_TIMEOUT(probed.count(), 1, 10000);
    const QList<LockRecord> refreshed = probed.first().at(0).value<QList<LockRecord>>();
    QCOMPARE(refreshed.size(), 1);
    QCOMPARE(refreshed.first().waiters(), 3);
    QCOMPARE(refreshed.first().shardedSubscribers, 2);

    // Force unlock wakes them the way they wait: SPUBLISH reaches the sharded subscribers, PUBLISH the other.
    const LockAction unlock = LockActions::forceUnlock(r);
    QVERIFY2(unlock.isAvailable(), qPrintable(unlock.unavailable));
    QVERIFY2(unlock.commandText().contains(QLatin1String("spublish"))
                 && unlock.explanation.contains(QLatin1String("SPUBLISH")),
             qPrintable(unlock.commandText()));
    ConnectionSettings writerSettings = m_cluster->seedSettings();
    writerSettings.host = owner.host;
    writerSettings.port = owner.port;
    writerSettings.cluster = false;
    writerSettings.readOnly = false;
    RedisConnection writer(writerSettings);
    LS_OPEN(writer);
    const RedisResult done = writer.command(unlock.command);
    QVERIFY2(LockActions::interpret(unlock, done).done, qPrintable(done.reply.toDisplayString()));
    for (auto &c : sharded) {
        const RedisResult message = c->readReply(5000);
        QVERIFY2(message.ok() && message.reply.size() == 3 && message.reply.at(0).bytes() == "smessage"
                     && message.reply.at(2).bytes() == "0",
                 qPrintable(message.ok() ? message.reply.toDisplayString() : message.error.message()));
    }
    const RedisResult message = classic->readReply(5000);
    QVERIFY2(message.ok() && message.reply.size() == 3 && message.reply.at(0).bytes() == "message",
             qPrintable(message.ok() ? message.reply.toDisplayString() : message.error.message()));
    QCOMPARE(cluster.command({"EXISTS", name}).reply.toInteger(), 0);
}

QTEST_GUILESS_MAIN(TestClusterScanJob)
#include "tst_clusterscanjob.moc"
