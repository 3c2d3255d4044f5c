// redlock: the Redlock algorithm (redis.io "Distributed locks with Redis") over N independent servers.
//
// One round: the same key and a fresh random token are SET NX PX on every server in parallel, each with
// its own short timeout (LockOptions::serverTimeoutMs; a paused or dead server costs at most that). The
// lock is held when a quorum N/2+1 granted it *and* time is left:
//     validity = lease − elapsed − (lease × driftFactor + driftExtraMs)
// measured on the process's clock (LockClient clock rate: a slow clock over-estimates validity, story F7).
// A failed round (no quorum, or validity spent) releases the key on every server, including those that
// did not answer in time — their grant may still land. acquire() retries after a random delay
// (LockOptions jitter; node redlock's 200 ± 100 ms). Releases and extensions run compare_and_delete.lua and
// compare_and_pexpire.lua on every server. Every result lists what each server answered (ServerVote).
//
// Known flaws (stories F2–F5, F8): a server restarted without persistence forgets grants; clock jumps on a
// server; pauses longer than the validity; split votes where nobody reaches a quorum.
#pragma once

#include "distributedlock.h"

#include <functional>

class Redlock : public DistributedLock
{
public:
    Redlock(LockClient &client, const QByteArray &name, qint64 threadId, const LockOptions &options);

    static int quorumFor(int servers) { return servers / 2 + 1; }
    // lease × driftFactor (rounded) + driftExtraMs
    qint64 driftMs(qint64 leaseMs) const;
    // What is left of the current lock's validity on this process's clock (negative: spent); -1 when none.
    qint64 validityRemainingMs() const;

    QStringList scriptNames() const override;

protected:
    bool usesAllServers() const override { return true; }
    AcquireResult attemptAcquire(const LockServers &servers, LockIo &io) override;
    ReleaseResult attemptRelease(const LockServers &servers, LockIo &io) override;
    ExtendResult attemptExtend(const LockServers &servers, LockIo &io, qint64 leaseMs) override;

private:
    // Sends commandFor(i) to every server at once, reads each reply within serverTimeoutMs of sending.
    QList<ServerVote> round(const LockServers &servers, LockIo &io,
                            const std::function<RedisCommand(int)> &commandFor,
                            const std::function<bool(const RedisReply &)> &granted);
    // A script on every server (EVALSHA; servers that answer NOSCRIPT get SCRIPT LOAD + EVALSHA).
    QList<ServerVote> scriptEverywhere(const LockServers &servers, LockIo &io, const QString &script,
                                       const QList<QByteArray> &args);

    qint64 m_validUntilMs = 0; // on m_clock; 0 when nothing is held
};
