// LockClassifier without a server: every kind, the reasons it gives, and the bad input it must survive.
#include "inspect/lockclassifier.h"
#include "inspect/locknames.h"
#include "inspect/samplelocks.h"

#include <QRandomGenerator>
#include <QTest>

class TestLockClassifier : public QObject
{
    Q_OBJECT
private slots:
    void redissonReentrant();
    void redissonFairWithQueue();
    void redissonFenced();
    void redissonReadWrite();
    void redissonRwMalformed();
    void redissonLegacy();
    void redisPy();
    void redlockSingleAndGrouped();
    void tokens_data();
    void tokens();
    void notLocksWithoutALockName_data();
    void notLocksWithoutALockName();
    void unknownUnderALockName();
    void nonIntegerCounts();
    void emptyValue();
    void wrongTypes_data();
    void wrongTypes();
    void truncatedHash();
    void orphanQueue();
    void uuid1Parsing();
    void randomInputNeverCrashes();
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
    k.redisson.read = true;
    k.redisson.queueLength = 0;
    k.redisson.lockChannelSubscribers = 0;
    k.redisson.rwChannelSubscribers = 0;
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

} // namespace

void TestLockClassifier::redissonReentrant()
{
    ScannedKey k = hashKey("order:1", {{kClient + ":57", "2"}});
    k.redisson.lockChannelSubscribers = 3;
    const LockRecord r = LockClassifier::classify(k);
    QCOMPARE(r.kind, LockKind::RedissonReentrant);
    QCOMPARE(r.library, QStringLiteral("Redisson"));
    QVERIFY2(r.reason.contains(QLatin1String("<client uuid>:<thread id>")), qPrintable(r.reason));
    QCOMPARE(r.owners.size(), 1);
    QCOMPARE(r.owners.first().client, QString::fromLatin1(kClient));
    QCOMPARE(r.owners.first().thread, QStringLiteral("57"));
    QCOMPARE(r.owners.first().count, 2);
    QCOMPARE(r.subscribers, 3);
    QCOMPARE(r.waiters(), 3);
    QVERIFY(r.problems.isEmpty());
    QCOMPARE(r.pttlMs, 25000);
}

void TestLockClassifier::redissonFairWithQueue()
{
    ScannedKey k = hashKey("fair", {{kClient + ":1", "1"}});
    const QByteArray w1 = SampleLocks::redissonClientId() + ":7";
    const QByteArray w2 = SampleLocks::redissonClientId() + ":8";
    k.redisson.queueLength = 2;
    k.redisson.queue = {w1, w2};
    k.redisson.deadlines = {{w1, 1700000000000}, {w2, 1700000005000}};
    const LockRecord r = LockClassifier::classify(k);
    QCOMPARE(r.kind, LockKind::RedissonFair);
    QCOMPARE(r.queueLength, 2);
    QCOMPARE(r.queue.size(), 2);
    QCOMPARE(r.queue.at(0).id, w1); // FIFO order, head first
    QCOMPARE(r.queue.at(1).deadlineEpochMs, 1700000005000);
    QCOMPARE(r.waiters(), 2);
    QStringList companions;
    for (const LockCompanion &c : r.companions)
        companions << QString::fromLatin1(c.key);
    QVERIFY(companions.contains(QStringLiteral("redisson_lock_queue:{fair}")));
    QVERIFY(companions.contains(QStringLiteral("redisson_lock_timeout:{fair}")));
}

void TestLockClassifier::redissonFenced()
{
    ScannedKey k = hashKey("fence", {{kClient + ":9", "1"}});
    k.redisson.tokenPresent = true;
    k.redisson.token = "34";
    const LockRecord r = LockClassifier::classify(k);
    QCOMPARE(r.kind, LockKind::RedissonFenced);
    QVERIFY(r.hasFencingToken);
    QCOMPARE(r.fencingToken, 34);
    QVERIFY(r.problems.isEmpty());
    k.redisson.token = "x";
    QVERIFY(!LockClassifier::classify(k).problems.isEmpty());
}

void TestLockClassifier::redissonReadWrite()
{
    const QByteArray other = SampleLocks::redissonClientId();
    ScannedKey k = hashKey("doc", {{"mode", "read"}, {kClient + ":1", "2"}, {other + ":5", "1"}});
    k.redisson.rwChannelSubscribers = 1;
    LockRecord r = LockClassifier::classify(k);
    QCOMPARE(r.kind, LockKind::RedissonRw);
    QCOMPARE(r.rwMode, QStringLiteral("read"));
    QCOMPARE(r.owners.size(), 2);
    QCOMPARE(r.owners.at(0).mode, QStringLiteral("read"));
    QCOMPARE(r.subscribers, 1);
    QVERIFY(r.problems.isEmpty());
    QCOMPARE(r.ownerSummary(), QStringLiteral("2 readers"));
    // The reader with two holds has two timeout keys, named as Redisson names them.
    int timeouts = 0;
    for (const LockCompanion &c : r.companions)
        timeouts += c.role == LockCompanion::Role::ReadTimeout;
    QCOMPARE(timeouts, 3);
    QVERIFY(std::any_of(r.companions.cbegin(), r.companions.cend(), [&](const LockCompanion &c) {
        return c.key == "{doc}:" + kClient + ":1:rwlock_timeout:2";
    }));

    k = hashKey("doc", {{"mode", "write"}, {kClient + ":1:write", "1"}});
    r = LockClassifier::classify(k);
    QCOMPARE(r.kind, LockKind::RedissonRw);
    QCOMPARE(r.owners.first().mode, QStringLiteral("write"));
    QCOMPARE(r.owners.first().thread, QStringLiteral("1"));
    QVERIFY(r.problems.isEmpty());
}

void TestLockClassifier::redissonRwMalformed()
{
    LockRecord r = LockClassifier::classify(hashKey("doc", {{"mode", "write"}, {kClient + ":1", "1"}}));
    QCOMPARE(r.kind, LockKind::RedissonRw);
    QVERIFY2(r.problems.join(u' ').contains(QLatin1String("no ':write' holder")),
             qPrintable(r.problems.join(u' ')));
    r = LockClassifier::classify(hashKey("doc", {{"mode", "banana"}, {kClient + ":1", "1"}}));
    QVERIFY(r.problems.join(u' ').contains(QLatin1String("neither 'read' nor 'write'")));
    r = LockClassifier::classify(hashKey("doc", {{"mode", "read"}}));
    QVERIFY(r.problems.join(u' ').contains(QLatin1String("nobody holds it")));
}

void TestLockClassifier::redissonLegacy()
{
    const LockRecord r = LockClassifier::classify(
        stringKey("legacy", "{\"o\":\"" + kClient + "-12\",\"c\":3}", 30000, false));
    QCOMPARE(r.kind, LockKind::RedissonLegacy);
    QCOMPARE(r.owners.first().client, QString::fromLatin1(kClient));
    QCOMPARE(r.owners.first().thread, QStringLiteral("12"));
    QCOMPARE(r.owners.first().count, 3);
    const LockRecord bad = LockClassifier::classify(stringKey("legacy", "{\"o\":\"x\",\"c\":\"many\"}"));
    QCOMPARE(bad.kind, LockKind::RedissonLegacy);
    QCOMPARE(bad.problems.size(), 2);
}

void TestLockClassifier::redisPy()
{
    const QByteArray token = SampleLocks::uuid1Hex();
    const LockRecord r = LockClassifier::classify(stringKey("resource", token, -1, false));
    QCOMPARE(r.kind, LockKind::RedisPy);
    QCOMPARE(r.library, QStringLiteral("redis-py (probable)"));
    QVERIFY2(r.owners.first().note.contains(QLatin1String("uuid1 made")), qPrintable(r.owners.first().note));
    QCOMPARE(r.owners.first().id, token);
}

void TestLockClassifier::redlockSingleAndGrouped()
{
    QByteArray value;
    do
        value = SampleLocks::randomHex32();
    while (
        LockClassifier::parseUuid1Hex(value)); // a random value that happens to be a valid uuid1 is redis-py
    LockRecord r = LockClassifier::classify(stringKey("account:1", value, 10000, false));
    QCOMPARE(r.kind, LockKind::Redlock);
    QVERIFY(r.reason.contains(QLatin1String("32 random hex")));
    // Without a TTL and without a lock name, 32 hex is more likely a digest than a redlock lock.
    QCOMPARE(LockClassifier::classify(stringKey("account:1", value, -1, false)).kind, LockKind::None);

    ScannedKey k = stringKey("account:1", value, 10000, false);
    k.sameValueKeys = {"account:2", "account:3"};
    r = LockClassifier::classify(k);
    QCOMPARE(r.kind, LockKind::Redlock);
    QCOMPARE(r.groupKeys, k.sameValueKeys);
    QVERIFY2(r.reason.contains(QLatin1String("on 3 keys")), qPrintable(r.reason));
    // Even a uuid1-looking value shared by several keys is a multi-resource lock.
    k.value = SampleLocks::uuid1Hex();
    QCOMPARE(LockClassifier::classify(k).kind, LockKind::Redlock);
}

void TestLockClassifier::tokens_data()
{
    QTest::addColumn<QByteArray>("value");
    QTest::addColumn<QString>("reasonPart");
    QTest::addColumn<QString>("thread");
    QTest::newRow("uuid") << QByteArray("0b7d3b1c-6a0f-4b8e-9d52-5c1d2f3e4a5b") << QStringLiteral("UUID")
                          << QString();
    QTest::newRow("uuid:thread") << QByteArray("0b7d3b1c-6a0f-4b8e-9d52-5c1d2f3e4a5b:77")
                                 << QStringLiteral("<uuid>:<thread id>") << QStringLiteral("77");
    QTest::newRow("thread id") << QByteArray("140234") << QStringLiteral("thread id or snowflake")
                               << QString();
    QTest::newRow("snowflake") << QByteArray("1790463512348672000") << QStringLiteral("snowflake")
                               << QString();
    QTest::newRow("lockValue") << QByteArray("lockValue") << QStringLiteral("literal 'lockValue'")
                               << QString();
    QTest::newRow("other") << QByteArray("worker-3@host") << QStringLiteral("no known library") << QString();
    QTest::newRow("binary") << QByteArray("\xac\xed\x00\x05t\x00\x03"
                                          "abc",
                                          10)
                            << QStringLiteral("binary") << QString();
}

void TestLockClassifier::tokens()
{
    QFETCH(QByteArray, value);
    QFETCH(QString, reasonPart);
    QFETCH(QString, thread);
    const LockRecord r = LockClassifier::classify(stringKey("lock:stock", value));
    QCOMPARE(r.kind, LockKind::Token);
    QVERIFY2(r.reason.contains(reasonPart), qPrintable(r.reason));
    QCOMPARE(r.owners.first().id, value);
    QCOMPARE(r.owners.first().thread, thread);
}

void TestLockClassifier::notLocksWithoutALockName_data()
{
    QTest::addColumn<QByteArray>("value");
    QTest::newRow("uuid") << QByteArray("0b7d3b1c-6a0f-4b8e-9d52-5c1d2f3e4a5b");
    QTest::newRow("number") << QByteArray("42");
    QTest::newRow("text") << QByteArray("hello world");
    QTest::newRow("empty") << QByteArray();
    QTest::newRow("json") << QByteArray("{\"a\":1}");
}

void TestLockClassifier::notLocksWithoutALockName()
{
    QFETCH(QByteArray, value);
    QCOMPARE(LockClassifier::classify(stringKey("user:1", value, 5000, false)).kind, LockKind::None);
    // lockValue is the one literal recognised anywhere.
    QCOMPARE(LockClassifier::classify(stringKey("user:1", "lockValue", 5000, false)).kind, LockKind::Token);
    QCOMPARE(LockClassifier::classify(hashKey("user:1", {{"name", "x"}})).kind, LockKind::None);
}

void TestLockClassifier::unknownUnderALockName()
{
    ScannedKey k = hashKey("lock:cfg", {{"name", "x"}, {"owner", "y"}});
    k.lockNamed = true;
    const LockRecord r = LockClassifier::classify(k);
    QCOMPARE(r.kind, LockKind::Unknown);
    QVERIFY2(r.reason.contains(QLatin1String("'name'")), qPrintable(r.reason));
    const LockRecord big = LockClassifier::classify(stringKey("lock:blob", QByteArray(300, 'x')));
    QCOMPARE(big.kind, LockKind::Unknown);
    QVERIFY(big.reason.contains(QLatin1String("300 bytes")));
}

void TestLockClassifier::nonIntegerCounts()
{
    const LockRecord r = LockClassifier::classify(
        hashKey("order:9", {{kClient + ":1", "abc"}, {kClient + ":2", "-1"}, {"extra", "1"}}));
    QCOMPARE(r.kind, LockKind::RedissonReentrant);
    const QString problems = r.problems.join(QStringLiteral(" | "));
    QVERIFY2(problems.contains(QLatin1String("'abc', not a positive integer")), qPrintable(problems));
    QVERIFY(problems.contains(QLatin1String("'-1'")));
    QVERIFY(problems.contains(QLatin1String("unexpected field 'extra'")));
    QVERIFY(problems.contains(QLatin1String("2 owners")));
    QCOMPARE(r.owners.first().count, -1);
}

void TestLockClassifier::emptyValue()
{
    const LockRecord r = LockClassifier::classify(stringKey("lock:empty", QByteArray()));
    QCOMPARE(r.kind, LockKind::Unknown);
    QVERIFY(r.reason.contains(QLatin1String("empty")));
    QCOMPARE(r.problems.size(), 1);
}

void TestLockClassifier::wrongTypes_data()
{
    QTest::addColumn<QByteArray>("type");
    QTest::addColumn<QString>("text");
    QTest::newRow("list") << QByteArray("list") << QStringLiteral("a list of 3 entries");
    QTest::newRow("set") << QByteArray("set") << QStringLiteral("a set of 3 members");
    QTest::newRow("zset") << QByteArray("zset") << QStringLiteral("a zset of 3 members");
    QTest::newRow("stream") << QByteArray("stream") << QStringLiteral("a stream of 3 entries");
}

void TestLockClassifier::wrongTypes()
{
    QFETCH(QByteArray, type);
    QFETCH(QString, text);
    ScannedKey k;
    k.key = "lock:wrong";
    k.type = type;
    k.pttlMs = -1;
    k.size = 3;
    k.lockNamed = true;
    const LockRecord r = LockClassifier::classify(k);
    QCOMPARE(r.kind, LockKind::Unknown);
    QVERIFY2(r.reason.startsWith(text), qPrintable(r.reason));
    k.lockNamed = false;
    QCOMPARE(LockClassifier::classify(k).kind, LockKind::None);
}

void TestLockClassifier::truncatedHash()
{
    ScannedKey k = hashKey("lock:huge", {{"f1", "v"}, {"f2", "v"}});
    k.fieldCount = 1000000;
    k.lockNamed = true;
    const LockRecord r = LockClassifier::classify(k);
    QCOMPARE(r.kind, LockKind::Unknown);
    QVERIFY(r.isTruncated());
    QCOMPARE(r.fieldCount, 1000000);
}

void TestLockClassifier::orphanQueue()
{
    ScannedKey k;
    k.key = "fair";
    k.type = "none";
    k.pttlMs = -2;
    k.redisson.read = true;
    k.redisson.queueLength = 1;
    k.redisson.queue = {kClient + ":3"};
    k.redisson.deadlines = {{kClient + ":3", 1}};
    const LockRecord r = LockClassifier::classify(k);
    QCOMPARE(r.kind, LockKind::RedissonFair);
    QVERIFY(!r.exists());
    QCOMPARE(r.queueLength, 1);
    k.redisson.queueLength = 0;
    k.redisson.queue.clear();
    k.redisson.deadlines.clear();
    QCOMPARE(LockClassifier::classify(k).kind, LockKind::None);
}

void TestLockClassifier::uuid1Parsing()
{
    LockClassifier::Uuid1 u;
    // uuid1 of 2024-01-01T00:00:00Z (Python: uuid.UUID(hex=…).time → epoch 1704067200000) on node
    // 52:54:00:12:34:56.
    QVERIFY(LockClassifier::parseUuid1Hex("b4cc8000a83811ee8000525400123456", &u));
    QCOMPARE(u.epochMs, 1704067200000);
    QCOMPARE(u.node, QStringLiteral("52:54:00:12:34:56"));
    QVERIFY(!LockClassifier::parseUuid1Hex("b4cc8000a83841ee8000525400123456")); // version 4
    QVERIFY(!LockClassifier::parseUuid1Hex("b4cc8000a83811ee0000525400123456")); // variant bits
    QVERIFY(!LockClassifier::parseUuid1Hex("B4CC8000A83811EE8000525400123456")); // upper case
    QVERIFY(!LockClassifier::parseUuid1Hex("00000000000010008000525400123456")); // 1582
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
        k.key = key;
        k.type = types.at(rng.bounded(int(types.size())));
        k.pttlMs = qint64(rng.bounded(200000)) - 2;
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
        k.redisson.read = rng.bounded(2);
        k.redisson.queueLength = qint64(rng.bounded(4)) - 1;
        if (k.redisson.queueLength > 0)
            k.redisson.queue = {value.left(10)};
        const LockRecord r = LockClassifier::classify(k);
        if (r.isLock())
            QVERIFY(!r.reason.isEmpty());
    }
}

QTEST_GUILESS_MAIN(TestLockClassifier)
#include "tst_lockclassifier.moc"
