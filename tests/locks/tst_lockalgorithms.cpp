// Every algorithm of the catalog against real servers, through the common API: mutual exclusion between
// two processes, release by a non-owner, expiry after the lease, reentrancy, watchdog renewal, and the
// read-only refusal. Redlock runs on three sandboxes; the others on the first.
#include "locktestsupport.h"

#include "locks/lockcatalog.h"

#include <QElapsedTimer>

#include <thread>

using namespace LockTest;

class TestLockAlgorithms : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void init();
    void mutualExclusion_data() { algorithms(); }
    void mutualExclusion();
    void releaseByNonOwner_data() { algorithms(); }
    void releaseByNonOwner();
    void expiresAfterLease_data() { algorithms(); }
    void expiresAfterLease();
    void reentrancy_data() { algorithms(); }
    void reentrancy();
    void watchdogKeepsItAlive_data() { algorithms(); }
    void watchdogKeepsItAlive();
    void pubsubWaiterWakes_data();
    void pubsubWaiterWakes();
    void readOnlyConnectionIsRefused_data() { algorithms(); }
    void readOnlyConnectionIsRefused();

private:
    void algorithms();
    Worker worker(const QString &id);
    // The setnx-expire lease has whole seconds; everything else can be short.
    static qint64 shortLease(const QString &id) { return id == QLatin1String("setnx-expire") ? 1000 : 300; }

    SandboxServer m_servers[3];
    std::unique_ptr<RedisConnection> m_admin[3];
};

void TestLockAlgorithms::initTestCase()
{
    for (int i = 0; i < 3; ++i) {
        LS_START(m_servers[i]);
        m_admin[i] = std::make_unique<RedisConnection>(m_servers[i].connectionSettings());
        LS_OPEN(*m_admin[i]);
    }
    QCOMPARE(LockCatalog::ids().size(), 10);
}

void TestLockAlgorithms::init()
{
    for (auto &admin : m_admin)
        QVERIFY(admin->command({"FLUSHALL"}).ok());
}

void TestLockAlgorithms::algorithms()
{
    QTest::addColumn<QString>("id");
    for (const QString &id : LockCatalog::ids())
        QTest::newRow(qPrintable(id)) << id;
}

Worker TestLockAlgorithms::worker(const QString &id)
{
    QList<SandboxServer *> servers {&m_servers[0]};
    if (LockCatalog::find(id)->multiServer)
        servers = {&m_servers[0], &m_servers[1], &m_servers[2]};
    QString error;
    Worker w = openWorker(servers, &error);
    if (w.servers.isEmpty())
        qWarning("cannot open a worker connection: %s", qPrintable(error));
    return w;
}

void TestLockAlgorithms::mutualExclusion()
{
    QFETCH(QString, id);
    LockClient processA, processB;
    Worker a = worker(id), b = worker(id);
    QVERIFY(!a.servers.isEmpty() && !b.servers.isEmpty());
    const LockOptions options = quickOptions(id, 30000);
    QString error;
    auto lockA = LockCatalog::create(id, processA, "t:mutex", 1, options, &error);
    auto lockB = LockCatalog::create(id, processB, "t:mutex", 1, options, &error);
    QVERIFY2(lockA && lockB, qPrintable(error));

    const AcquireResult first = lockA->tryAcquire(a.servers);
    QVERIFY2(first.acquired(), qPrintable(first.describe()));
    QVERIFY(first.commands >= 1);
    QVERIFY(lockA->isHeld());
    QVERIFY(exists(*m_admin[0], "t:mutex"));

    const AcquireResult refused = lockB->tryAcquire(b.servers);
    QCOMPARE(refused.outcome, AcquireResult::Outcome::Refused);
    QVERIFY(!lockB->isHeld());

    const ReleaseResult released = lockA->release(a.servers);
    QCOMPARE(released.outcome, ReleaseResult::Outcome::Released);
    QVERIFY(!lockA->isHeld());
    QVERIFY(!exists(*m_admin[0], "t:mutex"));

    const AcquireResult second = lockB->tryAcquire(b.servers);
    QVERIFY2(second.acquired(), qPrintable(second.describe()));
    QCOMPARE(lockA->tryAcquire(a.servers).outcome, AcquireResult::Outcome::Refused);
    QCOMPARE(lockB->release(b.servers).outcome, ReleaseResult::Outcome::Released);
}

void TestLockAlgorithms::releaseByNonOwner()
{
    QFETCH(QString, id);
    const LockAlgorithmInfo *info = LockCatalog::find(id);
    LockClient processA, processB;
    Worker a = worker(id), b = worker(id);
    const LockOptions options = quickOptions(id, 30000);
    auto lockA = LockCatalog::create(id, processA, "t:owner", 1, options);
    auto lockB = LockCatalog::create(id, processB, "t:owner", 1, options);
    QVERIFY(lockA->tryAcquire(a.servers).acquired());

    const ReleaseResult foreign = lockB->release(b.servers);
    if (info->checksOwner) {
        QCOMPARE(foreign.outcome, ReleaseResult::Outcome::NotOwner);
        for (int i = 0; i < (info->multiServer ? 3 : 1); ++i)
            QVERIFY2(exists(*m_admin[i], "t:owner"), "a non-owner's release must leave the lock alone");
        QCOMPARE(lockA->release(a.servers).outcome, ReleaseResult::Outcome::Released);
    } else {
        // set-nx-px-del: the flaw. Anyone's DEL removes the holder's lock.
        QCOMPARE(id, QStringLiteral("set-nx-px-del"));
        QCOMPARE(foreign.outcome, ReleaseResult::Outcome::Released);
        QVERIFY(!exists(*m_admin[0], "t:owner"));
        QVERIFY(lockA->isHeld()); // A still believes it holds the lock
        QCOMPARE(lockA->release(a.servers).outcome, ReleaseResult::Outcome::Expired);
    }
}

void TestLockAlgorithms::expiresAfterLease()
{
    QFETCH(QString, id);
    const LockAlgorithmInfo *info = LockCatalog::find(id);
    LockClient processA, processB;
    Worker a = worker(id), b = worker(id);
    const qint64 lease = shortLease(id);
    const LockOptions options = quickOptions(id, lease);
    auto lockA = LockCatalog::create(id, processA, "t:lease", 1, options);
    auto lockB = LockCatalog::create(id, processB, "t:lease", 2, options);

    QElapsedTimer timer;
    timer.start();
    QVERIFY(lockA->tryAcquire(a.servers).acquired());
    const qint64 ttl = pttl(*m_admin[0], "t:lease");
    QVERIFY2(ttl > 0 && ttl <= lease, qPrintable(QString::number(ttl)));
    QCOMPARE(lockB->tryAcquire(b.servers).outcome, AcquireResult::Outcome::Refused);
    // A never releases (a crashed holder): the lease alone frees the lock.
    AcquireOnce acquireB(*lockB, b.servers);
    QTRY_VERIFY_WITH_TIMEOUT(acquireB(), int(lease) + 3000);
    QVERIFY2(timer.elapsed() >= lease - 20, qPrintable(QString::number(timer.elapsed())));
    QVERIFY(lockA->isHeld()); // nothing told A

    const ReleaseResult late = lockA->release(a.servers);
    if (info->checksOwner) {
        QCOMPARE(late.outcome, ReleaseResult::Outcome::NotOwner);
        QVERIFY(exists(*m_admin[0], "t:lease"));
        QCOMPARE(lockB->release(b.servers).outcome, ReleaseResult::Outcome::Released);
    } else {
        QCOMPARE(late.outcome, ReleaseResult::Outcome::Released); // deleted B's lock
        QVERIFY(!exists(*m_admin[0], "t:lease"));
    }
}

void TestLockAlgorithms::reentrancy()
{
    QFETCH(QString, id);
    const LockAlgorithmInfo *info = LockCatalog::find(id);
    LockClient process;
    Worker a = worker(id);
    auto lock = LockCatalog::create(id, process, "t:reentry", 7, quickOptions(id, 30000));
    QVERIFY(lock->tryAcquire(a.servers).acquired());
    if (!info->reentrant) {
        QCOMPARE(lock->tryAcquire(a.servers).outcome, AcquireResult::Outcome::Refused);
        QCOMPARE(lock->holdCount(), 1);
        QCOMPARE(lock->release(a.servers).outcome, ReleaseResult::Outcome::Released);
        return;
    }
    QCOMPARE(lock->tryAcquire(a.servers).holdCount, 2);
    QCOMPARE(lock->tryAcquire(a.servers).holdCount, 3);
    ReleaseResult r = lock->release(a.servers);
    QCOMPARE(r.outcome, ReleaseResult::Outcome::StillHeld);
    QCOMPARE(r.holdCount, 2);
    QVERIFY(exists(*m_admin[0], "t:reentry"));
    r = lock->release(a.servers);
    QCOMPARE(r.outcome, ReleaseResult::Outcome::StillHeld);
    QCOMPARE(r.holdCount, 1);
    r = lock->release(a.servers);
    QCOMPARE(r.outcome, ReleaseResult::Outcome::Released);
    QCOMPARE(r.holdCount, 0);
    QVERIFY(!exists(*m_admin[0], "t:reentry"));
    // Once more, with no lock left: Redisson's RFairLock answers 1 then (its unlock() returns without a
    // word, redisson_fair_unlock.lua); the others say there is no lock.
    QCOMPARE(lock->release(a.servers).outcome, id == QLatin1String("redisson-fair")
                                                   ? ReleaseResult::Outcome::Released
                                                   : ReleaseResult::Outcome::Expired);
}

void TestLockAlgorithms::watchdogKeepsItAlive()
{
    QFETCH(QString, id);
    const LockAlgorithmInfo *info = LockCatalog::find(id);
    if (!info->renewable) {
        LockClient process;
        LockOptions options = quickOptions(id, 300);
        options.watchdog = true;
        QString error;
        QVERIFY(!LockCatalog::create(id, process, "t:wd", 1, options, &error));
        QVERIFY2(error.contains(QLatin1String("no watchdog")), qPrintable(error));
        return;
    }
    LockClient process;
    std::atomic<int> renewed = 0;
    process.watchdog().setObserver([&](const RenewalEvent &e) {
        if (e.outcome == RenewalEvent::Outcome::Renewed)
            ++renewed;
    });
    Worker a = worker(id);
    const qint64 lease = shortLease(id);
    LockOptions options = quickOptions(id, lease);
    options.watchdog = true;
    options.watchdogPeriodMs = lease / 5;
    auto lock = LockCatalog::create(id, process, "t:wd", 1, options);
    QElapsedTimer timer;
    timer.start();
    QVERIFY(lock->tryAcquire(a.servers).acquired());
    QVERIFY(lock->isRenewing());
    // Ten renewals at lease/5 take two leases: the key would have expired twice over without them.
    QTRY_VERIFY_WITH_TIMEOUT(renewed >= 10, int(lease) * 10);
    QVERIFY(timer.elapsed() >= 2 * lease - 50);
    QVERIFY2(pttl(*m_admin[0], "t:wd") > 0, "the watchdog must keep the lease up");
    QCOMPARE(lock->release(a.servers).outcome, ReleaseResult::Outcome::Released);
    QVERIFY(!lock->isRenewing());
    QCOMPARE(process.watchdog().activeCount(), 0);
    const int afterRelease = renewed;
    QTest::qWait(int(options.watchdogPeriodMs) * 3); // three periods without a single renewal
    QCOMPARE(int(renewed), afterRelease);
    QVERIFY(!exists(*m_admin[0], "t:wd"));
}

void TestLockAlgorithms::pubsubWaiterWakes_data()
{
    QTest::addColumn<QString>("id");
    QTest::addColumn<bool>("lose");
    for (const LockAlgorithmInfo &a : LockCatalog::all()) {
        if (!a.publishesRelease)
            continue;
        QTest::newRow(qPrintable(a.id + QStringLiteral(" message"))) << a.id << false;
        QTest::newRow(qPrintable(a.id + QStringLiteral(" lost"))) << a.id << true;
    }
}

void TestLockAlgorithms::pubsubWaiterWakes()
{
    QFETCH(QString, id);
    QFETCH(bool, lose);
    LockClient holderProcess, waiterProcess;
    std::atomic<int> waiterReplies = 0;
    FaultHooks hooks;
    hooks.afterReceive = [&](qint64, const RedisResult &) { ++waiterReplies; };
    if (lose)
        hooks.deliverMessage = [](const QByteArray &, const QByteArray &) { return false; };
    waiterProcess.setFaultHooks(hooks);
    Worker h = worker(id), w = worker(id);
    const qint64 lease = 1000;
    auto holder = LockCatalog::create(id, holderProcess, "t:wake", 1, quickOptions(id, lease));
    LockOptions o = quickOptions(id, 30000);
    o.wait = WaitStrategy::PubSub;
    o.acquireTimeoutMs = 10000;
    auto waiter = LockCatalog::create(id, waiterProcess, "t:wake", 1, o);
    QVERIFY(!waiter->prepare(w.servers)); // scripts loaded: each attempt is one reply
    const AcquireResult held = holder->tryAcquire(h.servers);
    QVERIFY(held.acquired());
    AcquireResult waited;
    std::thread thread([&] { waited = waiter->acquire(w.servers); });
    // Refused twice (before and after subscribing): the waiter is asleep on the channel, or about to be.
    QTRY_VERIFY_WITH_TIMEOUT(waiterReplies >= 2, 5000);
    QCOMPARE(subscribers(*m_admin[0], waiter->waitChannel()), 1);
    const ReleaseResult released = holder->release(h.servers);
    thread.join();
    QCOMPARE(released.outcome, ReleaseResult::Outcome::Released);
    QVERIFY2(waited.acquired(), qPrintable(waited.describe()));
    const qint64 afterReleaseUs = waited.endUs - released.endUs;
    if (!lose) {
        // Woken by the release message: well before the holder's lease would have run out.
        QVERIFY2(afterReleaseUs < 500 * 1000, qPrintable(QString::number(afterReleaseUs)));
        QVERIFY(waiterProcess.subscriber().messagesReceived() >= 1);
    } else {
        // The message never arrived: the waiter slept the TTL its refused attempt reported, then tried again.
        QVERIFY(waiterProcess.subscriber().messagesDropped() >= 1);
        QVERIFY2(waited.endUs - held.startUs >= (lease - 300) * 1000,
                 qPrintable(QString::number(afterReleaseUs)));
        QVERIFY2(waited.endUs - held.startUs < (lease + 2000) * 1000,
                 qPrintable(QString::number(afterReleaseUs)));
    }
    QVERIFY(waiter->release(w.servers).ok());
}

void TestLockAlgorithms::readOnlyConnectionIsRefused()
{
    QFETCH(QString, id);
    LockClient process;
    auto lock = LockCatalog::create(id, process, "t:ro", 1, quickOptions(id, 30000));
    std::vector<std::unique_ptr<RedisConnection>> connections;
    LockServers servers;
    for (SandboxServer &s : m_servers) {
        ConnectionSettings settings = s.connectionSettings();
        settings.readOnly = true;
        connections.push_back(std::make_unique<RedisConnection>(settings));
        LS_OPEN(*connections.back());
        servers << connections.back().get();
    }
    const qint64 writesBefore = TestSupport::writeCommandCalls(*m_admin[0]);
    const AcquireResult r = lock->tryAcquire(servers);
    QCOMPARE(r.outcome, AcquireResult::Outcome::Error);
    QCOMPARE(r.error.code(), RedisError::Code::ReadOnlyRefused);
    QVERIFY2(r.error.message().contains(QLatin1String("--read-write")), qPrintable(r.error.message()));
    QCOMPARE(r.commands, 0);
    QCOMPARE(lock->release(servers).error.code(), RedisError::Code::ReadOnlyRefused);
    QCOMPARE(lock->prepare(servers).code(), RedisError::Code::ReadOnlyRefused);
    QCOMPARE(TestSupport::writeCommandCalls(*m_admin[0]), writesBefore);
    QVERIFY(!exists(*m_admin[0], "t:ro"));
}

QTEST_GUILESS_MAIN(TestLockAlgorithms)
#include "tst_lockalgorithms.moc"
