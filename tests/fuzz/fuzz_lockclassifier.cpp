// libFuzzer target: bytes from a (hostile) server → RESP replies → ScannedKeys → LockAssembler (classifier,
// diagnostics, multi-resource grouping, companions). The input is one RESP array of keys, each an array:
//   [key, type, pttl, lockNamed, value, valueLength, [field, value, ...], fieldCount, size,
//    [queueLength, [queue...], [waiter, deadline, ...], tokenPresent, token, lockSubscribers, rwSubscribers],
//    [sameValueKey...]]
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
    const RedisReply &redisson = element(r, 9);
    if (redisson.isArray()) {
        k.redisson.read = true;
        k.redisson.queueLength = integer(element(redisson, 0), -1);
        k.redisson.queue = strings(element(redisson, 1));
        const RedisReply &deadlines = element(redisson, 2);
        for (qsizetype i = 0; i + 1 < deadlines.size(); i += 2)
            k.redisson.deadlines.append({deadlines.at(i).bytes(), integer(deadlines.at(i + 1), 0)});
        k.redisson.tokenPresent = integer(element(redisson, 3), 0) != 0;
        k.redisson.token = element(redisson, 4).bytes();
        k.redisson.lockChannelSubscribers = integer(element(redisson, 5), -1);
        k.redisson.rwChannelSubscribers = integer(element(redisson, 6), -1);
    }
    k.sameValueKeys = strings(element(r, 10));
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
        const LockRecord single = LockClassifier::classify(k);
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
