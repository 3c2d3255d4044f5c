// redisson-rw: one side of Redisson's RReadWriteLock, wire-compatible. LockOptions::rwMode picks the side;
// make two objects for a thread that needs both.
//
// HASH N: "mode" = read|write, readers' "<uuid>:<thread id>" = holds, the writer's "<uuid>:<thread id>:write"
// = holds. Each read hold k has STRING {N}:<uuid>:<thread id>:rwlock_timeout:<k> with its own lease; N
// lives as long as the longest of them. Waiters of both sides sleep on redisson_rwlock:{N}: a read release
// publishes "0" (wakes one thread per client), a write release "1" (wakes them all).
//
// Scripts: redisson_read_lock / _unlock / _renew, redisson_write_lock / _unlock, redisson_renew.
#pragma once

#include "redissonlock.h"

class RedissonReadWriteLock : public RedissonLock
{
public:
    RedissonReadWriteLock(LockClient &client, const QByteArray &name, qint64 threadId,
                          const LockOptions &options);

    bool isReadSide() const { return m_options.rwMode == LockOptions::RwMode::Read; }

    QList<QByteArray> keys() const override; // N, and the timeout key of each current read hold
    QByteArray waitChannel() const override;
    QStringList scriptNames() const override;

protected:
    AcquireResult attemptAcquire(const LockServers &servers, LockIo &io) override;
    ReleaseResult attemptRelease(const LockServers &servers, LockIo &io) override;
    LockWatchdog::RenewFunction renewFunction(qint64 leaseMs) const override;
    QByteArray renewField() const override;
};
