// ClusterSlot and ClusterSlotMap: CRC16 and hash tags against the specification's examples and against
// CLUSTER KEYSLOT of a real cluster-enabled redis-server; CLUSTER SLOTS parsing, including bad replies.
#include "redis/clusterslot.h"
#include "redis/clusterslotmap.h"
#include "redis/redisreply.h"
#include "testsupport.h"

#include <QRandomGenerator>

class TestClusterSlot : public QObject
{
    Q_OBJECT
private slots:
    void crc16MatchesTheXmodemCheckValue();
    void hashTags_data();
    void hashTags();
    void agreesWithClusterKeyslotOfARealServer();
    void parsesClusterSlots();
    void refusesAMalformedClusterSlotsReply();
    void assignMovesOneSlot();
};

void TestClusterSlot::crc16MatchesTheXmodemCheckValue()
{
    // The standard check value of CRC16/XMODEM, quoted by the Redis Cluster specification.
    QCOMPARE(ClusterSlot::crc16("123456789"), quint16(0x31C3));
    QCOMPARE(ClusterSlot::crc16(""), quint16(0));
}

void TestClusterSlot::hashTags_data()
{
    QTest::addColumn<QByteArray>("key");
    QTest::addColumn<QByteArray>("tag");
    // The specification's own examples.
    QTest::newRow("tag") << QByteArray("{user1000}.following") << QByteArray("user1000");
    QTest::newRow("second-tag-ignored") << QByteArray("foo{bar}{zap}") << QByteArray("bar");
    QTest::newRow("empty-tag") << QByteArray("foo{}{bar}") << QByteArray("foo{}{bar}");
    QTest::newRow("nested-open") << QByteArray("foo{{bar}}zap") << QByteArray("{bar");
    QTest::newRow("no-close") << QByteArray("foo{bar") << QByteArray("foo{bar");
    QTest::newRow("no-tag") << QByteArray("lock:orders") << QByteArray("lock:orders");
    // Redisson's companions share the lock's slot through a tag.
    QTest::newRow("redisson-queue") << QByteArray("redisson_lock_queue:{orders}") << QByteArray("orders");
}

void TestClusterSlot::hashTags()
{
    QFETCH(QByteArray, key);
    QFETCH(QByteArray, tag);
    QCOMPARE(ClusterSlot::hashTag(key), tag);
    QCOMPARE(ClusterSlot::of(key), ClusterSlot::crc16(tag) & 16383);
}

void TestClusterSlot::agreesWithClusterKeyslotOfARealServer()
{
    SandboxServer::Options options;
    options.name = QStringLiteral("keyslot");
    options.clusterBus = true;
    options.configLines << QStringLiteral("cluster-enabled yes");
    SandboxServer server(options);
    LS_START(server);
    ConnectionSettings s = server.connectionSettings();
    s.readOnly = true; // CLUSTER KEYSLOT is on the read-only allow-list
    RedisConnection c(s);
    LS_OPEN(c);
    QList<QByteArray> keys {"foo",
                            "bar",
                            "{user1000}.following",
                            "foo{}{bar}",
                            "foo{{bar}}zap",
                            "",
                            "{}",
                            "redisson_lock_queue:{orders}",
                            QByteArray("\x00\xff\x80", 3)};
    QRandomGenerator random(7);
    for (int i = 0; i < 300; ++i) {
        QByteArray key(int(random.bounded(1, 24)), Qt::Uninitialized);
        for (char &ch : key)
            ch = char(random.bounded(256));
        keys << key;
    }
    QList<RedisCommand> commands;
    for (const QByteArray &key : std::as_const(keys))
        commands << RedisCommand {"CLUSTER", "KEYSLOT", key};
    const QList<RedisResult> replies = c.pipeline(commands);
    QCOMPARE(replies.size(), keys.size());
    for (qsizetype i = 0; i < keys.size(); ++i) {
        QVERIFY2(replies[i].ok(), qPrintable(replies[i].error.message()));
        QCOMPARE(ClusterSlot::of(keys[i]), int(replies[i].reply.toInteger()));
    }
    QCOMPARE(ClusterSlot::of("foo"), 12182); // as the Redis documentation shows for CLUSTER KEYSLOT
}

static RedisReply node(const QByteArray &host, int port, const QByteArray &id)
{
    return RedisReply::array({RedisReply::string(host), RedisReply::integer(port), RedisReply::string(id)});
}

void TestClusterSlot::parsesClusterSlots()
{
    const RedisReply reply = RedisReply::array({
        RedisReply::array({RedisReply::integer(5461), RedisReply::integer(10922), node("10.0.0.2", 7001, "b"),
                           node("10.0.0.5", 7004, "e")}),
        RedisReply::array({RedisReply::integer(0), RedisReply::integer(5460), node("", 7000, "a"),
                           node("10.0.0.4", 7003, "d")}),
        RedisReply::array(
            {RedisReply::integer(10923), RedisReply::integer(16383), node("10.0.0.3", 7002, "c")}),
    });
    QString error;
    const ClusterSlotMap map = ClusterSlotMap::parse(reply, QStringLiteral("seed.example"), &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QVERIFY(map.coversAllSlots());
    QCOMPARE(map.masters().size(), 3);
    // Ordered by first slot; the empty host is the node we asked.
    QCOMPARE(map.masters().at(0).endpoint(), QStringLiteral("seed.example:7000"));
    QCOMPARE(map.masters().at(1).endpoint(), QStringLiteral("10.0.0.2:7001"));
    QCOMPARE(map.masterOf(0)->id, QByteArray("a"));
    QCOMPARE(map.masterOf(5461)->port, 7001);
    QCOMPARE(map.masterOf(16383)->port, 7002);
    QCOMPARE(map.masterOfKey("foo")->port, 7002); // slot 12182
    QCOMPARE(map.replicasOf(map.masters().at(0)).size(), 1);
    QCOMPARE(map.replicasOf(map.masters().at(2)).size(), 0);
    QCOMPARE(map.slotsOf(map.masters().at(1)), (QList<QPair<int, int>> {{5461, 10922}}));
}

void TestClusterSlot::refusesAMalformedClusterSlotsReply()
{
    QString error;
    ClusterSlotMap map = ClusterSlotMap::parse(RedisReply::status("OK"), QStringLiteral("h"), &error);
    QVERIFY(map.isEmpty());
    QVERIFY(error.contains(QLatin1String("list")));
    error.clear();
    const RedisReply outOfRange = RedisReply::array(
        {RedisReply::array({RedisReply::integer(0), RedisReply::integer(16384), node("h", 1, "x")})});
    map = ClusterSlotMap::parse(outOfRange, QStringLiteral("h"), &error);
    QVERIFY(map.isEmpty());
    QVERIFY2(error.contains(QLatin1String("cannot read")), qPrintable(error));
    error.clear();
    const RedisReply badPort = RedisReply::array(
        {RedisReply::array({RedisReply::integer(0), RedisReply::integer(1), node("h", 0, "x")})});
    map = ClusterSlotMap::parse(badPort, QStringLiteral("h"), &error);
    QVERIFY(map.isEmpty());
    QVERIFY(!error.isEmpty());
}

void TestClusterSlot::assignMovesOneSlot()
{
    const RedisReply reply = RedisReply::array(
        {RedisReply::array({RedisReply::integer(0), RedisReply::integer(16383), node("h", 7000, "a")})});
    QString error;
    ClusterSlotMap map = ClusterSlotMap::parse(reply, QStringLiteral("h"), &error);
    ClusterSlotMap::Node other;
    other.host = QStringLiteral("h");
    other.port = 7001;
    map.assign(42, other);
    QCOMPARE(map.masterOf(42)->port, 7001);
    QCOMPARE(map.masterOf(41)->port, 7000);
    QCOMPARE(map.masterOf(43)->port, 7000);
    QVERIFY(map.masterOf(16384) == nullptr);
    QVERIFY(map.masterOf(-1) == nullptr);
}

QTEST_GUILESS_MAIN(TestClusterSlot)
#include "tst_clusterslot.moc"
