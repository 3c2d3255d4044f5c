// RedissonReadWriteLock: read and write sides on one hash, per-hold timeout keys for readers.
#include "redissonreadwritelock.h"

#include "redissonnames.h"

RedissonReadWriteLock::RedissonReadWriteLock(LockClient &client, const QByteArray &name, qint64 threadId,
                                             const LockOptions &options)
    : RedissonLock(client, QStringLiteral("redisson-rw"), name, threadId, options)
{
}

QList<QByteArray> RedissonReadWriteLock::keys() const
{
    QList<QByteArray> keys {m_name};
    if (isReadSide()) {
        const QByteArray prefix = RedissonNames::rwTimeoutPrefix(m_name, m_owner);
        for (int k = 1; k <= m_holdCount; ++k)
            keys << prefix + ':' + QByteArray::number(k);
    }
    return keys;
}

QByteArray RedissonReadWriteLock::waitChannel() const
{
    return RedissonNames::rwChannel(m_name);
}

QStringList RedissonReadWriteLock::scriptNames() const
{
    if (isReadSide())
        return {QStringLiteral("redisson_read_lock"), QStringLiteral("redisson_read_unlock"),
                QStringLiteral("redisson_read_renew")};
    return {QStringLiteral("redisson_write_lock"), QStringLiteral("redisson_write_unlock"),
            QStringLiteral("redisson_renew")};
}

QByteArray RedissonReadWriteLock::renewField() const
{
    return isReadSide() ? m_owner : RedissonNames::writeField(m_owner);
}

AcquireResult RedissonReadWriteLock::attemptAcquire(const LockServers &servers, LockIo &io)
{
    RedisConnection &c = *servers.first();
    const QByteArray &lease = leaseArgument();
    AcquireResult r;
    if (isReadSide())
        r = acquireFromReply(io.script(c, LuaScript::get(QStringLiteral("redisson_read_lock")),
                                       {m_name, RedissonNames::rwTimeoutPrefix(m_name, m_owner)},
                                       {lease, m_owner, RedissonNames::writeField(m_owner)}));
    else
        r = acquireFromReply(io.script(c, LuaScript::get(QStringLiteral("redisson_write_lock")), {m_name},
                                       {lease, RedissonNames::writeField(m_owner)}));
    if (r.acquired()) {
        m_token = renewField();
        r.token = m_token;
    }
    return r;
}

ReleaseResult RedissonReadWriteLock::attemptRelease(const LockServers &servers, LockIo &io)
{
    RedisConnection &c = *servers.first();
    if (!isReadSide())
        return releaseFromReply(runUnlock(
            c, io, LuaScript::get(QStringLiteral("redisson_write_unlock")), {m_name, RedissonNames::rwChannel(m_name)},
            {RedissonNames::readUnlockMessage, leaseArgument(),
             RedissonNames::writeField(m_owner), QByteArray::number(m_options.unlockLatchMs)}));

    return releaseFromReply(
        runUnlock(c, io, LuaScript::get(QStringLiteral("redisson_read_unlock")),
                  {m_name, RedissonNames::rwChannel(m_name), RedissonNames::rwTimeoutPrefix(m_name, m_owner),
                   RedissonNames::rwKeyPrefix(m_name)},
                  {RedissonNames::unlockMessage, m_owner, QByteArray::number(m_options.unlockLatchMs)}));
}

namespace {

RenewalEvent::Outcome renewRead(RedisConnection &c, LockIo &io, const QByteArray &key,
                                const QByteArray &owner, qint64 leaseMs, RedisReply *reply, RedisError *error)
{
    const RedisResult r
        = io.script(c, LuaScript::get(QStringLiteral("redisson_read_renew")),
                    {key, RedissonNames::rwKeyPrefix(key)}, {QByteArray::number(leaseMs), owner});
    *reply = r.reply;
    *error = r.error;
    if (!r.ok())
        return RenewalEvent::Outcome::Error;
    return r.reply.toInteger() == 1 ? RenewalEvent::Outcome::Renewed : RenewalEvent::Outcome::Lost;
}

} // namespace

LockWatchdog::RenewFunction RedissonReadWriteLock::renewFunction(qint64 leaseMs) const
{
    if (!isReadSide())
        return RedissonLock::renewFunction(leaseMs);
    return [key = m_name, owner = m_owner, lease = leaseMs](RedisConnection &c, LockIo &io, RedisReply *reply,
                                                            RedisError *error) {
        return renewRead(c, io, key, owner, lease, reply, error);
    };
}
