// redisson-reentrant and fenced: Redisson's RLock and RFencedLock, wire-compatible with Redisson 3.x.
//
// Storage: HASH N, field "<client uuid>:<thread id>" = hold count, PTTL = the lease. A waiter sleeps on
// redisson_lock__channel:{N} for at most the PTTL the refused attempt returned; the last release deletes N
// and publishes "0" there. With the watchdog (Redisson's default, lease 30 s renewed every 10 s) the
// process's LockWatchdog keeps the lease up while the thread holds the lock; a fixed lease just runs out.
// Releases write Redisson 3.24's unlock latch redisson_unlock_latch:{N}:<32 hex> and delete it right after
// (LockOptions::unlockLatch).
//
// Fenced flavour: every acquisition (re-entries included) also INCRs redisson_lock_token:{N}; the new value
// is the fencing token (AcquireResult::fence), to be checked by the storage (FencedResource).
//
// Scripts: redisson_lock / redisson_fenced_lock, redisson_unlock, redisson_renew.
#pragma once

#include "distributedlock.h"

class RedissonLock : public DistributedLock
{
public:
    enum class Flavor { Reentrant, Fenced };

    RedissonLock(LockClient &client, const QByteArray &name, qint64 threadId, const LockOptions &options,
                 Flavor flavor = Flavor::Reentrant);

    Flavor flavor() const { return m_flavor; }
    // "<client uuid>:<thread id>"
    const QByteArray &ownerField() const { return m_owner; }

    QList<QByteArray> keys() const override;
    QByteArray waitChannel() const override;
    QStringList scriptNames() const override;

protected:
    // For the fair and read-write locks, which share the storage and the watchdog.
    RedissonLock(LockClient &client, const QString &algorithm, const QByteArray &name, qint64 threadId,
                 const LockOptions &options);

    AcquireResult attemptAcquire(const LockServers &servers, LockIo &io) override;
    ReleaseResult attemptRelease(const LockServers &servers, LockIo &io) override;
    LockWatchdog::RenewFunction renewFunction(qint64 leaseMs) const override;

    // Acquire-script reply: nil = acquired (count up), an integer = refused with that PTTL.
    AcquireResult acquireFromReply(const RedisResult &result);
    // Runs an unlock script with the unlock latch appended to `keys` (when enabled) and deletes the latch
    // in the same round trip, as Redisson does right after; SPUBLISH is appended to `args` when the
    // client's waiters listen sharded.
    RedisResult runUnlock(RedisConnection &connection, LockIo &io, const LuaScript &script,
                          QList<QByteArray> keys, QList<QByteArray> args);
    // Unlock-script reply: 1 released · 0 holds remain (ours if this object still counts some, else another
    // holder's, e.g. other readers) · nil not ours · -1 no lock.
    ReleaseResult releaseFromReply(const RedisResult &result);
    // The field the watchdog checks and the lease it sets (the write lock overrides the field).
    virtual QByteArray renewField() const { return m_owner; }

    const QByteArray m_owner;

private:
    const Flavor m_flavor = Flavor::Reentrant;
};
