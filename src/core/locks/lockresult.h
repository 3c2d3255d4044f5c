// What a lock operation returns: everything the simulator's history, the CLI and the tests need to know
// about one acquire / release / extend — outcome, token or fence, the TTL that refused us, the raw reply
// or error, how many Redis commands it took, and (Redlock) what each server answered.
#pragma once

#include "redis/rediserror.h"
#include "redis/redisreply.h"

#include <QByteArray>
#include <QList>
#include <QString>

namespace LockTtl {
// Values of a TTL field: a number of milliseconds (>= 0), or one of these.
constexpr qint64 NoExpiry = -1; // the key exists without a TTL (PTTL -1): it never expires by itself
constexpr qint64 NoKey = -2; // the key does not exist (PTTL -2)
constexpr qint64 Unknown = -3; // not asked (string locks unless LockOptions::probeTtl)
} // namespace LockTtl

// One server's answer in a Redlock round.
struct ServerVote
{
    QString server; // endpoint, e.g. "127.0.0.1:6379"
    bool granted = false; // acquire: SET NX answered OK · release/extend: the script answered 1
    RedisReply reply;
    RedisError error; // timeout, refused connection, server error
    QByteArray errorCommand; // the command `error` answered ("SET", "EVALSHA compare_and_delete")
    qint64 latencyUs = 0;
};

struct AcquireResult
{
    enum class Outcome {
        Acquired,
        Refused, // held by someone else (the last attempt, when the acquire timeout is 0)
        TimedOut, // the acquire timeout ran out while someone else held the lock
        Crashed, // a fault hook crashed the worker mid-acquire (setnx-expire: after SETNX, before EXPIRE)
        ValiditySpent, // Redlock: a quorum granted it, but the lease was used up getting there
        Interrupted, // LockClient::stop() while waiting
        Error, // Redis error or connection failure (see error)
    };

    Outcome outcome = Outcome::Error;
    bool acquired() const { return outcome == Outcome::Acquired; }

    QByteArray token; // what identifies this hold in Redis: the value written, or the owner field
    qint64 fence = -1; // fencing token (fenced lock), else -1
    int holdCount = 0; // reentrant locks: holds after this acquire (1 the first time); 1 otherwise
    qint64 ttlMs = LockTtl::Unknown; // refused: the holder's remaining lease as Redis reported it
    RedisReply reply; // the reply that decided the outcome
    RedisError error;
    QByteArray errorCommand; // the command `error` answered ("SET", "EVALSHA compare_and_delete"), if one did
    int commands = 0; // Redis commands sent (every attempt, retries and NOSCRIPT reloads included)
    int attempts = 0;
    qint64 startUs = 0; // LockClock::monotonicUs() at the call and at its return
    // When the attempt that decided the outcome sent its first command: the lease of an acquired lock
    // starts no earlier (a waiting acquire's call started long before).
    qint64 attemptStartUs = 0;
    qint64 endUs = 0;

    // Redlock
    QList<ServerVote> votes; // the last round, one entry per server in the order given
    int quorum = 0;
    qint64 elapsedMs = 0; // time the last round took, on the lock's clock
    qint64 validityMs = -1; // lease − elapsed − drift; what is left of the lock when acquired

    int grantedCount() const;
    // One line for logs and the CLI: "acquired (hold 2, fence 7, 1 command)".
    QString describe() const;
    static QString outcomeName(Outcome outcome);
};

// What a release and an extend both carry: the reply or error that decided, and what the call cost.
struct LockCallTrace
{
    RedisReply reply;
    RedisError error;
    QByteArray errorCommand; // the command `error` answered ("SET", "EVALSHA compare_and_delete"), if one did
    int commands = 0;
    qint64 startUs = 0;
    qint64 endUs = 0;
};

struct ReleaseResult : LockCallTrace
{
    enum class Outcome {
        Released, // our last hold is gone
        StillHeld, // reentrant: one hold released, holdCount left
        NotOwner, // someone else holds the lock now; nothing of theirs was touched
        Expired, // nothing to release: the lease had already run out
        Error,
    };

    Outcome outcome = Outcome::Error;
    bool ok() const { return outcome == Outcome::Released || outcome == Outcome::StillHeld; }
    int holdCount = 0; // holds left after this release
    // When the command that decided the outcome was sent (a two-step release's DEL comes well after its GET).
    qint64 effectUs = 0;
    QList<ServerVote> votes; // Redlock: granted = the server deleted our key

    QString describe() const;
    static QString outcomeName(Outcome outcome);
};

struct ExtendResult : LockCallTrace
{
    enum class Outcome {
        Extended,
        Lost, // the key expired or belongs to someone else: the lock is gone
        Error,
    };

    Outcome outcome = Outcome::Error;
    bool ok() const { return outcome == Outcome::Extended; }
    qint64 leaseMs = 0; // the lease set
    QList<ServerVote> votes; // Redlock
    qint64 validityMs = -1; // Redlock: validity of the extended lock

    QString describe() const;
    static QString outcomeName(Outcome outcome);
};
