// redisson-fair on the wire: the FIFO queue and deadline companions, head-only notification on the
// waiter's own channel, stale heads dropped, a waiter that gives up leaves the queue — and the wall-clock
// flaw, shown with a client whose clock runs ahead.
#include "locktestsupport.h"
#include "sandboxfixture.h"

#include "locks/lockcatalog.h"
#include "locks/redissonnames.h"

#include <QDateTime>

#include <thread>

using namespace LockTest;

class TestRedissonFairLock : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void init();
    void queueLayoutAndHeadOnlyNotification();
    void waitersAcquireInArrivalOrder();
    void staleHeadIsDropped();
    void waiterThatGivesUpLeavesTheQueue();
    void aWaitersPlaceLastsItsWaitTime();
    void unlockingALockThatExpiredAnswersReleasedAsRedisson();
    void clockAheadDropsLiveWaiters();

private:
    std::unique_ptr<DistributedLock> make(LockClient &client, qint64 thread, qint64 leaseMs,
                                          qint64 waitMs = 300000, qint64 acquireTimeoutMs = 0);
    QList<QByteArray> queue();
    SandboxFixture m_server;
};

void TestRedissonFairLock::initTestCase()
{
    LS_SANDBOX(m_server);
}

void TestRedissonFairLock::init()
{
    QVERIFY(m_server.admin().command({"FLUSHALL"}).ok());
}

std::unique_ptr<DistributedLock> TestRedissonFairLock::make(LockClient &client, qint64 thread, qint64 leaseMs,
                                                            qint64 waitMs, qint64 acquireTimeoutMs)
{
    LockOptions o = quickOptions(QStringLiteral("redisson-fair"), leaseMs);
    o.fairWaitMs = waitMs;
    o.acquireTimeoutMs = acquireTimeoutMs;
    o.wait = WaitStrategy::PubSub;
    return LockCatalog::create(QStringLiteral("redisson-fair"), client, "t:fair", thread, o);
}

QList<QByteArray> TestRedissonFairLock::queue()
{
    QList<QByteArray> items;
    const RedisReply list
        = m_server.admin().command({"LRANGE", "redisson_lock_queue:{t:fair}", "0", "-1"}).reply;
    for (const RedisReply &r : list.elements())
        items << r.bytes();
    return items;
}

void TestRedissonFairLock::queueLayoutAndHeadOnlyNotification()
{
    LockClient h, p, q;
    QString error;
    Worker hw = openWorker({&m_server}, &error), pw = openWorker({&m_server}, &error),
           qw = openWorker({&m_server}, &error);
    auto holder = make(h, 1, 30000);
    auto w1 = make(p, 1, 30000), w2 = make(p, 2, 30000), w3 = make(q, 5, 30000);
    QVERIFY(holder->tryAcquire(hw.servers).acquired());
    const qint64 before = QDateTime::currentMSecsSinceEpoch();
    QCOMPARE(w1->tryAcquire(pw.servers).outcome, AcquireResult::Outcome::Refused);
    QCOMPARE(w2->tryAcquire(pw.servers).outcome, AcquireResult::Outcome::Refused);
    QCOMPARE(w3->tryAcquire(qw.servers).outcome, AcquireResult::Outcome::Refused);
    QCOMPARE(queue(), (QList<QByteArray> {p.ownerField(1), p.ownerField(2), q.ownerField(5)}));
    // Deadlines: end of the lease + one wait window, then one more window per place in the queue.
    const double d1 = m_server.admin()
                          .command({"ZSCORE", "redisson_lock_timeout:{t:fair}", p.ownerField(1)})
                          .reply.bytes()
                          .toDouble();
    const double d2 = m_server.admin()
                          .command({"ZSCORE", "redisson_lock_timeout:{t:fair}", p.ownerField(2)})
                          .reply.bytes()
                          .toDouble();
    const double d3 = m_server.admin()
                          .command({"ZSCORE", "redisson_lock_timeout:{t:fair}", q.ownerField(5)})
                          .reply.bytes()
                          .toDouble();
    QVERIFY2(d1 >= before + 29000 + 300000 && d1 <= QDateTime::currentMSecsSinceEpoch() + 30000 + 300000,
             qPrintable(QString::number(d1 - before)));
    QVERIFY(qAbs(d2 - d1 - 300000) < 100);
    QVERIFY(qAbs(d3 - d2 - 300000) < 100);
    QCOMPARE(pttl(m_server.admin(), "redisson_lock_queue:{t:fair}"), LockTtl::NoExpiry);
    QCOMPARE(pttl(m_server.admin(), "redisson_lock_timeout:{t:fair}"), LockTtl::NoExpiry);
    QCOMPARE(w1->waitChannel(), "redisson_lock__channel:{t:fair}:" + p.ownerField(1));

    Listener listener(m_server.connectionSettings());
    QVERIFY(listener.subscribe(
        {w1->waitChannel(), w2->waitChannel(), w3->waitChannel(), "redisson_lock__channel:{t:fair}"}));
    QCOMPARE(holder->release(hw.servers).outcome, ReleaseResult::Outcome::Released);
    const QList<Message> messages = listener.drain(200);
    QCOMPARE(messages.size(), 1);
    QCOMPARE(messages.first(), Message(w1->waitChannel(), "0")); // only the head is woken

    QVERIFY(!exists(m_server.admin(), "t:fair"));
    QCOMPARE(w2->tryAcquire(pw.servers).outcome, AcquireResult::Outcome::Refused); // free, but not its turn
    QCOMPARE(w3->tryAcquire(qw.servers).outcome, AcquireResult::Outcome::Refused);
    QVERIFY(w1->tryAcquire(pw.servers).acquired());
    QCOMPARE(queue(), (QList<QByteArray> {p.ownerField(2), q.ownerField(5)}));
    const double d2After = m_server.admin()
                               .command({"ZSCORE", "redisson_lock_timeout:{t:fair}", p.ownerField(2)})
                               .reply.bytes()
                               .toDouble();
    QVERIFY(qAbs(d2 - 300000 - d2After) < 1); // everyone moved up one window
    QCOMPARE(hgetall(m_server.admin(), "t:fair"), (QMap<QByteArray, QByteArray> {{p.ownerField(1), "1"}}));
}

void TestRedissonFairLock::waitersAcquireInArrivalOrder()
{
    LockClient h, p, q;
    QString error;
    Worker hw = openWorker({&m_server}, &error);
    auto holder = make(h, 1, 30000);
    QVERIFY(holder->tryAcquire(hw.servers).acquired());
    struct Waiter
    {
        Worker worker;
        std::unique_ptr<DistributedLock> lock;
        AcquireResult result;
        int order = 0;
    };
    std::vector<std::unique_ptr<Waiter>> waiters;
    for (auto [client, thread] : {std::pair {&p, 1}, {&q, 2}, {&p, 3}, {&q, 4}}) {
        auto w = std::make_unique<Waiter>();
        w->worker = openWorker({&m_server}, &error);
        w->lock = make(*client, thread, 30000, 300000, 10000);
        // Join the queue now, in this order; the threads below only wait for their turn.
        QCOMPARE(w->lock->tryAcquire(w->worker.servers).outcome, AcquireResult::Outcome::Refused);
        waiters.push_back(std::move(w));
    }
    std::atomic<int> next = 1;
    std::vector<std::thread> threads;
    for (auto &w : waiters) {
        threads.emplace_back([&w = *w, &next] {
            w.result = w.lock->acquire(w.worker.servers);
            if (w.result.acquired()) {
                w.order = next++;
                w.lock->release(w.worker.servers);
            }
        });
    }
    QVERIFY(holder->release(hw.servers).ok());
    for (std::thread &t : threads)
        t.join();
    for (size_t i = 0; i < waiters.size(); ++i) {
        QVERIFY2(waiters[i]->result.acquired(), qPrintable(waiters[i]->result.describe()));
        QCOMPARE(waiters[i]->order, int(i) + 1);
        QVERIFY(waiters[i]->result.endUs - waiters[i]->result.startUs
                < 10000 * 1000); // woken, not TTL-driven
    }
    QVERIFY(queue().isEmpty());
}

void TestRedissonFairLock::staleHeadIsDropped()
{
    LockClient h, crashed, p;
    QString error;
    Worker hw = openWorker({&m_server}, &error), cw = openWorker({&m_server}, &error),
           pw = openWorker({&m_server}, &error);
    auto holder = make(h, 1, 300, 200);
    auto ghost = make(crashed, 1, 300, 200);
    auto next = make(p, 1, 300, 200);
    QVERIFY(holder->tryAcquire(hw.servers).acquired());
    QCOMPARE(ghost->tryAcquire(cw.servers).outcome, AcquireResult::Outcome::Refused); // then it crashes
    QCOMPARE(next->tryAcquire(pw.servers).outcome, AcquireResult::Outcome::Refused);
    const qint64 ghostDeadline
        = qint64(m_server.admin()
                     .command({"ZSCORE", "redisson_lock_timeout:{t:fair}", crashed.ownerField(1)})
                     .reply.bytes()
                     .toDouble());
    QVERIFY(holder->release(hw.servers).ok());
    QCOMPARE(next->tryAcquire(pw.servers).outcome,
             AcquireResult::Outcome::Refused); // the ghost is still the head
    AcquireOnce acquireNext(*next, pw.servers);
    QTRY_VERIFY_WITH_TIMEOUT(acquireNext(), 5000);
    QVERIFY(QDateTime::currentMSecsSinceEpoch() >= ghostDeadline);
    QVERIFY(queue().isEmpty());
}

void TestRedissonFairLock::waiterThatGivesUpLeavesTheQueue()
{
    LockClient h, p, q;
    QString error;
    Worker hw = openWorker({&m_server}, &error), pw = openWorker({&m_server}, &error),
           qw = openWorker({&m_server}, &error);
    auto holder = make(h, 1, 30000);
    auto quitter = make(p, 1, 30000, 300000, 150);
    auto patient = make(q, 1, 30000);
    QVERIFY(holder->tryAcquire(hw.servers).acquired());
    QCOMPARE(quitter->tryAcquire(pw.servers).outcome, AcquireResult::Outcome::Refused);
    QCOMPARE(patient->tryAcquire(qw.servers).outcome, AcquireResult::Outcome::Refused);
    const double before = m_server.admin()
                              .command({"ZSCORE", "redisson_lock_timeout:{t:fair}", q.ownerField(1)})
                              .reply.bytes()
                              .toDouble();
    const AcquireResult r = quitter->acquire(pw.servers);
    QCOMPARE(r.outcome, AcquireResult::Outcome::TimedOut);
    QCOMPARE(queue(), QList<QByteArray> {q.ownerField(1)});
    QCOMPARE(
        m_server.admin().command({"ZSCORE", "redisson_lock_timeout:{t:fair}", p.ownerField(1)}).reply.isNil(),
        true);
    const double after = m_server.admin()
                             .command({"ZSCORE", "redisson_lock_timeout:{t:fair}", q.ownerField(1)})
                             .reply.bytes()
                             .toDouble();
    // Everyone behind moved up by the quitter's own window: its wait (150 ms), as Redisson's acquireFailed.
    QVERIFY2(qAbs(before - 150 - after) < 1, qPrintable(QString::number(before - after)));
}

// Redisson's tryLock(waitTime, ...) keeps a waiter's place for waitTime past the one before it, not for
// fairLockWaitTimeout (5 minutes): a waiter that dies in the queue blocks the next one that long, no longer.
void TestRedissonFairLock::aWaitersPlaceLastsItsWaitTime()
{
    LockClient h, p, q;
    QString error;
    Worker hw = openWorker({&m_server}, &error), pw = openWorker({&m_server}, &error),
           qw = openWorker({&m_server}, &error);
    auto holder = make(h, 1, 30000);
    auto waiter = make(p, 1, 30000, 300000, 2000);
    auto unbounded = make(q, 1, 30000); // no acquire timeout: the 5-minute window
    QVERIFY(holder->tryAcquire(hw.servers).acquired());
    const qint64 before = QDateTime::currentMSecsSinceEpoch();
    QCOMPARE(waiter->tryAcquire(pw.servers).outcome, AcquireResult::Outcome::Refused);
    QCOMPARE(unbounded->tryAcquire(qw.servers).outcome, AcquireResult::Outcome::Refused);
    const auto deadline = [&](const QByteArray &owner) {
        return m_server.admin()
            .command({"ZSCORE", "redisson_lock_timeout:{t:fair}", owner})
            .reply.bytes()
            .toDouble();
    };
    const double first = deadline(p.ownerField(1)), second = deadline(q.ownerField(1));
    QVERIFY2(first >= before + 29000 + 2000 && first <= QDateTime::currentMSecsSinceEpoch() + 30000 + 2000,
             qPrintable(QString::number(first - before)));
    QVERIFY(qAbs(second - first - 300000) < 100);
}

// The lease ran out before the unlock: Redisson's RFairLock answers 1, so unlock() returns as if the lock
// had been held, and it wakes the head of the queue. (RLock's script answers nil there: an exception.)
void TestRedissonFairLock::unlockingALockThatExpiredAnswersReleasedAsRedisson()
{
    LockClient h, p;
    QString error;
    Worker hw = openWorker({&m_server}, &error), pw = openWorker({&m_server}, &error);
    auto holder = make(h, 1, 200);
    auto waiter = make(p, 1, 30000);
    QVERIFY(holder->tryAcquire(hw.servers).acquired());
    QCOMPARE(waiter->tryAcquire(pw.servers).outcome, AcquireResult::Outcome::Refused);
    QTRY_VERIFY_WITH_TIMEOUT(!exists(m_server.admin(), "t:fair"), 3000);
    Listener listener(m_server.connectionSettings());
    QVERIFY(listener.subscribe({waiter->waitChannel()}));
    QCOMPARE(holder->release(hw.servers).outcome, ReleaseResult::Outcome::Released);
    QCOMPARE(listener.drain(200), (QList<Message> {Message(waiter->waitChannel(), "0")}));
}

void TestRedissonFairLock::clockAheadDropsLiveWaiters()
{
    LockClient h, honest;
    LockClient::Options fast;
    fast.clockOffsetMs = 10 * 60 * 1000; // this client's wall clock runs 10 minutes ahead
    LockClient ahead(fast);
    QString error;
    Worker hw = openWorker({&m_server}, &error), ow = openWorker({&m_server}, &error),
           aw = openWorker({&m_server}, &error);
    auto holder = make(h, 1, 30000);
    auto waiter = make(honest, 1, 30000);
    auto rude = make(ahead, 1, 30000);
    QVERIFY(holder->tryAcquire(hw.servers).acquired());
    QCOMPARE(waiter->tryAcquire(ow.servers).outcome, AcquireResult::Outcome::Refused);
    QCOMPARE(queue(), QList<QByteArray> {honest.ownerField(1)});
    // The waiter is alive and well inside its 5-minute window, but the fast clock says its deadline passed.
    QCOMPARE(rude->tryAcquire(aw.servers).outcome, AcquireResult::Outcome::Refused);
    QCOMPARE(queue(), QList<QByteArray> {ahead.ownerField(1)});
}

QTEST_GUILESS_MAIN(TestRedissonFairLock)
#include "tst_redissonfairlock.moc"
