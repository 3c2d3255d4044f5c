// The machinery the locks share: clocks, the watchdog scheduler, the per-process pub/sub listener, the
// connection pool, fault hooks on the command path, client ids.
#include "locktestsupport.h"
#include "sandboxfixture.h"

#include "locks/connectionpool.h"
#include "locks/lockcatalog.h"

#include "redis/fiberscheduler.h"

#include <QDateTime>
#include <QElapsedTimer>
#include <QSet>
#include <QUuid>

#include <thread>

using namespace LockTest;

class TestLockInfrastructure : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void init();
    void clientIdsAreRandomV4Uuids();
    void cachedClockLagsAtMostOneTick();
    void clockRateScalesElapsedTime();
    void watchdogCancelIsSynchronous();
    void watchdogPausesAndResumes();
    void watchdogReportsErrorsAndKeepsTrying();
    void watchdogRenewsOnTimeWithoutBeingWoken();
    void subscriberSharesAndReleasesChannels_data();
    void subscriberSharesAndReleasesChannels();
    void subscriberKeepsPermitsAndWakesAll_data();
    void subscriberKeepsPermitsAndWakesAll();
    void subscriberOnAnEventLoopWakesItsFibers();
    void subscriberReportsAnUnreachableServer();
    void poolBorrowsWaitsAndReturns();
    void poolTestsOnBorrow();
    void locksRunOnPooledConnections();
    void sendAndReceiveHooksSeeEveryCommand();

private:
    SandboxFixture m_server;
};

void TestLockInfrastructure::initTestCase()
{
    LS_SANDBOX(m_server);
}

void TestLockInfrastructure::init()
{
    if (!m_server.isRunning())
        QVERIFY(m_server.restart());
    m_server.admin().command({"PING"}); // a connection to a restarted server reconnects on the next command
    QVERIFY(m_server.admin().command({"FLUSHALL"}).ok());
}

void TestLockInfrastructure::clientIdsAreRandomV4Uuids()
{
    QSet<QByteArray> ids;
    for (int i = 0; i < 50; ++i) {
        LockClient c;
        QVERIFY(isRedissonOwner(c.ownerField(i)));
        ids.insert(c.id());
    }
    QCOMPARE(ids.size(), 50);
    LockClient::Options o;
    o.id = "fixed-id";
    QCOMPARE(LockClient(o).ownerField(3), QByteArray("fixed-id:3"));
    const QByteArray hex = LockClient::randomHex(16);
    QCOMPARE(hex.size(), 32);
    QCOMPARE(QByteArray::fromHex(hex).toHex(), hex); // lower-case hex digits only
    QCOMPARE(LockClient::randomHex(5).size(), 10); // not only whole words of the generator

    // Tokens: version-4 UUIDs, distinct across threads (each thread seeds its own generator).
    QSet<QByteArray> tokens[2];
    std::thread other([&] {
        for (int i = 0; i < 1000; ++i)
            tokens[1].insert(LockClient::randomUuid());
    });
    for (int i = 0; i < 1000; ++i)
        tokens[0].insert(LockClient::randomUuid());
    other.join();
    QCOMPARE(tokens[0].size(), 1000);
    QCOMPARE(tokens[1].size(), 1000);
    QVERIFY(!tokens[0].intersects(tokens[1]));
    for (const QByteArray &token : std::as_const(tokens[0])) {
        const QUuid uuid = QUuid::fromString(QLatin1String(token));
        QVERIFY2(!uuid.isNull() && uuid.version() == QUuid::Random && uuid.variant() == QUuid::DCE, token.constData());
        QCOMPARE(uuid.toByteArray(QUuid::WithoutBraces), token);
    }
}

void TestLockInfrastructure::cachedClockLagsAtMostOneTick()
{
    const LockClock cached(LockClock::Source::Cached);
    const LockClock monotonic(LockClock::Source::Monotonic);
    qint64 changes = 0;
    qint64 last = cached.nowMs();
    QElapsedTimer t;
    t.start();
    while (t.elapsed() < 60) {
        const qint64 before = monotonic.nowMs();
        const qint64 c = cached.nowMs();
        const qint64 after = monotonic.nowMs();
        QVERIFY2(c <= after, "the cache never runs ahead");
        QVERIFY2(before - c <= LockClock::cachedTickMs + 20, qPrintable(QString::number(before - c)));
        if (c != last)
            ++changes;
        last = c;
    }
    QVERIFY(changes >= 3); // it ticks
    QVERIFY(changes <= 60 / LockClock::cachedTickMs + 2); // but only every 5 ms
}

void TestLockInfrastructure::clockRateScalesElapsedTime()
{
    const LockClock slow(LockClock::Source::Monotonic, 0.5, 250);
    const qint64 realStart = LockClock::monotonicUs();
    const qint64 slowStart = slow.nowMs();
    QTest::qWait(100);
    const qint64 slowElapsed = slow.nowMs() - slowStart;
    const qint64 realElapsedMs = (LockClock::monotonicUs() - realStart) / 1000;
    QVERIFY2(slowElapsed <= realElapsedMs / 2 + 1 && slowElapsed >= 100 / 2 - 1,
             qPrintable(QStringLiteral("%1 of %2").arg(slowElapsed).arg(realElapsedMs)));
    QVERIFY(qAbs(slow.wallMs() - 250 - QDateTime::currentMSecsSinceEpoch()) < 50);
}

void TestLockInfrastructure::watchdogCancelIsSynchronous()
{
    FaultHooks hooks;
    LockWatchdog watchdog(hooks);
    std::atomic<int> running = 0;
    std::atomic<int> calls = 0;
    LockWatchdog::Task task;
    task.key = "k";
    task.server = m_server.connectionSettings();
    task.periodMs = 10;
    task.renew = [&](RedisConnection &, LockIo &, RedisReply *, RedisError *) {
        ++running;
        ++calls;
        std::this_thread::sleep_for(std::chrono::milliseconds(30));
        --running;
        return RenewalEvent::Outcome::Renewed;
    };
    const quint64 id = watchdog.start(task);
    QTRY_VERIFY_WITH_TIMEOUT(running == 1, 2000);
    watchdog.cancel(id); // waits for the renewal in progress
    QCOMPARE(running.load(), 0);
    const int after = calls;
    QTest::qWait(60);
    QCOMPARE(calls.load(), after);
    QCOMPARE(watchdog.activeCount(), 0);
    watchdog.cancel(id); // unknown now: ignored
}

void TestLockInfrastructure::watchdogPausesAndResumes()
{
    FaultHooks hooks;
    LockWatchdog watchdog(hooks);
    std::atomic<int> calls = 0;
    LockWatchdog::Task task;
    task.server = m_server.connectionSettings();
    task.periodMs = 20;
    task.renew = [&](RedisConnection &, LockIo &, RedisReply *, RedisError *) {
        ++calls;
        return RenewalEvent::Outcome::Renewed;
    };
    const quint64 id = watchdog.start(task);
    QTRY_VERIFY_WITH_TIMEOUT(calls >= 2, 2000);
    watchdog.setPaused(true);
    QTest::qWait(30); // a renewal in flight may finish
    const int paused = calls;
    QTest::qWait(100);
    QCOMPARE(calls.load(), paused);
    watchdog.setPaused(false);
    QTRY_VERIFY_WITH_TIMEOUT(calls > paused, 2000); // due renewals run as soon as it resumes
    watchdog.cancel(id);
}

void TestLockInfrastructure::watchdogRenewsOnTimeWithoutBeingWoken()
{
    // start() wakes the thread only for a task due before it would look anyway; every other task must
    // still be renewed on time: a long one after the thread went idle, a shorter one that it must be woken
    // for, and one started while another is waiting.
    FaultHooks hooks;
    LockWatchdog watchdog(hooks);
    std::mutex mutex;
    QMap<QByteArray, QList<qint64>> renewedAtUs;
    auto task = [&](const QByteArray &key, qint64 periodMs) {
        LockWatchdog::Task t;
        t.key = key;
        t.server = m_server.connectionSettings();
        t.periodMs = periodMs;
        t.renew = [&, key](RedisConnection &, LockIo &, RedisReply *, RedisError *) {
            std::lock_guard lock(mutex);
            renewedAtUs[key] << LockClock::monotonicUs();
            return RenewalEvent::Outcome::Renewed;
        };
        return t;
    };
    auto renewals = [&](const QByteArray &key) {
        std::lock_guard lock(mutex);
        return renewedAtUs.value(key).size();
    };
    watchdog.cancel(watchdog.start(task("first", 2000))); // the thread now sleeps with nothing to do

    const qint64 longStartUs = LockClock::monotonicUs();
    const quint64 longTask = watchdog.start(task("long", 2500)); // due after the idle thread looks again
    const qint64 shortStartUs = LockClock::monotonicUs();
    const quint64 shortTask = watchdog.start(task("short", 40)); // due sooner: the thread must be woken
    QTRY_VERIFY_WITH_TIMEOUT(renewals("short") >= 3, 2000);
    QTRY_VERIFY_WITH_TIMEOUT(renewals("long") >= 1, 6000);
    {
        std::lock_guard lock(mutex);
        // Never early, and not left until the idle thread's own look (2 s after "first" was cancelled).
        QVERIFY(renewedAtUs["short"].first() - shortStartUs >= 40 * 1000);
        QVERIFY2(renewedAtUs["short"].first() - shortStartUs < 1000 * 1000,
                 qPrintable(QString::number(renewedAtUs["short"].first() - shortStartUs)));
        QVERIFY(renewedAtUs["long"].first() - longStartUs >= 2500 * 1000);
    }
    watchdog.cancel(longTask);
    watchdog.cancel(shortTask);
}

void TestLockInfrastructure::watchdogReportsErrorsAndKeepsTrying()
{
    FaultHooks hooks;
    LockWatchdog watchdog(hooks);
    std::mutex mutex;
    QList<RenewalEvent> events;
    watchdog.setObserver([&](const RenewalEvent &e) {
        std::lock_guard lock(mutex);
        events << e;
    });
    LockWatchdog::Task task;
    ConnectionSettings nowhere = m_server.connectionSettings();
    nowhere.port = LoopbackPorts::freePort(); // nobody listens there
    task.server = nowhere;
    task.periodMs = 20;
    task.renew = [](RedisConnection &, LockIo &, RedisReply *, RedisError *) {
        return RenewalEvent::Outcome::Renewed;
    };
    const quint64 id = watchdog.start(task);
    QTRY_VERIFY_WITH_TIMEOUT(
        watchdog.activeCount() == 1 &&
            [&] {
                std::lock_guard lock(mutex);
                return events.size() >= 2;
            }(),
        3000);
    watchdog.cancel(id);
    std::lock_guard lock(mutex);
    QCOMPARE(events.first().outcome, RenewalEvent::Outcome::Error);
    QCOMPARE(events.first().error.code(), RedisError::Code::ConnectionRefused);
    QCOMPARE(watchdog.renewals(), 0);
}

// The listener as a thread of its own, or as a fiber of an event loop (the event engine's).
static void listenerKinds()
{
    QTest::addColumn<bool>("onEventLoop");
    QTest::newRow("thread") << false;
    QTest::newRow("event loop") << true;
}

void TestLockInfrastructure::subscriberSharesAndReleasesChannels_data()
{
    listenerKinds();
}

void TestLockInfrastructure::subscriberSharesAndReleasesChannels()
{
    QFETCH(bool, onEventLoop);
    FaultHooks hooks;
    FiberScheduler loop(QStringLiteral("test loop"));
    LockSubscriber subscriber(hooks, 5, 100, onEventLoop ? &loop : nullptr);
    RedisError error;
    LockSubscription a = subscriber.subscribe(m_server.connectionSettings(), "ch:1", 3000, &error);
    QVERIFY2(a.isValid(), qPrintable(error.message()));
    LockSubscription b = subscriber.subscribe(m_server.connectionSettings(), "ch:1", 3000, &error);
    QVERIFY(b.isValid());
    QCOMPARE(subscribers(m_server.admin(), "ch:1"), 1);
    a.reset();
    QTest::qWait(50);
    QCOMPARE(subscribers(m_server.admin(), "ch:1"), 1); // b still listens
    b.reset();
    QTRY_COMPARE_WITH_TIMEOUT(subscribers(m_server.admin(), "ch:1"), 0, 2000);
    LockSubscription again = subscriber.subscribe(m_server.connectionSettings(), "ch:1", 3000, &error);
    QVERIFY(again.isValid());
    QCOMPARE(subscribers(m_server.admin(), "ch:1"), 1);
}

void TestLockInfrastructure::subscriberKeepsPermitsAndWakesAll_data()
{
    listenerKinds();
}

void TestLockInfrastructure::subscriberKeepsPermitsAndWakesAll()
{
    QFETCH(bool, onEventLoop);
    FaultHooks hooks;
    FiberScheduler loop(QStringLiteral("test loop"));
    LockSubscriber subscriber(hooks, 5, 100, onEventLoop ? &loop : nullptr);
    LockSubscription s = subscriber.subscribe(m_server.connectionSettings(), "ch:2", 3000);
    LockSubscription t = subscriber.subscribe(m_server.connectionSettings(), "ch:2", 3000);
    QVERIFY(s.isValid() && t.isValid());
    QVERIFY(!s.wait(0));
    // A message that comes while nobody waits is kept for the next waiter.
    QVERIFY(m_server.admin().command({"PUBLISH", "ch:2", "0"}).ok());
    QTRY_COMPARE_WITH_TIMEOUT(subscriber.messagesReceived(), quint64(1), 2000);
    QVERIFY(s.wait(0));
    QVERIFY(!t.wait(0)); // "0" wakes one thread only

    // "1" (read-write unlock) wakes every thread waiting right now.
    std::atomic<int> woken = 0;
    std::thread x([&] { woken += s.wait(5000) ? 1 : 0; });
    std::thread y([&] { woken += t.wait(5000) ? 1 : 0; });
    QTest::qWait(100);
    QVERIFY(m_server.admin().command({"PUBLISH", "ch:2", "1"}).ok());
    x.join();
    y.join();
    QCOMPARE(woken.load(), 2);

    // stop() ends waits at once.
    std::atomic<bool> returned = false;
    std::thread z([&] {
        s.wait(30000);
        returned = true;
    });
    QTest::qWait(50);
    subscriber.stop();
    z.join();
    QVERIFY(returned);
    QVERIFY(!subscriber.subscribe(m_server.connectionSettings(), "ch:3", 1000).isValid());
}

void TestLockInfrastructure::subscriberOnAnEventLoopWakesItsFibers()
{
    // The event engine's shortest hand-off: listener and waiters are fibers of one loop, so a message wakes
    // a waiter without another thread. No listener thread is started for it.
    FaultHooks hooks;
    FiberScheduler loop(QStringLiteral("test loop"));
    const int threadsBefore = TestSupport::threadsOfThisProcess();
    std::atomic<int> woken = 0;
    std::atomic<int> subscribed = 0;
    std::atomic<int> loopThreadWakes = 0;
    {
        LockSubscriber subscriber(hooks, 5, 100, &loop);
        for (int i = 0; i < 2; ++i) {
            loop.spawn([&] {
                LockSubscription s = subscriber.subscribe(m_server.connectionSettings(), "ch:fibers", 3000);
                if (!s.isValid())
                    return;
                const std::thread::id loopThread = std::this_thread::get_id();
                ++subscribed;
                if (s.wait(5000)) {
                    ++woken;
                    if (std::this_thread::get_id() == loopThread)
                        ++loopThreadWakes;
                }
            });
        }
        QTRY_COMPARE_WITH_TIMEOUT(subscribed.load(), 2, 3000);
        QCOMPARE(TestSupport::threadsOfThisProcess(), threadsBefore); // the listener is a fiber, not a thread
        QCOMPARE(subscribers(m_server.admin(), "ch:fibers"), 1); // one SUBSCRIBE for both waiters
        QVERIFY(m_server.admin().command({"PUBLISH", "ch:fibers", "0"}).ok());
        QTRY_COMPARE_WITH_TIMEOUT(woken.load(), 1, 2000); // "0" wakes one waiter
        QTest::qWait(50);
        QCOMPARE(woken.load(), 1);
        QVERIFY(m_server.admin().command({"PUBLISH", "ch:fibers", "0"}).ok());
        QTRY_COMPARE_WITH_TIMEOUT(woken.load(), 2, 2000);
        QCOMPARE(loopThreadWakes.load(), 2);
    } // the destructor stops the listener fiber and waits until it has let go of the subscriber
    QTRY_COMPARE_WITH_TIMEOUT(loop.fiberCount(), 0, 2000);
}

void TestLockInfrastructure::subscriberReportsAnUnreachableServer()
{
    FaultHooks hooks;
    LockSubscriber subscriber(hooks);
    ConnectionSettings nowhere = m_server.connectionSettings();
    nowhere.port = LoopbackPorts::freePort();
    RedisError error;
    QElapsedTimer t;
    t.start();
    const LockSubscription s = subscriber.subscribe(nowhere, "ch", 5000, &error);
    QVERIFY(!s.isValid());
    QCOMPARE(error.code(), RedisError::Code::ConnectionRefused);
    QVERIFY(t.elapsed() < 4000); // fails fast, not at the timeout
}

void TestLockInfrastructure::poolBorrowsWaitsAndReturns()
{
    ConnectionPool::Options o;
    o.maxTotal = 2;
    o.maxIdle = 1;
    o.maxWaitMs = 100;
    ConnectionPool pool(m_server.connectionSettings(), o);
    RedisError error;
    ConnectionPool::Lease a = pool.borrow(&error);
    ConnectionPool::Lease b = pool.borrow(&error);
    QVERIFY(a.isValid() && b.isValid());
    QVERIFY(a.get() != b.get());
    QCOMPARE(pool.total(), 2);
    QElapsedTimer t;
    t.start();
    const ConnectionPool::Lease none = pool.borrow(&error);
    QVERIFY(!none.isValid());
    QCOMPARE(error.code(), RedisError::Code::Timeout);
    QVERIFY(t.elapsed() >= 90);
    QCOMPARE(pool.waits(), quint64(1));

    RedisConnection *first = a.get();
    std::thread giver([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        a.giveBack();
    });
    ConnectionPool::Lease c = pool.borrow(&error); // waits for a's return
    giver.join();
    QVERIFY(c.isValid());
    QCOMPARE(c.get(), first);
    b.giveBack();
    c.giveBack();
    QCOMPARE(pool.idle(), 1); // maxIdle: the second one was closed
    QCOMPARE(pool.total(), 1);
    QCOMPARE(pool.borrowed(), 0);
}

void TestLockInfrastructure::poolTestsOnBorrow()
{
    ConnectionPool pool(m_server.connectionSettings());
    {
        ConnectionPool::Lease a = pool.borrow();
        QVERIFY(a.isValid());
    }
    QVERIFY(m_server.restart()); // every pooled connection is now dead
    RedisError error;
    ConnectionPool::Lease b = pool.borrow(&error);
    QVERIFY2(b.isValid(), qPrintable(error.message()));
    QVERIFY(b->command({"PING"}).ok());
}

void TestLockInfrastructure::locksRunOnPooledConnections()
{
    ConnectionPool::Options o;
    o.maxTotal = 2;
    ConnectionPool pool(m_server.connectionSettings(), o);
    LockClient process;
    std::atomic<int> counter = 0;
    std::atomic<int> inside = 0;
    std::atomic<int> overlaps = 0;
    std::atomic<int> failures = 0;
    std::vector<std::thread> threads;
    for (int t = 1; t <= 4; ++t) {
        threads.emplace_back([&, t] {
            LockOptions lo = quickOptions(QStringLiteral("redisson-reentrant"), 5000);
            auto lock = LockCatalog::create(QStringLiteral("redisson-reentrant"), process, "t:pool", t, lo);
            for (int i = 0; i < 20; ++i) {
                // Four workers share two connections: borrow one per attempt, never while sleeping.
                bool held = false;
                for (int attempt = 0; attempt < 5000 && !held; ++attempt) {
                    ConnectionPool::Lease c = pool.borrow();
                    held = c.isValid() && lock->tryAcquire(*c).acquired();
                    c.giveBack();
                    if (!held)
                        std::this_thread::sleep_for(std::chrono::milliseconds(1));
                }
                if (!held) {
                    ++failures;
                    return;
                }
                if (++inside > 1)
                    ++overlaps;
                ++counter;
                --inside;
                ConnectionPool::Lease r = pool.borrow();
                if (!r.isValid() || !lock->release(*r).ok()) {
                    ++failures;
                    return;
                }
            }
        });
    }
    for (std::thread &t : threads)
        t.join();
    QCOMPARE(failures.load(), 0);
    QCOMPARE(counter.load(), 80);
    QCOMPARE(overlaps.load(), 0);
    QVERIFY(pool.total() <= 2);
}

void TestLockInfrastructure::sendAndReceiveHooksSeeEveryCommand()
{
    LockClient process;
    std::mutex mutex;
    QList<QByteArray> sent;
    int received = 0;
    FaultHooks hooks;
    hooks.beforeSend = [&](qint64 thread, const RedisCommand &c) {
        std::lock_guard lock(mutex);
        sent << QByteArray::number(thread) + ' ' + c.first();
    };
    hooks.afterReceive = [&](qint64, const RedisResult &) {
        std::lock_guard lock(mutex);
        ++received;
    };
    process.setFaultHooks(hooks);
    QString error;
    Worker w = openWorker({&m_server}, &error);
    auto lock = LockCatalog::create(QStringLiteral("setnx-expire"), process, "t:hooks", 6,
                                    quickOptions(QStringLiteral("setnx-expire"), 1000));
    QVERIFY(lock->tryAcquire(w.servers).acquired());
    QVERIFY(lock->release(w.servers).ok());
    std::lock_guard guard(mutex);
    QCOMPARE(sent, (QList<QByteArray> {"6 SETNX", "6 EXPIRE", "6 GET", "6 DEL"}));
    QCOMPARE(received, 4);
}

QTEST_GUILESS_MAIN(TestLockInfrastructure)
#include "tst_lockinfrastructure.moc"
