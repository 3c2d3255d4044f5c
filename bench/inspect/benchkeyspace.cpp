// BenchKeyspace: fixed seed, so every run and every benchmark sees the same keys.
#include "benchkeyspace.h"

#include "inspect/samplelocks.h"

#include <QDateTime>
#include <QRandomGenerator>

#include <cstdio>

namespace BenchKeyspace {

namespace {

bool flush(RedisConnection &c, QList<RedisCommand> &batch)
{
    if (batch.isEmpty())
        return true;
    for (const RedisResult &r : c.pipeline(batch)) {
        if (!r.ok()) {
            std::fprintf(stderr, "fill failed: %s\n", qPrintable(r.error.message()));
            return false;
        }
    }
    batch.clear();
    return true;
}

} // namespace

// Lock keys in the formats of ALGORITHMS.md, plus fillers up to `total` keys.

bool build(RedisConnection &c, qint64 total, qint64 lockKeys, Keyspace *out)
{
    QRandomGenerator rng(4);
    QList<RedisCommand> batch;
    Keyspace k;
    const QByteArray client = SampleLocks::redissonClientId();
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    const auto add = [&](RedisCommand command) {
        batch.append(std::move(command));
        return batch.size() < 2000 || flush(c, batch);
    };
    // Long enough to outlive the whole run, short of the 10-minute ttl-above-threshold diagnosis.
    const auto lease = [&] { return QByteArray::number(420000 + rng.bounded(170000)); };
    qint64 i = 0;
    while (k.lockKeys < lockKeys) {
        const QByteArray n = QByteArray::number(i++);
        const QByteArray owner = client + ':' + QByteArray::number(rng.bounded(1, 500));
        switch (i % 20) {
        case 0:
        case 1:
        case 2:
        case 3:
        case 4: // Redisson RLock
            add({"HSET", "order:" + n, owner, "1"});
            add({"PEXPIRE", "order:" + n, lease()});
            k.keys += 1, k.lockKeys += 1, k.locks += 1;
            break;
        case 5: // Redisson fair lock with two waiters
            add({"HSET", "fair:" + n, owner, "1"});
            add({"PEXPIRE", "fair:" + n, lease()});
            add({"RPUSH", "redisson_lock_queue:{fair:" + n + "}", client + ":900", client + ":901"});
            add({"ZADD", "redisson_lock_timeout:{fair:" + n + "}", QByteArray::number(now + 300000),
                 client + ":900", QByteArray::number(now + 305000), client + ":901"});
            k.keys += 3, k.lockKeys += 1, k.locks += 1;
            break;
        case 6: // Redisson read lock with its timeout key
            add({"HSET", "doc:" + n, "mode", "read", owner, "1"});
            add({"PEXPIRE", "doc:" + n, lease()});
            add({"SET", "{doc:" + n + "}:" + owner + ":rwlock_timeout:1", "1", "PX", lease()});
            k.keys += 2, k.lockKeys += 1, k.locks += 1;
            break;
        case 7: // Redisson fenced lock with its token
            add({"HSET", "fence:" + n, owner, "1"});
            add({"PEXPIRE", "fence:" + n, lease()});
            add({"SET", "redisson_lock_token:{fence:" + n + "}", QByteArray::number(rng.bounded(1, 99999))});
            k.keys += 2, k.lockKeys += 1, k.locks += 1;
            break;
        case 8: // Redisson 2.x
            add({"SET", "old:" + n, "{\"o\":\"" + client + "-7\",\"c\":1}", "PX", lease()});
            k.keys += 1, k.lockKeys += 1, k.locks += 1;
            break;
        case 9:
        case 10:
        case 11:
        case 12: // redis-py, some without a TTL
            add(i % 2 ? RedisCommand {"SET", "job:" + n, SampleLocks::uuid1Hex()}
                      : RedisCommand {"SET", "job:" + n, SampleLocks::uuid1Hex(), "PX", lease()});
            k.keys += 1, k.lockKeys += 1, k.locks += 1;
            break;
        case 13:
        case 14: { // node-redlock over three resources
            const QByteArray v = SampleLocks::randomHex32();
            for (const char *r : {"a:", "b:", "c:"})
                add({"SET", "acct:" + QByteArray(r) + n, v, "PX", lease()});
            k.keys += 3, k.lockKeys += 3, k.locks += 1;
            break;
        }
        default: // plain SET NX tokens under lock names
            add({"SET", "lock:" + n, i % 3 ? QByteArray("lockValue") : client + ":" + n, "PX", lease()});
            k.keys += 1, k.lockKeys += 1, k.locks += 1;
            break;
        }
    }
    // Fillers: strings, hashes, lists, sets, zsets; a third with a TTL.
    for (qint64 f = 0; k.keys < total; ++f) {
        const QByteArray key = "user:" + QByteArray::number(f);
        switch (f % 10) {
        case 0:
        case 1:
        case 2:
        case 3:
            add({"SET", key, "v" + QByteArray::number(f)});
            break;
        case 4:
        case 5:
            add({"HSET", key, "name", "n", "age", QByteArray::number(f % 90)});
            break;
        case 6:
            add({"RPUSH", key, "x", "y"});
            break;
        case 7:
            add({"SADD", key, "x", "y"});
            break;
        case 8:
            add({"ZADD", key, "1", "x"});
            break;
        default:
            add({"SET", key, QByteArray::number(f), "PX", "3600000"});
            break;
        }
        k.keys += 1;
    }
    if (!flush(c, batch))
        return false;
    *out = k;
    return true;
}

} // namespace BenchKeyspace
