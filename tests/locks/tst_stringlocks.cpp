// The string locks of the seeds (setnx-expire, set-nx-px-del, set-nx-px-get-del, set-nx-px-lua,
// set-nx-px-lua-watchdog): each flaw made to happen on purpose with its fault hook, and the wait
// strategies of the acquire loop.
#include "locktestsupport.h"
#include "sandboxfixture.h"

#include "locks/lockcatalog.h"
#include "locks/setnxexpirelock.h"

#include <QElapsedTimer>

#include <thread>

using namespace LockTest;

class TestStringLocks : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void init();
    void setnxCrashLeavesAKeyWithoutTtl();
    void busySpinFloodsTheServer();
    void getThenDelDeletesAForeignLock_data();
    void getThenDelDeletesAForeignLock();
    void unconditionalDelLetsAThirdWorkerIn();
    void shortLeaseGivesTwoHolders();
    void watchdogRenewalsAreObservable();
    void pausedProcessLosesItsLock();
    void skippedRenewalsLetTheLeaseRunOut();
    void acquireWaitsWithFixedInterval();
    void plannedDelays();
    void probedTtlOnRefusal();
    void cachedClockTimesOut();
    void seedValues();

private:
    Worker worker();
    SandboxFixture m_server;
};

void TestStringLocks::initTestCase()
{
    LS_SANDBOX(m_server);
}

void TestStringLocks::init()
{
    QVERIFY(m_server.admin().command({"FLUSHALL"}).ok());
    QVERIFY(m_server.admin().command({"CONFIG", "RESETSTAT"}).ok());
}

Worker TestStringLocks::worker()
{
    QString error;
    Worker w = openWorker({&m_server}, &error);
    if (w.servers.isEmpty())
        qWarning("%s", qPrintable(error));
    return w;
}

void TestStringLocks::setnxCrashLeavesAKeyWithoutTtl()
{
    LockClient crashing, other;
    FaultHooks hooks;
    std::atomic<int> crashes = 0;
    hooks.crashAfterSetnx = [&](qint64 thread, const QByteArray &key) {
        ++crashes;
        return thread == 1 && key == "t:setnx";
    };
    crashing.setFaultHooks(hooks);
    Worker a = worker(), b = worker();
    LockOptions options = LockCatalog::find(QStringLiteral("setnx-expire"))->defaults;
    options.leaseMs = 1000;
    options.acquireTimeoutMs = 300;
    auto lockA = LockCatalog::create(QStringLiteral("setnx-expire"), crashing, "t:setnx", 1, options);
    auto lockB = LockCatalog::create(QStringLiteral("setnx-expire"), other, "t:setnx", 2, options);

    const AcquireResult crashed = lockA->acquire(a.servers);
    QCOMPARE(crashed.outcome, AcquireResult::Outcome::Crashed);
    QCOMPARE(crashes.load(), 1);
    QCOMPARE(crashed.commands, 1); // SETNX went out, EXPIRE never did
    QVERIFY(!lockA->isHeld());
    QCOMPARE(pttl(m_server.admin(), "t:setnx"), LockTtl::NoExpiry);
    QCOMPARE(TestSupport::commandCalls(m_server.admin(), "expire"), 0);

    // Every other worker starves: well past the 1 s lease the key is still there.
    const AcquireResult starved = lockB->acquire(b.servers);
    QCOMPARE(starved.outcome, AcquireResult::Outcome::TimedOut);
    QTest::qWait(1100);
    QCOMPARE(lockB->tryAcquire(b.servers).outcome, AcquireResult::Outcome::Refused);
    QCOMPARE(pttl(m_server.admin(), "t:setnx"), LockTtl::NoExpiry);
}

void TestStringLocks::busySpinFloodsTheServer()
{
    LockClient holder, spinner, poller;
    Worker a = worker(), b = worker(), c = worker();
    LockOptions options = LockCatalog::find(QStringLiteral("setnx-expire"))->defaults;
    options.acquireTimeoutMs = 200;
    auto lockA = LockCatalog::create(QStringLiteral("setnx-expire"), holder, "t:spin", 1, options);
    auto lockB = LockCatalog::create(QStringLiteral("setnx-expire"), spinner, "t:spin", 2, options);
    options.wait = WaitStrategy::FixedInterval;
    options.retryIntervalMs = 50;
    auto lockC = LockCatalog::create(QStringLiteral("setnx-expire"), poller, "t:spin", 3, options);
    QVERIFY(lockA->tryAcquire(a.servers).acquired());

    const qint64 before = TestSupport::commandCalls(m_server.admin(), "setnx");
    const AcquireResult spun = lockB->acquire(b.servers);
    const qint64 sent = TestSupport::commandCalls(m_server.admin(), "setnx") - before;
    const AcquireResult polled = lockC->acquire(c.servers);
    QCOMPARE(spun.outcome, AcquireResult::Outcome::TimedOut);
    QCOMPARE(polled.outcome, AcquireResult::Outcome::TimedOut);
    QCOMPARE(sent, qint64(spun.attempts));
    QCOMPARE(spun.commands, spun.attempts);
    QVERIFY2(polled.attempts <= 6, qPrintable(QString::number(polled.attempts)));
    QVERIFY2(
        spun.attempts >= 10 * polled.attempts,
        qPrintable(
            QStringLiteral("busy spin %1 attempts, polling %2").arg(spun.attempts).arg(polled.attempts)));
}

void TestStringLocks::getThenDelDeletesAForeignLock_data()
{
    QTest::addColumn<QString>("id");
    QTest::addColumn<qint64>("lease");
    QTest::newRow("setnx-expire") << QStringLiteral("setnx-expire") << qint64(1000);
    QTest::newRow("set-nx-px-get-del") << QStringLiteral("set-nx-px-get-del") << qint64(200);
}

void TestStringLocks::getThenDelDeletesAForeignLock()
{
    QFETCH(QString, id);
    QFETCH(qint64, lease);
    LockClient slow, next;
    Worker a = worker(), b = worker();
    const LockOptions options = quickOptions(id, lease);
    auto lockA = LockCatalog::create(id, slow, "t:race", 1, options);
    auto lockB = LockCatalog::create(id, next, "t:race", 2, options);
    QVERIFY(lockA->tryAcquire(a.servers).acquired());

    // Between A's GET (which matched) and its DEL: the lease runs out and B takes the lock.
    bool bAcquired = false;
    FaultHooks hooks;
    hooks.betweenGetAndDel = [&](qint64, const QByteArray &) {
        QElapsedTimer waited;
        waited.start();
        while (waited.elapsed() < lease + 3000 && !bAcquired) {
            bAcquired = lockB->tryAcquire(b.servers).acquired();
            if (!bAcquired)
                std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
    };
    slow.setFaultHooks(hooks);
    const ReleaseResult r = lockA->release(a.servers);
    QCOMPARE(r.outcome, ReleaseResult::Outcome::Released); // A believes it released its own lock...
    QCOMPARE(r.commands, 2); // GET, DEL
    QVERIFY(bAcquired);
    QVERIFY(lockB->isHeld());
    // ...but the DEL removed B's: B holds a lock that no longer exists, anyone can walk in.
    QVERIFY(!exists(m_server.admin(), "t:race"));
    LockClient third;
    auto lockC = LockCatalog::create(id, third, "t:race", 3, options);
    Worker c = worker();
    QVERIFY(lockC->tryAcquire(c.servers).acquired());
    QVERIFY(lockB->isHeld() && lockC->isHeld()); // two holders
}

void TestStringLocks::unconditionalDelLetsAThirdWorkerIn()
{
    const QString id = QStringLiteral("set-nx-px-del");
    LockClient pa, pb, pc;
    Worker a = worker(), b = worker(), c = worker();
    const LockOptions options = quickOptions(id, 200);
    auto lockA = LockCatalog::create(id, pa, "t:del", 1, options);
    auto lockB = LockCatalog::create(id, pb, "t:del", 2, options);
    auto lockC = LockCatalog::create(id, pc, "t:del", 3, options);
    QVERIFY(lockA->tryAcquire(a.servers).acquired());
    QCOMPARE(get(m_server.admin(), "t:del"), QByteArray("lockValue"));
    AcquireOnce acquireB(*lockB, b.servers);
    QTRY_VERIFY_WITH_TIMEOUT(acquireB(), 3000); // A's lease ran out
    QCOMPARE(lockA->release(a.servers).outcome,
             ReleaseResult::Outcome::Released); // A finishes: deletes B's lock
    QVERIFY(lockC->tryAcquire(c.servers).acquired());
    QVERIFY(lockB->isHeld() && lockC->isHeld());
}

void TestStringLocks::shortLeaseGivesTwoHolders()
{
    const QString id = QStringLiteral("set-nx-px-lua");
    LockClient pa, pb;
    Worker a = worker(), b = worker();
    const LockOptions options = quickOptions(id, 200);
    auto lockA = LockCatalog::create(id, pa, "t:short", 1, options);
    auto lockB = LockCatalog::create(id, pb, "t:short", 2, options);
    const AcquireResult ra = lockA->tryAcquire(a.servers);
    QVERIFY(ra.acquired());
    QCOMPARE(get(m_server.admin(), "t:short"), ra.token);
    AcquireOnce acquireB(*lockB, b.servers);
    QTRY_VERIFY_WITH_TIMEOUT(acquireB(), 3000);
    QVERIFY(lockA->isHeld() && lockB->isHeld()); // A's critical section outlived its lease
    QVERIFY(lockA->token() != lockB->token());
    // The Lua release at least does no harm: A cannot delete B's lock.
    QCOMPARE(lockA->release(a.servers).outcome, ReleaseResult::Outcome::NotOwner);
    QCOMPARE(get(m_server.admin(), "t:short"), lockB->token());
}

void TestStringLocks::watchdogRenewalsAreObservable()
{
    const QString id = QStringLiteral("set-nx-px-lua-watchdog");
    LockClient process;
    std::mutex mutex;
    QList<RenewalEvent> events;
    process.watchdog().setObserver([&](const RenewalEvent &e) {
        std::lock_guard lock(mutex);
        events << e;
    });
    Worker a = worker();
    LockOptions options = quickOptions(id, 300);
    options.watchdog = true;
    auto lock = LockCatalog::create(id, process, "t:renew", 4, options);
    QVERIFY(!lock->prepare(a.servers)); // SCRIPT LOAD once: the watchdog's connection finds them too
    const AcquireResult r = lock->tryAcquire(a.servers);
    QVERIFY(r.acquired());
    QTRY_VERIFY_WITH_TIMEOUT(process.watchdog().renewals() >= 4, 3000);
    QVERIFY(lock->release(a.servers).ok());
    std::lock_guard guard(mutex);
    QVERIFY(events.size() >= 4);
    // The first renewal is armed inside tryAcquire, before its result is stamped: a period after the acquire
    // began, not after it ended (under TSan the two are more than a millisecond apart: CI of the clean clone).
    qint64 previousEnd = r.startUs;
    for (const RenewalEvent &e : events) {
        QCOMPARE(e.outcome, RenewalEvent::Outcome::Renewed);
        QCOMPARE(e.key, QByteArray("t:renew"));
        QCOMPARE(e.threadId, 4);
        QCOMPARE(e.leaseMs, 300);
        QCOMPARE(e.commands, 1); // compare_and_pexpire.lua, loaded once
        QCOMPARE(e.reply.toInteger(), 1);
        QVERIFY(e.endUs >= e.startUs);
        // Re-armed after each success: a period (lease/3) after the previous one ended, never sooner.
        QVERIFY2(e.startUs - previousEnd >= 100 * 1000 - 1000,
                 qPrintable(QStringLiteral("%1 us after the previous").arg(e.startUs - previousEnd)));
        previousEnd = e.endUs;
    }
    QCOMPARE(process.watchdog().renewals(), qint64(events.size()));
}

void TestStringLocks::pausedProcessLosesItsLock()
{
    const QString id = QStringLiteral("set-nx-px-lua-watchdog");
    LockClient paused, other;
    std::atomic<int> lost = 0;
    paused.watchdog().setObserver([&](const RenewalEvent &e) {
        if (e.outcome == RenewalEvent::Outcome::Lost)
            ++lost;
    });
    Worker a = worker(), b = worker();
    LockOptions options = quickOptions(id, 300);
    options.watchdog = true;
    auto lockA = LockCatalog::create(id, paused, "t:gc", 1, options);
    auto lockB = LockCatalog::create(id, other, "t:gc", 2, options);
    QVERIFY(lockA->tryAcquire(a.servers).acquired());
    QTRY_VERIFY_WITH_TIMEOUT(paused.watchdog().renewals() >= 1, 2000);

    paused.setPaused(true); // stop-the-world: the watchdog stops with the worker
    AcquireOnce acquireB(*lockB, b.servers);
    QTRY_VERIFY_WITH_TIMEOUT(acquireB(), 3000);
    QVERIFY(lockA->isHeld()); // A has no idea
    paused.setPaused(false);
    // The first renewal after the pause finds B's token and gives up for good.
    QTRY_VERIFY_WITH_TIMEOUT(lockA->renewalLost(), 2000);
    QCOMPARE(lost.load(), 1);
    QCOMPARE(get(m_server.admin(), "t:gc"), lockB->token());
    QCOMPARE(lockA->release(a.servers).outcome, ReleaseResult::Outcome::NotOwner);
    QVERIFY(lockB->release(b.servers).ok());
}

void TestStringLocks::skippedRenewalsLetTheLeaseRunOut()
{
    const QString id = QStringLiteral("set-nx-px-lua-watchdog");
    LockClient process;
    std::atomic<int> skipped = 0;
    FaultHooks hooks;
    hooks.allowRenewal = [](qint64, const QByteArray &) { return false; };
    process.setFaultHooks(hooks);
    process.watchdog().setObserver([&](const RenewalEvent &e) {
        if (e.outcome == RenewalEvent::Outcome::Skipped)
            ++skipped;
    });
    Worker a = worker();
    LockOptions options = quickOptions(id, 300);
    options.watchdog = true;
    auto lock = LockCatalog::create(id, process, "t:skip", 1, options);
    QVERIFY(lock->tryAcquire(a.servers).acquired());
    QTRY_VERIFY_WITH_TIMEOUT(!exists(m_server.admin(), "t:skip"), 3000);
    QVERIFY(skipped >= 2);
    QCOMPARE(process.watchdog().renewals(), 0);
    QCOMPARE(process.watchdog().attempts(), 0);
}

void TestStringLocks::acquireWaitsWithFixedInterval()
{
    const QString id = QStringLiteral("set-nx-px-lua");
    LockClient pa, pb;
    Worker a = worker(), b = worker();
    LockOptions options = quickOptions(id, 30000);
    auto lockA = LockCatalog::create(id, pa, "t:wait", 1, options);
    options.acquireTimeoutMs = 5000;
    options.retryIntervalMs = 20;
    auto lockB = LockCatalog::create(id, pb, "t:wait", 2, options);
    QVERIFY(lockA->tryAcquire(a.servers).acquired());
    AcquireResult waited;
    std::thread waiter([&] { waited = lockB->acquire(b.servers); });
    // B is polling: its SETs arrive every 20 ms.
    QTRY_VERIFY_WITH_TIMEOUT(TestSupport::commandCalls(m_server.admin(), "set") >= 4, 3000);
    QVERIFY(lockA->release(a.servers).ok());
    waiter.join();
    QVERIFY2(waited.acquired(), qPrintable(waited.describe()));
    QVERIFY(waited.attempts >= 3);
    QCOMPARE(waited.commands, waited.attempts);
    QVERIFY(waited.endUs - waited.startUs < 5000 * 1000);
    QVERIFY(lockB->release(b.servers).ok());
}

void TestStringLocks::plannedDelays()
{
    LockClient process;
    LockOptions o = quickOptions(QStringLiteral("set-nx-px-lua"), 1000);
    o.wait = WaitStrategy::ExponentialBackoff;
    o.retryIntervalMs = 20;
    o.backoffMaxMs = 150;
    auto backoff = LockCatalog::create(QStringLiteral("set-nx-px-lua"), process, "t", 1, o);
    QCOMPARE(backoff->plannedDelayMs(1), 20);
    QCOMPARE(backoff->plannedDelayMs(2), 40);
    QCOMPARE(backoff->plannedDelayMs(3), 80);
    QCOMPARE(backoff->plannedDelayMs(4), 150);
    QCOMPARE(backoff->plannedDelayMs(40), 150);

    o.wait = WaitStrategy::Jitter;
    o.backoffMaxMs = 1000;
    o.retryIntervalMs = 200;
    o.retryJitterMs = 100;
    o.seed = 7;
    auto j1 = LockCatalog::create(QStringLiteral("redlock"), process, "t", 1, o);
    auto j2 = LockCatalog::create(QStringLiteral("redlock"), process, "t", 1, o);
    auto j3 = LockCatalog::create(QStringLiteral("redlock"), process, "t", 2, o);
    QList<qint64> a, b, c;
    for (int i = 1; i <= 50; ++i) {
        a << j1->plannedDelayMs(i);
        b << j2->plannedDelayMs(i);
        c << j3->plannedDelayMs(i);
        QVERIFY(a.last() >= 100 && a.last() <= 300);
    }
    QCOMPARE(a, b); // same seed and thread: the same delays (reproducible runs)
    QVERIFY(a != c); // another thread draws differently
    QVERIFY(*std::min_element(a.begin(), a.end()) < 150 && *std::max_element(a.begin(), a.end()) > 250);

    o.wait = WaitStrategy::BusySpin;
    QCOMPARE(LockCatalog::create(QStringLiteral("setnx-expire"), process, "t", 1, o)->plannedDelayMs(3), 0);
    o.wait = WaitStrategy::FixedInterval;
    o.retryIntervalMs = 50;
    QCOMPARE(LockCatalog::create(QStringLiteral("setnx-expire"), process, "t", 1, o)->plannedDelayMs(9), 50);
}

void TestStringLocks::probedTtlOnRefusal()
{
    const QString id = QStringLiteral("set-nx-px-lua");
    LockClient pa, pb;
    Worker a = worker(), b = worker();
    LockOptions options = quickOptions(id, 5000);
    auto lockA = LockCatalog::create(id, pa, "t:ttl", 1, options);
    auto plain = LockCatalog::create(id, pb, "t:ttl", 2, options);
    options.probeTtl = true;
    auto probing = LockCatalog::create(id, pb, "t:ttl", 3, options);
    QVERIFY(lockA->tryAcquire(a.servers).acquired());
    const AcquireResult p = plain->tryAcquire(b.servers);
    QCOMPARE(p.ttlMs, LockTtl::Unknown);
    QCOMPARE(p.commands, 1);
    const AcquireResult q = probing->tryAcquire(b.servers);
    QCOMPARE(q.outcome, AcquireResult::Outcome::Refused);
    QVERIFY2(q.ttlMs > 4000 && q.ttlMs <= 5000, qPrintable(QString::number(q.ttlMs)));
    QCOMPARE(q.commands, 2);
}

void TestStringLocks::cachedClockTimesOut()
{
    LockClient pa, pb;
    Worker a = worker(), b = worker();
    LockOptions options = quickOptions(QStringLiteral("set-nx-px-lua"), 30000);
    auto lockA = LockCatalog::create(QStringLiteral("set-nx-px-lua"), pa, "t:clock", 1, options);
    options.clock = LockClock::Source::Cached;
    options.acquireTimeoutMs = 150;
    options.retryIntervalMs = 50; // seed 000: Thread.sleep(50)
    auto lockB = LockCatalog::create(QStringLiteral("set-nx-px-lua"), pb, "t:clock", 2, options);
    QVERIFY(lockA->tryAcquire(a.servers).acquired());
    const AcquireResult r = lockB->acquire(b.servers);
    QCOMPARE(r.outcome, AcquireResult::Outcome::TimedOut);
    // The cached clock lags by up to one 5 ms tick, never runs ahead.
    QVERIFY2(r.endUs - r.startUs >= (150 - LockClock::cachedTickMs - 1) * 1000,
             qPrintable(QString::number(r.endUs - r.startUs)));
    // Sleeps of 50 ms, and near the deadline a few short ones while the coarse clock catches up.
    QVERIFY2(r.attempts >= 3 && r.attempts <= 10, qPrintable(QString::number(r.attempts)));
}

void TestStringLocks::seedValues()
{
    // What each seed writes into the key.
    LockClient process(
        LockClient::Options {QStringLiteral("p"), "11111111-2222-4333-8444-555555555555", 1.0, 0, 5});
    Worker a = worker();
    auto del = LockCatalog::create(QStringLiteral("set-nx-px-del"), process, "t:v1", 9,
                                   quickOptions("set-nx-px-del", 5000));
    auto getDel = LockCatalog::create(QStringLiteral("set-nx-px-get-del"), process, "t:v2", 9,
                                      quickOptions("set-nx-px-get-del", 5000));
    auto lua = LockCatalog::create(QStringLiteral("set-nx-px-lua"), process, "t:v3", 9,
                                   quickOptions("set-nx-px-lua", 5000));
    auto setnx = LockCatalog::create(QStringLiteral("setnx-expire"), process, "t:v4", 9,
                                     quickOptions("setnx-expire", 2500));
    QVERIFY(del->tryAcquire(a.servers).acquired());
    QVERIFY(getDel->tryAcquire(a.servers).acquired());
    QVERIFY(lua->tryAcquire(a.servers).acquired());
    QVERIFY(setnx->tryAcquire(a.servers).acquired());
    QCOMPARE(get(m_server.admin(), "t:v1"), QByteArray("lockValue"));
    QCOMPARE(get(m_server.admin(), "t:v2"), QByteArray("11111111-2222-4333-8444-555555555555:9"));
    QCOMPARE(get(m_server.admin(), "t:v3"), lua->token());
    QCOMPARE(lua->token().size(), 36);
    QCOMPARE(get(m_server.admin(), "t:v4"), setnx->token());
    QVERIFY(pttl(m_server.admin(), "t:v4") > 2000
            && pttl(m_server.admin(), "t:v4") <= 3000); // EXPIRE 3: seconds, rounded up
    QCOMPARE(SetnxExpireLock::leaseSeconds(1), 1);
    QCOMPARE(SetnxExpireLock::leaseSeconds(1000), 1);
    QCOMPARE(SetnxExpireLock::leaseSeconds(1001), 2);
    const QByteArray first = lua->token();
    QVERIFY(lua->release(a.servers).ok());
    QVERIFY(lua->tryAcquire(a.servers).acquired());
    QVERIFY(lua->token() != first); // a fresh token per acquisition
    QCOMPARE(get(m_server.admin(), "t:v3"), lua->token());
}

QTEST_GUILESS_MAIN(TestStringLocks)
#include "tst_stringlocks.moc"
