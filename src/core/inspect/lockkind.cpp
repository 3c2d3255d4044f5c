// LockKinds: names and descriptions of the lock kinds.
#include "lockkind.h"

namespace LockKinds {

QString name(LockKind kind)
{
    switch (kind) {
    case LockKind::None:
        return QStringLiteral("none");
    case LockKind::RedissonReentrant:
        return QStringLiteral("redisson-reentrant");
    case LockKind::RedissonFair:
        return QStringLiteral("redisson-fair");
    case LockKind::RedissonRw:
        return QStringLiteral("redisson-rw");
    case LockKind::RedissonFenced:
        return QStringLiteral("redisson-fenced");
    case LockKind::RedissonLegacy:
        return QStringLiteral("redisson-legacy");
    case LockKind::RedisPy:
        return QStringLiteral("redis-py");
    case LockKind::Redlock:
        return QStringLiteral("redlock");
    case LockKind::Token:
        return QStringLiteral("token");
    case LockKind::Unknown:
        return QStringLiteral("unknown");
    }
    return QStringLiteral("unknown");
}

bool fromName(const QString &text, LockKind *kind)
{
    for (LockKind k : all()) {
        if (name(k) == text) {
            *kind = k;
            return true;
        }
    }
    return false;
}

QList<LockKind> all()
{
    return {LockKind::RedissonReentrant, LockKind::RedissonFair,   LockKind::RedissonRw,
            LockKind::RedissonFenced,    LockKind::RedissonLegacy, LockKind::RedisPy,
            LockKind::Redlock,           LockKind::Token,          LockKind::Unknown};
}

QString description(LockKind kind)
{
    switch (kind) {
    case LockKind::None:
        return QStringLiteral("not a lock");
    case LockKind::RedissonReentrant:
        return QStringLiteral("Redisson RLock: a hash of <client uuid>:<thread id> → hold count");
    case LockKind::RedissonFair:
        return QStringLiteral("Redisson fair lock: the reentrant hash plus a FIFO queue and a deadline zset");
    case LockKind::RedissonRw:
        return QStringLiteral(
            "Redisson read-write lock: a hash with 'mode', readers and/or a ':write' writer");
    case LockKind::RedissonFenced:
        return QStringLiteral("Redisson fenced lock: the reentrant hash plus a token counter");
    case LockKind::RedissonLegacy:
        return QStringLiteral("Redisson ≤ 2.2.3: a JSON string {\"o\": owner, \"c\": count}");
    case LockKind::RedisPy:
        return QStringLiteral("redis-py Lock: a string holding uuid1().hex (32 hex, version digit 1)");
    case LockKind::Redlock:
        return QStringLiteral("node-redlock: a string of 32 random hex, the same on every resource key");
    case LockKind::Token:
        return QStringLiteral(
            "a string lock with another owner value (uuid, thread id, snowflake, lockValue…)");
    case LockKind::Unknown:
        return QStringLiteral("matches a lock pattern but fits no known lock format");
    }
    return {};
}

bool isRedissonHash(LockKind kind)
{
    return kind == LockKind::RedissonReentrant || kind == LockKind::RedissonFair
        || kind == LockKind::RedissonRw || kind == LockKind::RedissonFenced;
}

} // namespace LockKinds
