// LockMetrics over real servers, without HTTP: what a scrape says about locks LockMonitor follows. Unknown
// is absent (a TTL the ACL refuses has no sample and is counted by reason), a server that cannot be read is
// up 0 with no lock series, the per-lock series are bounded with the diagnosed first, holds seen whole feed
// the pattern's histogram, a Sentinel failover is counted with the new address, and promtool's linter
// accepts the text.
#include "inspect/samplelocks.h"
#include "metrics/lockmetrics.h"
#include "metrics/monitoredtarget.h"
#include "metricstext.h"
#include "redis/sandboxsentinelgroup.h"
#include "sandboxfixture.h"
#include "testsupport.h"

#include <QElapsedTimer>
#include <QFileInfo>
#include <QProcess>
#include <QScopeGuard>
#include <QSignalSpy>
#include <QStandardPaths>

#include <cmath>
#include <csignal>

class TestLockMetrics : public QObject
{
    Q_OBJECT
private slots:
    void unknownIsAbsentNeverZero();
    void aServerThatCannotBeReadIsDownWithoutLockSeries();
    void lockSeriesAreBoundedDiagnosedFirst();
    void holdsSeenWholeFeedThePatternHistogram();
    void aSentinelFailoverIsCountedWithTheNewAddress();
    void aShortLeaseLostUnderAFrozenRenewerIsListedWithItsKey();
    void promtoolAcceptsTheText();

private:
    static QList<MetricSample> scrape(const QList<const MonitoredTarget *> &targets, int maxLockSeries = 500);
};

namespace {

LockMonitor::Timing fastTiming()
{
    LockMonitor::Timing t;
    t.heartbeatMs = 500;
    return t;
}

ConnectionSettings as(ConnectionSettings s, const QString &user)
{
    s.user = user;
    s.password = QStringLiteral("pw");
    return s;
}

} // namespace

QList<MetricSample> TestLockMetrics::scrape(const QList<const MonitoredTarget *> &targets, int maxLockSeries)
{
    return MetricsText::parse(
        LockMetrics::render(targets, {maxLockSeries}, OpenMetricsWriter::Format::OpenMetrics));
}

void TestLockMetrics::unknownIsAbsentNeverZero()
{
    SandboxServer server;
    LS_START(server);
    QElapsedTimer sinceTheLocksWereMade;
    sinceTheLocksWereMade.start();
    RedisConnection admin(server.connectionSettings());
    LS_OPEN(admin);
    QVERIFY(SampleLocks::plainLock(admin, "lock:stock", "worker-17", 600000));
    QVERIFY(!SampleLocks::redisPyLock(admin, "lock:nightly", -1).isEmpty()); // no TTL
    // Named like a lock, but no lock's shape: who holds it cannot be told (its holders were exported as 0).
    QVERIFY(!admin.command({"SET", "billing:lock:7", "x"}).error);
    QVERIFY(TestSupport::addReadOnlyUser(admin, "full", "pw"));
    QVERIFY(TestSupport::addReadOnlyUser(admin, "nopttl", "pw", {"-pttl"}));
    MonitoredTarget full(QStringLiteral("full"), as(server.connectionSettings(), "full"), {}, fastTiming());
    MonitoredTarget blind(QStringLiteral("blind"), as(server.connectionSettings(), "nopttl"), {},
                          fastTiming());
    QStringList blindLog;
    connect(&blind, &MonitoredTarget::note, this, [&blindLog](const QString &line) { blindLog << line; });
    full.start();
    blind.start();
    QTRY_VERIFY_WITH_TIMEOUT(full.scanState().ended && blind.scanState().ended, 10000);
    const QList<MetricSample> s = scrape({&full, &blind});

    // The full user reads both TTLs: a countdown, and +Inf for the lock that has none.
    const double stock
        = MetricsText::value(s, "lockscope_lock_ttl_seconds", {{"target", "full"}, {"key", "lock:stock"}});
    QVERIFY2(stock > 590 && stock <= 600, qPrintable(QString::number(stock)));
    QVERIFY(std::isinf(
        MetricsText::value(s, "lockscope_lock_ttl_seconds", {{"target", "full"}, {"key", "lock:nightly"}})));
    QCOMPARE(MetricsText::value(s, "lockscope_lock_diagnosis",
                                {{"target", "full"}, {"key", "lock:nightly"}, {"code", "no-ttl"}}),
             1.0);
    QCOMPARE(MetricsText::value(s, "lockscope_scan_complete", {{"target", "full"}}), 1.0);
    QCOMPARE(MetricsText::value(s, "lockscope_lock_holders", {{"target", "full"}, {"key", "lock:stock"}}),
             1.0);
    QVERIFY(
        !MetricsText::find(s, "lockscope_lock_ttl_seconds", {{"target", "full"}, {"key", "billing:lock:7"}})
             .isEmpty());
    QVERIFY(MetricsText::find(s, "lockscope_lock_holders", {{"target", "full"}, {"key", "billing:lock:7"}})
                .isEmpty());

    // Without PTTL: the locks are listed, their TTL has no sample at all (not 0, not -1), the unknowns are
    // counted by reason, the scan says it is incomplete, and no-ttl is neither claimed nor denied.
    QCOMPARE(MetricsText::find(s, "lockscope_locks", {{"target", "blind"}}).size(), 3);
    const QList<MetricSample> ages = MetricsText::find(s, "lockscope_lock_held_at_least_seconds", {{"target", "blind"}});
    QCOMPARE(ages.size(), 3);
    // Each a lower bound taken from a reading: never more than the locks have existed (the clock's start once
    // made it the machine's uptime).
    const double existed = double(sinceTheLocksWereMade.elapsed()) / 1000.0;
    for (const MetricSample &age : ages)
        QVERIFY2(age.value >= 0 && age.value <= existed, qPrintable(QStringLiteral("%1 s held, the locks are %2 s old")
                                                                        .arg(age.value)
                                                                        .arg(existed)));
    QVERIFY(MetricsText::find(s, "lockscope_lock_ttl_seconds", {{"target", "blind"}}).isEmpty());
    QCOMPARE(MetricsText::value(s, "lockscope_unknown_values",
                                {{"target", "blind"}, {"field", "pttl_ms"}, {"reason", "acl"}}),
             3.0);
    QVERIFY(MetricsText::find(s, "lockscope_lock_diagnosis", {{"target", "blind"}}).isEmpty());
    QCOMPARE(MetricsText::value(s, "lockscope_target_up", {{"target", "blind"}}), 1.0);
    // The server answers, but not everything: the scan is not complete, and says why; the log names the
    // refused command once.
    QCOMPARE(MetricsText::value(s, "lockscope_scan_complete", {{"target", "blind"}}), 0.0);
    QCOMPARE(MetricsText::value(s, "lockscope_scan_incomplete_reason", {{"target", "blind"}, {"reason", "acl"}}),
             1.0);
    QVERIFY(MetricsText::find(s, "lockscope_scan_incomplete_reason", {{"target", "full"}}).isEmpty());
    const QStringList refusals = blindLog.filter(QStringLiteral("refused PTTL"));
    QVERIFY2(refusals.size() == 1, qPrintable(blindLog.join(QLatin1Char('\n'))));
    QVERIFY2(refusals.first().contains(QLatin1String("on 3 locks")) && refusals.first().contains(QLatin1String("pttl_ms")),
             qPrintable(refusals.first()));
}

void TestLockMetrics::aServerThatCannotBeReadIsDownWithoutLockSeries()
{
    SandboxServer server;
    LS_START(server);
    RedisConnection admin(server.connectionSettings());
    LS_OPEN(admin);
    QVERIFY(SampleLocks::plainLock(admin, "lock:a", "me", 600000));
    MonitoredTarget t(QStringLiteral("t"), server.connectionSettings(), {}, fastTiming());
    // Before anything was read, the server is not known to be up.
    QCOMPARE(MetricsText::value(scrape({&t}), "lockscope_target_up"), 0.0);
    t.start();
    QTRY_VERIFY_WITH_TIMEOUT(t.scanState().ended, 10000);
    QList<MetricSample> s = scrape({&t});
    QCOMPARE(MetricsText::value(s, "lockscope_target_up"), 1.0);
    QCOMPARE(MetricsText::find(s, "lockscope_lock_ttl_seconds").size(), 1);
    QCOMPARE(
        MetricsText::value(s, "lockscope_target_info",
                           {{"address", server.connectionSettings().endpoint()}, {"topology", "standalone"}}),
        1.0);

    server.kill();
    // The heartbeat notices it with no lock to poll in between.
    QTRY_COMPARE_WITH_TIMEOUT(MetricsText::value(scrape({&t}), "lockscope_target_up"), 0.0, 10000);
    s = scrape({&t});
    for (const MetricSample &x : s)
        QVERIFY2(!x.name.startsWith(QLatin1String("lockscope_lock_"))
                     && x.name != QLatin1String("lockscope_locks"),
                 qPrintable(x.name));
    // Nor is a scan of a server that cannot be read called complete.
    QVERIFY(MetricsText::find(s, "lockscope_scan_complete").isEmpty());
    // What was counted stays counted.
    QVERIFY(!MetricsText::find(s, "lockscope_commands_sent_total").isEmpty());
}

void TestLockMetrics::lockSeriesAreBoundedDiagnosedFirst()
{
    SandboxServer server;
    LS_START(server);
    RedisConnection admin(server.connectionSettings());
    LS_OPEN(admin);
    QVERIFY(TestSupport::writePlainLocks(admin, 30));
    QVERIFY(!SampleLocks::redisPyLock(admin, "lock:nightly", -1).isEmpty()); // the one diagnosed
    MonitoredTarget t(QStringLiteral("t"), server.connectionSettings(), {}, fastTiming());
    t.start();
    QTRY_VERIFY_WITH_TIMEOUT(t.scanState().ended, 10000);
    const QList<MetricSample> s = scrape({&t}, 5);
    const QList<MetricSample> ttls = MetricsText::find(s, "lockscope_lock_held_at_least_seconds");
    QCOMPARE(ttls.size(), 5);
    QCOMPARE(MetricsText::value(s, "lockscope_locks_not_exported"), 26.0);
    QVERIFY(
        !MetricsText::find(s, "lockscope_lock_held_at_least_seconds", {{"key", "lock:nightly"}}).isEmpty());
    // Every lock is still counted.
    double locks = 0;
    for (const MetricSample &x : MetricsText::find(s, "lockscope_locks"))
        locks += x.value;
    QCOMPARE(locks, 31.0);
    // The same locks keep their series from one scrape to the next.
    QStringList first, second;
    for (const MetricSample &x : ttls)
        first << x.labels.value("key");
    for (const MetricSample &x : MetricsText::find(scrape({&t}, 5), "lockscope_lock_held_at_least_seconds"))
        second << x.labels.value("key");
    QCOMPARE(second, first);
}

void TestLockMetrics::holdsSeenWholeFeedThePatternHistogram()
{
    SandboxServer server(SandboxFixture::withKeyspaceEvents());
    LS_START(server);
    MonitoredTarget t(QStringLiteral("t"), server.connectionSettings(), {}, fastTiming());
    t.start();
    QTRY_VERIFY_WITH_TIMEOUT(t.monitor().hearsNotifications() && t.scanState().ended, 10000);
    RedisConnection c(server.connectionSettings());
    LS_OPEN(c);
    for (int i = 0; i < 3; ++i) {
        const QByteArray key = "orders:" + QByteArray::number(i) + ":lock";
        QVERIFY(SampleLocks::plainLock(c, key, "worker-" + QByteArray::number(i), 60000));
        QTRY_VERIFY_WITH_TIMEOUT(t.monitor().locks().contains(key), 5000);
        QTest::qWait(300);
        QVERIFY(c.command({"DEL", key}).ok());
        QTRY_VERIFY_WITH_TIMEOUT(!t.monitor().locks().contains(key), 5000);
    }
    const QList<MetricSample> s = scrape({&t});
    const QHash<QString, QString> pattern {{"pattern", "orders:*:lock"}};
    QCOMPARE(MetricsText::value(s, "lockscope_pattern_acquisitions_total", pattern), 3.0);
    QCOMPARE(MetricsText::value(s, "lockscope_pattern_releases_total", pattern), 3.0);
    QCOMPARE(MetricsText::value(s, "lockscope_pattern_hold_seconds_count", pattern), 3.0);
    const double sum = MetricsText::value(s, "lockscope_pattern_hold_seconds_sum", pattern);
    QVERIFY2(sum >= 0.6 && sum < 10, qPrintable(QString::number(sum)));
    QCOMPARE(MetricsText::value(s, "lockscope_pattern_hold_seconds_bucket",
                                {{"pattern", "orders:*:lock"}, {"le", "+Inf"}}),
             3.0);
}

void TestLockMetrics::aSentinelFailoverIsCountedWithTheNewAddress()
{
    SandboxSentinelGroup group;
    LS_START(group);
    ConnectionSettings s = group.settings();
    s.readOnly = true;
    MonitoredTarget t(QStringLiteral("ha"), s, {}, fastTiming());
    QSignalSpy notes(&t, &MonitoredTarget::note);
    t.start();
    const QString first = group.node(group.currentMaster()).connectionSettings().endpoint();
    QTRY_COMPARE_WITH_TIMEOUT(t.monitor().address(), first, 10000);
    QCOMPARE(MetricsText::value(scrape({&t}), "lockscope_sentinel_failovers_total"), 0.0);
    QString error;
    QVERIFY2(group.failover(&error), qPrintable(error));
    const QString second = group.node(group.currentMaster()).connectionSettings().endpoint();
    QTRY_COMPARE_WITH_TIMEOUT(t.monitor().address(), second, 15000);
    const QList<MetricSample> m = scrape({&t});
    QCOMPARE(MetricsText::value(m, "lockscope_sentinel_failovers_total"), 1.0);
    QCOMPARE(MetricsText::value(m, "lockscope_target_info", {{"address", second}, {"topology", "sentinel"}}),
             1.0);
    QVERIFY(MetricsText::value(m, "lockscope_sentinel_last_failover_timestamp_seconds") > 0);
    bool logged = false;
    for (const QList<QVariant> &n : std::as_const(notes))
        logged
            = logged || n.at(0).toString().contains(QStringLiteral("moved from %1 to %2").arg(first, second));
    QVERIFY(logged);
}

// Issue 40: a real redis-py lock with a 3 s lease, renewed every second, then frozen (SIGSTOP): the key
// expires before any rule's `for:` could pass on its diagnosis, so the exporter keeps the loss with its key;
// its twin that keeps renewing is never listed.
void TestLockMetrics::aShortLeaseLostUnderAFrozenRenewerIsListedWithItsKey()
{
    SandboxServer server;
    LS_START(server);
    // Debian's python3 with python3-redis (tests/libraries/setup), as the real-library suite uses it.
    const QString python = QFileInfo::exists(QStringLiteral("/usr/bin/python3")) ? QStringLiteral("/usr/bin/python3")
                                                                                 : QStringLiteral("python3");
    static const char *holderScript = R"py(
import sys, time, redis
r = redis.Redis(port=int(sys.argv[1]))
lock = r.lock(sys.argv[2], timeout=3)
assert lock.acquire(blocking=False)
print("held", flush=True)
for _ in range(120):  # two minutes at most
    time.sleep(1)
    lock.reacquire()  # the TTL back to the full 3 s
)py";
    QProcess frozen, steady;
    for (auto [process, key] : {std::pair {&frozen, "rp:short:frozen"}, std::pair {&steady, "rp:short:steady"}}) {
        process->start(python, {QStringLiteral("-c"), QString::fromLatin1(holderScript), QString::number(server.port()),
                                QString::fromLatin1(key)});
        QVERIFY2(process->waitForReadyRead(15000), qPrintable(QString::fromUtf8(process->readAllStandardError())));
        QVERIFY(process->readLine().startsWith("held"));
    }
    const auto stop = qScopeGuard([&] {
        for (QProcess *p : {&frozen, &steady}) {
            ::kill(pid_t(p->processId()), SIGCONT);
            p->kill();
            p->waitForFinished(5000);
        }
    });
    MonitoredTarget t(QStringLiteral("t"), server.connectionSettings(), {}, fastTiming());
    t.start();
    // Renewals seen on both before the freeze: the loss will be of a lock someone was keeping alive.
    QTRY_VERIFY_WITH_TIMEOUT(t.activity().holding("rp:short:frozen").renewed
                                 && t.activity().holding("rp:short:steady").renewed,
                             15000);
    QCOMPARE(::kill(pid_t(frozen.processId()), SIGSTOP), 0);
    QElapsedTimer sinceFreeze;
    sinceFreeze.start();
    QTRY_VERIFY_WITH_TIMEOUT(!MetricsText::find(scrape({&t}), "lockscope_lock_expired_while_renewing_seconds",
                                                {{"key", "rp:short:frozen"}})
                                  .isEmpty(),
                             30000);
    qInfo("listed %lld ms after the freeze (lease 3 s)", sinceFreeze.elapsed());
    const QList<MetricSample> s = scrape({&t});
    QVERIFY(MetricsText::find(s, "lockscope_lock_expired_while_renewing_seconds", {{"key", "rp:short:steady"}}).isEmpty());
    QVERIFY(MetricsText::value(s, "lockscope_lock_expired_while_renewing_seconds", {{"key", "rp:short:frozen"}}) >= 0);
}

void TestLockMetrics::promtoolAcceptsTheText()
{
    const QString promtool = QStandardPaths::findExecutable(QStringLiteral("promtool"));
    QVERIFY2(!promtool.isEmpty(), "promtool is not installed (scripts/deps installs Debian's prometheus)");
    SandboxServer server;
    LS_START(server);
    RedisConnection admin(server.connectionSettings());
    LS_OPEN(admin);
    QVERIFY(SampleLocks::writeDemoSet(admin));
    MonitoredTarget t(QStringLiteral("demo"), server.connectionSettings(), {}, fastTiming());
    t.start();
    QTRY_VERIFY_WITH_TIMEOUT(t.scanState().ended, 10000);
    // promtool lints the Prometheus text format (names, suffixes, help, units).
    QProcess check;
    check.start(promtool, {"check", "metrics"});
    QVERIFY(check.waitForStarted());
    check.write(LockMetrics::render({&t}, {}, OpenMetricsWriter::Format::PrometheusText));
    check.closeWriteChannel();
    QVERIFY(check.waitForFinished(30000));
    const QString said = QString::fromUtf8(check.readAllStandardOutput() + check.readAllStandardError());
    QVERIFY2(check.exitCode() == 0, qPrintable(said));
}

QTEST_GUILESS_MAIN(TestLockMetrics)
#include "tst_lockmetrics.moc"
