// redisson-fair: Redisson's RFairLock, wire-compatible. Waiters queue in FIFO order in the LIST
// redisson_lock_queue:{N}, each with a deadline (client wall-clock epoch ms) in the ZSET
// redisson_lock_timeout:{N}; a waiter may take the free lock only when it is at the head. Stale heads
// (deadline passed: a waiter that crashed or gave up without saying so) are dropped on every acquire
// and release. A waiter's deadline is the one before it (or the holder's lease) plus its wait: the acquire
// timeout, as Redisson's tryLock(waitTime) has it, or fairWaitMs without one (lock()). A release notifies only the head, on its own channel
// redisson_lock__channel:{N}:<uuid>:<thread id>. A waiter whose acquire times out leaves the queue
// (redisson_fair_acquire_failed.lua).
//
// Known flaw: deadlines are computed from the clients' wall clocks (LockClient::Options::clockOffsetMs).
#pragma once

#include "redissonlock.h"

class RedissonFairLock : public RedissonLock
{
public:
    RedissonFairLock(LockClient &client, const QByteArray &name, qint64 threadId, const LockOptions &options);

    QList<QByteArray> keys() const override;
    QByteArray waitChannel() const override;
    QStringList scriptNames() const override;

protected:
    AcquireResult attemptAcquire(const LockServers &servers, LockIo &io) override;
    ReleaseResult attemptRelease(const LockServers &servers, LockIo &io) override;
    void abandonWait(const LockServers &servers, LockIo &io) override;

private:
    // How long a waiter keeps its place in the queue: its acquire timeout, or fairWaitMs when it has none.
    qint64 waitWindowMs() const;
};
