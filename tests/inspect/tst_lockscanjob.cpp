// LockScanJob against real servers holding locks in each library's format: kinds, owners, waiters,
// companions attached (not listed), paging, and the bad input of the inspector issue.
#include "inspect/inspectclock.h"
#include "inspect/locknames.h"
#include "inspect/lockscanjob.h"
#include "inspect/samplelocks.h"
#include "locks/redissonnames.h"
#include "testsupport.h"
#include "sandboxfixture.h"

#include <QDateTime>
#include <QElapsedTimer>

class TestLockScanJob : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void everyKindWithOwnersAndWaiters();
    void companionsAreAttachedNotListed();
    void orphanQueue();
    void redlockAcrossPagesIsOneLock();
    void streamsPageByPage();
    void explicitPatternsAndLockNames();
    void binaryKeysAndEmptyValues();
    void wrongTypesAndNonIntegerCounts();
    void millionFieldHashIsReadBounded();
    void keysDeletedBetweenRounds();
    void keysExpiringMidScan();
    void serverKilledMidScan();
    void readOnlyAclUserSendsNoWrites();
    void badOptions();

private:
    static QList<LockRecord> scanAll(RedisConnection &c, const ScanOptions &options,
                                     ScanProgress *progress = nullptr);
    static LockRecord find(const QList<LockRecord> &records, const QByteArray &key);
};

QList<LockRecord> TestLockScanJob::scanAll(RedisConnection &c, const ScanOptions &options,
                                           ScanProgress *progress)
{
    LockScanJob job(c, options);
    QHash<QByteArray, LockRecord> byKey; // later pages may update a lock found earlier
    QList<QByteArray> order;
    for (int guard = 0; !job.atEnd() && guard < 100000; ++guard) {
        for (const LockRecord &r : job.nextPage()) {
            if (!byKey.contains(r.key))
                order << r.key;
            byKey.insert(r.key, r);
        }
    }
    if (job.error())
        qWarning() << "scan failed:" << job.error().message();
    if (progress)
        *progress = job.progress();
    QList<LockRecord> out;
    for (const QByteArray &k : order)
        out << byKey.value(k);
    return out;
}

LockRecord TestLockScanJob::find(const QList<LockRecord> &records, const QByteArray &key)
{
    for (const LockRecord &r : records) {
        if (r.key == key)
            return r;
    }
    return {};
}

void TestLockScanJob::initTestCase()
{
    qRegisterMetaType<LockRecord>();
}

void TestLockScanJob::everyKindWithOwnersAndWaiters()
{
    SandboxFixture server;
    LS_SANDBOX(server);
    RedisConnection &c = server.admin();
    const QByteArray client = SampleLocks::redissonClientId();
    QVERIFY(SampleLocks::redissonLock(c, "order:1", client, 57, 30000, 2));
    QVERIFY(SampleLocks::redissonLock(c, "fair:1", client, 1, 30000));
    const QByteArray w1 = SampleLocks::redissonClientId() + ":7";
    const QByteArray w2 = SampleLocks::redissonClientId() + ":8";
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    QVERIFY(SampleLocks::redissonFairWaiter(c, "fair:1", w1, now + 300000));
    QVERIFY(SampleLocks::redissonFairWaiter(c, "fair:1", w2, now + 305000));
    QCOMPARE(SampleLocks::redissonFencedLock(c, "fence:1", client, 3, 30000), 1);
    QVERIFY(SampleLocks::redissonReadLock(c, "doc:1", client, 4, 30000));
    QVERIFY(SampleLocks::redissonReadLock(c, "doc:1", client, 4, 30000));
    QVERIFY(SampleLocks::redissonWriteLock(c, "doc:2", client, 5, 30000));
    QVERIFY(SampleLocks::redissonLegacyLock(c, "old:1", client, 6, 1, 30000));
    const QByteArray pyToken = SampleLocks::redisPyLock(c, "py:1", -1);
    QVERIFY(!pyToken.isEmpty());
    QVERIFY(!SampleLocks::redlock(c, {"rl:a", "rl:b", "rl:c"}, 10000).isEmpty());
    QVERIFY(SampleLocks::plainLock(c, "lock:stock", "lockValue", 5000));
    QVERIFY(SampleLocks::plainLock(c, "lock:uuid", "0b7d3b1c-6a0f-4b8e-9d52-5c1d2f3e4a5b", 5000));
    QVERIFY(c.command({"SET", "lock:weird", "hello world"}).ok());
    QVERIFY(SampleLocks::fill(c, "user:", 400)); // not locks

    // A Redisson waiter subscribes to the lock's channel: PUBSUB NUMSUB counts it.
    RedisConnection waiter(server.connectionSettings());
    LS_OPEN(waiter);
    QVERIFY(!waiter.append({"SUBSCRIBE", RedissonNames::lockChannel("order:1")}));
    QVERIFY(waiter.readReply(3000).ok());

    ScanOptions options;
    options.count = 50;
    ScanProgress progress;
    const QList<LockRecord> records = scanAll(c, options, &progress);
    QVERIFY(progress.finished);
    QCOMPARE(progress.fraction, 1.0);
    QVERIFY(progress.pages > 5);
    QCOMPARE(progress.scannedKeys, progress.dbSize);

    QStringList listed;
    QByteArray redlockRow;
    for (const LockRecord &r : records) {
        // The multi-resource lock is one row, named after whichever of its keys the scan met first.
        if (r.key.startsWith("rl:")) {
            QVERIFY2(redlockRow.isEmpty(), "one row for the three resource keys");
            redlockRow = r.key;
            continue;
        }
        listed << QString::fromUtf8(r.key);
    }
    listed.sort();
    QCOMPARE(listed,
             (QStringList {"doc:1", "doc:2", "fair:1", "fence:1", "lock:stock", "lock:uuid", "lock:weird",
                           "old:1", "order:1", "py:1"}));

    LockRecord r = find(records, "order:1");
    QCOMPARE(r.kind, LockKind::Reentrant);
    QCOMPARE(r.library, QStringLiteral("Redisson"));
    QCOMPARE(r.owners.first().client, QString::fromLatin1(client));
    QCOMPARE(r.owners.first().thread, QStringLiteral("57"));
    QCOMPARE(r.owners.first().count, 2);
    QCOMPARE(r.subscribers, 1);
    QVERIFY(r.hasDiagnosis(QStringLiteral("contended")));
    QVERIFY(r.pttlMs > 25000 && r.pttlMs <= 30000);

    r = find(records, "fair:1");
    QCOMPARE(r.kind, LockKind::Fair);
    QCOMPARE(r.queueLength, 2);
    QCOMPARE(r.queue.first().id, w1);
    QCOMPARE(r.queue.first().deadlineEpochMs, now + 300000);
    QCOMPARE(r.waiters(), 2);

    r = find(records, "fence:1");
    QCOMPARE(r.formatName, QStringLiteral("Redisson RFencedLock"));
    QCOMPARE(r.fencingToken, 1);

    r = find(records, "doc:1");
    QCOMPARE(r.kind, LockKind::ReadWrite);
    QCOMPARE(r.owners.first().count, 2);
    QCOMPARE(find(records, "doc:2").owners.first().mode, QStringLiteral("write"));

    QCOMPARE(find(records, "old:1").format, QStringLiteral("redisson-legacy-lock"));
    r = find(records, "py:1");
    QCOMPARE(r.format, QStringLiteral("redis-py-lock"));
    QCOMPARE(r.pttlMs, -1);
    QVERIFY(r.hasDiagnosis(QStringLiteral("no-ttl")));
    r = find(records, redlockRow);
    QCOMPARE(r.format, QStringLiteral("node-redlock"));
    QList<QByteArray> members = r.memberKeys();
    std::sort(members.begin(), members.end());
    QCOMPARE(members, (QList<QByteArray> {"rl:a", "rl:b", "rl:c"}));
    QCOMPARE(find(records, "lock:stock").format, QStringLiteral("tutorial-lockvalue"));
    QCOMPARE(find(records, "lock:uuid").format, QStringLiteral("uuid-lock"));
    // Named like a lock, but "hello world" is no owner token: listed, not alarmed on.
    QCOMPARE(find(records, "lock:weird").kind, LockKind::Named);
    QVERIFY(find(records, "lock:weird").diagnoses.isEmpty());
}

void TestLockScanJob::companionsAreAttachedNotListed()
{
    SandboxFixture server;
    LS_SANDBOX(server);
    RedisConnection &c = server.admin();
    const QByteArray client = SampleLocks::redissonClientId();
    QVERIFY(SampleLocks::redissonReadLock(c, "doc", client, 1, 60000));
    QVERIFY(SampleLocks::redissonFencedLock(c, "fence", client, 1, 60000) > 0);
    QVERIFY(SampleLocks::redissonLock(c, "fair", client, 1, 60000));
    QVERIFY(SampleLocks::redissonFairWaiter(c, "fair", client + ":2",
                                            QDateTime::currentMSecsSinceEpoch() + 60000));
    QVERIFY(
        c.command({"SET", "redisson_unlock_latch:{doc}:0123456789abcdef0123456789abcdef", "1", "PX", "60000"})
            .ok());
    // Many filler keys so companions and locks land on different pages.
    QVERIFY(SampleLocks::fill(c, "x:", 2000));

    ScanOptions options;
    options.count = 10;
    const QList<LockRecord> records = scanAll(c, options);
    QStringList listed;
    for (const LockRecord &r : records)
        listed << QString::fromUtf8(r.key);
    listed.sort();
    QCOMPARE(listed, (QStringList {"doc", "fair", "fence"}));

    const LockRecord doc = find(records, "doc");
    const QByteArray timeoutKey = "{doc}:" + client + ":1:rwlock_timeout:1";
    bool timeoutFound = false, latchFound = false;
    for (const LockCompanion &comp : doc.companions) {
        if (comp.key == timeoutKey) {
            timeoutFound = true;
            QVERIFY2(comp.pttlMs > 0, "the read-timeout key found by the scan carries its PTTL");
        }
        latchFound |= comp.role == LockCompanion::Role::UnlockLatch;
    }
    QVERIFY(timeoutFound);
    QVERIFY(latchFound);
    const LockRecord fence = find(records, "fence");
    QVERIFY(std::any_of(fence.companions.cbegin(), fence.companions.cend(),
                        [](const LockCompanion &x) { return x.role == LockCompanion::Role::Token; }));
    const LockRecord fair = find(records, "fair");
    QCOMPARE(fair.companions.size(), 2); // queue and deadlines
}

void TestLockScanJob::orphanQueue()
{
    SandboxFixture server;
    LS_SANDBOX(server);
    RedisConnection &c = server.admin();
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    const QByteArray waiter = SampleLocks::redissonClientId() + ":3";
    QVERIFY(SampleLocks::redissonFairWaiter(c, "gone", waiter, now + 60000)); // no lock at all
    QVERIFY(SampleLocks::redissonLock(c, "stale", SampleLocks::redissonClientId(), 1, 60000));
    QVERIFY(SampleLocks::redissonFairWaiter(c, "stale", waiter, now - 1000)); // all deadlines past
    const QList<LockRecord> records = scanAll(c, ScanOptions {});
    QCOMPARE(records.size(), 2);
    const LockRecord gone = find(records, "gone");
    QCOMPARE(gone.kind, LockKind::Fair);
    QVERIFY(!gone.exists());
    QVERIFY(gone.hasDiagnosis(QStringLiteral("orphan-queue")));
    QCOMPARE(gone.queue.first().id, waiter);
    const LockRecord stale = find(records, "stale");
    QVERIFY(stale.exists());
    QVERIFY(stale.hasDiagnosis(QStringLiteral("orphan-queue")));
}

void TestLockScanJob::redlockAcrossPagesIsOneLock()
{
    SandboxFixture server;
    LS_SANDBOX(server);
    RedisConnection &c = server.admin();
    QList<QByteArray> resources;
    for (int i = 0; i < 5; ++i)
        resources << "account:" + QByteArray::number(i * 997);
    const QByteArray value = SampleLocks::redlock(c, resources, 60000);
    QVERIFY(!value.isEmpty());
    QVERIFY(SampleLocks::fill(c, "f:", 3000));
    ScanOptions options;
    options.count = 20;
    const QList<LockRecord> records = scanAll(c, options);
    QCOMPARE(records.size(), 1);
    const LockRecord r = records.first();
    QCOMPARE(r.format, QStringLiteral("node-redlock"));
    QList<QByteArray> members = r.memberKeys();
    std::sort(members.begin(), members.end());
    std::sort(resources.begin(), resources.end());
    QCOMPARE(members, resources);
    QCOMPARE(r.owners.first().id, value);
}

void TestLockScanJob::streamsPageByPage()
{
    SandboxFixture server;
    LS_SANDBOX(server);
    RedisConnection &c = server.admin();
    QVERIFY(TestSupport::writePlainLocks(c, 3000));
    ScanOptions options;
    options.count = 100;
    LockScanJob job(c, options);
    const QList<LockRecord> first = job.nextPage();
    QVERIFY2(!first.isEmpty() && first.size() < 3000, "the first page already has rows, not all of them");
    QVERIFY(!job.atEnd());
    QVERIFY(job.progress().fraction > 0 && job.progress().fraction < 1);
    QSet<QByteArray> keys;
    for (const LockRecord &r : first)
        keys.insert(r.key);
    while (!job.atEnd()) {
        for (const LockRecord &r : job.nextPage())
            keys.insert(r.key);
    }
    QVERIFY(!job.error());
    QCOMPARE(keys.size(), 3000);
    QCOMPARE(job.progress().locks, 3000);
    QCOMPARE(TestSupport::commandCalls(c, "keys"), 0);
}

void TestLockScanJob::explicitPatternsAndLockNames()
{
    SandboxFixture server;
    LS_SANDBOX(server);
    RedisConnection &c = server.admin();
    QVERIFY(c.command({"SET", "mx:1", "some-owner"}).ok());
    QVERIFY(c.command({"SET", "mx:2", "other"}).ok());
    QVERIFY(c.command({"SET", "session:1", "some-owner"}).ok());
    QVERIFY(c.command({"SET", "order:Mutex", "owner"}).ok());
    ScanOptions options;
    options.patterns = {"mx:*"};
    QList<LockRecord> records = scanAll(c, options);
    QCOMPARE(records.size(), 2); // everything an explicit pattern finds is taken as a lock
    const qint64 scans = TestSupport::commandCalls(c, "scan");
    options.patterns = {"*"};
    records = scanAll(c, options);
    QCOMPARE(records.size(), 1); // only the key named like a lock
    QCOMPARE(records.first().key, QByteArray("order:Mutex"));
    options.patterns = {"mx:1", "session:*"};
    records = scanAll(c, options);
    QCOMPARE(records.size(), 2);
    QVERIFY(TestSupport::commandCalls(c, "scan") > scans);
}

void TestLockScanJob::binaryKeysAndEmptyValues()
{
    SandboxFixture server;
    LS_SANDBOX(server);
    RedisConnection &c = server.admin();
    const QByteArray binaryKey("lock:\xff\xfe\x00\x01-bin", 13);
    const QByteArray binaryValue("\xac\xed\x00\x05t\x00\x03"
                                 "abc",
                                 10);
    QVERIFY(c.command({"SET", binaryKey, binaryValue, "PX", "60000"}).ok());
    QVERIFY(c.command({"SET", "lock:empty", ""}).ok());
    const QByteArray client = SampleLocks::redissonClientId();
    const QByteArray binaryHash("r\xc3\x28\x00", 4); // invalid UTF-8 and a NUL in a Redisson lock name
    QVERIFY(SampleLocks::redissonLock(c, binaryHash, client, 1, 60000));
    const QList<LockRecord> records = scanAll(c, ScanOptions {});
    QCOMPARE(records.size(), 3);
    // Binary bytes and an empty string under lock names: listed as named like a lock, their data shown.
    const LockRecord bin = find(records, binaryKey);
    QCOMPARE(bin.kind, LockKind::Named);
    QCOMPARE(bin.value, binaryValue);
    const LockRecord empty = find(records, "lock:empty");
    QCOMPARE(empty.kind, LockKind::Named);
    QVERIFY(empty.diagnoses.isEmpty());
    const LockRecord hash = find(records, binaryHash);
    QCOMPARE(hash.kind, LockKind::Reentrant);
    QCOMPARE(hash.owners.first().client, QString::fromLatin1(client));
}

void TestLockScanJob::wrongTypesAndNonIntegerCounts()
{
    SandboxFixture server;
    LS_SANDBOX(server);
    RedisConnection &c = server.admin();
    QVERIFY(c.command({"RPUSH", "lock:list", "a", "b", "c"}).ok());
    QVERIFY(c.command({"SADD", "lock:set", "a"}).ok());
    QVERIFY(c.command({"ZADD", "lock:zset", "1", "a"}).ok());
    QVERIFY(c.command({"XADD", "lock:stream", "*", "f", "v"}).ok());
    const QByteArray client = SampleLocks::redissonClientId();
    QVERIFY(c.command({"HSET", "order:7", client + ":1", "abc"}).ok());
    const QList<LockRecord> records = scanAll(c, ScanOptions {});
    QCOMPARE(records.size(), 5);
    const LockRecord list = find(records, "lock:list");
    QCOMPARE(list.kind, LockKind::Named);
    QVERIFY2(list.reason.contains(QLatin1String("a list of 3 entries fits no lock format")), qPrintable(list.reason));
    QCOMPARE(find(records, "lock:stream").size, 1);
    QCOMPARE(find(records, "lock:zset").kind, LockKind::Named);
    const LockRecord bad = find(records, "order:7");
    QCOMPARE(bad.kind, LockKind::Reentrant);
    QVERIFY(bad.hasDiagnosis(QStringLiteral("malformed")));
    QVERIFY(bad.hasDiagnosis(QStringLiteral("no-ttl")));
}

void TestLockScanJob::millionFieldHashIsReadBounded()
{
    SandboxFixture server;
    LS_SANDBOX(server);
    RedisConnection &c = server.admin();
    // 1,000,000 fields in pipelined batches of HSET with 1000 pairs each.
    QList<RedisCommand> batch;
    for (int i = 0; i < 1000; ++i) {
        RedisCommand hset {"HSET", "lock:huge"};
        for (int j = 0; j < 1000; ++j)
            hset << "f" + QByteArray::number(i * 1000 + j) << "v";
        batch.append(hset);
        if (batch.size() == 50) {
            for (const RedisResult &r : c.pipeline(batch))
                QVERIFY(r.ok());
            batch.clear();
        }
    }
    QCOMPARE(c.command({"HLEN", "lock:huge"}).reply.toInteger(), 1000000);
    const QByteArray client = SampleLocks::redissonClientId();
    QVERIFY(SampleLocks::redissonLock(c, "order:ok", client, 1, 60000));

    ScanOptions options;
    const QList<LockRecord> records = scanAll(c, options);
    QCOMPARE(records.size(), 2);
    const LockRecord huge = find(records, "lock:huge");
    QCOMPARE(huge.kind, LockKind::Named);
    QCOMPARE(huge.fieldCount, 1000000);
    QVERIFY2(huge.fields.size() <= options.maxHashFields, qPrintable(QString::number(huge.fields.size())));
    QVERIFY(huge.isTruncated());
    QCOMPARE(TestSupport::commandCalls(c, "hgetall"), 0);
    QCOMPARE(find(records, "order:ok").kind, LockKind::Reentrant);
}

void TestLockScanJob::keysDeletedBetweenRounds()
{
    SandboxFixture server;
    LS_SANDBOX(server);
    RedisConnection &c = server.admin();
    const QByteArray client = SampleLocks::redissonClientId();
    QVERIFY(c.command({"SET", "lock:empty", ""}).ok());
    QVERIFY(c.command({"SET", "lock:token", "owner-1"}).ok());
    QVERIFY(SampleLocks::redissonLock(c, "order:1", client, 1, 60000));
    QVERIFY(c.command({"RPUSH", "lock:list", "a"}).ok());
    QVERIFY(c.command({"SET", "lock:stays", ""}).ok());
    ScanOptions options;
    KeyProber prober(options);
    RedisConnection other(server.connectionSettings());
    LS_OPEN(other);
    prober.setBetweenRoundsHook([&] {
        QVERIFY(other.command({"DEL", "lock:empty", "lock:token", "order:1", "lock:list"}).ok());
    });
    QList<ScannedKey> scanned;
    RedisError error;
    const QList<ProbeTarget> targets {{"lock:empty", ProbeTarget::Purpose::Lock, true},
                                      {"lock:token", ProbeTarget::Purpose::Lock, true},
                                      {"order:1", ProbeTarget::Purpose::Lock, false},
                                      {"lock:list", ProbeTarget::Purpose::Lock, true},
                                      {"lock:stays", ProbeTarget::Purpose::Lock, true}};
    QVERIFY2(prober.probe(c, targets, &scanned, &error), qPrintable(error.message()));
    QCOMPARE(scanned.size(), 5);
    QCOMPARE(scanned.at(0).type, QByteArray("none")); // not an "empty value" lock
    QCOMPARE(scanned.at(2).type, QByteArray("none")); // a hash cannot be empty: it went away
    QCOMPARE(scanned.at(3).type, QByteArray("none"));
    QCOMPARE(scanned.at(4).type, QByteArray("string")); // really empty, still there
    LockAssembler assembler(options);
    const QList<LockRecord> records = assembler.add(scanned, InspectClock::wallMs());
    QStringList keys;
    for (const LockRecord &r : records)
        keys << QString::fromUtf8(r.key);
    // lock:token read as an empty string after its deletion is honest about its (empty) GETRANGE, but the
    // EXISTS check drops it too.
    QCOMPARE(keys, QStringList {QStringLiteral("lock:stays")});
}

void TestLockScanJob::keysExpiringMidScan()
{
    SandboxFixture server;
    LS_SANDBOX_FILLED(server, 2000);
    RedisConnection &c = server.admin();
    QList<RedisCommand> locks;
    for (int i = 0; i < 3000; ++i)
        locks.append({"SET", "lock:" + QByteArray::number(i), i % 2 ? SampleLocks::uuid1Hex() : QByteArray(),
                      "PX", QByteArray::number(1 + i % 60)});
    for (const RedisResult &r : c.pipeline(locks))
        QVERIFY(r.ok());
    ScanOptions options;
    options.count = 20;
    RedisConnection scanner(server.connectionSettings());
    LS_OPEN(scanner);
    LockScanJob job(scanner, options);
    int listed = 0;
    while (!job.atEnd()) {
        for (const LockRecord &r : job.nextPage()) {
            ++listed;
            QVERIFY(r.isLock() && r.exists());
            QVERIFY(r.pttlMs >= 0);
        }
        // Delete some keys as the scan goes, too.
        c.command({"DEL", "f:" + QByteArray::number(job.progress().pages)});
    }
    QVERIFY2(!job.error(), qPrintable(job.error().message()));
    QVERIFY(listed <= 3000);
}

void TestLockScanJob::serverKilledMidScan()
{
    SandboxFixture server;
    LS_SANDBOX_FILLED(server, 5000);
    RedisConnection &c = server.admin();
    ScanOptions options;
    options.count = 100;
    LockScanJob job(c, options);
    job.nextPage();
    QVERIFY(!job.atEnd());
    server.kill();
    QElapsedTimer timer;
    timer.start();
    while (!job.atEnd())
        job.nextPage();
    QVERIFY(job.error());
    QVERIFY2(job.error().message().contains(QString::number(server.port())),
             qPrintable(job.error().message()));
    QVERIFY(!job.progress().finished);
}

void TestLockScanJob::readOnlyAclUserSendsNoWrites()
{
    SandboxFixture server;
    LS_SANDBOX(server);
    RedisConnection &admin = server.admin();
    QVERIFY(TestSupport::addViewerUser(admin));
    const QByteArray client = SampleLocks::redissonClientId();
    QVERIFY(SampleLocks::redissonLock(admin, "order:1", client, 1, 60000));
    QVERIFY(SampleLocks::redissonLock(admin, "fair", client, 1, 60000));
    QVERIFY(SampleLocks::redissonFairWaiter(admin, "fair", client + ":2",
                                            QDateTime::currentMSecsSinceEpoch() + 9000));
    QVERIFY(SampleLocks::redissonReadLock(admin, "doc", client, 1, 60000));
    QVERIFY(!SampleLocks::redisPyLock(admin, "py", 60000).isEmpty());
    QVERIFY(SampleLocks::fill(admin, "f:", 500));
    const qint64 writesBefore = TestSupport::writeCommandCalls(admin);

    ConnectionSettings s = server.connectionSettings();
    s.user = QStringLiteral("viewer");
    s.password = QStringLiteral("pw");
    s.readOnly = true;
    RedisConnection viewer(s);
    LS_OPEN(viewer);
    ScanProgress progress;
    const QList<LockRecord> records = scanAll(viewer, ScanOptions {}, &progress);
    QVERIFY(progress.finished);
    QCOMPARE(records.size(), 4);
    QCOMPARE(find(records, "fair").queueLength, 1);
    QCOMPARE(progress.unreadableKeys, 0);
    QCOMPARE(TestSupport::writeCommandCalls(admin), writesBefore);
}

void TestLockScanJob::badOptions()
{
    SandboxFixture server;
    LS_SANDBOX(server);
    RedisConnection &c = server.admin();
    ScanOptions options;
    options.count = 0;
    LockScanJob job(c, options);
    QVERIFY(job.atEnd());
    QCOMPARE(job.error().code(), RedisError::Code::BadArgument);
    QVERIFY(job.error().message().contains(QLatin1String("count")));
    options.count = 10;
    options.patterns = {};
    QVERIFY(LockScanJob(c, options).error());
}

QTEST_GUILESS_MAIN(TestLockScanJob)
#include "tst_lockscanjob.moc"
