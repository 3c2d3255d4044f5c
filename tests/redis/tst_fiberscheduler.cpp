// FiberScheduler and FiberCondition: fibers share one thread without blocking each other, on conditions,
// sleeps and real Redis replies (a BLPOP parked on one fiber is answered by an RPUSH from another).
#include "redis/fibercondition.h"
#include "redis/fiberscheduler.h"
#include "redis/redisconnection.h"
#include "testsupport.h"

#include <QTest>

#include <atomic>

#include <sys/prctl.h>

namespace {
ConnectionSettings writable(const SandboxServer &server)
{
    ConnectionSettings s = server.connectionSettings();
    s.readOnly = false;
    return s;
}
} // namespace

class TestFiberScheduler : public QObject
{
    Q_OBJECT
private slots:
    void fibersRunToTheEnd();
    void twoFibersOfOneThreadHandOver();
    void aThreadWakesAFiber();
    void conditionTimesOut();
    void theLoopsTimersAreNotDeferred();
    void sleepersShareTheThread();
    void blockingCommandDoesNotBlockTheThread();
    void manyConnectionsOnOneThread();
    void pausedServerTimesOutLikeAThread();
    void interruptEndsAFibersWait();
};

void TestFiberScheduler::fibersRunToTheEnd()
{
    std::atomic_int done = 0;
    {
        FiberScheduler loop(QStringLiteral("fibers"));
        for (int i = 0; i < 1000; ++i)
            loop.spawn([&] { ++done; });
        loop.waitUntilEmpty();
        QCOMPARE(loop.fiberCount(), 0);
    }
    QCOMPARE(done.load(), 1000);
}

void TestFiberScheduler::twoFibersOfOneThreadHandOver()
{
    // Ping-pong between two fibers of one thread, 1000 times: if a wait blocked the thread instead of
    // parking the fiber, the other could never answer and this would hang.
    std::mutex mutex;
    FiberCondition changed;
    int turn = 0; // even: ping's turn
    QList<int> seen;
    FiberScheduler loop(QStringLiteral("pingpong"));
    auto player = [&](int parity) {
        for (int i = 0; i < 1000; ++i) {
            std::unique_lock lock(mutex);
            changed.wait(lock, [&] { return turn % 2 == parity; });
            seen.append(turn);
            ++turn;
            changed.notify_all();
        }
    };
    loop.spawn([&] { player(1); }); // the second player starts first and must wait
    loop.spawn([&] { player(0); });
    loop.waitUntilEmpty();
    QCOMPARE(turn, 2000);
    for (int i = 0; i < seen.size(); ++i)
        QCOMPARE(seen.at(i), i);
}

void TestFiberScheduler::aThreadWakesAFiber()
{
    std::mutex mutex;
    FiberCondition changed;
    bool ready = false;
    std::atomic_bool waiting = false;
    std::atomic_bool woke = false;
    FiberScheduler loop(QStringLiteral("wake"));
    loop.spawn([&] {
        std::unique_lock lock(mutex);
        waiting = true;
        changed.wait(lock, [&] { return ready; });
        woke = true;
    });
    QTRY_VERIFY(waiting.load());
    QVERIFY(!woke.load());
    {
        std::lock_guard lock(mutex);
        ready = true;
    }
    changed.notify_all();
    loop.waitUntilEmpty();
    QVERIFY(woke.load());
}

void TestFiberScheduler::conditionTimesOut()
{
    std::mutex mutex;
    FiberCondition never;
    std::atomic_int result = -1;
    FiberScheduler loop(QStringLiteral("timeout"));
    loop.spawn([&] {
        std::unique_lock lock(mutex);
        result = never.wait_for(lock, std::chrono::milliseconds(20), [] { return false; }) ? 1 : 0;
    });
    loop.waitUntilEmpty();
    QCOMPARE(result.load(), 0);
}

// Linux may fire an ordinary thread's timers up to 50 µs late (its timer slack) to batch wake-ups; the loop
// asks for 1 µs, so a simulated 1 ms critical section is not 5-7 % longer than the scenario says. The
// slack is what the kernel reports for the loop's thread (not a timing, which would depend on the machine).
void TestFiberScheduler::theLoopsTimersAreNotDeferred()
{
    std::atomic_long slackNs = -1;
    FiberScheduler loop(QStringLiteral("slack"));
    loop.spawn([&] { slackNs = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0); });
    loop.waitUntilEmpty();
    QCOMPARE(slackNs.load(), 1000L);
    QVERIFY2(prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0) > 1000, "an ordinary thread keeps the kernel's default");
}

void TestFiberScheduler::sleepersShareTheThread()
{
    // 500 fibers sleep while one more keeps count of how often it got the thread in between: each
    // sleeper gives the thread up, so the counter runs while they sleep.
    std::atomic_int sleepers = 0;
    std::atomic_int turns = 0;
    FiberScheduler loop(QStringLiteral("sleepers"));
    for (int i = 0; i < 500; ++i) {
        loop.spawn([&] {
            FiberScheduler::sleepFor(std::chrono::milliseconds(30));
            ++sleepers;
        });
    }
    loop.spawn([&] {
        while (sleepers.load() < 500) {
            ++turns;
            FiberScheduler::sleepFor(std::chrono::microseconds(200));
        }
    });
    loop.waitUntilEmpty();
    QCOMPARE(sleepers.load(), 500);
    QVERIFY2(turns.load() >= 1, "the counting fiber never ran while the others slept");
}

void TestFiberScheduler::blockingCommandDoesNotBlockTheThread()
{
    SandboxServer server;
    LS_START(server);
    QByteArray popped;
    QString error;
    std::atomic_bool popping = false;
    FiberScheduler loop(QStringLiteral("blpop"));
    loop.spawn([&] {
        RedisConnection c(writable(server));
        if (const RedisError e = c.open()) {
            error = e.message();
            return;
        }
        popping = true;
        // Five seconds at most: the pusher on the same thread answers long before, unless this wait
        // blocked the thread (then the pop times out with nil and the push comes after).
        const RedisResult r = c.command({"BLPOP", "fiber:q", "5"});
        if (!r.ok())
            error = r.error.message();
        else if (r.reply.elements().size() == 2)
            popped = r.reply.elements().at(1).bytes();
    });
    loop.spawn([&] {
        RedisConnection c(writable(server));
        if (const RedisError e = c.open()) {
            error = e.message();
            return;
        }
        while (!popping.load())
            FiberScheduler::sleepFor(std::chrono::milliseconds(1));
        // The pop is on the server once the server lists its client as blocked.
        for (int i = 0; i < 5000; ++i) {
            const RedisResult info = c.command({"INFO", "clients"});
            if (info.reply.bytes().contains("blocked_clients:1"))
                break;
            FiberScheduler::sleepFor(std::chrono::milliseconds(1));
        }
        c.command({"RPUSH", "fiber:q", "handed-over"});
    });
    loop.waitUntilEmpty();
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QCOMPARE(popped, QByteArray("handed-over"));
}

void TestFiberScheduler::manyConnectionsOnOneThread()
{
    SandboxServer server;
    LS_START(server);
    constexpr int fibers = 200;
    constexpr int increments = 50;
    std::atomic_int failures = 0;
    {
        FiberScheduler loop(QStringLiteral("many"));
        for (int i = 0; i < fibers; ++i) {
            loop.spawn([&] {
                RedisConnection c(writable(server));
                if (c.open()) {
                    ++failures;
                    return;
                }
                for (int n = 0; n < increments; ++n) {
                    if (!c.command({"INCR", "fiber:count"}).ok())
                        ++failures;
                }
            });
        }
        loop.waitUntilEmpty();
    }
    QCOMPARE(failures.load(), 0);
    RedisConnection check(writable(server));
    QVERIFY(!check.open());
    QCOMPARE(check.command({"GET", "fiber:count"}).reply.bytes(), QByteArray::number(fibers * increments));
}

void TestFiberScheduler::pausedServerTimesOutLikeAThread()
{
    SandboxServer server;
    LS_START(server);
    ConnectionSettings s = writable(server);
    s.commandTimeoutMs = 150;
    RedisConnection onThread(s);
    QVERIFY(!onThread.open());
    RedisError fiberError;
    bool reopened = false;
    FiberScheduler loop(QStringLiteral("paused"));
    std::atomic_bool opened = false;
    std::atomic_bool release = false;
    RedisConnection onFiber(s);
    loop.spawn([&] {
        if (onFiber.open())
            return;
        opened = true;
        while (!release.load())
            FiberScheduler::sleepFor(std::chrono::milliseconds(1));
        fiberError = onFiber.command({"PING"}).error;
        reopened = onFiber.isOpen();
    });
    QTRY_VERIFY(opened.load());
    QVERIFY(server.pause());
    release = true;
    const RedisError threadError = onThread.command({"PING"}).error;
    loop.waitUntilEmpty();
    QVERIFY(server.resume());
    QCOMPARE(fiberError.code(), RedisError::Code::Timeout);
    QCOMPARE(fiberError.code(), threadError.code());
    QCOMPARE(fiberError.message(), threadError.message());
    QCOMPARE(reopened, onThread.isOpen());
}

void TestFiberScheduler::interruptEndsAFibersWait()
{
    SandboxServer server;
    LS_START(server);
    ConnectionSettings s = writable(server);
    s.commandTimeoutMs = 60000;
    RedisConnection c(s);
    QVERIFY(!c.open());
    std::atomic_bool waiting = false;
    RedisError error;
    FiberScheduler loop(QStringLiteral("interrupt"));
    loop.spawn([&] {
        waiting = true;
        error = c.command({"BLPOP", "fiber:never", "0"}).error;
    });
    QTRY_VERIFY(waiting.load());
    // Wait until the server has the BLPOP, so the interrupt meets a fiber parked on its reply.
    RedisConnection admin(writable(server));
    QVERIFY(!admin.open());
    QTRY_VERIFY(admin.command({"INFO", "clients"}).reply.bytes().contains("blocked_clients:1"));
    c.interrupt();
    loop.waitUntilEmpty();
    QCOMPARE(error.code(), RedisError::Code::Interrupted);
}

QTEST_GUILESS_MAIN(TestFiberScheduler)
#include "tst_fiberscheduler.moc"
