// libFuzzer target: bytes from a (hostile) server → RESP replies → ScannedKeys → LockAssembler (classifier,
// diagnostics, multi-resource grouping, companions). The input is one RESP array of keys, each an array:
//   [key, type, pttl, lockNamed, value, valueLength, [field, value, ...], fieldCount, size,
//    [queueLength, [queue...], [waiter, deadline, ...], tokenPresent, token, lockSubscribers, rwSubscribers,
//     jobExists, [jobField...]],
//    [sameValueKey...], [member, score, ...]]
// Missing or mistyped elements take their defaults, as the prober's reads would when a command fails.
#include "inspect/lockassembler.h"
#include "inspect/lockclassifier.h"
#include "redis/redisreply.h"

#include <cstddef>
#include <cstdint>

namespace {

const RedisReply &element(const RedisReply &r, qsizetype i)
{
    static const RedisReply nil;
    return r.isArray() && i < r.size() ? r.at(i) : nil;
}

qint64 integer(const RedisReply &r, qint64 fallback)
{
    bool ok = false;
    const qint64 v = r.toInteger(&ok);
    return ok ? v : fallback;
}

QList<QByteArray> strings(const RedisReply &r)
{
    QList<QByteArray> out;
    for (const RedisReply &e : r.elements())
        out << e.bytes();
    return out;
}

ScannedKey keyOf(const RedisReply &r)
{
    ScannedKey k;
    k.key = element(r, 0).bytes();
    k.type = element(r, 1).bytes();
    k.pttlMs = integer(element(r, 2), -2);
    k.lockNamed = integer(element(r, 3), 0) != 0;
    k.value = element(r, 4).bytes();
    k.valueLength = integer(element(r, 5), k.value.size());
    const QList<QByteArray> fields = strings(element(r, 6));
    for (qsizetype i = 0; i + 1 < fields.size(); i += 2)
        k.fields.append({fields.at(i), fields.at(i + 1)});
    k.fieldCount = integer(element(r, 7), k.fields.size());
    k.size = integer(element(r, 8), -1);
    // Element 9: what the prober reads next to a lock, in the layout the corpus was made with: queue length,
    // queue, deadlines (member, score, …), token present, token, then two channels' subscribers.
    const RedisReply &extras = element(r, 9);
    if (extras.isArray()) {
        k.plannedFormat = QStringLiteral("redisson-lock");
        ScannedKey::Companion queue;
        queue.role = QStringLiteral("queue");
        queue.read = "list";
        queue.size = integer(element(extras, 0), -1);
        queue.items = strings(element(extras, 1));
        queue.present = queue.size > 0;
        ScannedKey::Companion deadlines;
        deadlines.role = QStringLiteral("deadlines");
        deadlines.read = "zset";
        const RedisReply &d = element(extras, 2);
        for (qsizetype i = 0; i + 1 < d.size(); i += 2) {
            deadlines.items.append(d.at(i).bytes());
            deadlines.scores.append(double(integer(d.at(i + 1), 0)));
        }
        deadlines.size = deadlines.items.size();
        deadlines.present = deadlines.size > 0;
        ScannedKey::Companion token;
        token.role = QStringLiteral("token");
        token.read = "string";
        token.present = integer(element(extras, 3), 0) != 0;
        token.items = {element(extras, 4).bytes()};
        k.companions = {queue, deadlines, token};
        k.channels = {"a", "b"};
        k.channelSubscribers = {integer(element(extras, 5), -1), integer(element(extras, 6), -1)};
        k.job.read = true;
        k.job.exists = integer(element(extras, 7), 0) != 0;
        k.job.fields = strings(element(extras, 8));
    }
    k.sameValueKeys = strings(element(r, 10));
    // Element 11: a zset's members and scores.
    const QList<QByteArray> members = strings(element(r, 11));
    for (qsizetype i = 0; i + 1 < members.size(); i += 2)
        k.members.append({members.at(i), members.at(i + 1).toDouble()});
    return k;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    RedisReply reply;
    if (!RedisReply::parse(QByteArray::fromRawData(reinterpret_cast<const char *>(data), qsizetype(size)),
                           &reply))
        return 0;
    QList<ScannedKey> keys;
    for (const RedisReply &entry : reply.elements())
        keys << keyOf(entry);
    if (keys.isEmpty() && !reply.isArray())
        keys << keyOf(RedisReply::array({reply}));
    for (const ScannedKey &k : keys) {
        const LockRecord single = LockClassifier::classify(k, *FormatCatalog::standard());
        (void)single.ownerSummary();
    }
    ScanOptions options;
    LockAssembler assembler(options);
    for (const LockRecord &r : assembler.add(keys, 1700000000000)) {
        (void)r.ownerSummary();
        (void)r.ownerSignature();
        (void)r.isTruncated();
        (void)r.remainingMs(r.readAtMs + 5);
        (void)r.sameContent(r);
    }
    return 0;
}
