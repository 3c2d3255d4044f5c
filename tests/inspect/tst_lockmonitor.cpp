// LockMonitor, the live engine of the Inspector and of `inspect --watch`, on real servers and real libraries:
// a minute of healthy renewers from five libraries (each with its own renewal rhythm) raises no stall, a
// frozen Redisson-format holder is flagged within 1.5 of its renewal periods, a reload or a restart is never
// turned into releases, and a fair lock that expires with waiters queued is an expiry.
#include "fixturedriver.h"
#include "inspect/inspectclock.h"
#include "inspect/lockmonitor.h"
#include "inspect/samplelocks.h"
#include "sandboxfixture.h"
#include "testsupport.h"

#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QScopeGuard>
#include <QSignalSpy>

#include <atomic>
#include <chrono>
#include <csignal>
#include <memory>
#include <thread>

class TestLockMonitor : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void healthyRenewersAreNeverStalledAndAFrozenOneIs();
    void aSteadyRenewerOfAnyLibraryIsALease();
    void aLockOnSeveralKeysStaysOneLockWhileRenewed();
    void theRenewalTextSaysWhatTheWatchSaw();
    void aReloadIsNotAReleaseSpree();
    void aRestartLosesLocksItDoesNotReleaseThem();
    void aFairLockThatExpiresWithWaitersIsAnExpiry();
    void rescansTakeAtMostTheirShareOfTheTime();
};

namespace {

const QString kDir = QStringLiteral(LOCKSCOPE_LIBRARIES_DIR);

} // namespace

void TestLockMonitor::initTestCase()
{
    QVERIFY2(QFileInfo::exists(kDir + QStringLiteral("/node/node_modules/.lockscope-installed")),
             "the Node.js fixtures are not installed: run tests/libraries/setup (scripts/test does)");
}

void TestLockMonitor::healthyRenewersAreNeverStalledAndAFrozenOneIs()
{
    SandboxServer server;
    LS_START(server);
    // Libraries that renew on their own, each with its rhythm: Redisson's watchdog format (node-redisson) at
    // a third of the lease, BullMQ and Bull at half, redis-semaphore when a fifth is left, redlock's using()
    // with 500 ms left, redlock-universal at 80 %, RQ's scheduler every second.
    std::vector<std::unique_ptr<FixtureDriver>> drivers;
    int n = 0;
    for (const char *name : {"node-redisson", "bullmq", "bull", "redis-semaphore", "redlock-v5",
                             "sesamecare-redlock", "redlock-universal", "rq"}) {
        QString error;
        auto d = FixtureDriver::start(kDir, QString::fromLatin1(name), server.port(),
                                      QStringLiteral("mon%1:").arg(n++), &error);
        QVERIFY2(d, qPrintable(error));
        drivers.push_back(std::move(d));
    }
    LockMonitor monitor;
    monitor.setConnectionSettings(server.connectionSettings());
    QSignalSpy stalls(&monitor, &LockMonitor::diagnosisRaised);
    QHash<QByteArray, int> renewals;
    connect(&monitor, &LockMonitor::happened, this,
            [&](const QByteArray &key, const QList<LockEvent> &events, const LockRecord &) {
                for (const LockEvent &e : events)
                    renewals[key] += e.type == LockEvent::Type::Renewed;
            });
    QSignalSpy scanned(&monitor, &LockMonitor::scanEnded);
    monitor.start();
    QVERIFY(scanned.wait(20000));

    // A minute of healthy renewals.
    QElapsedTimer minute;
    minute.start();
    while (minute.elapsed() < 60000)
        QTest::qWait(250);
    QStringList falseStalls;
    for (const QList<QVariant> &s : std::as_const(stalls)) {
        const auto d = s.at(1).value<LockDiagnosis>();
        if (d.code == QLatin1String("watchdog-stalled"))
            falseStalls << QStringLiteral("%1: %2").arg(QString::fromUtf8(s.at(0).value<LockRecord>().key),
                                                        d.evidence);
    }
    QVERIFY2(falseStalls.isEmpty(), qPrintable(falseStalls.join(u'\n')));
    // And the renewals were seen, so the silence above is a judgement, not blindness.
    int renewingLocks = 0;
    for (auto [key, count] : renewals.asKeyValueRange())
        renewingLocks += count >= 3;
    qInfo("%d locks seen renewing at least 3 times in 60 s", renewingLocks);
    QVERIFY2(renewingLocks >= 10, qPrintable(QString::number(renewingLocks)));

    // Freeze the Redisson-format holder: its 30 s watchdog lock (renewed every 10 s) must be flagged
    // within 1.5 renewal periods of its last renewal.
    FixtureDriver &frozen = *drivers.front();
    QByteArray watched;
    for (const QJsonObject &m : frozen.made) {
        if (m.value(QLatin1String("lease_ms")).toInt() == 30000)
            watched = m.value(QLatin1String("key")).toString().toUtf8();
    }
    QVERIFY(!watched.isEmpty());
    QVERIFY(monitor.history(watched) && monitor.history(watched)->renewals() > 0);
    stalls.clear();
    QCOMPARE(::kill(pid_t(frozen.process->processId()), SIGSTOP), 0);
    QElapsedTimer frozenFor;
    frozenFor.start();
    qint64 flaggedAt = -1;
    while (flaggedAt < 0 && frozenFor.elapsed() < 40000) {
        QTest::qWait(100);
        for (const QList<QVariant> &s : std::as_const(stalls)) {
            if (s.at(0).value<LockRecord>().key == watched
                && s.at(1).value<LockDiagnosis>().code == QLatin1String("watchdog-stalled"))
                flaggedAt = InspectClock::monotonicMs();
        }
    }
    ::kill(pid_t(frozen.process->processId()), SIGCONT);
    QVERIFY2(flaggedAt > 0, "the frozen holder was never flagged");
    const LockHistory *h = monitor.history(watched);
    const qint64 period = h->renewalIntervalMs() > 0 ? h->renewalIntervalMs() : 10000;
    const qint64 sinceRenewal = flaggedAt - h->lastRenewalMs();
    qInfo("frozen holder flagged %lld ms after its last renewal (renewal period %lld ms: %.2f periods)",
          sinceRenewal, period, double(sinceRenewal) / double(period));
    QVERIFY2(sinceRenewal <= period * 3 / 2, qPrintable(QString::number(sinceRenewal)));

    monitor.stop();
    for (auto &d : drivers)
        d->stop();
}

// Issue 31, watching: a lock no catalog library made (SET NX with worker:pid), renewed by PEXPIRE every
// 600 ms to a 3 s lease by a renewer this test drives, is a lease with that period: 12 s of steady renewals
// raise no stall, and once the renewer freezes it is flagged within two of its observed periods. With
// keyspace notifications, as the live Inspector wants them: every renewal is seen. (Before: a silent key was
// read again only at the next 5 s poll, so the frozen renewer was never flagged before its lease ran out.)
// Without notifications, renewals faster than the 1 s poll merge and are seen at the poll's resolution.
void TestLockMonitor::aSteadyRenewerOfAnyLibraryIsALease()
{
    SandboxServer server(SandboxFixture::withKeyspaceEvents());
    LS_START(server);
    const QByteArray key = "billing:lock:invoice-run";
    // And a key with no lock word, only a random id that expires (sherlock's bare name): a possible lease,
    // which only its rhythm makes one (issue 31).
    const QByteArray bare = "reports/nightly-export";
    std::atomic<bool> renewing {true};
    std::atomic<bool> quit {false};
    std::atomic<bool> written {false};
    std::thread renewer([&] {
        RedisConnection c(server.connectionSettings());
        c.setReadOnly(false);
        if (c.open() || !c.command({"SET", key, "worker-3:4711", "PX", "3000"}).ok()
            || !c.command({"SET", bare, "3f0c9a4e-8b1d-4c7e-9a2f-5d6e7f8a9b0c", "PX", "3000"}).ok())
            return;
        written = true;
        // Bounded: at most 60 renewals (36 s); the test ends it sooner.
        for (int i = 0; i < 60 && !quit; ++i) {
            std::this_thread::sleep_for(std::chrono::milliseconds(600));
            if (renewing) {
                c.command({"PEXPIRE", key, "3000"});
                c.command({"PEXPIRE", bare, "3000"});
            }
        }
    });
    const auto stopRenewer = qScopeGuard([&] {
        quit = true;
        renewer.join();
    });
    QTRY_VERIFY_WITH_TIMEOUT(written.load(), 5000);

    LockMonitor monitor;
    monitor.setConnectionSettings(server.connectionSettings());
    QSignalSpy raised(&monitor, &LockMonitor::diagnosisRaised);
    QSignalSpy scanned(&monitor, &LockMonitor::scanEnded);
    monitor.start();
    QVERIFY(scanned.wait(20000));
    QVERIFY(monitor.locks().contains(key));
    QCOMPARE(monitor.locks().value(bare).format, QStringLiteral("random-id-lease"));
    QTRY_VERIFY_WITH_TIMEOUT(monitor.hearsNotifications(), 10000);
    const auto stallsOf = [&](const QByteArray &which = {}) {
        QStringList out;
        for (const QList<QVariant> &s : std::as_const(raised)) {
            const auto d = s.at(1).value<LockDiagnosis>();
            if (s.at(0).value<LockRecord>().key == (which.isEmpty() ? key : which)
                && d.code == QLatin1String("watchdog-stalled"))
                out << d.evidence;
        }
        return out;
    };

    QElapsedTimer steady;
    steady.start();
    while (steady.elapsed() < 12000)
        QTest::qWait(100);
    QVERIFY2(stallsOf().isEmpty(), qPrintable(stallsOf().join(u'\n')));
    QVERIFY2(stallsOf(bare).isEmpty(), qPrintable(stallsOf(bare).join(u'\n')));
    const LockHistory *h = monitor.history(key);
    QVERIFY(h);
    qInfo("steady renewer: %d renewals seen in 12 s, every %lld ms (within %lld ms)", h->renewals(),
          h->renewalIntervalMs(), h->renewalJitterMs());
    QVERIFY2(h->renewals() >= 8, qPrintable(QString::number(h->renewals())));
    const qint64 period = h->renewalIntervalMs();
    QVERIFY2(period >= 450 && period <= 900, qPrintable(QString::number(period)));

    renewing = false; // frozen: the key stays until its 3 s lease runs out
    qint64 flaggedAt = -1;
    QElapsedTimer frozen;
    frozen.start();
    qint64 bareFlaggedAt = -1;
    while ((flaggedAt < 0 || bareFlaggedAt < 0) && frozen.elapsed() < 4000) {
        QTest::qWait(20);
        if (flaggedAt < 0 && !stallsOf().isEmpty())
            flaggedAt = InspectClock::monotonicMs();
        if (bareFlaggedAt < 0 && !stallsOf(bare).isEmpty())
            bareFlaggedAt = InspectClock::monotonicMs();
    }
    QVERIFY2(flaggedAt > 0, "the frozen renewer was never flagged");
    const qint64 sinceRenewal = flaggedAt - h->lastRenewalMs();
    qInfo("frozen renewer flagged %lld ms after its last renewal (%.2f observed periods): %s", sinceRenewal,
          double(sinceRenewal) / double(period), qPrintable(stallsOf().value(0)));
    QVERIFY2(sinceRenewal <= 2 * period, qPrintable(QString::number(sinceRenewal)));
    QVERIFY2(stallsOf().value(0).contains(QLatin1String("a lease with that period")),
             qPrintable(stallsOf().value(0)));
    // The possible lease, listed only for its random id and TTL, is judged by the same rhythm.
    const LockHistory *bareHistory = monitor.history(bare);
    QVERIFY(bareHistory);
    QVERIFY2(bareFlaggedAt > 0, "the frozen possible lease was never flagged");
    const qint64 bareSince = bareFlaggedAt - bareHistory->lastRenewalMs();
    qInfo("frozen possible lease flagged %lld ms after its last renewal (%.2f observed periods)", bareSince,
          double(bareSince) / double(bareHistory->renewalIntervalMs()));
    QVERIFY2(bareSince <= 2 * bareHistory->renewalIntervalMs(), qPrintable(QString::number(bareSince)));
    monitor.stop();
}

// Issue 41: redis-py's Lock (PyPI redis 8.1.0) kept alive by its holder's thread calling extend() every
// second, as job runners built on redis-py do. redis-py does not renew on its own, and the catalog says so;
// watched, the lock's renewal text says what the watch saw: renewed every ~1 s, something renews it.
// (Before: only "redis-py renews it only when the application calls extend() or reacquire()", wrong for this
// caller.)
void TestLockMonitor::theRenewalTextSaysWhatTheWatchSaw()
{
    SandboxServer server(SandboxFixture::withKeyspaceEvents());
    LS_START(server);
    QString error;
    auto driver = FixtureDriver::start(kDir, QStringLiteral("redis-py-pypi"), server.port(),
                                       QStringLiteral("mon:"), &error);
    QVERIFY2(driver, qPrintable(error));
    const auto stopDriver = qScopeGuard([&] { driver->stop(); });
    const QByteArray key = "mon:pypi:kept-alive", fixed = "mon:pypi:billing";
    LockMonitor monitor;
    monitor.setConnectionSettings(server.connectionSettings());
    QSignalSpy scanned(&monitor, &LockMonitor::scanEnded);
    monitor.start();
    QVERIFY(scanned.wait(20000));
    QCOMPARE(monitor.locks().value(key).format, QStringLiteral("redis-py-lock"));
    const QString library = monitor.locks().value(key).renewal.text;
    QVERIFY2(library.contains(QLatin1String("extend()")), qPrintable(library));
    // Three renewals or more, a second apart: at most 10 s.
    QTRY_VERIFY_WITH_TIMEOUT(monitor.history(key) && monitor.history(key)->renewals() >= 4, 10000);
    QTRY_VERIFY_WITH_TIMEOUT(
        monitor.locks().value(key).renewal.observed.contains(QLatin1String("renewals seen")), 5000);
    const QString shown = monitor.locks().value(key).renewal.shown();
    qInfo("renewal of a redis-py Lock extended every second, watched: %s", qPrintable(shown));
    static const QRegularExpression everySecond(
        QStringLiteral("^renewed every ~(0\\.[89]|1\\.[0-2]) s while watched \\([0-9]+ renewals seen"));
    QVERIFY2(everySecond.match(shown).hasMatch(), qPrintable(shown));
    QVERIFY2(shown.contains(QLatin1String("something renews it")), qPrintable(shown));
    QVERIFY2(shown.endsWith(library + u')'), qPrintable(shown));
    // Its neighbour of the same library, never extended, keeps the library's rule alone.
    QCOMPARE(monitor.locks().value(fixed).renewal.shown(), library);
    monitor.stop();
}

// rueidislock's lock on three keys (one token of raw random bytes, one TTL), each key extended on its own:
// watched live, it stays one lock with its two other resources. (Before: a notification on one of the other
// keys had it read alone, so it became a lock of its own, and the next reading of the group, ordered
// differently, showed the first key "released".)
void TestLockMonitor::aLockOnSeveralKeysStaysOneLockWhileRenewed()
{
    SandboxServer server(SandboxFixture::withKeyspaceEvents());
    LS_START(server);
    const QByteArray token = QByteArray::fromHex("9c1be47f03a2d85e6b10f4c7293ae8d15f06b7c4e2a9013d");
    const QList<QByteArray> keys {"rueidislock:0:orders", "rueidislock:1:orders", "rueidislock:2:orders"};
    std::atomic<bool> quit {false};
    std::atomic<bool> written {false};
    std::thread renewer([&] {
        RedisConnection c(server.connectionSettings());
        c.setReadOnly(false);
        if (c.open())
            return;
        for (const QByteArray &key : keys) {
            if (!c.command({"SET", key, token, "PX", "3000"}).ok())
                return;
        }
        written = true;
        // Bounded: at most 40 rounds (12 s); the test ends it sooner. One key at a time, as its goroutines
        // do.
        for (int i = 0; i < 40 && !quit; ++i) {
            for (const QByteArray &key : keys) {
                std::this_thread::sleep_for(std::chrono::milliseconds(100));
                c.command({"PEXPIRE", key, "3000"});
            }
        }
    });
    const auto stopRenewer = qScopeGuard([&] {
        quit = true;
        renewer.join();
    });
    QTRY_VERIFY_WITH_TIMEOUT(written.load(), 5000);

    LockMonitor monitor;
    monitor.setConnectionSettings(server.connectionSettings());
    QSignalSpy gone(&monitor, &LockMonitor::gone);
    QSignalSpy scanned(&monitor, &LockMonitor::scanEnded);
    monitor.start();
    QVERIFY(scanned.wait(20000));
    QTRY_VERIFY_WITH_TIMEOUT(monitor.hearsNotifications(), 10000);
    QElapsedTimer watching;
    watching.start();
    while (watching.elapsed() < 4000)
        QTest::qWait(100);
    QCOMPARE(monitor.locks().size(), 1);
    const LockRecord r = monitor.locks().begin().value();
    QCOMPARE(r.groupKeys.size(), 2);
    QVERIFY(keys.contains(r.key));
    QVERIFY2(gone.isEmpty(), qPrintable(QString::fromUtf8(gone.value(0).value(0).toByteArray())));
    const LockHistory *h = monitor.history(r.key);
    QVERIFY(h);
    qInfo("one lock on %lld keys, %d renewals seen in 4 s", qint64(r.memberKeys().size()), h->renewals());
    QVERIFY(h->renewals() >= 3);
    monitor.stop();
}

void TestLockMonitor::aReloadIsNotAReleaseSpree()
{
    SandboxServer::Options o;
    o.configLines << QStringLiteral("enable-debug-command yes");
    SandboxServer server(o);
    LS_START(server);
    // Filling 1.5 M keys takes seconds on a busy CI machine: longer than the default command timeout.
    ConnectionSettings adminSettings = server.connectionSettings();
    adminSettings.commandTimeoutMs = 120000;
    RedisConnection admin(adminSettings);
    LS_OPEN(admin);
    QVERIFY(SampleLocks::writeDemoSet(admin));
    // Enough data that loading it again takes a noticeable while, during which every read answers LOADING.
    QVERIFY(admin.command({"DEBUG", "POPULATE", "1500000", "filler", "64"}).ok());
    LockMonitor monitor;
    LockMonitor::Timing fast;
    fast.pollMs = 50;
    monitor.setTiming(fast);
    monitor.setConnectionSettings(server.connectionSettings());
    ScanOptions options;
    options.patterns = {"demo:*"};
    monitor.setOptions(options);
    QSignalSpy live(&monitor, &LockMonitor::liveChanged);
    QList<LockEvent::Type> seen;
    QStringList log;
    connect(&monitor, &LockMonitor::happened, this,
            [&](const QByteArray &key, const QList<LockEvent> &events, const LockRecord &) {
                for (const LockEvent &e : events) {
                    seen << e.type;
                    log << QStringLiteral("%1 %2 %3").arg(QString::fromUtf8(key), LockEvent::typeName(e.type), e.detail);
                }
            });
    QSignalSpy scanned(&monitor, &LockMonitor::scanEnded);
    monitor.start();
    QVERIFY(scanned.wait(10000));
    // The locks that outlive the test (a few demo locks have TTLs of seconds and expire meanwhile, rightly).
    QList<QByteArray> lasting;
    for (const LockRecord &r : monitor.locks()) {
        if (r.pttlMs == -1 || r.pttlMs > 120000)
            lasting << r.key;
    }
    QVERIFY(lasting.size() >= 5);
    seen.clear();
    // DEBUG RELOAD saves and loads the data set again; while it loads, reads answer LOADING. The locks are
    // the same afterwards. (The reload runs on its own connection, so the monitor keeps polling meanwhile.)
    for (int i = 0; i < 3; ++i) {
        std::atomic_bool reloaded = false;
        std::thread reloader([&] {
            ConnectionSettings s = server.connectionSettings();
            s.commandTimeoutMs = 120000;
            RedisConnection c(s);
            // Whether the reload itself succeeded matters little: the monitor must come back either way.
            if (!c.open())
                c.command({"DEBUG", "RELOAD"});
            reloaded = true;
        });
        QTRY_VERIFY_WITH_TIMEOUT(reloaded, 120000);
        reloader.join();
        QTRY_VERIFY_WITH_TIMEOUT(monitor.isLive(), 20000);
    }
    // The polls did read across a reload: the monitor saw the server unreadable at least once.
    QVERIFY2(!live.isEmpty(), "no poll fell inside a reload: the test did not exercise LOADING");
    monitor.rescan();
    QVERIFY(scanned.wait(10000));
    QVERIFY2(!seen.contains(LockEvent::Type::Released) && !seen.contains(LockEvent::Type::Lost),
             qPrintable(log.join(u'\n')));
    for (const QByteArray &key : std::as_const(lasting))
        QVERIFY2(monitor.locks().contains(key), key.constData());
}

void TestLockMonitor::aRestartLosesLocksItDoesNotReleaseThem()
{
    SandboxFixture server;
    LS_SANDBOX(server);
    RedisConnection &admin = server.admin();
    QVERIFY(SampleLocks::redissonLock(admin, "order:1", SampleLocks::redissonClientId(), 7, 60000));
    QVERIFY(SampleLocks::plainLock(admin, "lock:stock", "worker-17", 60000));
    LockMonitor monitor;
    monitor.setConnectionSettings(server.connectionSettings());
    QHash<QByteArray, QList<LockEvent>> events;
    connect(&monitor, &LockMonitor::happened, this,
            [&](const QByteArray &key, const QList<LockEvent> &e, const LockRecord &) { events[key] << e; });
    QSignalSpy live(&monitor, &LockMonitor::liveChanged);
    QSignalSpy scanned(&monitor, &LockMonitor::scanEnded);
    monitor.start();
    QVERIFY(scanned.wait(10000));
    QCOMPARE(int(monitor.locks().size()), 2);
    // The server dies and comes back empty (persistence off): nobody released anything; the locks were lost.
    server.kill();
    QTRY_VERIFY_WITH_TIMEOUT(!monitor.isLive(), 15000);
    QVERIFY(server.restart());
    QTRY_VERIFY_WITH_TIMEOUT(monitor.isLive() && monitor.locks().isEmpty(), 30000);
    for (const QByteArray &key : {QByteArray("order:1"), QByteArray("lock:stock")}) {
        QVERIFY(!events.value(key).isEmpty());
        const LockEvent last = events.value(key).last();
        QCOMPARE(last.type, LockEvent::Type::Lost);
        QVERIFY2(last.detail.contains(QLatin1String("could not be read")), qPrintable(last.detail));
    }
}

void TestLockMonitor::aFairLockThatExpiresWithWaitersIsAnExpiry()
{
    SandboxFixture server;
    LS_SANDBOX(server);
    RedisConnection &admin = server.admin();
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    QVERIFY(SampleLocks::redissonLock(admin, "fair:1", SampleLocks::redissonClientId(), 1, 2000));
    QVERIFY(SampleLocks::redissonFairWaiter(admin, "fair:1", SampleLocks::redissonClientId() + ":9",
                                            now + 300000));
    LockMonitor monitor;
    LockMonitor::Timing t;
    t.pollMs = 200;
    monitor.setTiming(t);
    monitor.setConnectionSettings(server.connectionSettings());
    QList<LockEvent> events;
    connect(&monitor, &LockMonitor::happened, this,
            [&](const QByteArray &key, const QList<LockEvent> &e, const LockRecord &) {
                if (key == "fair:1")
                    events << e;
            });
    QSignalSpy scanned(&monitor, &LockMonitor::scanEnded);
    monitor.start();
    QVERIFY(scanned.wait(10000));
    QTRY_VERIFY_WITH_TIMEOUT(
        std::any_of(events.cbegin(), events.cend(),
                    [](const LockEvent &e) { return e.type == LockEvent::Type::Expired; }),
        10000);
    // The queue is left; the lock expired. Before, this read as "released (owner changed)" and "acquired".
    for (const LockEvent &e : std::as_const(events)) {
        QVERIFY2(e.type != LockEvent::Type::Released && e.type != LockEvent::Type::Acquired,
                 qPrintable(LockEvent::typeName(e.type) + QStringLiteral(" ") + e.detail));
    }
    QVERIFY(monitor.locks().contains("fair:1")); // still listed: its orphan queue
    QVERIFY(!monitor.locks().value("fair:1").exists());
}

// Without notifications the monitor rescans the whole keyspace every 30 s: on 1,000,000 keys (a 10 s scan)
// the server was scanned a third of the time (bench_serve). With a share, the wait between two starts is at
// least the last scan's duration divided by it; without one, the fixed interval holds.
void TestLockMonitor::rescansTakeAtMostTheirShareOfTheTime()
{
    SandboxFixture server;
    LS_SANDBOX(server);
    QVERIFY(TestSupport::writePlainLocks(server.admin(), 20000)); // a scan of many pages: tens of ms at least
    for (const double share : {0.0, 0.001}) {
        LockMonitor monitor;
        LockMonitor::Timing timing;
        timing.rescanMs = 1000;
        timing.rescanShare = share;
        monitor.setTiming(timing);
        monitor.setConnectionSettings(server.connectionSettings());
        QCOMPARE(monitor.rescanIntervalMs(), 1000); // nothing scanned yet: the fixed interval
        qint64 elapsedMs = -1;
        connect(&monitor, &LockMonitor::scanEnded, this,
                [&](const ScanProgress &p, bool complete, const QString &) {
                    if (complete)
                        elapsedMs = p.elapsedMs;
                });
        monitor.start();
        QTRY_VERIFY_WITH_TIMEOUT(elapsedMs >= 0, 20000);
        monitor.stop();
        QVERIFY2(elapsedMs >= 2, qPrintable(QString::number(elapsedMs)));
        if (share == 0.0)
            QCOMPARE(monitor.rescanIntervalMs(), 1000);
        else
            QVERIFY2(monitor.rescanIntervalMs() >= elapsedMs * 1000 - 1,
                     qPrintable(QStringLiteral("%1 ms after a scan of %2 ms")
                                    .arg(monitor.rescanIntervalMs())
                                    .arg(elapsedMs)));
    }
}

QTEST_GUILESS_MAIN(TestLockMonitor)
#include "tst_lockmonitor.moc"
