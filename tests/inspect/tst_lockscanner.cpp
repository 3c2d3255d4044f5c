// LockScanner on its thread: rows stream page by page, one scan at a time, cancel, refreshes between
// pages, failures as signals — and a read-only ACL user can do all of it without a single write.
#include "inspect/lockscanner.h"
#include "inspect/samplelocks.h"
#include "testsupport.h"
#include "sandboxfixture.h"

#include <QDateTime>
#include <QSignalSpy>

class TestLockScanner : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void streamsPagesThenFinishes();
    void oneScanAtATime();
    void cancelStopsAndAllowsANewScan();
    void refreshRunsBetweenPages();
    void refreshSeesChangesAndGoneLocks();
    void aScanStartingDoesNotDropARefresh();
    void probeKeysFindsNewLocksAndIgnoresOthers();
    void wrongPassword();
    void sentinelGivenAsAServerIsExplained();
    void serverKilledMidScan();
    void readOnlyAclUserDoesEverything();
};

void TestLockScanner::initTestCase()
{
    qRegisterMetaType<QList<LockRecord>>();
    qRegisterMetaType<QList<QByteArray>>();
}

void TestLockScanner::streamsPagesThenFinishes()
{
    SandboxFixture server;
    LS_SANDBOX(server);
    QVERIFY(TestSupport::writePlainLocks(server.admin(), 2000));
    LockScanner scanner;
    scanner.setConnectionSettings(server.connectionSettings());
    QSignalSpy pages(&scanner, &LockScanner::pageReady);
    QSignalSpy finished(&scanner, &LockScanner::scanFinished);
    ScanOptions options;
    options.count = 100;
    QVERIFY(scanner.start(options));
    QVERIFY(scanner.isScanning());
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 30000);
    QVERIFY(!scanner.isScanning());
    QVERIFY2(pages.count() > 5, "rows arrive page by page");
    QSet<QByteArray> keys;
    for (const auto &args : pages)
        for (const LockRecord &r : args.at(0).value<QList<LockRecord>>())
            keys.insert(r.key);
    QCOMPARE(keys.size(), 2000);
    const ScanProgress p = finished.first().at(0).value<ScanProgress>();
    QVERIFY(p.finished);
    QCOMPARE(p.locks, 2000);
}

void TestLockScanner::oneScanAtATime()
{
    SandboxFixture server;
    LS_SANDBOX_FILLED(server, 5000);
    LockScanner scanner;
    scanner.setConnectionSettings(server.connectionSettings());
    QSignalSpy finished(&scanner, &LockScanner::scanFinished);
    ScanOptions options;
    options.count = 10;
    QVERIFY(scanner.start(options));
    QVERIFY(!scanner.start(options)); // refused: one scan at a time on this connection
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);
    QVERIFY(scanner.start(options));
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 2, 60000);
}

void TestLockScanner::cancelStopsAndAllowsANewScan()
{
    SandboxFixture server;
    LS_SANDBOX_FILLED(server, 20000);
    LockScanner scanner;
    scanner.setConnectionSettings(server.connectionSettings());
    QSignalSpy pages(&scanner, &LockScanner::pageReady);
    QSignalSpy cancelled(&scanner, &LockScanner::scanCancelled);
    QSignalSpy finished(&scanner, &LockScanner::scanFinished);
    ScanOptions options;
    options.count = 5;
    QVERIFY(scanner.start(options));
    QTRY_VERIFY_WITH_TIMEOUT(pages.count() >= 1, 10000);
    scanner.cancel();
    QTRY_COMPARE_WITH_TIMEOUT(cancelled.count(), 1, 10000);
    QCOMPARE(finished.count(), 0);
    QVERIFY(!scanner.isScanning());
    const ScanProgress p = cancelled.first().at(0).value<ScanProgress>();
    QVERIFY(p.scannedKeys < 20000);
    options.count = 1000;
    QVERIFY(scanner.start(options));
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 30000);
}

void TestLockScanner::refreshRunsBetweenPages()
{
    SandboxFixture server;
    LS_SANDBOX_FILLED(server, 20000);
    RedisConnection &c = server.admin();
    QVERIFY(SampleLocks::plainLock(c, "lock:a", "worker-17", 60000));
    LockScanner scanner;
    scanner.setConnectionSettings(server.connectionSettings());
    QSignalSpy probed(&scanner, &LockScanner::probed);
    QSignalSpy finished(&scanner, &LockScanner::scanFinished);
    ScanOptions options;
    options.count = 5; // about 4000 pages
    QVERIFY(scanner.start(options));
    LockRecord known;
    known.key = "lock:a";
    known.kind = LockKind::Mutex;
    known.nameSaysLock = true; // as the scan that listed it said
    QVERIFY(scanner.refresh({known}));
    QTRY_COMPARE_WITH_TIMEOUT(probed.count(), 1, 10000);
    QCOMPARE(finished.count(), 0); // answered while the scan was still running
    const auto records = probed.first().at(0).value<QList<LockRecord>>();
    QCOMPARE(records.size(), 1);
    QCOMPARE(records.first().owners.first().id, QByteArray("worker-17"));
    scanner.cancel();
}

void TestLockScanner::aScanStartingDoesNotDropARefresh()
{
    // The monitor polls only while no refresh is in flight: a refresh whose answer were dropped because a
    // scan started meanwhile would stop its polling for good (seen in CI after a DEBUG RELOAD).
    SandboxFixture server;
    LS_SANDBOX(server);
    RedisConnection &c = server.admin();
    QVERIFY(SampleLocks::plainLock(c, "lock:a", "worker-17", 60000));
    LockScanner scanner;
    scanner.setConnectionSettings(server.connectionSettings());
    QSignalSpy probed(&scanner, &LockScanner::probed);
    QSignalSpy finished(&scanner, &LockScanner::scanFinished);
    LockRecord known;
    known.key = "lock:a";
    known.kind = LockKind::Mutex;
    known.nameSaysLock = true;
    QVERIFY(scanner.refresh({known}));
    QCOMPARE(scanner.refreshesInFlight(), 1);
    // Its answer can only arrive once control is back in the event loop, i.e. after this scan started.
    QVERIFY(scanner.start(ScanOptions()));
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 10000);
    QTRY_COMPARE_WITH_TIMEOUT(probed.count(), 1, 10000);
    QCOMPARE(scanner.refreshesInFlight(), 0);
    QVERIFY(scanner.refresh({known}));
    QTRY_COMPARE_WITH_TIMEOUT(probed.count(), 2, 10000);
}

void TestLockScanner::refreshSeesChangesAndGoneLocks()
{
    SandboxFixture server;
    LS_SANDBOX(server);
    RedisConnection &c = server.admin();
    const QByteArray client = SampleLocks::redissonClientId();
    QVERIFY(SampleLocks::redissonLock(c, "order:1", client, 1, 30000));
    QVERIFY(SampleLocks::plainLock(c, "lock:b", "owner", 30000));
    QVERIFY(!SampleLocks::redlock(c, {"rl:1", "rl:2"}, 30000).isEmpty());
    LockScanner scanner;
    scanner.setConnectionSettings(server.connectionSettings());
    QSignalSpy pages(&scanner, &LockScanner::pageReady);
    QSignalSpy finished(&scanner, &LockScanner::scanFinished);
    QVERIFY(scanner.start(ScanOptions {}));
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 10000);
    QList<LockRecord> seen;
    for (const auto &args : pages)
        seen += args.at(0).value<QList<LockRecord>>();
    QCOMPARE(seen.size(), 3);

    QVERIFY(c.command({"DEL", "lock:b"}).ok());
    QVERIFY(c.command({"HINCRBY", "order:1", client + ":1", "1"}).ok());
    QVERIFY(c.command({"PEXPIRE", "rl:2", "5000"}).ok());
    QSignalSpy probed(&scanner, &LockScanner::probed);
    QVERIFY(scanner.refresh(seen));
    QTRY_COMPARE_WITH_TIMEOUT(probed.count(), 1, 10000);
    const auto records = probed.first().at(0).value<QList<LockRecord>>();
    const auto gone = probed.first().at(1).value<QList<QByteArray>>();
    QCOMPARE(gone, QList<QByteArray> {"lock:b"});
    QCOMPARE(records.size(), 2);
    for (const LockRecord &r : records) {
        if (r.key == "order:1") {
            QCOMPARE(r.owners.first().count, 2);
            continue;
        }
        // Each resource key's own TTL is shown with the lock.
        const auto other
            = std::find_if(r.companions.cbegin(), r.companions.cend(),
                           [](const LockCompanion &c) { return c.role == LockCompanion::Role::Resource; });
        QVERIFY(other != r.companions.cend());
        if (other->key == "rl:2")
            QVERIFY(other->pttlMs <= 5000);
        else
            QVERIFY(r.pttlMs <= 5000); // rl:2 is the row's own key
    }
}

void TestLockScanner::probeKeysFindsNewLocksAndIgnoresOthers()
{
    SandboxFixture server;
    LS_SANDBOX(server);
    RedisConnection &c = server.admin();
    const QByteArray client = SampleLocks::redissonClientId();
    QVERIFY(SampleLocks::redissonLock(c, "fair", client, 1, 30000));
    QVERIFY(SampleLocks::redissonFairWaiter(c, "fair", client + ":2",
                                            QDateTime::currentMSecsSinceEpoch() + 60000));
    QVERIFY(c.command({"SET", "user:1", "x"}).ok());
    LockScanner scanner;
    scanner.setConnectionSettings(server.connectionSettings());
    QSignalSpy probed(&scanner, &LockScanner::probed);
    // Events name a companion key and an ordinary key: the lock is probed through its queue.
    QVERIFY(scanner.probeKeys({"redisson_lock_queue:{fair}", "user:1"}));
    QTRY_COMPARE_WITH_TIMEOUT(probed.count(), 1, 10000);
    const auto records = probed.first().at(0).value<QList<LockRecord>>();
    QCOMPARE(records.size(), 1);
    QCOMPARE(records.first().key, QByteArray("fair"));
    QCOMPARE(records.first().kind, LockKind::Fair);
}

void TestLockScanner::wrongPassword()
{
    SandboxServer server(SandboxFixture::withPassword(QStringLiteral("right")));
    LS_START(server);
    ConnectionSettings s = server.connectionSettings();
    s.password = QStringLiteral("wrong");
    LockScanner scanner;
    scanner.setConnectionSettings(s);
    QSignalSpy failed(&scanner, &LockScanner::scanFailed);
    QVERIFY(scanner.start(ScanOptions {}));
    QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 10000);
    const RedisError e = failed.first().at(0).value<RedisError>();
    QCOMPARE(e.code(), RedisError::Code::AuthFailed);
    QVERIFY(e.message().contains(QLatin1String("Authentication failed")));
    QVERIFY(!scanner.isScanning());
}

void TestLockScanner::sentinelGivenAsAServerIsExplained()
{
    // A sentinel's port typed where a data server's belongs: the scan says what it is and what to do,
    // instead of "unknown command 'SCAN'".
    SandboxServer master;
    LS_START(master);
    SandboxServer::Options so;
    so.sentinel = true;
    so.configLines << QStringLiteral("sentinel monitor lockscope 127.0.0.1 %1 1").arg(master.port());
    SandboxServer sentinel(so);
    LS_START(sentinel);
    LockScanner scanner;
    scanner.setConnectionSettings(sentinel.connectionSettings());
    QSignalSpy failed(&scanner, &LockScanner::scanFailed);
    QVERIFY(scanner.start(ScanOptions {}));
    QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 10000);
    const RedisError e = failed.first().at(0).value<RedisError>();
    QCOMPARE(e.code(), RedisError::Code::BadSettings);
    QVERIFY2(e.message().contains(QLatin1String("is a Redis Sentinel")), qPrintable(e.message()));
    QVERIFY(!scanner.isScanning());
}

void TestLockScanner::serverKilledMidScan()
{
    SandboxFixture server;
    LS_SANDBOX_FILLED(server, 20000);
    LockScanner scanner;
    scanner.setConnectionSettings(server.connectionSettings());
    QSignalSpy pages(&scanner, &LockScanner::pageReady);
    QSignalSpy failed(&scanner, &LockScanner::scanFailed);
    ScanOptions options;
    options.count = 5;
    QVERIFY(scanner.start(options));
    QTRY_VERIFY_WITH_TIMEOUT(pages.count() >= 1, 10000);
    server.kill();
    QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 15000);
    const RedisError e = failed.first().at(0).value<RedisError>();
    QVERIFY2(e.message().contains(QString::number(server.port())), qPrintable(e.message()));
    QVERIFY(!scanner.isScanning());
}

void TestLockScanner::readOnlyAclUserDoesEverything()
{
    SandboxFixture server;
    LS_SANDBOX(server);
    RedisConnection &admin = server.admin();
    QVERIFY(TestSupport::addViewerUser(admin));
    const QByteArray client = SampleLocks::redissonClientId();
    QVERIFY(SampleLocks::redissonLock(admin, "order:1", client, 1, 60000));
    QVERIFY(!SampleLocks::redisPyLock(admin, "py", 60000).isEmpty());
    const qint64 writesBefore = TestSupport::writeCommandCalls(admin);

    ConnectionSettings s = server.connectionSettings();
    s.user = QStringLiteral("viewer");
    s.password = QStringLiteral("pw");
    s.readOnly = false; // even so, the scanner's own connection is read-only
    LockScanner scanner;
    scanner.setConnectionSettings(s);
    QSignalSpy pages(&scanner, &LockScanner::pageReady);
    QSignalSpy finished(&scanner, &LockScanner::scanFinished);
    QSignalSpy failed(&scanner, &LockScanner::scanFailed);
    QVERIFY(scanner.start(ScanOptions {}));
    QTRY_COMPARE_WITH_TIMEOUT(finished.count() + failed.count(), 1, 10000);
    QCOMPARE(failed.count(), 0);
    QList<LockRecord> seen;
    for (const auto &args : pages)
        seen += args.at(0).value<QList<LockRecord>>();
    QCOMPARE(seen.size(), 2);
    QSignalSpy probed(&scanner, &LockScanner::probed);
    QVERIFY(scanner.refresh(seen));
    QVERIFY(scanner.probeKeys({"order:1", "nothing"}));
    QTRY_COMPARE_WITH_TIMEOUT(probed.count(), 2, 10000);
    QCOMPARE(TestSupport::writeCommandCalls(admin), writesBefore);
}

QTEST_GUILESS_MAIN(TestLockScanner)
#include "tst_lockscanner.moc"
