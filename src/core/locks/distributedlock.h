// The lock API a worker thread drives, common to every algorithm of the catalog.
//
// One DistributedLock object = one lock name as seen by one thread of one process (LockClient). Make it
// with LockCatalog::create(); use it from that thread only. Every operation takes the connection(s) to
// use — the caller's own (one per worker, or borrowed from a ConnectionPool), never owned by the lock —
// so cluster routing can hand in the right node's connection. Single-server algorithms use the first
// connection; Redlock uses all of them, one per independent server.
//
//   tryAcquire  one attempt, no waiting
//   acquire     attempts until acquired, an error, or options().acquireTimeoutMs, sleeping between
//               attempts with the wait strategy (busy spin, fixed, jitter, back-off, pub/sub + TTL)
//   release     one hold (reentrant locks count down); always sent, even when this object thinks it holds
//               nothing, because the seeds' releases do not check either (that is one of their flaws)
//   extend      put the lease back to leaseMs (or the given lease) if still ours
//
// With options().watchdog, the process's LockWatchdog renews the lock from the first acquire until the
// last release. Lock operations need read-write connections; a read-only one gets a clear error and
// nothing is sent.
//
// In short (a worker thread of a simulated process):
//   LockClient process;                                   // one per process, shared by its threads
//   RedisConnection conn(settings);                       // one per thread, read-write, opened
//   auto lock = LockCatalog::create("redisson-reentrant", process, "stock", /*thread id*/ 7);
//   AcquireResult a = lock->acquire(conn);                // a.acquired(), a.fence, a.ttlMs, a.commands...
//   ReleaseResult r = lock->release(conn);                // Released, StillHeld, NotOwner or Expired
//   process.watchdog().setObserver(...);                  // every renewal, with its times
//
// Lifetime: destroy lock objects before their LockClient. Destroying one stops its renewals and releases
// nothing — which is exactly how a simulated worker crashes while holding a lock.
#pragma once

#include "lockclient.h"
#include "lockio.h"
#include "lockoptions.h"
#include "lockresult.h"

#include "redis/redisconnection.h"

#include <QByteArray>
#include <QList>
#include <QString>
#include <QStringList>

#include <functional>
#include <random>

// The connections one lock operation uses: one for single-server algorithms, N for Redlock.
using LockServers = QList<RedisConnection *>;

class DistributedLock
{
public:
    virtual ~DistributedLock(); // stops this lock's renewals; does not release it in Redis
    DistributedLock(const DistributedLock &) = delete;
    DistributedLock &operator=(const DistributedLock &) = delete;

    const QString &algorithm() const { return m_algorithm; } // the catalog id
    const QByteArray &name() const { return m_name; } // the lock key
    qint64 threadId() const { return m_threadId; }
    const LockOptions &options() const { return m_options; }
    LockClient &client() const { return m_client; }

    // Loads the algorithm's Lua scripts on every connection (SCRIPT LOAD, one round trip each). Optional:
    // a missing script is loaded on first NOSCRIPT anyway; call it once per connection to keep that
    // round trip out of the measurements.
    RedisError prepare(const LockServers &servers) const;
    RedisError prepare(RedisConnection &connection) const { return prepare(LockServers {&connection}); }

    AcquireResult tryAcquire(const LockServers &servers);
    AcquireResult acquire(const LockServers &servers);
    // Called on the calling thread after every attempt of tryAcquire()/acquire(), with that attempt's
    // result (outcome, votes, validity; startUs/endUs and commands of the attempt alone): how the simulator
    // records each Redlock round, the failed ones included, inside one waiting acquire.
    using AttemptObserver = std::function<void(const AcquireResult &attempt)>;
    void setAttemptObserver(AttemptObserver observer) { m_attemptObserver = std::move(observer); }
    ReleaseResult release(const LockServers &servers);
    ExtendResult extend(const LockServers &servers, qint64 leaseMs = 0);

    AcquireResult tryAcquire(RedisConnection &connection) { return tryAcquire(LockServers {&connection}); }
    AcquireResult acquire(RedisConnection &connection) { return acquire(LockServers {&connection}); }
    ReleaseResult release(RedisConnection &connection) { return release(LockServers {&connection}); }
    ExtendResult extend(RedisConnection &connection, qint64 leaseMs = 0)
    {
        return extend(LockServers {&connection}, leaseMs);
    }

    // What this object believes (it cannot see an expiry without asking Redis: that is the point).
    bool isHeld() const { return m_holdCount > 0; }
    int holdCount() const { return m_holdCount; }
    const QByteArray &token() const { return m_token; } // value / owner field of the current hold
    qint64 fence() const { return m_fence; } // fencing token of the latest acquire, or -1
    qint64 acquiredAtUs() const { return m_acquiredAtUs; } // LockClock::monotonicUs() of the first hold
    // True when the watchdog found the lock gone while this object still held it.
    bool renewalLost() const;
    bool isRenewing() const { return m_renewal != 0; }

    // The keys this lock writes (the lock and its companions), for cleanup and teaching views.
    virtual QList<QByteArray> keys() const { return {m_name}; }
    // The pub/sub channel a waiter of this lock sleeps on; empty when releases publish nothing.
    virtual QByteArray waitChannel() const { return QByteArray(); }
    // Lua scripts this algorithm runs (names under resources/lua/).
    virtual QStringList scriptNames() const { return {}; }

    // The sleep acquire() makes after its `attempt`-th refused attempt (1-based) with a polling strategy:
    // 0 busy spin · interval · interval ± jitter · interval × 2^(attempt−1) capped at backoffMaxMs (±
    // jitter). Jitter draws from this lock's generator (seeded by LockOptions::seed and the thread id).
    qint64 plannedDelayMs(int attempt);

protected:
    DistributedLock(LockClient &client, const QString &algorithm, const QByteArray &name, qint64 threadId,
                    const LockOptions &options);

    // One attempt. Fill outcome, token, fence, ttlMs, reply, error; update m_holdCount / m_token / m_fence.
    virtual AcquireResult attemptAcquire(const LockServers &servers, LockIo &io) = 0;
    // One release. Fill outcome, holdCount, reply, error; update m_holdCount.
    virtual ReleaseResult attemptRelease(const LockServers &servers, LockIo &io) = 0;
    // One extension. The default runs renewFunction(leaseMs) on the first server.
    virtual ExtendResult attemptExtend(const LockServers &servers, LockIo &io, qint64 leaseMs);
    // acquire() gave up after refused attempts (the fair lock leaves its queue here).
    virtual void abandonWait(const LockServers &servers, LockIo &io);
    // One renewal of the current hold to `leaseMs`, for the watchdog and extend(); empty when this
    // algorithm cannot be renewed. It runs on the watchdog thread, so it must capture copies, never `this`.
    virtual LockWatchdog::RenewFunction renewFunction(qint64 leaseMs) const
    {
        Q_UNUSED(leaseMs);
        return {};
    }
    // How many connections the algorithm needs at least (Redlock: every server given).
    virtual bool usesAllServers() const { return false; }

    // For subclasses: PTTL of `key` when options().probeTtl, else LockTtl::Unknown.
    qint64 probeTtl(RedisConnection &connection, LockIo &io, const QByteArray &key);
    // The seeds' two-step release: GET, compare with `expected` in the client, FaultHooks::betweenGetAndDel,
    // then DEL — which deletes whatever the key holds by then.
    ReleaseResult getThenDelete(RedisConnection &connection, LockIo &io, const QByteArray &expected);
    // ReleaseResult with `outcome` after which this object holds nothing.
    ReleaseResult releasedAll(ReleaseResult r, ReleaseResult::Outcome outcome);
    static qint64 ttlFromReply(const RedisReply &reply);
    // options().leaseMs as the decimal argument the scripts and SET PX take, formatted once.
    const QByteArray &leaseArgument() const { return m_leaseArgument; }

    LockClient &m_client;
    const QString m_algorithm;
    const QByteArray m_name;
    const qint64 m_threadId;
    const LockOptions m_options;
    const QByteArray m_leaseArgument;
    LockClock m_clock;
    int m_holdCount = 0;
    QByteArray m_token;
    qint64 m_fence = -1;
    qint64 m_acquiredAtUs = 0;

private:
    RedisError checkServers(const LockServers &servers) const;
    void startRenewal(const LockServers &servers);
    void stopRenewal();

    void notifyAttempt(AcquireResult &attempt, qint64 startUs, int commands) const;

    quint64 m_renewal = 0; // watchdog registration, 0 when none
    AttemptObserver m_attemptObserver;
    std::mt19937_64 m_random;
};
