// RedissonFairLock: queue + deadline companions, head-only notification, leaving the queue on timeout.
#include "redissonfairlock.h"

#include "redissonnames.h"

RedissonFairLock::RedissonFairLock(LockClient &client, const QByteArray &name, qint64 threadId,
                                   const LockOptions &options)
    : RedissonLock(client, QStringLiteral("redisson-fair"), name, threadId, options)
{
}

QList<QByteArray> RedissonFairLock::keys() const
{
    return {m_name, RedissonNames::fairQueue(m_name), RedissonNames::fairTimeouts(m_name)};
}

QByteArray RedissonFairLock::waitChannel() const
{
    return RedissonNames::fairWaiterChannel(m_name, m_owner);
}

QStringList RedissonFairLock::scriptNames() const
{
    return {QStringLiteral("redisson_fair_lock"), QStringLiteral("redisson_fair_unlock"),
            QStringLiteral("redisson_fair_acquire_failed"), QStringLiteral("redisson_renew")};
}

qint64 RedissonFairLock::waitWindowMs() const
{
    // Redisson's tryLock(waitTime, ...) keeps a waiter's place for waitTime, lock() for fairLockWaitTimeout
    // (RedissonFairLock.tryLockInnerAsync, acquireFailedAsync; 3.x and 4.x).
    return m_options.acquireTimeoutMs > 0 ? m_options.acquireTimeoutMs : m_options.fairWaitMs;
}

AcquireResult RedissonFairLock::attemptAcquire(const LockServers &servers, LockIo &io)
{
    return acquireFromReply(
        io.script(*servers.first(), LuaScript::get(QStringLiteral("redisson_fair_lock")),
                  {m_name, RedissonNames::fairQueue(m_name), RedissonNames::fairTimeouts(m_name)},
                  {leaseArgument(), m_owner, QByteArray::number(waitWindowMs()),
                   QByteArray::number(m_clock.wallMs())}));
}

ReleaseResult RedissonFairLock::attemptRelease(const LockServers &servers, LockIo &io)
{
    const RedisResult result
        = runUnlock(*servers.first(), io, LuaScript::get(QStringLiteral("redisson_fair_unlock")),
                    {m_name, RedissonNames::fairQueue(m_name), RedissonNames::fairTimeouts(m_name),
                     RedissonNames::lockChannel(m_name)},
                    {RedissonNames::unlockMessage, leaseArgument(), m_owner,
                     QByteArray::number(m_clock.wallMs()), QByteArray::number(m_options.unlockLatchMs)});
    return releaseFromReply(result);
}

void RedissonFairLock::abandonWait(const LockServers &servers, LockIo &io)
{
    io.script(*servers.first(), LuaScript::get(QStringLiteral("redisson_fair_acquire_failed")),
              {RedissonNames::fairQueue(m_name), RedissonNames::fairTimeouts(m_name)},
              {m_owner, QByteArray::number(waitWindowMs())});
}
