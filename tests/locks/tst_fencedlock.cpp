// fenced: strictly increasing tokens from redisson_lock_token:{name}, and a fenced store that refuses the
// write of a holder whose lock expired during a pause (story F5), where an unfenced write would land.
#include "locktestsupport.h"
#include "sandboxfixture.h"

#include "locks/fencedresource.h"
#include "locks/lockcatalog.h"

using namespace LockTest;

class TestFencedLock : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void init();
    void tokensIncreaseOnEveryAcquisition();
    void pausedHolderIsFencedOff();
    void fencedResourceRules();

private:
    SandboxFixture m_server;
};

void TestFencedLock::initTestCase()
{
    LS_SANDBOX(m_server);
}

void TestFencedLock::init()
{
    QVERIFY(m_server.admin().command({"FLUSHALL"}).ok());
}

void TestFencedLock::tokensIncreaseOnEveryAcquisition()
{
    LockClient pa, pb;
    QString error;
    Worker a = openWorker({&m_server}, &error), b = openWorker({&m_server}, &error);
    const LockOptions o = quickOptions(QStringLiteral("fenced"), 30000);
    auto lockA = LockCatalog::create(QStringLiteral("fenced"), pa, "t:f", 1, o);
    auto lockB = LockCatalog::create(QStringLiteral("fenced"), pb, "t:f", 1, o);
    const AcquireResult first = lockA->tryAcquire(a.servers);
    QVERIFY(first.acquired());
    QCOMPARE(first.fence, 1);
    QCOMPARE(lockA->keys(), (QList<QByteArray> {"t:f", "redisson_lock_token:{t:f}"}));
    const AcquireResult refused = lockB->tryAcquire(b.servers);
    QCOMPARE(refused.outcome, AcquireResult::Outcome::Refused);
    QCOMPARE(refused.fence, -1);
    QVERIFY(refused.ttlMs > 29000);
    QCOMPARE(get(m_server.admin(), "redisson_lock_token:{t:f}"), QByteArray("1")); // a refusal does not count
    QVERIFY(lockA->release(a.servers).ok());
    QCOMPARE(lockB->tryAcquire(b.servers).fence, 2);
    QCOMPARE(lockB->tryAcquire(b.servers).fence, 3); // re-entry takes a new token too, as Redisson does
    QCOMPARE(lockB->fence(), 3);
    QCOMPARE(hgetall(m_server.admin(), "t:f"), (QMap<QByteArray, QByteArray> {{pb.ownerField(1), "2"}}));
    QCOMPARE(get(m_server.admin(), "redisson_lock_token:{t:f}"), QByteArray("3"));
    QCOMPARE(pttl(m_server.admin(), "redisson_lock_token:{t:f}"), LockTtl::NoExpiry);
    QVERIFY(lockB->release(b.servers).ok());
    QVERIFY(lockB->release(b.servers).ok());
    QVERIFY(exists(m_server.admin(), "redisson_lock_token:{t:f}")); // the counter outlives the lock
}

void TestFencedLock::pausedHolderIsFencedOff()
{
    LockClient pa, pb;
    QString error;
    Worker a = openWorker({&m_server}, &error), b = openWorker({&m_server}, &error);
    LockOptions o = quickOptions(QStringLiteral("fenced"), 300);
    o.watchdog = true;
    auto lockA = LockCatalog::create(QStringLiteral("fenced"), pa, "t:gc", 1, o);
    auto lockB = LockCatalog::create(QStringLiteral("fenced"), pb, "t:gc", 1, o);
    const FencedResource store("t:store");

    const AcquireResult ra = lockA->tryAcquire(a.servers);
    QVERIFY(ra.acquired());
    pa.setPaused(true); // A stops the world (GC): no renewals
    AcquireOnce acquireB(*lockB, b.servers);
    QTRY_VERIFY_WITH_TIMEOUT(acquireB(), 3000);
    QVERIFY(lockB->fence() > ra.fence);
    const FencedResource::WriteResult wb
        = store.write(*b.connections.front(), lockB->fence(), "written by B");
    QVERIFY(wb.ok() && wb.accepted);

    pa.setPaused(false); // A wakes up, still believing it holds the lock, and writes
    QVERIFY(lockA->isHeld());
    const FencedResource::WriteResult wa = store.write(*a.connections.front(), ra.fence, "written by A");
    QVERIFY(wa.ok());
    QVERIFY(!wa.accepted);
    QCOMPARE(wa.highest, lockB->fence());
    const FencedResource::State state = store.read(m_server.admin());
    QCOMPARE(state.value, QByteArray("written by B"));
    QCOMPARE(state.fence, lockB->fence());

    // Without the fence check the same late write simply lands: B's update is lost.
    QVERIFY(a.connections.front()->command({"HSET", "t:store", "value", "written by A"}).ok());
    QCOMPARE(store.read(m_server.admin()).value, QByteArray("written by A"));
    QTRY_VERIFY_WITH_TIMEOUT(lockA->renewalLost(), 2000);
    QVERIFY(lockB->release(b.servers).ok());
}

void TestFencedLock::fencedResourceRules()
{
    const FencedResource store("t:r");
    QCOMPARE(store.read(m_server.admin()).fence, -1);
    QVERIFY(store.write(m_server.admin(), 5, "a").accepted);
    QVERIFY(store.write(m_server.admin(), 5, "b").accepted); // the same holder may write again
    QVERIFY(store.write(m_server.admin(), 9, "c").accepted);
    const FencedResource::WriteResult stale = store.write(m_server.admin(), 6, "d");
    QVERIFY(!stale.accepted);
    QCOMPARE(stale.highest, 9);
    QCOMPARE(stale.commands, 1);
    QCOMPARE(store.read(m_server.admin()).value, QByteArray("c"));
    ConnectionSettings ro = m_server.connectionSettings();
    ro.readOnly = true;
    RedisConnection readOnly(ro);
    LS_OPEN(readOnly);
    QCOMPARE(store.write(readOnly, 10, "x").error.code(), RedisError::Code::ReadOnlyRefused);
    QCOMPARE(store.read(readOnly).value, QByteArray("c"));
}

QTEST_GUILESS_MAIN(TestFencedLock)
#include "tst_fencedlock.moc"
