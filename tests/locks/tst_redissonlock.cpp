// redisson-reentrant on the wire: the exact keys, fields, channel and messages of Redisson 3.x, checked
// with raw commands; mutual exclusion both ways with a "foreign Redisson client" that speaks the documented
// protocol with plain HINCRBY / PEXPIRE / DEL / PUBLISH; the watchdog's saw-tooth; pub/sub waiters that wake
// on the release message and still wake when it is lost.
#include "locktestsupport.h"
#include "sandboxfixture.h"

#include "locks/lockcatalog.h"
#include "locks/redissonnames.h"

#include <QElapsedTimer>
#include <QRegularExpression>

#include <thread>

using namespace LockTest;

namespace {

// A Redisson client from another JVM, reduced to the documented protocol (ALGORITHMS.md §2), using only
// raw commands on its own connection.
class ForeignRedisson
{
public:
    ForeignRedisson(const ConnectionSettings &settings, qint64 threadId)
        : m_connection(settings)
        , m_field(QByteArrayLiteral("0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0:") + QByteArray::number(threadId))
    {
    }
    bool open() { return !m_connection.open(); }
    const QByteArray &field() const { return m_field; }

    // Acquire: if N is absent or our field exists, count up and set the lease; else report the PTTL.
    std::optional<qint64> tryLock(const QByteArray &name, qint64 leaseMs)
    {
        const bool free = m_connection.command({"EXISTS", name}).reply.toInteger() == 0;
        const bool mine = m_connection.command({"HEXISTS", name, m_field}).reply.toInteger() == 1;
        if (!free && !mine)
            return m_connection.command({"PTTL", name}).reply.toInteger();
        m_connection.command({"HINCRBY", name, m_field, "1"});
        m_connection.command({"PEXPIRE", name, QByteArray::number(leaseMs)});
        return std::nullopt;
    }
    // Release: not ours → nil (false); count down; at zero DEL and PUBLISH "0".
    bool unlock(const QByteArray &name)
    {
        if (m_connection.command({"HEXISTS", name, m_field}).reply.toInteger() == 0)
            return false;
        if (m_connection.command({"HINCRBY", name, m_field, "-1"}).reply.toInteger() > 0)
            return true;
        m_connection.command({"DEL", name});
        m_connection.command({"PUBLISH", RedissonNames::lockChannel(name), "0"});
        return true;
    }

private:
    RedisConnection m_connection;
    QByteArray m_field;
};

} // namespace

class TestRedissonLock : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void init();
    void namesAreRedisson();
    void layoutOfTwoHoldsAndTwoReleases();
    void unlockLatchIsWrittenAndDeleted();
    void foreignClientHoldsWeWaitAndWake();
    void weHoldForeignClientIsExcluded();
    void watchdogSawTooth();
    void fixedLeaseIsNotRenewed();
    void waiterWakesPromptlyOnRelease();
    void waiterWakesAfterTtlWhenTheMessageIsLost();
    void waiterWakesAfterTtlWhenTheHolderCrashed();
    void oneSubscriptionPerProcess();
    void stopInterruptsAWaiter();

private:
    LockOptions options(qint64 leaseMs, bool watchdog) const;
    SandboxFixture m_server;
};

void TestRedissonLock::initTestCase()
{
    LS_SANDBOX(m_server);
}

void TestRedissonLock::init()
{
    QVERIFY(m_server.admin().command({"FLUSHALL"}).ok());
    QVERIFY(m_server.admin().command({"CONFIG", "SET", "notify-keyspace-events", ""}).ok());
}

LockOptions TestRedissonLock::options(qint64 leaseMs, bool watchdog) const
{
    LockOptions o = LockCatalog::find(QStringLiteral("redisson-reentrant"))->defaults;
    o.leaseMs = leaseMs;
    o.watchdog = watchdog;
    return o;
}

void TestRedissonLock::namesAreRedisson()
{
    QCOMPARE(RedissonNames::lockChannel("inventoryLock"),
             QByteArray("redisson_lock__channel:{inventoryLock}"));
    QCOMPARE(RedissonNames::lockChannel("a{b}"), QByteArray("redisson_lock__channel:a{b}"));
    QCOMPARE(RedissonNames::fairQueue("n"), QByteArray("redisson_lock_queue:{n}"));
    QCOMPARE(RedissonNames::fairTimeouts("n"), QByteArray("redisson_lock_timeout:{n}"));
    QCOMPARE(RedissonNames::fairWaiterChannel("n", "u:1"), QByteArray("redisson_lock__channel:{n}:u:1"));
    QCOMPARE(RedissonNames::tokenCounter("n"), QByteArray("redisson_lock_token:{n}"));
    QCOMPARE(RedissonNames::rwChannel("n"), QByteArray("redisson_rwlock:{n}"));
    QCOMPARE(RedissonNames::rwTimeoutPrefix("n", "u:1"), QByteArray("{n}:u:1:rwlock_timeout"));
    QCOMPARE(RedissonNames::rwTimeoutPrefix("a{b}", "u:1"), QByteArray("a{b}:u:1:rwlock_timeout"));
    QCOMPARE(RedissonNames::rwKeyPrefix("n"), QByteArray("{n}"));
    QCOMPARE(RedissonNames::unlockLatch("n", "ab"), QByteArray("redisson_unlock_latch:{n}:ab"));
    LockClient client;
    QVERIFY(isRedissonOwner(client.ownerField(12)));
    QVERIFY(client.ownerField(12).endsWith(":12"));
    QCOMPARE(client.id().size(), 36);
}

void TestRedissonLock::layoutOfTwoHoldsAndTwoReleases()
{
    Listener listener(m_server.connectionSettings());
    QVERIFY(listener.subscribe({"redisson_lock__channel:{t:layout}"}));
    LockClient client;
    QString error;
    Worker w = openWorker({&m_server}, &error);
    auto lock = LockCatalog::create(QStringLiteral("redisson-reentrant"), client, "t:layout", 1,
                                    options(30000, false));
    const QByteArray owner = client.id() + ":1";

    QVERIFY(lock->tryAcquire(w.servers).acquired());
    const AcquireResult second = lock->tryAcquire(w.servers);
    QVERIFY(second.acquired());
    QCOMPARE(second.reply, RedisReply::nil()); // Redisson's script answers nil when it grants
    QCOMPARE(m_server.admin().command({"TYPE", "t:layout"}).reply.bytes(), QByteArray("hash"));
    QCOMPARE(hgetall(m_server.admin(), "t:layout"), (QMap<QByteArray, QByteArray> {{owner, "2"}}));
    QVERIFY(isRedissonOwner(owner));
    const qint64 ttl = pttl(m_server.admin(), "t:layout");
    QVERIFY2(ttl > 29000 && ttl <= 30000, qPrintable(QString::number(ttl)));

    ReleaseResult r = lock->release(w.servers);
    QCOMPARE(r.outcome, ReleaseResult::Outcome::StillHeld);
    QCOMPARE(hgetall(m_server.admin(), "t:layout"), (QMap<QByteArray, QByteArray> {{owner, "1"}}));
    QVERIFY(!listener.next(100)); // nothing published while a hold remains

    r = lock->release(w.servers);
    QCOMPARE(r.outcome, ReleaseResult::Outcome::Released);
    QCOMPARE(r.reply.toInteger(), 1);
    QVERIFY(!exists(m_server.admin(), "t:layout"));
    const std::optional<Message> m = listener.next(2000);
    QVERIFY(m);
    QCOMPARE(m->first, QByteArray("redisson_lock__channel:{t:layout}"));
    QCOMPARE(m->second, QByteArray("0"));
    QVERIFY(listener.drain(100).isEmpty()); // exactly one message
    QCOMPARE(m_server.admin().command({"KEYS", "*"}).reply.size(),
             0); // no latch or anything else left behind
}

void TestRedissonLock::unlockLatchIsWrittenAndDeleted()
{
    QVERIFY(m_server.admin().command({"CONFIG", "SET", "notify-keyspace-events", "KA"}).ok());
    Listener events(m_server.connectionSettings());
    QVERIFY(events.psubscribe("__keyspace@0__:redisson_unlock_latch:*"));
    LockClient client;
    QString error;
    Worker w = openWorker({&m_server}, &error);
    auto lock = LockCatalog::create(QStringLiteral("redisson-reentrant"), client, "t:latch", 1,
                                    options(30000, false));
    QVERIFY(lock->tryAcquire(w.servers).acquired());
    const ReleaseResult r = lock->release(w.servers);
    QCOMPARE(r.outcome, ReleaseResult::Outcome::Released);
    QCOMPARE(r.commands, 2); // EVALSHA + DEL of the latch, in one round trip

    const QList<Message> seen = events.drain(300);
    QCOMPARE(seen.size(), 3); // set, expire (SET PX), del
    static const QRegularExpression latchKey(
        QStringLiteral("^__keyspace@0__:redisson_unlock_latch:\\{t:latch\\}:[0-9a-f]{32}$"));
    for (const Message &m : seen)
        QVERIFY2(latchKey.match(QString::fromLatin1(m.first)).hasMatch(), m.first.constData());
    QCOMPARE(seen.first().second, QByteArray("set"));
    QCOMPARE(seen.last().second, QByteArray("del"));
    QCOMPARE(seen.first().first, seen.last().first);

    LockOptions noLatch = options(30000, false);
    noLatch.unlockLatch = false;
    auto plain = LockCatalog::create(QStringLiteral("redisson-reentrant"), client, "t:latch", 2, noLatch);
    QVERIFY(plain->tryAcquire(w.servers).acquired());
    QCOMPARE(plain->release(w.servers).commands, 1);
    QVERIFY(events.drain(200).isEmpty());
}

void TestRedissonLock::foreignClientHoldsWeWaitAndWake()
{
    ForeignRedisson foreign(m_server.connectionSettings(), 77);
    QVERIFY(foreign.open());
    QVERIFY(!foreign.tryLock("t:foreign", 30000)); // granted
    QCOMPARE(hgetall(m_server.admin(), "t:foreign"), (QMap<QByteArray, QByteArray> {{foreign.field(), "1"}}));

    LockClient client;
    QString error;
    Worker w = openWorker({&m_server}, &error);
    LockOptions o = options(30000, true);
    o.acquireTimeoutMs = 20000;
    auto lock = LockCatalog::create(QStringLiteral("redisson-reentrant"), client, "t:foreign", 1, o);
    const AcquireResult refused = lock->tryAcquire(w.servers);
    QCOMPARE(refused.outcome, AcquireResult::Outcome::Refused);
    QVERIFY2(refused.ttlMs > 25000 && refused.ttlMs <= 30000, qPrintable(QString::number(refused.ttlMs)));
    QCOMPARE(hgetall(m_server.admin(), "t:foreign").size(), 1); // our attempt wrote nothing

    AcquireResult waited;
    std::thread waiter([&] { waited = lock->acquire(w.servers); });
    QTRY_COMPARE_WITH_TIMEOUT(subscribers(m_server.admin(), "redisson_lock__channel:{t:foreign}"), 1, 5000);
    const qint64 releasedUs = LockClock::monotonicUs();
    QVERIFY(foreign.unlock("t:foreign")); // DEL + PUBLISH "0", as Redisson does
    waiter.join();
    QVERIFY2(waited.acquired(), qPrintable(waited.describe()));
    // Woken by the message, not by the 30 s TTL.
    QVERIFY2(waited.endUs - releasedUs < 2000 * 1000, qPrintable(QString::number(waited.endUs - releasedUs)));
    QCOMPARE(hgetall(m_server.admin(), "t:foreign"),
             (QMap<QByteArray, QByteArray> {{client.id() + ":1", "1"}}));
    QTRY_COMPARE_WITH_TIMEOUT(subscribers(m_server.admin(), "redisson_lock__channel:{t:foreign}"), 0, 5000);
    QVERIFY(lock->release(w.servers).ok());
}

void TestRedissonLock::weHoldForeignClientIsExcluded()
{
    LockClient client;
    QString error;
    Worker w = openWorker({&m_server}, &error);
    auto lock = LockCatalog::create(QStringLiteral("redisson-reentrant"), client, "t:ours", 3,
                                    options(30000, true));
    QVERIFY(lock->tryAcquire(w.servers).acquired());

    ForeignRedisson foreign(m_server.connectionSettings(), 3); // same thread number, other client id
    QVERIFY(foreign.open());
    const std::optional<qint64> ttl = foreign.tryLock("t:ours", 30000);
    QVERIFY(ttl);
    QVERIFY2(*ttl > 25000 && *ttl <= 30000, qPrintable(QString::number(*ttl)));
    QVERIFY(!foreign.unlock("t:ours")); // "not locked by current thread"
    QCOMPARE(hgetall(m_server.admin(), "t:ours"), (QMap<QByteArray, QByteArray> {{client.id() + ":3", "1"}}));

    // The foreign client sleeps on the channel; our release wakes it, then it gets the lock.
    Listener foreignWaiter(m_server.connectionSettings());
    QVERIFY(foreignWaiter.subscribe({RedissonNames::lockChannel("t:ours")}));
    QCOMPARE(lock->release(w.servers).outcome, ReleaseResult::Outcome::Released);
    const std::optional<Message> woken = foreignWaiter.next(2000);
    QVERIFY(woken);
    QCOMPARE(woken->second, QByteArray("0"));
    QVERIFY(!foreign.tryLock("t:ours", 30000));
    QCOMPARE(lock->tryAcquire(w.servers).outcome, AcquireResult::Outcome::Refused);
    QVERIFY(foreign.unlock("t:ours"));
}

void TestRedissonLock::watchdogSawTooth()
{
    LockClient client;
    QString error;
    Worker w = openWorker({&m_server}, &error);
    auto lock
        = LockCatalog::create(QStringLiteral("redisson-reentrant"), client, "t:saw", 1, options(300, true));
    QVERIFY(lock->tryAcquire(w.servers).acquired());
    QCOMPARE(lock->tryAcquire(w.servers).holdCount, 2); // re-entry does not add a second renewal
    QCOMPARE(client.watchdog().activeCount(), 1);
    qint64 lowest = 300;
    QElapsedTimer held;
    held.start();
    // Hold for three leases, sampling the TTL: renewed every 100 ms back to 300, never near 0.
    while (held.elapsed() < 900) {
        const qint64 ttl = pttl(m_server.admin(), "t:saw");
        QVERIFY2(ttl > 0 && ttl <= 300, qPrintable(QString::number(ttl)));
        lowest = qMin(lowest, ttl);
        QTest::qWait(10);
    }
    QVERIFY(client.watchdog().renewals() >= 6);
    QVERIFY2(lowest > 50, qPrintable(QString::number(lowest)));
    QCOMPARE(lock->release(w.servers).outcome, ReleaseResult::Outcome::StillHeld);
    QVERIFY(lock->isRenewing()); // still held once
    QCOMPARE(lock->release(w.servers).outcome, ReleaseResult::Outcome::Released);
    QCOMPARE(client.watchdog().activeCount(), 0);
    const qint64 renewals = client.watchdog().renewals();
    QTest::qWait(350);
    QCOMPARE(client.watchdog().renewals(), renewals);
}

void TestRedissonLock::fixedLeaseIsNotRenewed()
{
    LockClient client;
    QString error;
    Worker w = openWorker({&m_server}, &error);
    auto lock = LockCatalog::create(QStringLiteral("redisson-reentrant"), client, "t:fixed", 1,
                                    options(250, false));
    QVERIFY(lock->tryAcquire(w.servers).acquired());
    QVERIFY(!lock->isRenewing());
    QTRY_VERIFY_WITH_TIMEOUT(!exists(m_server.admin(), "t:fixed"), 2000);
    QCOMPARE(client.watchdog().attempts(), 0);
    QCOMPARE(lock->release(w.servers).outcome, ReleaseResult::Outcome::Expired);
}

void TestRedissonLock::waiterWakesPromptlyOnRelease()
{
    LockClient holderProcess, waiterProcess;
    QString error;
    Worker h = openWorker({&m_server}, &error), w = openWorker({&m_server}, &error);
    auto holder = LockCatalog::create(QStringLiteral("redisson-reentrant"), holderProcess, "t:wake", 1,
                                      options(30000, false));
    LockOptions o = options(30000, false);
    o.acquireTimeoutMs = 20000;
    auto waiter = LockCatalog::create(QStringLiteral("redisson-reentrant"), waiterProcess, "t:wake", 1, o);
    QVERIFY(holder->tryAcquire(h.servers).acquired());
    AcquireResult waited;
    std::thread thread([&] { waited = waiter->acquire(w.servers); });
    QTRY_COMPARE_WITH_TIMEOUT(subscribers(m_server.admin(), "redisson_lock__channel:{t:wake}"), 1, 5000);
    const ReleaseResult released = holder->release(h.servers);
    thread.join();
    QCOMPARE(released.outcome, ReleaseResult::Outcome::Released);
    QVERIFY2(waited.acquired(), qPrintable(waited.describe()));
    QVERIFY2(waited.attempts == 2 || waited.attempts == 3, qPrintable(QString::number(waited.attempts)));
    QVERIFY2(waited.endUs - released.endUs < 2000 * 1000,
             qPrintable(QString::number(waited.endUs - released.endUs)));
    QVERIFY(waiterProcess.subscriber().messagesReceived() >= 1);
}

void TestRedissonLock::waiterWakesAfterTtlWhenTheMessageIsLost()
{
    LockClient holderProcess, waiterProcess;
    std::atomic<int> waiterReplies = 0;
    FaultHooks lossy;
    lossy.deliverMessage = [](const QByteArray &, const QByteArray &) { return false; };
    lossy.afterReceive = [&](qint64, const RedisResult &) { ++waiterReplies; };
    waiterProcess.setFaultHooks(lossy);
    QString error;
    Worker h = openWorker({&m_server}, &error), w = openWorker({&m_server}, &error);
    const qint64 lease = 2000;
    auto holder = LockCatalog::create(QStringLiteral("redisson-reentrant"), holderProcess, "t:lost", 1,
                                      options(lease, false));
    LockOptions o = options(30000, false);
    o.acquireTimeoutMs = 10000;
    auto waiter = LockCatalog::create(QStringLiteral("redisson-reentrant"), waiterProcess, "t:lost", 1, o);
    QVERIFY(!waiter->prepare(w.servers));
    const AcquireResult held = holder->tryAcquire(h.servers);
    QVERIFY(held.acquired());
    AcquireResult waited;
    std::thread thread([&] { waited = waiter->acquire(w.servers); });
    QTRY_VERIFY_WITH_TIMEOUT(waiterReplies >= 2, 5000); // refused before and after subscribing
    QCOMPARE(subscribers(m_server.admin(), "redisson_lock__channel:{t:lost}"), 1);
    const ReleaseResult released = holder->release(h.servers);
    QCOMPARE(released.outcome, ReleaseResult::Outcome::Released);
    thread.join();
    QVERIFY2(waited.acquired(), qPrintable(waited.describe()));
    QVERIFY(waiterProcess.subscriber().messagesDropped() >= 1);
    // It slept the TTL its last refused attempt reported: it woke around the end of the holder's lease,
    // long after the (lost) release message.
    QVERIFY2(waited.endUs - released.endUs > 1000 * 1000,
             qPrintable(QString::number(waited.endUs - released.endUs)));
    QVERIFY2(waited.endUs - held.startUs < (lease + 2000) * 1000,
             qPrintable(QString::number(waited.endUs - held.startUs)));
}

void TestRedissonLock::waiterWakesAfterTtlWhenTheHolderCrashed()
{
    LockClient holderProcess, waiterProcess;
    QString error;
    Worker h = openWorker({&m_server}, &error), w = openWorker({&m_server}, &error);
    const qint64 lease = 500;
    auto holder = LockCatalog::create(QStringLiteral("redisson-reentrant"), holderProcess, "t:crash", 1,
                                      options(lease, false));
    LockOptions o = options(30000, false);
    o.acquireTimeoutMs = 10000;
    auto waiter = LockCatalog::create(QStringLiteral("redisson-reentrant"), waiterProcess, "t:crash", 1, o);
    const AcquireResult held = holder->tryAcquire(h.servers);
    QVERIFY(held.acquired());
    // The holder never releases and nobody publishes: only the TTL fallback can wake the waiter.
    const AcquireResult waited = waiter->acquire(w.servers);
    QVERIFY2(waited.acquired(), qPrintable(waited.describe()));
    QVERIFY(waited.endUs - held.startUs >= (lease - 20) * 1000);
    QVERIFY2(waited.endUs - held.startUs < (lease + 1500) * 1000,
             qPrintable(QString::number(waited.endUs - held.startUs)));
    QCOMPARE(waiterProcess.subscriber().messagesReceived(), 0);
    QVERIFY(waited.attempts <= 4);
}

void TestRedissonLock::oneSubscriptionPerProcess()
{
    LockClient holderProcess, p, q;
    QString error;
    Worker h = openWorker({&m_server}, &error);
    auto holder = LockCatalog::create(QStringLiteral("redisson-reentrant"), holderProcess, "t:many", 1,
                                      options(30000, false));
    QVERIFY(holder->tryAcquire(h.servers).acquired());
    LockOptions o = options(30000, false);
    o.acquireTimeoutMs = 20000;
    struct Waiter
    {
        Worker worker;
        std::unique_ptr<DistributedLock> lock;
        AcquireResult result;
        ReleaseResult release;
    };
    std::vector<std::unique_ptr<Waiter>> waiters;
    for (auto [process, thread] : {std::pair {&p, 1}, {&p, 2}, {&q, 1}}) {
        auto w = std::make_unique<Waiter>();
        w->worker = openWorker({&m_server}, &error);
        w->lock = LockCatalog::create(QStringLiteral("redisson-reentrant"), *process, "t:many", thread, o);
        waiters.push_back(std::move(w));
    }
    std::vector<std::thread> threads;
    for (auto &w : waiters) {
        threads.emplace_back([&w = *w] {
            w.result = w.lock->acquire(w.worker.servers);
            if (w.result.acquired())
                w.release = w.lock->release(w.worker.servers); // hand it on at once
        });
    }
    // Two processes wait, so two subscribers: the two threads of p share one subscription.
    QTRY_COMPARE_WITH_TIMEOUT(subscribers(m_server.admin(), "redisson_lock__channel:{t:many}"), 2, 5000);
    QTest::qWait(50);
    QCOMPARE(subscribers(m_server.admin(), "redisson_lock__channel:{t:many}"), 2);
    QVERIFY(holder->release(h.servers).ok());
    for (std::thread &t : threads)
        t.join();
    for (auto &w : waiters) {
        QVERIFY2(w->result.acquired(), qPrintable(w->result.describe()));
        QCOMPARE(w->release.outcome, ReleaseResult::Outcome::Released);
        // Hand-offs come from release messages, not from the 30 s TTL.
        QVERIFY(w->result.endUs - w->result.startUs < 10000 * 1000);
    }
    QTRY_COMPARE_WITH_TIMEOUT(subscribers(m_server.admin(), "redisson_lock__channel:{t:many}"), 0, 5000);
}

void TestRedissonLock::stopInterruptsAWaiter()
{
    LockClient holderProcess, waiterProcess;
    QString error;
    Worker h = openWorker({&m_server}, &error), w = openWorker({&m_server}, &error);
    auto holder = LockCatalog::create(QStringLiteral("redisson-reentrant"), holderProcess, "t:stop", 1,
                                      options(30000, false));
    LockOptions o = options(30000, false);
    o.acquireTimeoutMs = -1; // until stopped
    auto waiter = LockCatalog::create(QStringLiteral("redisson-reentrant"), waiterProcess, "t:stop", 1, o);
    QVERIFY(holder->tryAcquire(h.servers).acquired());
    AcquireResult waited;
    std::thread thread([&] { waited = waiter->acquire(w.servers); });
    QTRY_COMPARE_WITH_TIMEOUT(subscribers(m_server.admin(), "redisson_lock__channel:{t:stop}"), 1, 5000);
    const qint64 stoppedUs = LockClock::monotonicUs();
    waiterProcess.stop();
    thread.join();
    QCOMPARE(waited.outcome, AcquireResult::Outcome::Interrupted);
    QVERIFY(LockClock::monotonicUs() - stoppedUs < 1000 * 1000);
    QVERIFY(holder->release(h.servers).ok());
}

QTEST_GUILESS_MAIN(TestRedissonLock)
#include "tst_redissonlock.moc"
