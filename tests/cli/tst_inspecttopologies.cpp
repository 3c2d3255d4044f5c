// `lockscope-cli inspect` and `sandbox` on real topologies: a 3-master cluster with a replica each (started
// once for this executable) where every lock is listed once with its node and slot, a cluster of its own with
// a master killed (incomplete: exit 4, or 3 when --fail-on matched, never 0), and a Sentinel group reached
// through its sentinels, whose --watch names the master it reads and reports a failover (from, to).
#include "inspect/samplelocks.h"
#include "redis/clusterconnection.h"
#include "redis/clusterslot.h"
#include "redis/sandboxcluster.h"
#include "redis/sandboxsentinelgroup.h"
#include "testsupport.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>

#include <csignal>

class TestInspectTopologies : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void clusterJsonListsEveryLockOnceWithItsNode();
    void clusterIsDetectedWithoutTheOption();
    void clusterTableShowsTheNode();
    void clusterWithADeadMasterIsIncomplete();
    void badTopologyArguments_data();
    void badTopologyArguments();
    void sentinelMasterIsInspectedAndNamesAreListed();
    void sandboxClusterServesInspect();
    void sandboxSentinelServesInspect();
    void clusterWatchFollowsEveryMaster();
    void sentinelWatchNamesTheMasterAndEachFailover();

private:
    // Checks the inspect --json output against the locks written in initTestCase.
    void checkClusterJson(const QString &out);

    std::unique_ptr<SandboxCluster> m_cluster;
    QHash<QString, QString> m_expectedNode; // lock key → endpoint of its master
};

using TestSupport::run;

static QString endpointOf(SandboxServer &s)
{
    return s.connectionSettings().endpoint();
}

void TestInspectTopologies::initTestCase()
{
    QVERIFY(QFileInfo(TestSupport::cliPath()).isExecutable());
    SandboxCluster::Options options;
    options.replicasPerMaster = 1; // replicas hold the same keys: they must not be listed twice
    m_cluster = std::make_unique<SandboxCluster>(options);
    LS_START(*m_cluster);
    ClusterConnection cluster(m_cluster->seedSettings());
    LS_OPEN(cluster);
    const QByteArray client = SampleLocks::redissonClientId();
    for (int i = 0; i < 12; ++i) {
        const QByteArray redisson = "order:" + QByteArray::number(i);
        QVERIFY(cluster.command({"HSET", redisson, client + ":7", "1"}).ok());
        QVERIFY(cluster.command({"PEXPIRE", redisson, "600000"}).ok());
        const QByteArray plain = "lock:job:" + QByteArray::number(i);
        QVERIFY(cluster.command({"SET", plain, SampleLocks::randomHex32(), "NX", "PX", "600000"}).ok());
        for (const QByteArray &key : {redisson, plain})
            m_expectedNode.insert(QString::fromUtf8(key), cluster.slotMap().masterOfKey(key)->endpoint());
    }
    // A fair-lock waiter: its queue lives in the lock's slot through the hash tag.
    QVERIFY(cluster.command({"RPUSH", "redisson_lock_queue:{order:3}", client + ":9"}).ok());
    QVERIFY(
        cluster.command({"ZADD", "redisson_lock_timeout:{order:3}", "9999999999999", client + ":9"}).ok());
    QVERIFY(cluster.command({"SET", "user:1", "not a lock"}).ok());
    // The replicas have every key before the scans start.
    for (int i = 0; i < m_cluster->masterCount(); ++i) {
        RedisConnection c(m_cluster->master(i).connectionSettings());
        LS_OPEN(c);
        QCOMPARE(c.command({"WAIT", "1", "5000"}).reply.toInteger(), 1);
    }
    QSet<QString> nodesUsed(m_expectedNode.cbegin(), m_expectedNode.cend());
    QCOMPARE(nodesUsed.size(), 3); // 24 locks spread over all three masters
}

void TestInspectTopologies::checkClusterJson(const QString &out)
{
    QJsonParseError error;
    const QJsonObject root = QJsonDocument::fromJson(out.toUtf8(), &error).object();
    QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(error.errorString() + out));
    QCOMPARE(root.value("server").toObject().value("mode").toString(), QStringLiteral("cluster"));
    QStringList nodes;
    for (const QJsonValue &v : root.value("nodes").toArray())
        nodes << v.toString();
    QStringList masters;
    for (int i = 0; i < m_cluster->masterCount(); ++i)
        masters << endpointOf(m_cluster->master(i));
    QCOMPARE(nodes, masters); // every master, no replica
    QHash<QString, QJsonObject> found;
    for (const QJsonValue &v : root.value("locks").toArray()) {
        const QJsonObject lock = v.toObject();
        const QString key = lock.value("key").toString();
        QVERIFY2(!found.contains(key), qPrintable(QStringLiteral("listed twice: ") + key));
        found.insert(key, lock);
    }
    QCOMPARE(found.size(), m_expectedNode.size());
    for (auto it = m_expectedNode.cbegin(); it != m_expectedNode.cend(); ++it) {
        QVERIFY2(found.contains(it.key()), qPrintable(it.key()));
        const QJsonObject lock = found.value(it.key());
        QCOMPARE(lock.value("node").toString(), it.value());
        QCOMPARE(lock.value("slot").toInt(), ClusterSlot::of(it.key().toUtf8()));
    }
    // The waiter's queue is attached to its lock and lives in the lock's slot.
    const QJsonArray companions = found.value(QStringLiteral("order:3")).value("companions").toArray();
    QVERIFY2(!companions.isEmpty(), qPrintable(out));
    for (const QJsonValue &c : companions)
        QCOMPARE(ClusterSlot::of(c.toObject().value("key").toString().toUtf8()),
                 found.value(QStringLiteral("order:3")).value("slot").toInt());
    QCOMPARE(found.value(QStringLiteral("order:3")).value("waiters").toInt(), 1);
}

void TestInspectTopologies::clusterJsonListsEveryLockOnceWithItsNode()
{
    const auto r
        = run(TestSupport::cliPath(), {"inspect", "--cluster", endpointOf(m_cluster->master(1)), "--json"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    checkClusterJson(r.out);
}

void TestInspectTopologies::clusterIsDetectedWithoutTheOption()
{
    // The server says it is a cluster node (redis_mode:cluster): every master is scanned anyway.
    const auto r = run(TestSupport::cliPath(),
                       {"inspect", "--port", QString::number(m_cluster->master(2).port()), "--json"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    checkClusterJson(r.out);
}

void TestInspectTopologies::clusterTableShowsTheNode()
{
    const auto r = run(TestSupport::cliPath(), {"inspect", "--cluster", endpointOf(m_cluster->master(0))});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY2(r.out.contains(QLatin1String("Cluster of 3 masters")), qPrintable(r.out));
    QVERIFY(r.out.contains(QLatin1String("NODE")));
    const QRegularExpression row(QStringLiteral("^lock:job:5 +(\\S+) +(\\d+) "),
                                 QRegularExpression::MultilineOption);
    const QRegularExpressionMatch m = row.match(r.out);
    QVERIFY2(m.hasMatch(), qPrintable(r.out));
    QCOMPARE(m.captured(1), m_expectedNode.value(QStringLiteral("lock:job:5")));
    QCOMPARE(m.captured(2).toInt(), ClusterSlot::of("lock:job:5"));
}

void TestInspectTopologies::clusterWithADeadMasterIsIncomplete()
{
    SandboxCluster cluster; // its own: a master of it is killed
    LS_START(cluster);
    ClusterConnection writer(cluster.seedSettings());
    LS_OPEN(writer);
    const QByteArray client = SampleLocks::redissonClientId();
    const QString dead = endpointOf(cluster.master(2));
    QHash<QString, QString> nodeOf;
    for (int i = 0; i < 18; ++i) {
        const QByteArray name = "order:" + QByteArray::number(i);
        QVERIFY(writer.command({"HSET", name, client + ":7", "1"}).ok());
        QVERIFY(writer.command({"PEXPIRE", name, "600000"}).ok());
        nodeOf.insert(QString::fromUtf8(name), writer.slotMap().masterOfKey(name)->endpoint());
    }
    // A lock without a TTL on a master that stays up: --fail-on no-ttl matches it.
    QByteArray noTtl;
    for (int i = 0; noTtl.isEmpty() && i < 100; ++i) {
        const QByteArray key = "lock:noTtl:" + QByteArray::number(i);
        if (writer.slotMap().masterOfKey(key)->endpoint() != dead)
            noTtl = key;
    }
    QVERIFY(writer.command({"SET", noTtl, SampleLocks::randomHex32()}).ok());
    QString deadSlots;
    for (const ClusterSlotMap::Node &n : writer.slotMap().masters()) {
        if (n.endpoint() == dead) {
            for (const auto &[first, last] : writer.slotMap().slotsOf(n))
                deadSlots = QStringLiteral("slots %1-%2").arg(first).arg(last);
        }
    }
    QVERIFY(!deadSlots.isEmpty());
    cluster.master(2).kill();

    const QString seed = endpointOf(cluster.master(0));
    auto r = run(TestSupport::cliPath(), {"inspect", "--cluster", seed, "--json"});
    QVERIFY2(r.exitCode == 4, qPrintable(QString::number(r.exitCode) + r.err));
    const QJsonObject root = QJsonDocument::fromJson(r.out.toUtf8()).object();
    QCOMPARE(root.value("complete").toBool(true), false);
    const QString because = root.value("incomplete_because").toVariant().toStringList().join(u'\n');
    QVERIFY2(because.contains(QStringLiteral("%1 (%2): ").arg(dead, deadSlots)), qPrintable(because));
    QSet<QString> listed;
    for (const QJsonValue &v : root.value("locks").toArray()) {
        const QJsonObject lock = v.toObject();
        const QString key = lock.value("key").toString();
        QVERIFY2(!listed.contains(key), qPrintable(key));
        listed.insert(key);
        QVERIFY2(lock.value("node").toString() != dead, qPrintable(key));
    }
    QSet<QString> reachable {QString::fromUtf8(noTtl)};
    for (auto it = nodeOf.cbegin(); it != nodeOf.cend(); ++it) {
        if (it.value() != dead)
            reachable.insert(it.key());
    }
    QVERIFY(reachable.size() > 2 && reachable.size() < nodeOf.size());
    QCOMPARE(listed, reachable);

    // The table says so too; --fail-on matched still wins (3), unmatched never reports clean (4).
    r = run(TestSupport::cliPath(), {"inspect", "--cluster", seed});
    QCOMPARE(r.exitCode, 4);
    QVERIFY2(r.out.contains(QLatin1String("INCOMPLETE")) && r.out.contains(dead + QLatin1String(" (")),
             qPrintable(r.out));
    QCOMPARE(run(TestSupport::cliPath(), {"inspect", "--cluster", seed, "--fail-on", "no-ttl"}).exitCode, 3);
    QCOMPARE(
        run(TestSupport::cliPath(), {"inspect", "--cluster", seed, "--fail-on", "watchdog-stalled"}).exitCode,
        4);
}

void TestInspectTopologies::badTopologyArguments_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QString>("message");
    QTest::newRow("cluster-not-host-port") << QStringList {"--cluster", "localhost"} << "expected host:port";
    QTest::newRow("cluster-and-port")
        << QStringList {"--cluster", "127.0.0.1:1", "--port", "2"} << "do not combine";
    QTest::newRow("both-topologies") << QStringList {"--cluster", "127.0.0.1:1", "--sentinel", "127.0.0.1:2"}
                                     << "give one of them";
    QTest::newRow("master-alone") << QStringList {"--master", "m"} << "give --sentinel";
    QTest::newRow("sentinel-bad") << QStringList {"--sentinel", "127.0.0.1:x"} << "expected host:port";
}

void TestInspectTopologies::badTopologyArguments()
{
    QFETCH(QStringList, arguments);
    QFETCH(QString, message);
    const auto r = run(TestSupport::cliPath(), QStringList {"inspect"} + arguments);
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(message), qPrintable(r.err));
}

void TestInspectTopologies::sentinelMasterIsInspectedAndNamesAreListed()
{
    SandboxSentinelGroup group;
    LS_START(group);
    RedisConnection c(group.settings());
    LS_OPEN(c);
    QVERIFY(SampleLocks::plainLock(c, "lock:sentinel", "me", 600000));
    QStringList sentinels;
    for (const QString &address : group.sentinelAddresses())
        sentinels << "--sentinel" << address;

    auto r = run(TestSupport::cliPath(),
                 QStringList {"inspect", "--json", "--master", group.masterName()} + sentinels);
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const QJsonArray locks = QJsonDocument::fromJson(r.out.toUtf8()).object().value("locks").toArray();
    QCOMPARE(locks.size(), 1);
    QCOMPARE(locks.first().toObject().value("key").toString(), QStringLiteral("lock:sentinel"));
    QVERIFY(!locks.first().toObject().contains("node"));

    r = run(TestSupport::cliPath(), QStringList {"inspect"} + sentinels);
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains(QStringLiteral("--master NAME")) && r.err.contains(group.masterName()),
             qPrintable(r.err));

    // Pointed at a sentinel as if it were a server: says what it is and what to do.
    r = run(TestSupport::cliPath(), {"inspect", "--port", QString::number(group.sentinel(0).port())});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains(QStringLiteral("is a Redis Sentinel")), qPrintable(r.err));
}

void TestInspectTopologies::sandboxClusterServesInspect()
{
    QProcess sandbox;
    sandbox.start(TestSupport::cliPath(), {"sandbox", "--cluster", "--sample-locks"});
    QVERIFY(sandbox.waitForStarted());
    QByteArray out;
    QTRY_VERIFY_WITH_TIMEOUT((out += sandbox.readAllStandardOutput()).contains("Ctrl-C to stop"), 30000);
    const QRegularExpressionMatch m
        = QRegularExpression(QStringLiteral("inspect --cluster (127\\.0\\.0\\.1:\\d+)"))
              .match(QString::fromUtf8(out));
    QVERIFY2(m.hasMatch(), out.constData());
    const auto r = run(TestSupport::cliPath(), {"inspect", "--cluster", m.captured(1), "--json"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const QJsonObject root = QJsonDocument::fromJson(r.out.toUtf8()).object();
    QCOMPARE(root.value("nodes").toArray().size(), 3);
    QSet<QString> nodes;
    for (const QJsonValue &v : root.value("locks").toArray())
        nodes << v.toObject().value("node").toString();
    QCOMPARE(root.value("locks").toArray().size(), 12);
    QCOMPARE(nodes.size(), 3);
    ::kill(pid_t(sandbox.processId()), SIGINT);
    QVERIFY(sandbox.waitForFinished(10000));
    QCOMPARE(sandbox.exitCode(), 0);
}

void TestInspectTopologies::sandboxSentinelServesInspect()
{
    QProcess sandbox;
    sandbox.start(TestSupport::cliPath(), {"sandbox", "--sentinel", "--master", "orders", "--sample-locks"});
    QVERIFY(sandbox.waitForStarted());
    QByteArray out;
    QTRY_VERIFY_WITH_TIMEOUT((out += sandbox.readAllStandardOutput()).contains("Ctrl-C to stop"), 30000);
    // The printed command, as a user would paste it.
    const QRegularExpressionMatch m = QRegularExpression(QStringLiteral("try: lockscope-cli (inspect[^\n]*)"))
                                          .match(QString::fromUtf8(out));
    QVERIFY2(m.hasMatch(), out.constData());
    const QStringList arguments = m.captured(1).split(u' ', Qt::SkipEmptyParts);
    QCOMPARE(arguments.count(QStringLiteral("--sentinel")), 3);
    QVERIFY(arguments.contains(QStringLiteral("orders")));
    const auto r = run(TestSupport::cliPath(), arguments + QStringList {"--json"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const QJsonObject root = QJsonDocument::fromJson(r.out.toUtf8()).object();
    QVERIFY2(root.value("locks").toArray().size() > 5, qPrintable(r.out)); // the demo set
    QCOMPARE(root.value("server").toObject().value("mode").toString(), QStringLiteral("standalone"));
    ::kill(pid_t(sandbox.processId()), SIGINT);
    QVERIFY(sandbox.waitForFinished(10000));
    QCOMPARE(sandbox.exitCode(), 0);
}

void TestInspectTopologies::clusterWatchFollowsEveryMaster()
{
    for (int i = 0; i < m_cluster->masterCount(); ++i) {
        RedisConnection admin(m_cluster->master(i).connectionSettings());
        LS_OPEN(admin);
        QVERIFY(admin.command({"CONFIG", "SET", "notify-keyspace-events", "KEA"}).ok());
    }
    QProcess cli;
    cli.start(TestSupport::cliPath(),
              {"inspect", "--cluster", endpointOf(m_cluster->master(1)), "--watch", "--json"});
    QVERIFY(cli.waitForStarted());
    QByteArray err;
    QTRY_VERIFY_WITH_TIMEOUT((err += cli.readAllStandardError()).contains("on all 3 masters"), 15000);

    // A lock taken and released on each master (keyspace events are per node: each master's must arrive).
    ClusterConnection cluster(m_cluster->seedSettings());
    LS_OPEN(cluster);
    QHash<QString, QString> nodeOf; // key → master
    for (int n = 0; n < 1000 && nodeOf.size() < 3; ++n) {
        const QByteArray key = "lock:live:" + QByteArray::number(n);
        const QString node = cluster.slotMap().masterOfKey(key)->endpoint();
        if (!QList<QString>(nodeOf.cbegin(), nodeOf.cend()).contains(node))
            nodeOf.insert(QString::fromUtf8(key), node);
    }
    QCOMPARE(nodeOf.size(), 3);
    for (auto it = nodeOf.cbegin(); it != nodeOf.cend(); ++it)
        QVERIFY(cluster.command({"SET", it.key().toUtf8(), SampleLocks::randomHex32(), "NX", "PX", "60000"})
                    .ok());
    QByteArray out;
    const auto seen = [&](const char *event) {
        out += cli.readAllStandardOutput();
        int found = 0;
        for (const QByteArray &line : out.split('\n')) {
            const QJsonObject o = QJsonDocument::fromJson(line).object();
            const QString key = o.value("key").toString();
            if (nodeOf.contains(key) && o.value("event").toString() == QLatin1String(event)) {
                if (o.value("lock").toObject().value("node").toString() != nodeOf.value(key))
                    return -1; // reported on the wrong master
                ++found;
            }
        }
        return found;
    };
    QTRY_COMPARE_WITH_TIMEOUT(seen("acquired"), 3, 10000);
    for (auto it = nodeOf.cbegin(); it != nodeOf.cend(); ++it)
        QVERIFY(cluster.command({"DEL", it.key().toUtf8()}).ok());
    QTRY_COMPARE_WITH_TIMEOUT(seen("released"), 3, 10000);
    ::kill(pid_t(cli.processId()), SIGINT);
    QVERIFY(cli.waitForFinished(10000));
    QCOMPARE(cli.exitStatus(), QProcess::NormalExit);
    QCOMPARE(cli.exitCode(), 0);
}

// Through Sentinel, --watch said "Connecting to 127.0.0.1:6379…" (the default address, not the master) and
// nothing when a failover moved the master. It names the master it reads, and a failover is an event.
void TestInspectTopologies::sentinelWatchNamesTheMasterAndEachFailover()
{
    SandboxSentinelGroup::Options options;
    options.nodeConfigLines << QStringLiteral("notify-keyspace-events KEA");
    SandboxSentinelGroup group(options);
    LS_START(group);
    {
        RedisConnection c(group.settings());
        LS_OPEN(c);
        QVERIFY(SampleLocks::plainLock(c, "lock:sentinel", "me", 600000));
    }
    const QString first = endpointOf(group.node(group.currentMaster()));
    QStringList sentinels;
    for (const QString &address : group.sentinelAddresses())
        sentinels << "--sentinel" << address;
    QProcess cli;
    cli.start(TestSupport::cliPath(),
              QStringList {"inspect", "--master", group.masterName(), "--watch", "--json"} + sentinels);
    QVERIFY(cli.waitForStarted());
    QByteArray err;
    const QByteArray reading = QStringLiteral("live: reading master '%1' at %2 (via sentinel ")
                                   .arg(group.masterName(), first)
                                   .toUtf8();
    QTRY_VERIFY_WITH_TIMEOUT((err += cli.readAllStandardError()).contains(reading), 15000);
    QVERIFY2(!err.contains("127.0.0.1:6379"), err.constData());

    QString error;
    QVERIFY2(group.failover(&error), qPrintable(error));
    const QString second = endpointOf(group.node(group.currentMaster()));
    QVERIFY(second != first);
    QByteArray out;
    QJsonObject failover;
    QTRY_VERIFY_WITH_TIMEOUT(
        [&] {
            out += cli.readAllStandardOutput();
            for (const QByteArray &line : out.split('\n')) {
                const QJsonObject o = QJsonDocument::fromJson(line).object();
                if (o.value("event").toString() == QLatin1String("failover"))
                    failover = o;
            }
            return !failover.isEmpty();
        }(),
        20000);
    QCOMPARE(failover.value("master").toString(), group.masterName());
    QCOMPARE(failover.value("from").toString(), first);
    QCOMPARE(failover.value("to").toString(), second);
    // The notifications are then heard from the new master.
    QTRY_VERIFY_WITH_TIMEOUT(
        (err += cli.readAllStandardError())
            .contains(QStringLiteral("on master '%1' at %2").arg(group.masterName(), second).toUtf8()),
        15000);
    // And the lock, replicated before the failover, is not reported gone.
    out += cli.readAllStandardOutput();
    QVERIFY2(!out.contains("\"released\"") && !out.contains("\"lost\""), out.constData());
    ::kill(pid_t(cli.processId()), SIGINT);
    QVERIFY(cli.waitForFinished(10000));
    QCOMPARE(cli.exitCode(), 0);
}

QTEST_GUILESS_MAIN(TestInspectTopologies)
#include "tst_inspecttopologies.moc"
