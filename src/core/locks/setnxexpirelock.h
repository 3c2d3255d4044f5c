// setnx-expire: the lock of seed 001 (MayiktRedisLock). SETNX key <fresh uuid>, then a separate EXPIRE
// key <seconds>; the acquire loop spins without sleeping until its deadline; the release is a GET, a
// comparison in the client, then a DEL.
//
// Flaws it exists to show: a crash between SETNX and EXPIRE leaves a key with no TTL, so every other
// worker starves (FaultHooks::crashAfterSetnx); the busy spin floods the server; the two-step release
// deletes a foreign lock when the lease expires between GET and DEL (FaultHooks::betweenGetAndDel).
// EXPIRE counts whole seconds, so the lease is rounded up to a second (at least 1 s).
#pragma once

#include "distributedlock.h"

class SetnxExpireLock : public DistributedLock
{
public:
    SetnxExpireLock(LockClient &client, const QByteArray &name, qint64 threadId, const LockOptions &options);

    // The EXPIRE argument for a lease: whole seconds, rounded up, at least 1.
    static qint64 leaseSeconds(qint64 leaseMs);

protected:
    AcquireResult attemptAcquire(const LockServers &servers, LockIo &io) override;
    ReleaseResult attemptRelease(const LockServers &servers, LockIo &io) override;
    LockWatchdog::RenewFunction renewFunction(qint64 leaseMs) const override;
};
