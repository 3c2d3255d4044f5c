// LockClassifier over the shipped format catalog, without a server: every kind, the reasons and libraries it
// gives, word-based lock names (no "blocklist" listed for its "lock"), keys named like locks without a lock's
// shape (listed, never alarmed on), unknowns kept as unknowns, and the bad input it must survive.
#include "inspect/lockassembler.h"
#include "inspect/lockclassifier.h"
#include "inspect/lockdiagnostics.h"
#include "inspect/ownerevidence.h"
#include "inspect/samplelocks.h"
#include "inspect/scanoptions.h"

#include <QDateTime>
#include <QRandomGenerator>
#include <QTest>

#include <cmath>
#include <limits>

class TestLockClassifier : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void redissonReentrant();
    void shardedAndClassicWaitersAreAddedAndSaidHow();
    void redissonFairWithQueue();
    void redissonFenced();
    void redissonReadWrite();
    void redissonRwMalformed();
    void redissonLegacy();
    void redisPy();
    void nodeRedlockIsOnlyProbable();
    void jobLocks();
    void semaphore();
    void tokensUnderALockName_data();
    void tokensUnderALockName();
    void lockNamesAreWords_data();
    void lockNamesAreWords();
    void namedLikeALockIsNeverAlarmedOn_data();
    void namedLikeALockIsNeverAlarmedOn();
    void notLocksWithoutALockName_data();
    void notLocksWithoutALockName();
    void notesFitTheReading();
    void oneTokenOnSeveralKeysIsOneLock();
    void semaphoreAndLeaderWithoutALockWord();
    void aLockWordIsNoHolder_data();
    void aLockWordIsNoHolder();
    void randomTokensAreLabelledByTheirAlphabet_data();
    void randomTokensAreLabelledByTheirAlphabet();
    void aRandomIdThatExpiresIsAPossibleLease_data();
    void aRandomIdThatExpiresIsAPossibleLease();
    void rawRandomBytes_data();
    void rawRandomBytes();
    void oneBinaryTokenOnSeveralKeysIsOneLock();
    void aStuckLockOfRandomBytesIsALock_data();
    void aStuckLockOfRandomBytesIsALock();
    void reasonsAgreeWithALockName_data();
    void reasonsAgreeWithALockName();
    void aLongTtlIsOneRuleForEveryLock_data();
    void aLongTtlIsOneRuleForEveryLock();
    void leaseSetsAreReadAsLeases();
    void notLeaseSets_data();
    void notLeaseSets();
    void aJobQueueIsNoSemaphore();
    void nonIntegerCounts();
    void unknownsStayUnknown();
    void orphanQueue();
    void uuid1Parsing();
    void randomInputNeverCrashes();

private:
    std::shared_ptr<const FormatCatalog> m_catalog;
    LockRecord classify(const ScannedKey &k) { return LockClassifier::classify(k, *m_catalog); }
};

namespace {

const QByteArray kClient = "6f1c2a9e-3b4d-4e5f-8a7b-1c2d3e4f5a6b";

ScannedKey hashKey(const QByteArray &key, const QList<QPair<QByteArray, QByteArray>> &fields)
{
    ScannedKey k;
    k.key = key;
    k.type = "hash";
    k.pttlMs = 25000;
    k.fields = fields;
    k.fieldCount = fields.size();
    return k;
}

ScannedKey stringKey(const QByteArray &key, const QByteArray &value, qint64 pttl = 30000,
                     bool lockNamed = true)
{
    ScannedKey k;
    k.key = key;
    k.type = "string";
    k.pttlMs = pttl;
    k.value = value;
    k.valueLength = value.size();
    k.lockNamed = lockNamed;
    return k;
}

ScannedKey zsetKey(const QByteArray &key, qint64 pttl, const QList<QPair<QByteArray, double>> &members)
{
    ScannedKey k;
    k.key = key;
    k.type = "zset";
    k.pttlMs = pttl;
    k.members = members;
    k.size = members.size();
    return k;
}

ScannedKey::Companion companion(const QString &role, const QByteArray &key, const QByteArray &read,
                                const QList<QByteArray> &items, const QList<double> &scores = {})
{
    ScannedKey::Companion c;
    c.role = role;
    c.key = key;
    c.read = read;
    c.items = items;
    c.scores = scores;
    c.size = read == "string" ? -1 : items.size();
    c.present = !items.isEmpty();
    return c;
}

} // namespace

void TestLockClassifier::initTestCase()
{
    m_catalog = FormatCatalog::standard();
    QVERIFY2(m_catalog->errors().isEmpty(), qPrintable(m_catalog->errors().join(u'\n')));
    QVERIFY(m_catalog->formats().size() >= 10);
}

void TestLockClassifier::redissonReentrant()
{
    ScannedKey k = hashKey("order:1", {{kClient + ":57", "2"}});
    k.channels = {"redisson_lock__channel:{order:1}"};
    k.channelSubscribers = {3};
    const LockRecord r = classify(k);
    QCOMPARE(r.kind, LockKind::Reentrant);
    QCOMPARE(r.format, QStringLiteral("redisson-lock"));
    QCOMPARE(r.library, QStringLiteral("Redisson"));
    QVERIFY(r.certain);
    QCOMPARE(r.owners.size(), 1);
    QCOMPARE(r.owners.first().client, QString::fromLatin1(kClient));
    QCOMPARE(r.owners.first().thread, QStringLiteral("57"));
    QCOMPARE(r.owners.first().count, 2);
    QCOMPARE(r.subscribers, 3);
    QCOMPARE(r.waiters(), 3);
    QVERIFY(r.problems.isEmpty());
    QCOMPARE(r.renewal.rule, RenewalPolicy::Rule::ElapsedFraction);
}

void TestLockClassifier::shardedAndClassicWaitersAreAddedAndSaidHow()
{
    // A cluster lock: 2 sharded subscribers on its slot's master, 1 classic one summed over three masters.
    ScannedKey k = hashKey("order:2", {{kClient + ":57", "1"}});
    k.channels = {"redisson_lock__channel:{order:2}"};
    k.channelSubscribers = {1};
    k.channelShardSubscribers = {2};
    k.channelsNode = QStringLiteral("127.0.0.1:7001");
    k.channelsNodes = {QStringLiteral("127.0.0.1:7001"), QStringLiteral("127.0.0.1:7002"),
                       QStringLiteral("127.0.0.1:7003")};
    LockRecord r = classify(k);
    QCOMPARE(r.waiters(), 3);
    QCOMPARE(r.shardedSubscribers, 2);
    QVERIFY(r.shardedPubSub);
    QCOMPARE(r.waitersBasis,
             QStringLiteral("2 sharded (PUBSUB SHARDNUMSUB on 127.0.0.1:7001, which owns the "
                            "channel's slot) + 1 classic (PUBSUB NUMSUB summed over 3 masters)"));
    QVERIFY(!r.isIncomplete());

    // A master that could not be asked, or SHARDNUMSUB refused: the count is a floor, and the record says so.
    k.channelsIncomplete
        = QStringLiteral("classic subscribers on 127.0.0.1:7003 not counted: Connection refused");
    r = classify(k);
    QCOMPARE(r.waiters(), 3);
    QVERIFY(r.isIncomplete());
    QVERIFY2(r.unknownReason(QStringLiteral("waiters")).startsWith(QLatin1String("at least 3 (")),
             qPrintable(r.unknownReason(QStringLiteral("waiters"))));
    k.channelsIncomplete.clear();
    k.channelShardSubscribers.clear();
    k.shardChannelsError = QStringLiteral("PUBSUB SHARDNUMSUB refused: NOPERM");
    r = classify(k);
    QCOMPARE(r.shardedSubscribers, -1);
    QVERIFY(r.unknownReason(QStringLiteral("waiters")).contains(QLatin1String("SHARDNUMSUB refused")));

    // A server before Redis 7: nobody can wait sharded there, so 0, and said.
    k.shardChannelsError.clear();
    k.shardedPubSubAbsent = true;
    r = classify(k);
    QCOMPARE(r.shardedSubscribers, 0);
    QVERIFY(!r.shardedPubSub);
    QVERIFY(!r.isIncomplete());
    QVERIFY(r.waitersBasis.contains(QLatin1String("no sharded pub/sub")));
}

void TestLockClassifier::redissonFairWithQueue()
{
    ScannedKey k = hashKey("fair", {{kClient + ":1", "1"}});
    const QByteArray w1 = SampleLocks::redissonClientId() + ":7";
    const QByteArray w2 = SampleLocks::redissonClientId() + ":8";
    k.plannedFormat = QStringLiteral("redisson-lock");
    k.companions = {companion(QStringLiteral("queue"), "redisson_lock_queue:{fair}", "list", {w1, w2}),
                    companion(QStringLiteral("deadlines"), "redisson_lock_timeout:{fair}", "zset", {w1, w2},
                              {1700000000000, 1700000005000}),
                    companion(QStringLiteral("token"), "redisson_lock_token:{fair}", "string", {})};
    const LockRecord r = classify(k);
    QCOMPARE(r.kind, LockKind::Fair);
    QCOMPARE(r.formatName, QStringLiteral("Redisson fair lock"));
    QCOMPARE(r.queueLength, 2);
    QCOMPARE(r.queue.at(0).id, w1); // FIFO order, head first
    QCOMPARE(r.queue.at(1).deadlineEpochMs, 1700000005000);
    QCOMPARE(r.waiters(), 2);
    QStringList companions;
    for (const LockCompanion &c : r.companions)
        companions << QString::fromLatin1(c.key);
    QVERIFY(companions.contains(QStringLiteral("redisson_lock_queue:{fair}")));
    QVERIFY(companions.contains(QStringLiteral("redisson_lock_timeout:{fair}")));
    QVERIFY(!companions.contains(QStringLiteral("redisson_lock_token:{fair}"))); // not there: not listed
}

void TestLockClassifier::redissonFenced()
{
    ScannedKey k = hashKey("fence", {{kClient + ":9", "1"}});
    k.companions = {companion(QStringLiteral("token"), "redisson_lock_token:{fence}", "string", {"34"})};
    LockRecord r = classify(k);
    QCOMPARE(r.kind, LockKind::Reentrant);
    QCOMPARE(r.formatName, QStringLiteral("Redisson RFencedLock"));
    QVERIFY(r.hasFencingToken);
    QCOMPARE(r.fencingToken, 34);
    QVERIFY(r.problems.isEmpty());
    k.companions.first().items = {"x"};
    QVERIFY(!classify(k).problems.isEmpty());
}

void TestLockClassifier::redissonReadWrite()
{
    const QByteArray other = SampleLocks::redissonClientId();
    ScannedKey k = hashKey("doc", {{"mode", "read"}, {kClient + ":1", "2"}, {other + ":5", "1"}});
    k.channels = {"redisson_rwlock:{doc}"};
    k.channelSubscribers = {1};
    LockRecord r = classify(k);
    QCOMPARE(r.kind, LockKind::ReadWrite);
    QCOMPARE(r.format, QStringLiteral("redisson-rwlock"));
    QCOMPARE(r.rwMode, QStringLiteral("read"));
    QCOMPARE(r.owners.size(), 2);
    QCOMPARE(r.owners.at(0).mode, QStringLiteral("read"));
    QCOMPARE(r.subscribers, 1);
    QVERIFY(r.problems.isEmpty());
    QCOMPARE(r.ownerSummary(), QStringLiteral("2 readers"));

    r = classify(hashKey("doc", {{"mode", "write"}, {kClient + ":1:write", "1"}}));
    QCOMPARE(r.kind, LockKind::ReadWrite);
    QCOMPARE(r.owners.first().mode, QStringLiteral("write"));
    QCOMPARE(r.owners.first().thread, QStringLiteral("1"));
    QVERIFY(r.problems.isEmpty());
}

void TestLockClassifier::redissonRwMalformed()
{
    LockRecord r = classify(hashKey("doc", {{"mode", "write"}, {kClient + ":1", "1"}}));
    QCOMPARE(r.kind, LockKind::ReadWrite);
    QVERIFY2(r.problems.join(u' ').contains(QLatin1String("no writer")), qPrintable(r.problems.join(u' ')));
    r = classify(hashKey("doc", {{"mode", "banana"}, {kClient + ":1", "1"}}));
    QVERIFY(r.problems.join(u' ').contains(QLatin1String("neither 'read' nor 'write'")));
    r = classify(hashKey("doc", {{"mode", "read"}}));
    QVERIFY(r.problems.join(u' ').contains(QLatin1String("nobody holds it")));
}

void TestLockClassifier::redissonLegacy()
{
    const LockRecord r
        = classify(stringKey("legacy", "{\"o\":\"" + kClient + "-12\",\"c\":3}", 30000, false));
    QCOMPARE(r.kind, LockKind::Reentrant);
    QCOMPARE(r.format, QStringLiteral("redisson-legacy-lock"));
    QCOMPARE(r.owners.first().client, QString::fromLatin1(kClient));
    QCOMPARE(r.owners.first().thread, QStringLiteral("12"));
    QCOMPARE(r.owners.first().count, 3);
    const LockRecord bad = classify(stringKey("legacy", "{\"o\":\"x\",\"c\":\"many\"}"));
    QCOMPARE(bad.format, QStringLiteral("redisson-legacy-lock"));
    QCOMPARE(bad.problems.size(), 2);
}

void TestLockClassifier::redisPy()
{
    const QByteArray token = SampleLocks::uuid1Hex();
    const LockRecord r = classify(stringKey("resource", token, -1, false));
    QCOMPARE(r.kind, LockKind::Mutex);
    QCOMPARE(r.format, QStringLiteral("redis-py-lock"));
    QCOMPARE(r.library, QStringLiteral("redis-py"));
    QVERIFY2(r.owners.first().note.contains(QLatin1String("token made")), qPrintable(r.owners.first().note));
    QVERIFY(qAbs(r.owners.first().sinceEpochMs - QDateTime::currentMSecsSinceEpoch()) < 60000);
    QCOMPARE(r.owners.first().id, token);
    // django-redis puts its key prefix in front: the same token, its own library.
    QCOMPARE(classify(stringKey(":1:sync-inventory", token, -1, false)).library,
             QStringLiteral("django-redis (redis-py Lock)"));
    // A plain redis-py key can have the same shape ("orders:42:lock" reads as prefix, version, name): the
    // record says so instead of naming django-redis alone.
    const LockRecord plain = classify(stringKey("orders:42:lock", token, 120000, false));
    QCOMPARE(plain.library, QStringLiteral("django-redis (redis-py Lock)"));
    QCOMPARE(plain.alsoLibraries, QStringList {QStringLiteral("redis-py")});
}

void TestLockClassifier::nodeRedlockIsOnlyProbable()
{
    QByteArray value;
    do
        value = SampleLocks::randomHex32();
    while (
        LockClassifier::parseUuid1Hex(value)); // a random value that happens to be a valid uuid1 is redis-py
    ScannedKey k = stringKey("account:1", value, 10000, false);
    LockRecord r = classify(k);
    QCOMPARE(r.format, QStringLiteral("node-redlock"));
    QCOMPARE(r.library, QStringLiteral("node-redlock (probable)"));
    QVERIFY(!r.certain);
    // Only the value's shape says lock: nothing is alarmed on, whatever its TTL.
    r.pttlMs = 24 * 3600 * 1000;
    LockDiagnostics::diagnose(r, DiagnosticContext {});
    QVERIFY(r.diagnoses.isEmpty());
    // Under a lock name the same value may be alarmed on.
    r = classify(stringKey("lock:account:1", value, 24 * 3600 * 1000, true));
    LockDiagnostics::diagnose(r, DiagnosticContext {});
    QVERIFY(r.hasDiagnosis(QStringLiteral("ttl-above-threshold")));
}

void TestLockClassifier::jobLocks()
{
    const QByteArray worker = "0b7d3b1c-6a0f-4b8e-9d52-5c1d2f3e4a5b";
    ScannedKey k = stringKey("bull:emails:42:lock", worker + ":7", 27000, true);
    k.job.read = true;
    k.job.exists = true;
    k.job.fields = {"2", ""};
    LockRecord r = classify(k);
    QCOMPARE(r.kind, LockKind::JobLock);
    QCOMPARE(r.format, QStringLiteral("bullmq-job-lock"));
    QVERIFY(r.certain);
    QCOMPARE(r.job.queue, QStringLiteral("emails"));
    QCOMPARE(r.job.id, QStringLiteral("42"));
    QCOMPARE(r.job.jobKey, QByteArray("bull:emails:42"));
    QCOMPARE(r.job.attempts, 2);
    QVERIFY(r.job.jobFound);
    // The owner as BullMQ means it: a worker and its fetch count, not a "thread 7".
    QCOMPARE(r.owners.first().thread, QString());
    QVERIFY2(r.ownerSummary().contains(QLatin1String("job fetch #7")), qPrintable(r.ownerSummary()));
    // Bull writes a bare uuid4 per queue instance.
    r = classify(stringKey("bull:emails:43:lock", worker, 27000, true));
    QCOMPARE(r.format, QStringLiteral("bull-job-lock"));
    // The job's hash is gone but its lock remains.
    k.job.exists = false;
    k.job.fields = {"", ""};
    r = classify(k);
    LockDiagnostics::diagnose(r, DiagnosticContext {});
    QVERIFY(r.hasDiagnosis(QStringLiteral("job-missing")));
    // Under another prefix, with no job, nothing says Bull: a hand-written lock (Jedis, seed 000) is named
    // <app>:<resource>:<id>:lock and holds a uuid just the same. It is a generic lock, Bull also possible.
    ScannedKey jedis = stringKey("shop:jedis:stock:lock", worker, 27000, true);
    jedis.job.read = true;
    jedis.job.fields = {"", ""};
    r = classify(jedis);
    LockDiagnostics::diagnose(r, DiagnosticContext {});
    QCOMPARE(r.kind, LockKind::Mutex);
    QVERIFY2(r.alsoLibraries.contains(QStringLiteral("Bull")), qPrintable(r.alsoLibraries.join(u',')));
    QVERIFY(!r.hasDiagnosis(QStringLiteral("job-missing")));
    QVERIFY2(r.reason.contains(QLatin1String("shop:jedis:stock does not exist")), qPrintable(r.reason));
}

void TestLockClassifier::semaphore()
{
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    const ScannedKey k = zsetKey("semaphore:exports", 5000,
                                 {{"0b7d3b1c-6a0f-4b8e-9d52-5c1d2f3e4a5b", double(now - 1000)},
                                  {"1c7d3b1c-6a0f-4b8e-9d52-5c1d2f3e4a5b_0", double(now - 500)}});
    const LockRecord r = classify(k);
    QCOMPARE(r.kind, LockKind::Semaphore);
    // Issue 31, certainty it did not have: another library can write this very sorted set under this very
    // name, so redis-semaphore is probable and the alternative is named. (Before: certain.)
    QVERIFY(!r.certain);
    QCOMPARE(r.library, QStringLiteral("redis-semaphore (probable)"));
    QVERIFY2(!r.alsoLibraries.isEmpty(), qPrintable(r.reason));
    QVERIFY2(r.reason.contains(QLatin1String("other code can write the same name and data")),
             qPrintable(r.reason));
    QCOMPARE(r.owners.size(), 2);
    QCOMPARE(r.owners.first().sinceEpochMs, now - 1000);
    QCOMPARE(r.holderCount, 2);
    QCOMPARE(r.ownerSummary(), QStringLiteral("2 permits taken"));
    // The limit is not in Redis: unknown, and said so, but that is no refusal.
    QVERIFY(!r.unknownReason(QStringLiteral("permits_total")).isEmpty());
    QVERIFY(!r.isIncomplete());
    // The name says lock (semaphore), so a missing TTL is still alarmed on.
    ScannedKey stuck = k;
    stuck.pttlMs = -1;
    LockRecord persisted = classify(stuck);
    LockDiagnostics::diagnose(persisted, DiagnosticContext {});
    QVERIFY(persisted.hasDiagnosis(QStringLiteral("no-ttl")));
    // The same for the other formats keyed by a name any code may choose.
    using KeyValue = std::pair<QByteArray, QByteArray>;
    for (const auto &[key, value] : {KeyValue {"mutex:cache", "0b7d3b1c-6a0f-4b8e-9d52-5c1d2f3e4a5b"},
                                     KeyValue {"lock:report", "QmFzZTY0IHJhbmRvbSBieXRl"},
                                     KeyValue {"lock_orders", "9f3a2c8e1b7d4f60a5e3c2b1d0f9e8a7"}}) {
        const LockRecord m = classify(stringKey(key, value, 30000, true));
        QVERIFY2(!m.certain && m.library.endsWith(QLatin1String("(probable)")) && !m.alsoLibraries.isEmpty(),
                 qPrintable(QString::fromUtf8(key) + QStringLiteral(": ") + m.library));
    }
}

void TestLockClassifier::tokensUnderALockName_data()
{
    QTest::addColumn<QByteArray>("value");
    QTest::addColumn<QString>("format");
    QTest::addColumn<QString>("thread");
    QTest::newRow("uuid") << QByteArray("0b7d3b1c-6a0f-4b8e-9d52-5c1d2f3e4a5b") << QStringLiteral("uuid-lock")
                          << QString();
    QTest::newRow("uuid:thread") << QByteArray("0b7d3b1c-6a0f-4b8e-9d52-5c1d2f3e4a5b:77")
                                 << QStringLiteral("uuid-thread-lock") << QStringLiteral("77");
    QTest::newRow("snowflake") << QByteArray("1790463512348672000") << QStringLiteral("snowflake-lock")
                               << QString();
    QTest::newRow("lockValue") << QByteArray("lockValue") << QStringLiteral("tutorial-lockvalue")
                               << QString();
    QTest::newRow("host token") << QByteArray("WEB-PROD-03") << QStringLiteral("token-lock") << QString();
    // Issue 31: JSON that names its owner is owner-like (JSON without one stays "named like a lock").
    QTest::newRow("json owner") << QByteArray("{\"owner\":\"worker-3\",\"acquiredAt\":1732800000000}")
                                << QStringLiteral("json-owner-lock") << QString();
}

void TestLockClassifier::tokensUnderALockName()
{
    QFETCH(QByteArray, value);
    QFETCH(QString, format);
    QFETCH(QString, thread);
    const LockRecord r = classify(stringKey("lock:stock", value));
    QCOMPARE(r.kind, LockKind::Mutex);
    QCOMPARE(r.format, format);
    QVERIFY(!r.reason.isEmpty());
    QCOMPARE(r.owners.first().thread, thread);
    if (format == QLatin1String("json-owner-lock"))
        QCOMPARE(r.owners.first().display, QStringLiteral("worker-3"));
}

void TestLockClassifier::lockNamesAreWords_data()
{
    QTest::addColumn<QByteArray>("key");
    QTest::addColumn<bool>("named");
    for (const char *k :
         {"blocklist:ip:10.0.0.1", "clock:skew:samples", "padlock:config", "feature:unlock-premium",
          "lockers:inventory", "user:1001:lockout", "Blocklist", "deadlock_stats", "release:notes",
          "selection:3", "electric:meter", "seo:sem:campaign", "misleading:stats"})
        QTest::newRow(k) << QByteArray(k) << false;
    for (const char *k : {"lock:order:1", "order-lock", "SendInvoiceLock", "mutex:cache", "LOCK_Y",
                          "locks:nightly", "HTTPLock", "job.lock", "app:semaphore:db",
                          // Issue 31: leader elections, leases and the usual abbreviations.
                          "leader:scheduler", "svc:election:billing", "elect:primary", "worker:lease:7",
                          "LeaseRenewer", "sema:db-pool", "mtx:cache", "lck_orders", "redlock:payments"})
        QTest::newRow(k) << QByteArray(k) << true;
}

void TestLockClassifier::lockNamesAreWords()
{
    QFETCH(QByteArray, key);
    QFETCH(bool, named);
    ScanOptions options;
    QCOMPARE(options.isLockNamed(key), named);
}

void TestLockClassifier::namedLikeALockIsNeverAlarmedOn_data()
{
    QTest::addColumn<QByteArray>("type");
    QTest::addColumn<QByteArray>("value");
    QTest::addColumn<QString>("reasonPart");
    QTest::newRow("fencing counter") << QByteArray("string") << QByteArray("17")
                                     << QStringLiteral("a counter");
    QTest::newRow("a word") << QByteArray("string") << QByteArray("production")
                            << QStringLiteral("fits no lock format");
    QTest::newRow("a flag") << QByteArray("string") << QByteArray("1") << QStringLiteral("a counter");
    QTest::newRow("binary") << QByteArray("string") << QByteArray("\xac\xed\x00\x05t\x00\x03", 7)
                            << QStringLiteral("fits no lock format");
    QTest::newRow("long text") << QByteArray("string") << QByteArray(300, 'x') << QStringLiteral("300 bytes");
    QTest::newRow("hash") << QByteArray("hash") << QByteArray() << QStringLiteral("a hash of 2 fields");
    QTest::newRow("list") << QByteArray("list") << QByteArray() << QStringLiteral("a list of 3 entries");
    QTest::newRow("set") << QByteArray("set") << QByteArray() << QStringLiteral("a set of 3 members");
    QTest::newRow("stream") << QByteArray("stream") << QByteArray()
                            << QStringLiteral("a stream of 3 entries");
}

void TestLockClassifier::namedLikeALockIsNeverAlarmedOn()
{
    QFETCH(QByteArray, type);
    QFETCH(QByteArray, value);
    QFETCH(QString, reasonPart);
    ScannedKey k = stringKey("lock:order:fence", value, -1, true);
    k.type = type;
    if (type == "hash") {
        k.fields = {{"name", "x"}, {"owner", "y"}};
        k.fieldCount = 2;
    } else if (type != "string") {
        k.size = 3;
    }
    LockRecord r = classify(k);
    QCOMPARE(r.kind, LockKind::Named);
    QVERIFY2(r.reason.contains(reasonPart), qPrintable(r.reason));
    QCOMPARE(r.pttlMs, -1);
    LockDiagnostics::diagnose(r, DiagnosticContext {});
    QVERIFY2(r.diagnoses.isEmpty(), qPrintable(r.diagnoses.value(0).code));
    // Not named like a lock: not listed at all.
    k.lockNamed = false;
    QCOMPARE(classify(k).kind, LockKind::None);
}

void TestLockClassifier::notLocksWithoutALockName_data()
{
    QTest::addColumn<QByteArray>("value");
    QTest::newRow("number") << QByteArray("42");
    QTest::newRow("text") << QByteArray("hello world");
    QTest::newRow("empty") << QByteArray();
    QTest::newRow("json") << QByteArray("{\"a\":1}");
    QTest::newRow("token") << QByteArray("WEB-PROD-03");
}

void TestLockClassifier::notLocksWithoutALockName()
{
    QFETCH(QByteArray, value);
    QCOMPARE(classify(stringKey("user:1", value, 5000, false)).kind, LockKind::None);
    // lockValue is the one literal recognised anywhere.
    QCOMPARE(classify(stringKey("user:1", "lockValue", 5000, false)).kind, LockKind::Mutex);
    QCOMPARE(classify(hashKey("user:1", {{"name", "x"}})).kind, LockKind::None);
}

// Issue 31, locks not listed: a lock on two resources whose keys hold one random base64 token with the same
// TTL is one lock, whether or not the names say lock (the grouping knew only node-redlock's 32 hex digits);
// the same token with other TTLs, or on one key alone, is not. (Before: nothing listed, or two locks.)
void TestLockClassifier::oneTokenOnSeveralKeysIsOneLock()
{
    const auto keyAt = [](const QByteArray &key, const QByteArray &value, qint64 pttl, bool named) {
        ScannedKey k = stringKey(key, value, pttl, named);
        k.readAtMs = 1000000;
        return k;
    };
    const QByteArray token = "d5amAYuK+pZYXHeA/TanDwQrSt==";
    {
        LockAssembler a {ScanOptions {}};
        QList<LockRecord> out = a.add({keyAt("inventory:sku-42", token, 30000, false)}, 0);
        // One key with a token and a TTL: a possible lease, never alarmed on (a session id as much as a
        // lock); its group is not known yet.
        QCOMPARE(out.size(), 1);
        QCOMPARE(out.first().format, QStringLiteral("random-id-lease"));
        QVERIFY(out.first().groupKeys.isEmpty());
        out = a.add({keyAt("inventory:sku-43", token, 29800, false), keyAt("session:9", "x", 30000, false)},
                    0);
        QCOMPARE(out.size(), 1);
        const LockRecord &r = out.first();
        QCOMPARE(r.key, QByteArray("inventory:sku-42"));
        QCOMPARE(r.groupKeys, QList<QByteArray> {"inventory:sku-43"});
        QCOMPARE(r.format, QStringLiteral("shared-token-lock"));
        QCOMPARE(r.owners.value(0).id, token);
        QVERIFY2(r.reason.contains(QLatin1String("hold the same random token with the same TTL")),
                 qPrintable(r.reason));
        QVERIFY(r.diagnoses.isEmpty()); // no name says lock: no alarm on a shape
        // A third resource joins it.
        out = a.add({keyAt("inventory:sku-44", token, 29900, false)}, 0);
        QCOMPARE(out.size(), 1);
        QCOMPARE(out.first().groupKeys.size(), 2);
    }
    {
        // Under lock names, a base64url token groups as 32 hex digits did.
        LockAssembler a {ScanOptions {}};
        const QByteArray urlToken = "xgg_WTtzyEXdfWrw-QkPmAhJsN";
        const QList<LockRecord> out = a.add(
            {keyAt("lock:account:1", urlToken, 10000, true), keyAt("lock:account:2", urlToken, 10000, true)},
            0);
        QCOMPARE(out.size(), 1);
        QCOMPARE(out.first().groupKeys, QList<QByteArray> {"lock:account:2"});
    }
    {
        // The same token with TTLs far apart is no one lock.
        LockAssembler a {ScanOptions {}};
        const QList<LockRecord> out
            = a.add({keyAt("cache:a", token, 30000, false), keyAt("cache:b", token, 5000, false)}, 0);
        QVERIFY(out.isEmpty());
    }
}

// Issue 31, locks not listed: permits held in a sorted set of random ids scored with when they were taken,
// under a name with no lock word, are a semaphore (probable: only their shape says so, so no alarm); a
// leader key holding host:pid is a lock by its name. A leaderboard (points, not times) and a zset of words
// are not. (Before: neither the semaphore nor the leader key was listed.)
void TestLockClassifier::semaphoreAndLeaderWithoutALockWord()
{
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    const ScannedKey k = zsetKey("reports:export-slots", 8000,
                                 {{"0b7d3b1c-6a0f-4b8e-9d52-5c1d2f3e4a5b_0", double(now - 2000)},
                                  {"xgg_WTtzyEXdfWrw-QkPmAhJsN", double(now - 900)}});
    LockRecord r = classify(k);
    QCOMPARE(r.kind, LockKind::Semaphore);
    QCOMPARE(r.format, QStringLiteral("token-holder-semaphore"));
    QVERIFY(!r.certain);
    QCOMPARE(r.owners.size(), 2);
    QCOMPARE(r.owners.first().sinceEpochMs, now - 2000);
    LockDiagnostics::diagnose(r, DiagnosticContext {});
    QVERIFY(r.diagnoses.isEmpty());
    ScannedKey board = k;
    board.members = {{"0b7d3b1c-6a0f-4b8e-9d52-5c1d2f3e4a5b", 1200.0}, {"xgg_WTtzyEXdfWrw-QkPmAhJsN", 950.0}};
    QCOMPARE(classify(board).kind, LockKind::None);
    ScannedKey words = k;
    words.members = {{"alice-the-first-user", double(now)}, {"bob-the-second-user", double(now)}};
    QCOMPARE(classify(words).kind, LockKind::None);

    ScanOptions options;
    QVERIFY(options.isLockNamed("billing:leader"));
    const LockRecord leader = classify(stringKey("billing:leader", "scheduler-2:8812", 5000, true));
    QCOMPARE(leader.kind, LockKind::Mutex);
    QCOMPARE(leader.owners.value(0).id, QByteArray("scheduler-2:8812"));
}

// Issue 31, notes that contradict the reading: a format's note on its default ("timeout=None ... sets no
// TTL") shows only on a key without a TTL, and no renewal text says "never renewed", which a watch that saw
// renewals would contradict. (Before: the redis-py note was shown on a lock with a 20 s TTL.)
void TestLockClassifier::notesFitTheReading()
{
    const QByteArray token = SampleLocks::uuid1Hex();
    const LockRecord leased = classify(stringKey("resource", token, 20000, false));
    QCOMPARE(leased.format, QStringLiteral("redis-py-lock"));
    QVERIFY2(!leased.formatNote.contains(QLatin1String("no TTL")), qPrintable(leased.formatNote));
    const LockRecord persisted = classify(stringKey("resource", token, -1, false));
    QVERIFY2(persisted.formatNote.contains(QLatin1String("sets no TTL")), qPrintable(persisted.formatNote));
    // The whole catalog: a note about a missing TTL is conditional on one missing, and renewal texts are
    // facts about the library ("does not renew it on its own"), not claims about the key.
    static const QRegularExpression aboutNoTtl(
        QStringLiteral("(?i)sets no TTL|no TTL by default|never expires|for ever"));
    static const QRegularExpression neverRenewed(QStringLiteral("(?i)never renew|^not renewed"));
    for (const LockFormat &f : m_catalog->formats()) {
        if (aboutNoTtl.match(f.note).hasMatch())
            QVERIFY2(f.noteWhen == QLatin1String("no-ttl"), qPrintable(f.id + QStringLiteral(": ") + f.note));
        QVERIFY2(!neverRenewed.match(f.renewal.text).hasMatch(),
                 qPrintable(f.id + QStringLiteral(": ") + f.renewal.text));
    }
}

// Issue 31, alarms without a holder: a rate limiter's counter under a name with a lock word, with an hour's
// TTL, is no mutex owned by "4" and raises nothing; a word or a flag under such a name is listed, never
// alarmed on. (Before: short-value-lock, owner "4", ttl-above-threshold.)
void TestLockClassifier::aLockWordIsNoHolder_data()
{
    QTest::addColumn<QByteArray>("key");
    QTest::addColumn<QByteArray>("value");
    QTest::addColumn<LockKind>("kind");
    QTest::addColumn<QString>("reasonPart");
    QTest::newRow("rate-limit counter") << QByteArray("throttle:password-lock:user-7") << QByteArray("4")
                                        << LockKind::Named << QStringLiteral("a counter");
    QTest::newRow("negative count") << QByteArray("quota:lock:api") << QByteArray("-3") << LockKind::Named
                                    << QStringLiteral("not an owner");
    QTest::newRow("a word") << QByteArray("feature:lock-v2") << QByteArray("enabled") << LockKind::Mutex
                            << QStringLiteral("no evidence of a holder");
    // Issue 41: go-redis/redis_rate's GCRA keeps a theoretical arrival time, a decimal number of seconds.
    // (Before: short-value-lock, a mutex owned by "313335151.34025902".)
    QTest::newRow("GCRA arrival time") << QByteArray("rate:lock-api:10.1.2.3")
                                       << QByteArray("313335151.34025902") << LockKind::Named
                                       << QStringLiteral("a decimal number");
    QTest::newRow("a score") << QByteArray("mutex:login:latency") << QByteArray("-0.25") << LockKind::Named
                             << QStringLiteral("not an owner");
    // ts-safe-redis-leader's value: no token (a space in it), but a sha1 after a word is no word either.
    QTest::newRow("an id after a word")
        << QByteArray("leader:lock:mailer") << QByteArray("leader: f64766f8adf56865f28fdc4747377fd084187e65")
        << LockKind::Mutex << QStringLiteral("mixes letters and digits as owner ids do");
}

void TestLockClassifier::aLockWordIsNoHolder()
{
    QFETCH(QByteArray, key);
    QFETCH(QByteArray, value);
    QFETCH(LockKind, kind);
    QFETCH(QString, reasonPart);
    ScanOptions options;
    QVERIFY(options.isLockNamed(key));
    LockRecord r = classify(stringKey(key, value, 3600 * 1000, true));
    QCOMPARE(r.kind, kind);
    QVERIFY2(r.reason.contains(reasonPart), qPrintable(r.reason));
    DiagnosticContext c;
    c.ttlThresholdMs = 10 * 60 * 1000;
    LockDiagnostics::diagnose(r, c);
    QVERIFY2(r.diagnoses.isEmpty(), qPrintable(r.diagnoses.value(0).code));
    // A word is shown as what it is, never as an owner beyond doubt; nor is an id no format reads.
    QVERIFY2(!r.reason.contains(QLatin1String("is a word")) || !OwnerEvidence::isOwnerLike(value),
             qPrintable(r.reason));
    for (const LockOwner &o : std::as_const(r.owners))
        QVERIFY2(o.note.contains(QLatin1String("not evidence of a holder"))
                     || o.note.contains(QLatin1String("no format reads it as one")),
                 qPrintable(o.note));
    // An owner-like value under the same name still is a lock that may alarm.
    LockRecord owned = classify(stringKey(key, "worker-7:4711", 3600 * 1000, true));
    QCOMPARE(owned.kind, LockKind::Mutex);
    LockDiagnostics::diagnose(owned, c);
    QVERIFY(owned.hasDiagnosis(QStringLiteral("ttl-above-threshold")));
}

// Issue 41: a lease sorted set (member → deadline in Unix seconds) is read as leases. RQ's
// StartedJobRegistry by its name, each job with its deadline (one long past: its worker stopped
// heartbeating; "+inf" for a job without a timeout is no time); any other zset of job ids scored with
// deadlines near now as a possible lease set, in seconds or in ms. Nothing is alarmed on. (Before: "a zset …
// fits no lock format", or not listed.)
void TestLockClassifier::leaseSetsAreReadAsLeases()
{
    const double now = std::floor(double(QDateTime::currentMSecsSinceEpoch()) / 1000.0); // whole seconds
    LockRecord rq = classify(zsetKey("rq:wip:default", -1,
                                     {{"0b8a7c1e-1f5d-4b4e-9a53-2b7f0c3e9d11", now - 600},
                                      {"6f1d2c3b-4a5e-4f60-8b7c-9d0e1f2a3b4c", now + 90},
                                      {"report-2026-12", std::numeric_limits<double>::infinity()}}));
    QCOMPARE(rq.format, QStringLiteral("rq-started-registry"));
    QCOMPARE(rq.kind, LockKind::JobLock);
    QVERIFY(rq.certain);
    QCOMPARE(rq.job.queue, QStringLiteral("default"));
    QCOMPARE(rq.owners.size(), 3);
    QCOMPARE(rq.owners.at(1).untilEpochMs, qint64(now + 90) * 1000);
    QCOMPARE(rq.owners.at(2).untilEpochMs, qint64(-1));
    DiagnosticContext c;
    c.nowEpochMs = qint64(now * 1000);
    LockDiagnostics::diagnose(rq, c);
    QVERIFY2(rq.diagnoses.isEmpty(), qPrintable(rq.diagnoses.value(0).code));
    QVERIFY2(rq.owners.at(0).note.startsWith(QLatin1String("expired 10 min")),
             qPrintable(rq.owners.at(0).note));
    QVERIFY(rq.owners.at(1).note.isEmpty());

    for (const bool ms : {false, true}) {
        const double unit = ms ? 1000.0 : 1.0;
        // 30 s leases, one just lapsed: in ms, no semaphore's "taken at" times (those are past).
        ScannedKey k = zsetKey("worker-pool:leases", -1,
                               {{"3f0c9a4e-8b1d-4c7e-9a2f-5d6e7f8a9b0c", (now - 5) * unit},
                                {"9c1f2e3d4a5b6c7d8e9f0a1b2c3d4e5f", (now + 30) * unit}});
        k.lockNamed = true; // "leases" is a lock word
        LockRecord r = classify(k);
        QCOMPARE(r.format, ms ? QStringLiteral("lease-set-ms") : QStringLiteral("lease-set-s"));
        QCOMPARE(r.kind, LockKind::JobLock);
        QVERIFY(!r.certain);
        QVERIFY2(r.reason.contains(QLatin1String("named like a lock; only its data says lease"))
                     && r.reason.contains(ms ? QLatin1String("milliseconds") : QLatin1String("seconds")),
                 qPrintable(r.reason));
        QVERIFY2(!r.reason.contains(QLatin1String("no word in its name")), qPrintable(r.reason));
        QCOMPARE(r.owners.value(1).untilEpochMs, qint64((now + 30) * 1000));
        LockDiagnostics::diagnose(r, c);
        QVERIFY2(r.diagnoses.isEmpty(), qPrintable(r.diagnoses.value(0).code));
        k.key = "tasks:in-flight";
        k.lockNamed = false;
        const LockRecord bare = classify(k);
        QCOMPARE(bare.kind, LockKind::JobLock);
        QVERIFY2(!bare.reason.contains(QLatin1String("named like a lock")), qPrintable(bare.reason));
    }
}

// Issue 41: zsets with the same members but other scores are no lease sets: a leaderboard, a rate limiter's
// window (past times only), a results registry whose deadlines are a year away, a delayed-job queue whose
// name says so (its run-at times look like deadlines), ids that are words.
void TestLockClassifier::notLeaseSets_data()
{
    const double now = double(QDateTime::currentMSecsSinceEpoch()) / 1000.0;
    const QByteArray a = "3f0c9a4e-8b1d-4c7e-9a2f-5d6e7f8a9b0c", b = "9c1f2e3d4a5b6c7d8e9f0a1b2c3d4e5f";
    QTest::addColumn<QByteArray>("key");
    QTest::addColumn<double>("first");
    QTest::addColumn<double>("second");
    QTest::addColumn<QByteArray>("member");
    QTest::newRow("leaderboard") << QByteArray("game:top") << 1200.0 << 950.0 << a;
    QTest::newRow("limiter window, s") << QByteArray("api:hits:10.1.2.3") << now - 30 << now - 2 << a;
    QTest::newRow("limiter window, ms") << QByteArray("api:hits:10.1.2.3") << (now - 30) * 1000
                                        << (now - 2) * 1000 << a;
    QTest::newRow("failed registry") << QByteArray("rq:failed:default") << now + 365 * 86400.0
                                     << now + 365 * 86400.0 << a;
    QTest::newRow("scheduled registry") << QByteArray("rq:scheduled:default") << now + 60 << now + 120 << a;
    QTest::newRow("finished registry") << QByteArray("rq:finished:default") << now + 500 << now + 400 << a;
    QTest::newRow("delayed jobs") << QByteArray("mail:delayed") << (now + 60) * 1000 << (now + 90) * 1000
                                  << a;
    QTest::newRow("words") << QByteArray("people") << now + 60 << now + 90
                           << QByteArray("alice-the-first-user");
    Q_UNUSED(b)
}

void TestLockClassifier::notLeaseSets()
{
    QFETCH(QByteArray, key);
    QFETCH(double, first);
    QFETCH(double, second);
    QFETCH(QByteArray, member);
    const LockRecord r
        = classify(zsetKey(key, -1, {{member, first}, {"9c1f2e3d4a5b6c7d8e9f0a1b2c3d4e5f", second}}));
    QVERIFY2(!r.format.startsWith(QLatin1String("lease-set")) && r.kind != LockKind::JobLock,
             qPrintable(r.format + u' ' + r.reason));
}

// Issue 41: a job queue's zsets hold job ids scored with past times in ms (BullMQ's completed set with uuid
// job ids, arq's queue): the shape of a semaphore's holders, but their names say queue. (Before:
// token-holder-semaphore, "3 permits taken".)
void TestLockClassifier::aJobQueueIsNoSemaphore()
{
    const double now = double(QDateTime::currentMSecsSinceEpoch());
    const QList<QPair<QByteArray, double>> jobs {{"b9cdb6c7-51e8-4094-a5e1-ae1822ea8f38", now - 3000},
                                                 {"5fe52279-fcae-4625-832d-820fab8bd72d", now - 2000}};
    for (const QByteArray &key :
         {QByteArrayLiteral("bull:send-invoice:completed"), QByteArrayLiteral("bull:send-invoice:failed"),
          QByteArrayLiteral("arq:queue"), QByteArrayLiteral("jobs:active")}) {
        const LockRecord r = classify(zsetKey(key, -1, jobs));
        QVERIFY2(r.kind != LockKind::Semaphore, qPrintable(QString::fromUtf8(key) + u' ' + r.format));
    }
    // The same holders under a name that says nothing else still are a semaphore's.
    QCOMPARE(classify(zsetKey("reports:export-slots", 8000, jobs)).kind, LockKind::Semaphore);
}

// Issue 31, labels by chance: a random token is labelled by its alphabet and length, whether or not a digit
// happened to appear in it. (Before: the digit-less ones were "a short printable value (a name, a flag)".)
// Lengths no named format claims (22 and 24 characters are bsm/redislock's and go-redsync's).
void TestLockClassifier::randomTokensAreLabelledByTheirAlphabet_data()
{
    QTest::addColumn<QByteArray>("value");
    QTest::addColumn<QString>("label");
    QTest::newRow("base64url, digits") << QByteArray("xgg_WT2t7z043yEXdfW8-wLq9P")
                                       << QStringLiteral("26 base64url characters");
    QTest::newRow("base64url, no digit") << QByteArray("xgg_WTtzyEXdfWrw-QkPmAhJsN")
                                         << QStringLiteral("26 base64url characters");
    QTest::newRow("base62, digits") << QByteArray("37nRrJbHMIiv9I7lNLzI1QaZ4k")
                                    << QStringLiteral("26 letters and digits");
    QTest::newRow("base62, no digit") << QByteArray("ybsNeepliOblRabTubgKqZhWcd")
                                      << QStringLiteral("26 letters and digits");
    QTest::newRow("base64, padded") << QByteArray("deBKqas0yRUxGlYFzjONkAbCdE==")
                                    << QStringLiteral("26 letters and digits");
    QTest::newRow("base64 with + and /") << QByteArray("d5amAYuK+pZYXHeA/TanDwQrSt==")
                                         << QStringLiteral("26 base64 characters");
    QTest::newRow("hex, 40") << QByteArray("99650f53a99e0e3fabd5fd2945d384f1c536306e")
                             << QStringLiteral("40 hex characters (about 20 bytes)");
}

void TestLockClassifier::randomTokensAreLabelledByTheirAlphabet()
{
    QFETCH(QByteArray, value);
    QFETCH(QString, label);
    const LockRecord r = classify(stringKey("jobs:lock:nightly", value));
    QCOMPARE(r.kind, LockKind::Mutex);
    QCOMPARE(r.format, QStringLiteral("token-lock"));
    QVERIFY2(r.reason.contains(QStringLiteral("a random token of ")) && r.reason.contains(label),
             qPrintable(r.reason));
    QVERIFY2(!r.reason.contains(QStringLiteral("short printable")), qPrintable(r.reason));
    QCOMPARE(r.owners.value(0).id, value);
    // Words, slugs and names are no random tokens.
    for (const char *word : {"feature-flag-rendering", "HelloWorldThisIsMyName", "production_database",
                             "ABCDEFGHIJKLMNOPQRSTUV", "aaaaaaaaaaaaaaaaaaaaaaaa0"})
        QVERIFY2(OwnerEvidence::randomTokenAlphabet(word).isEmpty(), word);
}

// Issue 31, locks not listed: sherlock's uuid4 under '<namespace>_<name>' or a bare name, rueidislock's 24
// raw random bytes under 'rueidislock:<i>:<name>': no lock word, only a random id that expires. Listed as a
// possible lease (never certain, never alarmed on: a session id looks the same), unless the name says what
// else it is. (Before: not listed at all, so a watch could never see them renewed.)
void TestLockClassifier::aRandomIdThatExpiresIsAPossibleLease_data()
{
    QTest::addColumn<QByteArray>("key");
    QTest::addColumn<QByteArray>("value");
    QTest::addColumn<qint64>("pttl");
    QTest::addColumn<bool>("listed");
    const QByteArray uuid4 = "3f0c9a4e-8b1d-4c7e-9a2f-5d6e7f8a9b0c";
    const QByteArray raw = QByteArray::fromHex("9c1be47f03a2d85e6b10f4c7293ae8d15f06b7c4e2a9013d");
    QTest::newRow("uuid4, namespaced") << QByteArray("billing_invoices") << uuid4 << qint64(600000) << true;
    QTest::newRow("uuid4, bare name") << QByteArray("nightly-report") << uuid4 << qint64(600000) << true;
    QTest::newRow("raw random bytes") << QByteArray("rueidislock:0:billing") << raw << qint64(6000) << true;
    QTest::newRow("base64url token") << QByteArray("jobs/reindex") << QByteArray("xgg_WTtzyEXdfWrw-QkPmAhJsN")
                                     << qint64(30000) << true;
    QTest::newRow("no TTL: an id, not a lease")
        << QByteArray("nightly-report") << uuid4 << qint64(-1) << false;
    QTest::newRow("a session's name") << QByteArray("sid:3f0c9a4e") << uuid4 << qint64(1800000) << false;
    QTest::newRow("a session's name, camel case")
        << QByteArray("userSession:42") << uuid4 << qint64(1800000) << false;
    QTest::newRow("a nonce") << QByteArray("oauth:state:7") << QByteArray("xgg_WTtzyEXdfWrw-QkPmAhJsN")
                             << qint64(300000) << false;
    QTest::newRow("a cache entry") << QByteArray("cache:user:7") << raw << qint64(60000) << false;
    QTest::newRow("a word") << QByteArray("feature") << QByteArray("production_database") << qint64(60000)
                            << false;
}

void TestLockClassifier::aRandomIdThatExpiresIsAPossibleLease()
{
    QFETCH(QByteArray, key);
    QFETCH(QByteArray, value);
    QFETCH(qint64, pttl);
    QFETCH(bool, listed);
    LockRecord r = classify(stringKey(key, value, pttl, false));
    if (!listed) {
        QCOMPARE(r.kind, LockKind::None);
        return;
    }
    QCOMPARE(r.kind, LockKind::Mutex);
    QCOMPARE(r.format, QStringLiteral("random-id-lease"));
    QVERIFY(!r.certain);
    QVERIFY(r.library.startsWith(QLatin1String("unknown")));
    QCOMPARE(r.owners.value(0).id, value);
    QCOMPARE(r.pttlMs, pttl);
    // The note says what the listing rests on, and what else such a key may be.
    QVERIFY2(r.formatNote.contains(QLatin1String("session id")), qPrintable(r.formatNote));
    QVERIFY2(r.reason.contains(QLatin1String("a random token of")) || r.reason.contains(QLatin1String("uuid"))
                 || r.reason.contains(QLatin1String("random bytes")),
             qPrintable(r.reason));
    // Never alarmed on from a scan, however long its TTL.
    DiagnosticContext c;
    c.ttlThresholdMs = 1000;
    LockDiagnostics::diagnose(r, c);
    QVERIFY(r.diagnoses.isEmpty());
}

void TestLockClassifier::rawRandomBytes_data()
{
    QTest::addColumn<QByteArray>("value");
    QTest::addColumn<bool>("random");
    // Three draws of os.urandom / crypto/rand, of the lengths libraries use.
    QTest::newRow("16 random bytes") << QByteArray::fromHex("5be1f2a09d4c38e7106fa2b3c4d59e81") << true;
    QTest::newRow("24 random bytes") << QByteArray::fromHex(
        "9c1be47f03a2d85e6b10f4c7293ae8d15f06b7c4e2a9013d")
                                     << true;
    QTest::newRow("32 random bytes") << QByteArray::fromHex(
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
                                     << true;
    // What small binary values usually are instead.
    QTest::newRow("a pickle") << QByteArray(
        "\x80\x04\x95\x0f\x00\x00\x00\x00\x00\x00\x00}\x94\x8c\x02id\x94K\x07s.", 22)
                              << false;
    QTest::newRow("zlib") << QByteArray::fromHex("789c2b492d2e51c8482cce5048cbcc49550400432c06e2") << false;
    QTest::newRow("zero padded") << QByteArray::fromHex("0100000000000000020000000000000003000000") << false;
    QTest::newRow("msgpack map") << QByteArray::fromHex("82a46e616d65a6776f726b6572a3706964cd1267") << false;
    QTest::newRow("utf-8 text") << QStringLiteral("分布式锁的持有者是谁").toUtf8() << false;
    QTest::newRow("too short") << QByteArray::fromHex("9c1be47f03a2d85e") << false;
    QTest::newRow("printable") << QByteArray("xgg_WTtzyEXdfWrw-QkPmAhJsN") << false;
}

void TestLockClassifier::rawRandomBytes()
{
    QFETCH(QByteArray, value);
    QFETCH(bool, random);
    QCOMPARE(OwnerEvidence::isRandomBytes(value), random);
    if (!random)
        return;
    QVERIFY(OwnerEvidence::isRandomId(value));
    const LockRecord r = classify(stringKey("jobs/reindex", value, 5000, false));
    QCOMPARE(r.format, QStringLiteral("random-id-lease"));
    // Shown as hex, the way its library prints it, and described as bytes, not as text.
    QCOMPARE(r.owners.value(0).display, QString::fromLatin1(value.toHex()));
    QVERIFY2(r.reason.contains(QStringLiteral("%1 random bytes").arg(value.size())), qPrintable(r.reason));
}

// Issue 31: rueidislock's lock on three keys holds one value of 24 raw random bytes with one TTL: one lock on
// several resources, as a text token is. (Before: no key listed.)
void TestLockClassifier::oneBinaryTokenOnSeveralKeysIsOneLock()
{
    const QByteArray raw = QByteArray::fromHex("9c1be47f03a2d85e6b10f4c7293ae8d15f06b7c4e2a9013d");
    QList<ScannedKey> keys;
    for (const char *key : {"rueidislock:0:orders", "rueidislock:1:orders", "rueidislock:2:orders"}) {
        ScannedKey k = stringKey(key, raw, 5000, false);
        k.readAtMs = 1000000;
        keys << k;
    }
    LockAssembler a {ScanOptions {}};
    const QList<LockRecord> out = a.add(keys, 0);
    QCOMPARE(out.size(), 1);
    const LockRecord &r = out.first();
    QCOMPARE(r.key, QByteArray("rueidislock:0:orders"));
    QCOMPARE(r.groupKeys, (QList<QByteArray> {"rueidislock:1:orders", "rueidislock:2:orders"}));
    QCOMPARE(r.format, QStringLiteral("shared-token-lock"));
    QCOMPARE(r.owners.value(0).display, QString::fromLatin1(raw.toHex()));
    QVERIFY(r.diagnoses.isEmpty());
}

// Issue 41, point 1: a dead process's lock:… holding 32 random bytes and no TTL was listed as "named … fits no
// lock format: nothing is alarmed on", while its twin with a TTL was a mutex. Both are mutexes owned by the
// random id; the one without a TTL is stuck, and its no-ttl says what that rests on.
void TestLockClassifier::aStuckLockOfRandomBytesIsALock_data()
{
    QTest::addColumn<QByteArray>("key");
    QTest::addColumn<QByteArray>("value");
    QTest::addColumn<QString>("format");
    QTest::addColumn<QString>("shape");
    // os.urandom(32), os.urandom(16) and crypto/rand's 24 bytes, as drawn once.
    const QByteArray raw32 = QByteArray::fromHex("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    const QByteArray raw16 = QByteArray::fromHex("5be1f2a09d4c38e7106fa2b3c4d59e81");
    const QByteArray raw24 = QByteArray::fromHex("9c1be47f03a2d85e6b10f4c7293ae8d15f06b7c4e2a9013d");
    QTest::newRow("32 random bytes") << QByteArray("lock:report-builder") << raw32
                                     << QStringLiteral("random-id-lock") << QStringLiteral("32 random bytes");
    QTest::newRow("16 random bytes, locks:") << QByteArray("locks:nightly") << raw16
                                             << QStringLiteral("random-id-lock") << QStringLiteral("16 random bytes");
    QTest::newRow("24 random bytes") << QByteArray("billing:mutex") << raw24 << QStringLiteral("random-id-lock")
                                     << QStringLiteral("24 random bytes");
    // A token-like draw was already a token lock; it stays one, with the same no-ttl.
    QTest::newRow("base64url token") << QByteArray("lock:report-builder") << QByteArray("xgg_WTtzyEXdfWrw-QkPmAhJsN")
                                     << QStringLiteral("token-lock") << QStringLiteral("a random token of 26");
}

void TestLockClassifier::aStuckLockOfRandomBytesIsALock()
{
    QFETCH(QByteArray, key);
    QFETCH(QByteArray, value);
    QFETCH(QString, format);
    QFETCH(QString, shape);
    ScanOptions options;
    QVERIFY(options.isLockNamed(key));
    LockRecord stuck = classify(stringKey(key, value, -1, true));
    QCOMPARE(stuck.kind, LockKind::Mutex);
    QCOMPARE(stuck.format, format);
    QCOMPARE(stuck.owners.value(0).id, value);
    QVERIFY2(!stuck.reason.contains(QLatin1String("fits no lock format")), qPrintable(stuck.reason));
    QVERIFY2(stuck.reason.contains(QLatin1String("named like a lock")), qPrintable(stuck.reason));
    LockDiagnostics::diagnose(stuck, DiagnosticContext {});
    QCOMPARE(stuck.diagnoses.value(0).code, QStringLiteral("no-ttl"));
    // The evidence names what the diagnosis rests on: the reading, the name, the value's shape.
    const QString evidence = stuck.diagnoses.value(0).evidence;
    QVERIFY2(evidence.contains(QLatin1String("PTTL -1")), qPrintable(evidence));
    QVERIFY2(evidence.contains(QString::fromUtf8(key)), qPrintable(evidence));
    QVERIFY2(evidence.contains(shape), qPrintable(evidence));

    // Its twin with a TTL: the same lock, nothing stuck.
    LockRecord live = classify(stringKey(key, value, 30000, true));
    QCOMPARE(live.kind, LockKind::Mutex);
    QCOMPARE(live.format, format);
    LockDiagnostics::diagnose(live, DiagnosticContext {});
    QVERIFY2(live.diagnoses.isEmpty(), qPrintable(live.diagnoses.value(0).code));

    // Under a name that says nothing, the same bytes without a TTL are no lock at all (an id, a hash, a
    // key's salt), and nothing is alarmed on.
    QCOMPARE(classify(stringKey("user:42:salt", value, -1, false)).kind, LockKind::None);
}

// Issue 41, point 2: a key named lock:… or locks:… was told "no word in its name says lock". Whatever format
// reads it, the reason agrees with its name and its value.
void TestLockClassifier::reasonsAgreeWithALockName_data()
{
    QTest::addColumn<QByteArray>("key");
    QTest::addColumn<QByteArray>("value");
    QTest::addColumn<qint64>("pttl");
    const QByteArray raw = QByteArray::fromHex("9c1be47f03a2d85e6b10f4c7293ae8d15f06b7c4e2a9013d");
    const QByteArray uuid4 = "3f0c9a4e-8b1d-4c7e-9a2f-5d6e7f8a9b0c";
    for (const char *key : {"lock:orders", "locks:orders", "orders:lock"}) {
        QTest::addRow("%s, random bytes, TTL", key) << QByteArray(key) << raw << qint64(900000);
        QTest::addRow("%s, random bytes, no TTL", key) << QByteArray(key) << raw << qint64(-1);
        QTest::addRow("%s, uuid", key) << QByteArray(key) << uuid4 << qint64(900000);
        QTest::addRow("%s, base64url", key) << QByteArray(key) << QByteArray("xgg_WTtzyEXdfWrw-QkPmAhJsN")
                                            << qint64(30000);
        QTest::addRow("%s, a word", key) << QByteArray(key) << QByteArray("production") << qint64(30000);
    }
}

void TestLockClassifier::reasonsAgreeWithALockName()
{
    QFETCH(QByteArray, key);
    QFETCH(QByteArray, value);
    QFETCH(qint64, pttl);
    const LockRecord r = classify(stringKey(key, value, pttl, true));
    QVERIFY(r.isLock());
    QVERIFY2(!r.reason.contains(QLatin1String("no word in its name")), qPrintable(r.reason));
    QVERIFY2(r.reason.contains(QLatin1String("named like a lock")) || r.reason.contains(QLatin1String("its name")),
             qPrintable(r.reason));
    // A random value is described as random, never as a word.
    if (OwnerEvidence::isRandomId(value))
        QVERIFY2(!r.reason.contains(QLatin1String("is a word")), qPrintable(r.reason));
}

// Issue 41, point 3: ttl-above-threshold depended on which format matched. It is one rule for every record
// decoded as a lock, whatever its kind and format (a library's own, a generic one, a random id under a lock
// name); a key that is no lock by what can be read (a possible lease under a name that says nothing, a rate
// limiter's counter, a word) gets no alarm, whatever its TTL.
void TestLockClassifier::aLongTtlIsOneRuleForEveryLock_data()
{
    QTest::addColumn<QByteArray>("key");
    QTest::addColumn<QByteArray>("value");
    QTest::addColumn<bool>("lockNamed");
    QTest::addColumn<QString>("format");
    QTest::addColumn<bool>("alarmed");
    const QByteArray uuid4 = "3f0c9a4e-8b1d-4c7e-9a2f-5d6e7f8a9b0c";
    const QByteArray raw = QByteArray::fromHex("9c1be47f03a2d85e6b10f4c7293ae8d15f06b7c4e2a9013d");
    QTest::newRow("uuid lock") << QByteArray("lock:orders") << uuid4 << true << QStringLiteral("uuid-lock") << true;
    QTest::newRow("random bytes under a lock name")
        << QByteArray("lock:orders") << raw << true << QStringLiteral("random-id-lock") << true;
    QTest::newRow("a token under a lock name") << QByteArray("orders:mutex") << QByteArray("WEB-PROD-03") << true
                                               << QStringLiteral("token-lock") << true;
    QTest::newRow("redis-py, any name") << QByteArray("resource") << SampleLocks::uuid1Hex() << false
                                        << QStringLiteral("redis-py-lock") << true;
    QTest::newRow("Bull job lock") << QByteArray("bull:emails:43:lock") << uuid4 << true
                                   << QStringLiteral("bull-job-lock") << true;
    QTest::newRow("possible lease, a name that says nothing")
        << QByteArray("nightly-report") << uuid4 << false << QStringLiteral("random-id-lease") << false;
    QTest::newRow("a rate limiter's counter under a lock word")
        << QByteArray("throttle:password-lock:user-7") << QByteArray("4") << true << QString() << false;
    QTest::newRow("a word under a lock name") << QByteArray("lock:mode") << QByteArray("production") << true
                                              << QStringLiteral("short-value-lock") << false;
}

void TestLockClassifier::aLongTtlIsOneRuleForEveryLock()
{
    QFETCH(QByteArray, key);
    QFETCH(QByteArray, value);
    QFETCH(bool, lockNamed);
    QFETCH(QString, format);
    QFETCH(bool, alarmed);
    constexpr qint64 kFifteenMinutes = 15 * 60 * 1000;
    LockRecord r = classify(stringKey(key, value, kFifteenMinutes, lockNamed));
    QCOMPARE(r.format, format);
    DiagnosticContext c;
    c.ttlThresholdMs = 10 * 60 * 1000; // the default
    LockDiagnostics::diagnose(r, c);
    QCOMPARE(r.hasDiagnosis(QStringLiteral("ttl-above-threshold")), alarmed);
    QCOMPARE(LockDiagnostics::mayAlarm(r), alarmed); // the same rule that decides every alarm
    if (alarmed)
        QVERIFY2(r.diagnoses.constLast().evidence.contains(QLatin1String("PTTL 900000 ms")),
                 qPrintable(r.diagnoses.constLast().evidence));
    // Under the threshold, none of them.
    r = classify(stringKey(key, value, 60000, lockNamed));
    LockDiagnostics::diagnose(r, c);
    QVERIFY(!r.hasDiagnosis(QStringLiteral("ttl-above-threshold")));
}

void TestLockClassifier::nonIntegerCounts()
{
    const LockRecord r
        = classify(hashKey("order:9", {{kClient + ":1", "abc"}, {kClient + ":2", "-1"}, {"extra", "1"}}));
    QCOMPARE(r.kind, LockKind::Reentrant);
    const QString problems = r.problems.join(QStringLiteral(" | "));
    QVERIFY2(problems.contains(QLatin1String("'abc', not a positive integer")), qPrintable(problems));
    QVERIFY(problems.contains(QLatin1String("'-1'")));
    QVERIFY(problems.contains(QLatin1String("unexpected field 'extra'")));
    QVERIFY(problems.contains(QLatin1String("2 owners")));
    QCOMPARE(r.owners.first().count, -1);
}

void TestLockClassifier::unknownsStayUnknown()
{
    // PTTL refused (an ACL without it): the TTL is unknown, not "gone", and no-ttl is not judged.
    ScannedKey k = stringKey("lock:order:1", "0b7d3b1c-6a0f-4b8e-9d52-5c1d2f3e4a5b", -3);
    k.pttlError
        = QStringLiteral("PTTL refused: NOPERM this user has no permissions to run the 'pttl' command");
    LockRecord r = classify(k);
    QCOMPARE(r.pttlMs, LockRecord::kPttlUnknown);
    QVERIFY(r.unknownReason(QStringLiteral("pttl_ms")).contains(QLatin1String("NOPERM")));
    QVERIFY(r.isIncomplete());
    LockDiagnostics::diagnose(r, DiagnosticContext {});
    QVERIFY(!r.hasDiagnosis(QStringLiteral("no-ttl")));
    // A format that needs a TTL is not ruled out by a TTL nobody could read: sherlock's uuid under a bare
    // name is still a possible lease, its TTL unknown with why. (Before: not listed, as if it had none.)
    ScannedKey bare = stringKey("nightly-report", "3f0c9a4e-8b1d-4c7e-9a2f-5d6e7f8a9b0c", -3, false);
    bare.pttlError = k.pttlError;
    r = classify(bare);
    QCOMPARE(r.format, QStringLiteral("random-id-lease"));
    QCOMPARE(r.pttlMs, LockRecord::kPttlUnknown);
    QVERIFY(r.unknownReason(QStringLiteral("pttl_ms")).contains(QLatin1String("NOPERM")));
    // Known to have none, it is no lease.
    QCOMPARE(classify(stringKey("nightly-report", "3f0c9a4e-8b1d-4c7e-9a2f-5d6e7f8a9b0c", -1, false)).kind,
             LockKind::None);
    // A word under a lock name is a lock only by its TTL: unread, it stays named like a lock.
    ScannedKey word = stringKey("billing:lock:7", "x", -3, true);
    word.pttlError = k.pttlError;
    QCOMPARE(classify(word).kind, LockKind::Named);

    // PUBSUB NUMSUB refused: waiters unknown, not 0.
    ScannedKey h = hashKey("order:1", {{kClient + ":57", "1"}});
    h.channels = {"redisson_lock__channel:{order:1}"};
    h.channelsError = QStringLiteral("PUBSUB NUMSUB refused: NOPERM");
    r = classify(h);
    QCOMPARE(r.waiters(), -1);
    QVERIFY(r.unknownReason(QStringLiteral("waiters")).contains(QLatin1String("NOPERM")));
    QVERIFY(r.isIncomplete());
}

void TestLockClassifier::orphanQueue()
{
    ScannedKey k;
    k.key = "fair";
    k.type = "none";
    k.pttlMs = -2;
    k.plannedFormat = QStringLiteral("redisson-lock");
    k.companions
        = {companion(QStringLiteral("queue"), "redisson_lock_queue:{fair}", "list", {kClient + ":3"}),
           companion(QStringLiteral("deadlines"), "redisson_lock_timeout:{fair}", "zset", {kClient + ":3"},
                     {1})};
    const LockRecord r = classify(k);
    QCOMPARE(r.kind, LockKind::Fair);
    QVERIFY(!r.exists());
    QCOMPARE(r.queueLength, 1);
    k.companions.clear();
    QCOMPARE(classify(k).kind, LockKind::None);
}

void TestLockClassifier::uuid1Parsing()
{
    LockClassifier::Uuid1 u;
    // uuid1 of 2024-01-01T00:00:00Z (Python: uuid.UUID(hex=…).time → epoch 1704067200000) on node
    // 52:54:00:12:34:56.
    constexpr qint64 k2024 = 1704067200000;
    constexpr qint64 kDay = 24 * 3600 * 1000;
    QVERIFY(LockClassifier::parseUuid1Hex("b4cc8000a83811ee8000525400123456", &u, k2024 + kDay));
    QCOMPARE(u.epochMs, k2024);
    QCOMPARE(u.node, QStringLiteral("52:54:00:12:34:56"));
    QVERIFY(!LockClassifier::parseUuid1Hex("b4cc8000a83841ee8000525400123456")); // version 4
    QVERIFY(!LockClassifier::parseUuid1Hex("b4cc8000a83811ee0000525400123456")); // variant bits
    QVERIFY(!LockClassifier::parseUuid1Hex("B4CC8000A83811EE8000525400123456")); // upper case
    QVERIFY(!LockClassifier::parseUuid1Hex("00000000000010008000525400123456")); // 1582
    // Made within the ten years before now, or up to a day after (clocks disagree): a random token whose
    // digits happen to say "version 1" names any time from 1582 to 5236, and almost never a recent one.
    QVERIFY(LockClassifier::parseUuid1Hex("b4cc8000a83811ee8000525400123456", nullptr, k2024 + 3650 * kDay));
    QVERIFY(!LockClassifier::parseUuid1Hex("b4cc8000a83811ee8000525400123456", nullptr, k2024 + 3660 * kDay));
    QVERIFY(LockClassifier::parseUuid1Hex("b4cc8000a83811ee8000525400123456", nullptr, k2024 - kDay / 2));
    QVERIFY(!LockClassifier::parseUuid1Hex("b4cc8000a83811ee8000525400123456", nullptr, k2024 - 2 * kDay));
    QVERIFY(LockClassifier::parseUuid1Hex(SampleLocks::uuid1Hex(), &u));
    QVERIFY(qAbs(u.epochMs - QDateTime::currentMSecsSinceEpoch()) < 60000);
    QCOMPARE(u.node, QStringLiteral("random"));
}

void TestLockClassifier::randomInputNeverCrashes()
{
    // A cheap fuzz pass; the full fuzzer lives elsewhere. Every input gives a lock or not, with a reason.
    QRandomGenerator rng(20240601);
    const QList<QByteArray> types {"string", "hash", "list", "none", "zset", ""};
    for (int i = 0; i < 3000; ++i) {
        ScannedKey k;
        QByteArray key(int(rng.bounded(40)), Qt::Uninitialized);
        for (char &c : key)
            c = char(rng.bounded(256));
        if (rng.bounded(3) == 0)
            key = "bull:q:" + key + ":lock";
        k.key = key;
        k.type = types.at(rng.bounded(int(types.size())));
        k.pttlMs = qint64(rng.bounded(200000)) - 3;
        k.lockNamed = rng.bounded(2);
        QByteArray value(int(rng.bounded(300)), Qt::Uninitialized);
        for (char &c : value)
            c = char(rng.bounded(256));
        if (rng.bounded(4) == 0)
            value = "{\"o\":" + value + ",\"c\":" + QByteArray::number(rng.bounded(5)) + "}";
        k.value = value;
        k.valueLength = rng.bounded(2) ? value.size() : qint64(rng.bounded(5000));
        for (int f = int(rng.bounded(4)); f > 0; --f)
            k.fields.append(
                {rng.bounded(2) ? kClient + ':' + QByteArray::number(rng.bounded(99)) : value.left(9),
                 value.left(int(rng.bounded(4)))});
        k.fieldCount = k.fields.size() + rng.bounded(3);
        for (int m = int(rng.bounded(3)); m > 0; --m)
            k.members.append({value.left(int(rng.bounded(40))), double(rng.bounded(2000000000))});
        k.size = k.members.size() + rng.bounded(2);
        if (rng.bounded(2)) {
            k.plannedFormat = QStringLiteral("redisson-lock");
            k.companions = {companion(QStringLiteral("queue"), "q", "list", {value.left(10)}),
                            companion(QStringLiteral("token"), "t", "string", {value.left(4)})};
        }
        k.job.read = rng.bounded(2);
        k.job.fields = {value.left(3)};
        LockRecord r = classify(k);
        if (r.isLock())
            QVERIFY(!r.reason.isEmpty());
        LockDiagnostics::diagnose(r, DiagnosticContext {});
        r.ownerSummary();
    }
}

QTEST_GUILESS_MAIN(TestLockClassifier)
#include "tst_lockclassifier.moc"
