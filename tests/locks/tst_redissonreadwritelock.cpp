// redisson-rw on the wire: mode field, readers' fields and per-hold timeout keys, the writer's ":write"
// field, "0" / "1" on redisson_rwlock:{name}, and waiters of both sides woken by them.
#include "locktestsupport.h"
#include "sandboxfixture.h"

#include "locks/lockcatalog.h"
#include "locks/redissonnames.h"

#include <thread>

using namespace LockTest;

class TestRedissonReadWriteLock : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void init();
    void readersShareWritersExclude();
    void readReentryHasOneTimeoutKeyPerHold();
    void writerMayAlsoRead();
    void readReleaseWakesAWaitingWriter();
    void writeReleaseWakesAllWaitingReaders();
    void readWatchdogRenewsTimeoutKeys();

private:
    std::unique_ptr<DistributedLock> make(LockClient &client, qint64 thread, bool read,
                                          qint64 leaseMs = 30000, qint64 acquireTimeoutMs = 0,
                                          bool watchdog = false);
    QByteArray timeoutKey(LockClient &client, qint64 thread, int hold)
    {
        return RedissonNames::rwTimeoutPrefix("t:rw", client.ownerField(thread)) + ':'
            + QByteArray::number(hold);
    }
    SandboxFixture m_server;
};

void TestRedissonReadWriteLock::initTestCase()
{
    LS_SANDBOX(m_server);
}

void TestRedissonReadWriteLock::init()
{
    QVERIFY(m_server.admin().command({"FLUSHALL"}).ok());
}

std::unique_ptr<DistributedLock> TestRedissonReadWriteLock::make(LockClient &client, qint64 thread, bool read,
                                                                 qint64 leaseMs, qint64 acquireTimeoutMs,
                                                                 bool watchdog)
{
    LockOptions o = quickOptions(QStringLiteral("redisson-rw"), leaseMs);
    o.rwMode = read ? LockOptions::RwMode::Read : LockOptions::RwMode::Write;
    o.acquireTimeoutMs = acquireTimeoutMs;
    o.wait = WaitStrategy::PubSub;
    o.watchdog = watchdog;
    return LockCatalog::create(QStringLiteral("redisson-rw"), client, "t:rw", thread, o);
}

void TestRedissonReadWriteLock::readersShareWritersExclude()
{
    LockClient p1, p2, p3;
    QString error;
    Worker w1 = openWorker({&m_server}, &error), w2 = openWorker({&m_server}, &error),
           w3 = openWorker({&m_server}, &error);
    auto r1 = make(p1, 1, true), r2 = make(p2, 1, true), writer = make(p3, 1, false);
    Listener listener(m_server.connectionSettings());
    QVERIFY(listener.subscribe({"redisson_rwlock:{t:rw}"}));

    QVERIFY(r1->tryAcquire(w1.servers).acquired());
    QVERIFY(r2->tryAcquire(w2.servers).acquired());
    QCOMPARE(
        hgetall(m_server.admin(), "t:rw"),
        (QMap<QByteArray, QByteArray> {{"mode", "read"}, {p1.ownerField(1), "1"}, {p2.ownerField(1), "1"}}));
    QCOMPARE(timeoutKey(p1, 1, 1), "{t:rw}:" + p1.ownerField(1) + ":rwlock_timeout:1");
    QCOMPARE(get(m_server.admin(), timeoutKey(p1, 1, 1)), QByteArray("1"));
    const qint64 ttl = pttl(m_server.admin(), timeoutKey(p2, 1, 1));
    QVERIFY(ttl > 29000 && ttl <= 30000);
    const AcquireResult refused = writer->tryAcquire(w3.servers);
    QCOMPARE(refused.outcome, AcquireResult::Outcome::Refused);
    QVERIFY(refused.ttlMs > 29000);

    QCOMPARE(r1->release(w1.servers).outcome, ReleaseResult::Outcome::Released);
    QVERIFY(!exists(m_server.admin(), timeoutKey(p1, 1, 1)));
    QCOMPARE(hgetall(m_server.admin(), "t:rw").size(), 2); // mode + the other reader
    QVERIFY(listener.drain(100).isEmpty()); // still held by a reader: nothing published
    QCOMPARE(r2->release(w2.servers).outcome, ReleaseResult::Outcome::Released);
    QVERIFY(!exists(m_server.admin(), "t:rw"));
    QCOMPARE(listener.drain(200), (QList<Message> {{"redisson_rwlock:{t:rw}", "0"}}));

    QVERIFY(writer->tryAcquire(w3.servers).acquired());
    QCOMPARE(hgetall(m_server.admin(), "t:rw"),
             (QMap<QByteArray, QByteArray> {{"mode", "write"}, {p3.ownerField(1) + ":write", "1"}}));
    QCOMPARE(r1->tryAcquire(w1.servers).outcome, AcquireResult::Outcome::Refused);
    QCOMPARE(r1->release(w1.servers).outcome, ReleaseResult::Outcome::NotOwner);
    QCOMPARE(writer->release(w3.servers).outcome, ReleaseResult::Outcome::Released);
    QCOMPARE(listener.drain(200), (QList<Message> {{"redisson_rwlock:{t:rw}", "1"}}));
}

void TestRedissonReadWriteLock::readReentryHasOneTimeoutKeyPerHold()
{
    LockClient p;
    QString error;
    Worker w = openWorker({&m_server}, &error);
    auto reader = make(p, 4, true);
    QVERIFY(reader->tryAcquire(w.servers).acquired());
    QCOMPARE(reader->tryAcquire(w.servers).holdCount, 2);
    QVERIFY(exists(m_server.admin(), timeoutKey(p, 4, 1)) && exists(m_server.admin(), timeoutKey(p, 4, 2)));
    QCOMPARE(reader->keys(), (QList<QByteArray> {"t:rw", timeoutKey(p, 4, 1), timeoutKey(p, 4, 2)}));
    QCOMPARE(hgetall(m_server.admin(), "t:rw").value(p.ownerField(4)), QByteArray("2"));
    QCOMPARE(reader->release(w.servers).outcome, ReleaseResult::Outcome::StillHeld);
    QVERIFY(exists(m_server.admin(), timeoutKey(p, 4, 1)));
    QVERIFY(!exists(m_server.admin(), timeoutKey(p, 4, 2)));
    QCOMPARE(reader->release(w.servers).outcome, ReleaseResult::Outcome::Released);
    QCOMPARE(m_server.admin().command({"KEYS", "*"}).reply.size(), 0);
}

void TestRedissonReadWriteLock::writerMayAlsoRead()
{
    LockClient p;
    QString error;
    Worker w = openWorker({&m_server}, &error);
    auto writer = make(p, 1, false), reader = make(p, 1, true);
    Listener listener(m_server.connectionSettings());
    QVERIFY(listener.subscribe({"redisson_rwlock:{t:rw}"}));
    QVERIFY(writer->tryAcquire(w.servers).acquired());
    QVERIFY(reader->tryAcquire(w.servers).acquired());
    QCOMPARE(hgetall(m_server.admin(), "t:rw"),
             (QMap<QByteArray, QByteArray> {
                 {"mode", "write"}, {p.ownerField(1) + ":write", "1"}, {p.ownerField(1), "1"}}));
    QCOMPARE(writer->release(w.servers).outcome, ReleaseResult::Outcome::Released);
    QCOMPARE(hgetall(m_server.admin(), "t:rw"),
             (QMap<QByteArray, QByteArray> {{"mode", "read"}, {p.ownerField(1), "1"}}));
    QVERIFY(listener.drain(100).isEmpty()); // downgraded to a read lock: no wake-up yet
    QCOMPARE(reader->release(w.servers).outcome, ReleaseResult::Outcome::Released);
    QCOMPARE(listener.drain(200), (QList<Message> {{"redisson_rwlock:{t:rw}", "0"}}));
}

void TestRedissonReadWriteLock::readReleaseWakesAWaitingWriter()
{
    LockClient p1, p2;
    QString error;
    Worker w1 = openWorker({&m_server}, &error), w2 = openWorker({&m_server}, &error);
    auto reader = make(p1, 1, true);
    auto writer = make(p2, 1, false, 30000, 10000);
    QVERIFY(reader->tryAcquire(w1.servers).acquired());
    AcquireResult waited;
    std::thread t([&] { waited = writer->acquire(w2.servers); });
    QTRY_COMPARE_WITH_TIMEOUT(subscribers(m_server.admin(), "redisson_rwlock:{t:rw}"), 1, 5000);
    const ReleaseResult released = reader->release(w1.servers);
    t.join();
    QVERIFY2(waited.acquired(), qPrintable(waited.describe()));
    QVERIFY(waited.endUs - released.endUs < 2000 * 1000); // the "0", not the 30 s lease
    QVERIFY(writer->release(w2.servers).ok());
}

void TestRedissonReadWriteLock::writeReleaseWakesAllWaitingReaders()
{
    LockClient writerProcess, readers;
    QString error;
    Worker ww = openWorker({&m_server}, &error);
    auto writer = make(writerProcess, 1, false);
    QVERIFY(writer->tryAcquire(ww.servers).acquired());
    Worker w1 = openWorker({&m_server}, &error), w2 = openWorker({&m_server}, &error);
    auto r1 = make(readers, 1, true, 30000, 10000), r2 = make(readers, 2, true, 30000, 10000);
    AcquireResult a1, a2;
    std::thread t1([&] { a1 = r1->acquire(w1.servers); });
    std::thread t2([&] { a2 = r2->acquire(w2.servers); });
    QTRY_COMPARE_WITH_TIMEOUT(subscribers(m_server.admin(), "redisson_rwlock:{t:rw}"), 1,
                              5000); // one per process
    QTest::qWait(100); // both threads are asleep on the shared subscription (at most 30 s)
    const ReleaseResult released = writer->release(ww.servers);
    t1.join();
    t2.join();
    QVERIFY(a1.acquired() && a2.acquired());
    // "1" woke both threads of the process at once; neither waited for the other's release.
    QVERIFY(a1.endUs - released.endUs < 2000 * 1000);
    QVERIFY(a2.endUs - released.endUs < 2000 * 1000);
    QCOMPARE(hgetall(m_server.admin(), "t:rw").size(), 3);
    QVERIFY(r1->release(w1.servers).ok() && r2->release(w2.servers).ok());
}

void TestRedissonReadWriteLock::readWatchdogRenewsTimeoutKeys()
{
    LockClient p;
    QString error;
    Worker w = openWorker({&m_server}, &error);
    auto reader = make(p, 1, true, 300, 0, true);
    QVERIFY(reader->tryAcquire(w.servers).acquired());
    QVERIFY(reader->tryAcquire(w.servers).acquired());
    QTRY_VERIFY_WITH_TIMEOUT(p.watchdog().renewals() >= 8, 5000); // 800 ms: the lease ran out twice over
    QVERIFY(pttl(m_server.admin(), "t:rw") > 0);
    QVERIFY(pttl(m_server.admin(), timeoutKey(p, 1, 1)) > 0);
    QVERIFY(pttl(m_server.admin(), timeoutKey(p, 1, 2)) > 0);
    QVERIFY(reader->release(w.servers).ok());
    QVERIFY(reader->release(w.servers).ok());
    QCOMPARE(p.watchdog().activeCount(), 0);
    QVERIFY(!exists(m_server.admin(), "t:rw"));
}

QTEST_GUILESS_MAIN(TestRedissonReadWriteLock)
#include "tst_redissonreadwritelock.moc"
