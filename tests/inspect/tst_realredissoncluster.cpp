// Real Redisson clients (3.52.0 and 4.7.0, tests/libraries/java) on a sandbox Redis 7 Cluster, with waiters
// blocked in lock(): Redisson >= 3.22 waits there on sharded pub/sub (SSUBSCRIBE on the node owning the
// channel's slot), or the classic way when told to. The cluster scan must count those waiters and raise
// `contended`, its evidence must say how they were counted, and a force-unlock from the Inspector must wake one
// of them — which the driver reports when that waiter gets the lock.
#include "inspect/clusterscanjob.h"
#include "inspect/lockactions.h"
#include "redis/clusterconnection.h"
#include "redis/sandboxcluster.h"
#include "testsupport.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>

class TestRealRedissonCluster : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void waitersAreCountedAndForceUnlockWakesOne_data();
    void waitersAreCountedAndForceUnlockWakesOne();

private:
    std::unique_ptr<SandboxCluster> m_cluster;
    QJsonArray m_drivers;
};

namespace {

const QString kDir = QStringLiteral(LOCKSCOPE_LIBRARIES_DIR);

// A Redisson driver in cluster mode: its made lines, and the locks its waiters got since.
struct ClusterDriver
{
    QProcess process;
    QByteArray pending;
    QList<QJsonObject> made;
    QList<QJsonObject> acquired;
    bool ready = false;

    void read()
    {
        pending += process.readAllStandardOutput();
        qsizetype nl;
        while ((nl = pending.indexOf('\n')) >= 0) {
            const QJsonObject o = QJsonDocument::fromJson(pending.left(nl)).object();
            pending.remove(0, nl + 1);
            if (o.contains(QLatin1String("made")))
                made << o.value(QLatin1String("made")).toObject();
            else if (o.contains(QLatin1String("acquired")))
                acquired << o.value(QLatin1String("acquired")).toObject();
            else if (o.value(QLatin1String("ready")).toBool())
                ready = true;
        }
    }
    ~ClusterDriver()
    {
        process.closeWriteChannel(); // the driver stops when its stdin closes
        if (!process.waitForFinished(5000))
            process.kill();
    }
};

} // namespace

void TestRealRedissonCluster::initTestCase()
{
    QVERIFY2(QFileInfo::exists(kDir + QStringLiteral("/java/build/.lockscope-built")),
             "the JVM fixtures are not built: run tests/libraries/setup (scripts/test does)");
    QFile list(kDir + QStringLiteral("/drivers.json"));
    QVERIFY(list.open(QIODevice::ReadOnly));
    m_drivers = QJsonDocument::fromJson(list.readAll()).object().value(QLatin1String("drivers")).toArray();
    m_cluster = std::make_unique<SandboxCluster>();
    LS_START(*m_cluster);
}

void TestRealRedissonCluster::waitersAreCountedAndForceUnlockWakesOne_data()
{
    QTest::addColumn<QString>("driver");
    QTest::addColumn<bool>("classic"); // --classic-pubsub: Redisson's ShardedSubscriptionMode.OFF
    QTest::newRow("redisson 4.7.0, sharded") << QStringLiteral("redisson-4") << false;
    QTest::newRow("redisson 3.52.0, sharded") << QStringLiteral("redisson-3") << false;
    QTest::newRow("redisson 4.7.0, classic") << QStringLiteral("redisson-4") << true;
}

void TestRealRedissonCluster::waitersAreCountedAndForceUnlockWakesOne()
{
    QFETCH(QString, driver);
    QFETCH(bool, classic);
    QStringList argv;
    for (const QJsonValue &v : std::as_const(m_drivers)) {
        if (v.toObject().value(QLatin1String("name")).toString() == driver)
            for (const QJsonValue &a : v.toObject().value(QLatin1String("argv")).toArray())
                argv << a.toString().replace(QLatin1String("${dir}"), kDir);
    }
    QVERIFY2(!argv.isEmpty(), qPrintable(driver));
    QStringList nodes;
    for (int i = 0; i < m_cluster->masterCount(); ++i)
        nodes << QStringLiteral("127.0.0.1:%1").arg(m_cluster->master(i).port());
    const QString prefix = QStringLiteral("%1-%2:").arg(driver, classic ? "classic" : "sharded");
    argv << QStringLiteral("--cluster-nodes") << nodes.join(u',') << QStringLiteral("--prefix") << prefix;
    if (classic)
        argv << QStringLiteral("--classic-pubsub");

    ClusterDriver d;
    d.process.start(argv.takeFirst(), argv);
    QElapsedTimer timer;
    timer.start();
    while (!d.ready) {
        QVERIFY2(d.process.state() != QProcess::NotRunning,
                 qPrintable(QStringLiteral("%1 ended: %2").arg(driver, d.process.readAllStandardError())));
        QVERIFY2(timer.elapsed() < 90000, "the driver never became ready");
        d.process.waitForReadyRead(200);
        d.read();
    }
    QJsonObject mutex, fair;
    for (const QJsonObject &m : std::as_const(d.made)) {
        if (m.value(QLatin1String("waiters")).toInt() == 2 && m.value(QLatin1String("kind")).toString() == QLatin1String("mutex"))
            mutex = m;
        if (m.value(QLatin1String("kind")).toString() == QLatin1String("fair"))
            fair = m;
    }
    QVERIFY2(!mutex.isEmpty(), "the driver made no RLock with two waiters");
    QCOMPARE(mutex.value(QLatin1String("pubsub")).toString(),
             classic ? QStringLiteral("classic") : QStringLiteral("sharded")); // what Redisson decided

    // The scan of the whole cluster, as `lockscope-cli inspect --cluster` makes it.
    ClusterScanJob job(m_cluster->seedSettings(), ScanOptions());
    QHash<QByteArray, LockRecord> found;
    for (int pages = 0; !job.atEnd() && pages < 1000; ++pages)
        for (const LockRecord &r : job.nextPage())
            found.insert(r.key, r);
    QVERIFY2(!job.error(), qPrintable(job.error().message()));
    const QByteArray key = mutex.value(QLatin1String("key")).toString().toUtf8();
    QVERIFY2(found.contains(key), key.constData());
    const LockRecord r = found.value(key);
    QCOMPARE(r.waiters(), 2);
    QCOMPARE(r.shardedSubscribers, classic ? 0 : 2);
    QVERIFY(!r.isIncomplete());
    QString evidence;
    for (const LockDiagnosis &diagnosis : r.diagnoses) {
        if (diagnosis.code == QLatin1String("contended"))
            evidence = diagnosis.evidence;
    }
    QVERIFY2(evidence.contains(classic ? QLatin1String("2 classic (PUBSUB NUMSUB summed over 3 masters)")
                                       : QLatin1String("2 sharded (PUBSUB SHARDNUMSUB on ")),
             qPrintable(evidence.isEmpty() ? QStringLiteral("no contended diagnosis") : evidence));
    if (!fair.isEmpty()) {
        const LockRecord f = found.value(fair.value(QLatin1String("key")).toString().toUtf8());
        QCOMPARE(f.queueLength, 2);
        QVERIFY(f.hasDiagnosis(QStringLiteral("contended")));
    }

    // Force unlock, sent where the lock lives: one waiter wakes and takes the lock.
    const LockAction unlock = LockActions::forceUnlock(r);
    QVERIFY2(unlock.isAvailable(), qPrintable(unlock.unavailable));
    ConnectionSettings owner = m_cluster->seedSettings();
    owner.host = r.node.section(u':', 0, 0);
    owner.port = r.node.section(u':', 1).toInt();
    owner.cluster = false;
    owner.readOnly = false;
    RedisConnection writer(owner);
    LS_OPEN(writer);
    const RedisResult done = writer.command(unlock.command);
    const LockActionOutcome outcome = LockActions::interpret(unlock, done);
    QVERIFY2(outcome.done, qPrintable(outcome.message));
    QStringList holders;
    for (const LockOwner &o : r.owners)
        holders << QString::fromUtf8(o.id);
    timer.restart();
    while (d.acquired.isEmpty() && timer.elapsed() < 15000) {
        d.process.waitForReadyRead(200);
        d.read();
    }
    QVERIFY2(!d.acquired.isEmpty(), qPrintable(QStringLiteral("no waiter woke after: %1").arg(unlock.commandText())));
    const QJsonObject got = d.acquired.first();
    QCOMPARE(got.value(QLatin1String("key")).toString().toUtf8(), key);
    QVERIFY2(!holders.contains(got.value(QLatin1String("owner")).toString()), "the old holder got it again");
    ClusterConnection cluster(m_cluster->seedSettings());
    LS_OPEN(cluster);
    QCOMPARE(cluster.command({"HEXISTS", key, got.value(QLatin1String("owner")).toString().toUtf8()})
                 .reply.toInteger(),
             1);
}

QTEST_GUILESS_MAIN(TestRealRedissonCluster)
#include "tst_realredissoncluster.moc"
