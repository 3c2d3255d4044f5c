// RedissonLock: RLock / RFencedLock acquire, release with unlock latch, watchdog renewal.
#include "redissonlock.h"

#include "redissonnames.h"

RedissonLock::RedissonLock(LockClient &client, const QByteArray &name, qint64 threadId,
                           const LockOptions &options, Flavor flavor)
    : DistributedLock(
        client, flavor == Flavor::Fenced ? QStringLiteral("fenced") : QStringLiteral("redisson-reentrant"),
        name, threadId, options)
    , m_owner(client.ownerField(threadId))
    , m_flavor(flavor)
{
}

RedissonLock::RedissonLock(LockClient &client, const QString &algorithm, const QByteArray &name,
                           qint64 threadId, const LockOptions &options)
    : DistributedLock(client, algorithm, name, threadId, options)
    , m_owner(client.ownerField(threadId))
{
}

QList<QByteArray> RedissonLock::keys() const
{
    if (m_flavor == Flavor::Fenced)
        return {m_name, RedissonNames::tokenCounter(m_name)};
    return {m_name};
}

QByteArray RedissonLock::waitChannel() const
{
    return RedissonNames::lockChannel(m_name);
}

QStringList RedissonLock::scriptNames() const
{
    return {m_flavor == Flavor::Fenced ? QStringLiteral("redisson_fenced_lock")
                                       : QStringLiteral("redisson_lock"),
            QStringLiteral("redisson_unlock"), QStringLiteral("redisson_renew")};
}

AcquireResult RedissonLock::acquireFromReply(const RedisResult &result)
{
    AcquireResult r;
    r.reply = result.reply;
    r.error = result.error;
    if (!result.ok())
        return r;
    if (result.reply.isNil()) {
        r.outcome = AcquireResult::Outcome::Acquired;
        m_token = m_owner;
        r.token = m_owner;
        r.holdCount = ++m_holdCount;
        return r;
    }
    bool isInteger = false;
    const qint64 ttl = result.reply.toInteger(&isInteger);
    if (!isInteger) {
        r.error
            = {RedisError::Code::Protocol,
               QStringLiteral("unexpected reply to the lock script: %1").arg(result.reply.toDisplayString())};
        return r;
    }
    r.outcome = AcquireResult::Outcome::Refused;
    r.ttlMs = ttl;
    return r;
}

AcquireResult RedissonLock::attemptAcquire(const LockServers &servers, LockIo &io)
{
    RedisConnection &c = *servers.first();
    const QByteArray &lease = leaseArgument();
    static const LuaScript &lock = LuaScript::get(QStringLiteral("redisson_lock")); // looked up once
    static const LuaScript &fencedLock = LuaScript::get(QStringLiteral("redisson_fenced_lock"));
    if (m_flavor == Flavor::Reentrant)
        return acquireFromReply(io.script(c, lock, {m_name}, {lease, m_owner}));

    const RedisResult result = io.script(c, fencedLock,
                                         {m_name, RedissonNames::tokenCounter(m_name)}, {lease, m_owner});
    AcquireResult r;
    r.reply = result.reply;
    r.error = result.error;
    if (!result.ok())
        return r;
    if (!result.reply.isArray() || result.reply.size() != 2) {
        r.error = {RedisError::Code::Protocol,
                   QStringLiteral("unexpected reply to the fenced lock script: %1")
                       .arg(result.reply.toDisplayString())};
        return r;
    }
    const qint64 ttl = result.reply.at(0).toInteger();
    if (ttl == -1) {
        r.outcome = AcquireResult::Outcome::Acquired;
        m_token = m_owner;
        r.token = m_owner;
        m_fence = result.reply.at(1).toInteger();
        r.fence = m_fence;
        r.holdCount = ++m_holdCount;
        return r;
    }
    r.outcome = AcquireResult::Outcome::Refused;
    r.ttlMs = ttl;
    return r;
}

RedisResult RedissonLock::runUnlock(RedisConnection &connection, LockIo &io, const LuaScript &script,
                                    QList<QByteArray> keys, QList<QByteArray> args)
{
    // Every unlock script takes the publish command as its last, optional argument, as Redisson >= 3.22
    // does: SPUBLISH where the waiters listen sharded (PUBLISH, the default, is not sent).
    if (client().subscriber().isSharded())
        args << client().publishCommand();
    if (!m_options.unlockLatch)
        return io.script(connection, script, keys, args);
    const QByteArray latch = RedissonNames::unlockLatch(m_name, LockClient::randomHex(16));
    keys << latch;
    return io.script(connection, script, keys, args, {{"DEL", latch}});
}

ReleaseResult RedissonLock::releaseFromReply(const RedisResult &result)
{
    ReleaseResult r;
    r.reply = result.reply;
    r.error = result.error;
    r.holdCount = m_holdCount;
    if (!result.ok())
        return r;
    if (result.reply.isNil()) {
        r.outcome = ReleaseResult::Outcome::NotOwner;
        m_holdCount = 0;
    } else {
        switch (result.reply.toInteger()) {
        case 1:
            r.outcome = ReleaseResult::Outcome::Released;
            m_holdCount = 0;
            break;
        case 0:
            // Holds remain in Redis: ours (reentrant), or other readers' (read lock).
            m_holdCount = qMax(0, m_holdCount - 1);
            r.outcome
                = m_holdCount > 0 ? ReleaseResult::Outcome::StillHeld : ReleaseResult::Outcome::Released;
            break;
        default:
            r.outcome = ReleaseResult::Outcome::Expired;
            m_holdCount = 0;
            break;
        }
    }
    r.holdCount = m_holdCount;
    return r;
}

ReleaseResult RedissonLock::attemptRelease(const LockServers &servers, LockIo &io)
{
    static const LuaScript &unlock = LuaScript::get(QStringLiteral("redisson_unlock")); // looked up once
    const RedisResult result = runUnlock(*servers.first(), io, unlock,
                                         {m_name, RedissonNames::lockChannel(m_name)},
                                         {RedissonNames::unlockMessage, leaseArgument(),
                                          m_owner, QByteArray::number(m_options.unlockLatchMs)});
    return releaseFromReply(result);
}

namespace {

RenewalEvent::Outcome renewHash(RedisConnection &c, LockIo &io, const QByteArray &key,
                                const QByteArray &field, qint64 leaseMs, RedisReply *reply, RedisError *error)
{
    static const LuaScript &renew = LuaScript::get(QStringLiteral("redisson_renew")); // looked up once
    const RedisResult r = io.script(c, renew, {key},
                                    {QByteArray::number(leaseMs), field});
    *reply = r.reply;
    *error = r.error;
    if (!r.ok())
        return RenewalEvent::Outcome::Error;
    return r.reply.toInteger() == 1 ? RenewalEvent::Outcome::Renewed : RenewalEvent::Outcome::Lost;
}

} // namespace

LockWatchdog::RenewFunction RedissonLock::renewFunction(qint64 leaseMs) const
{
    return [key = m_name, field = renewField(), lease = leaseMs](RedisConnection &c, LockIo &io,
                                                                 RedisReply *reply, RedisError *error) {
        return renewHash(c, io, key, field, lease, reply, error);
    };
}
