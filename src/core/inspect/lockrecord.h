// One lock as the inspector shows it: kind, library, owners, TTL, waiters, companions and diagnoses, and what
// could not be read (unknowns, with why). A plain value that crosses threads (scanner → GUI) and is printed
// by the CLI.
#pragma once

#include "lockkind.h"

#include <QByteArray>
#include <QList>
#include <QMetaType>
#include <QPair>
#include <QString>
#include <QStringList>

struct LockOwner
{
    QByteArray id; // the owner exactly as stored (hash field or string value)
    QString client; // the client part (Redisson's client uuid), empty when the format has none
    QString thread; // the thread id, empty when the format has none
    qint64 count = -1; // reentrancy (hold) count, -1 when the format has none
    QString mode; // read-write locks: "read" or "write"
    QString note; // what else the value tells, e.g. where and when a uuid1 was made
    QString display; // the owner as its library means it ("worker 3f2a…, lock #7"); empty: show the id
    qint64 sinceEpochMs = -1; // when it took the lock or permit, where the library stores it
    qint64 untilEpochMs = -1; // when its own hold runs out, where the library stores one per holder

    bool operator==(const LockOwner &other) const = default;
};

// Something the inspector could not read: never shown as a value (a TTL of "gone", 0 waiters) but as
// unknown, with why. `refused`: the server could have told and did not (ACL, replica, LOADING, error), which
// makes the inspection incomplete; otherwise it cannot be known from Redis at all (polling waiters).
struct LockUnknown
{
    QString field; // "pttl_ms", "waiters", "owners", "permits_total", "job"
    QString reason;
    bool refused = true;

    bool operator==(const LockUnknown &other) const = default;
};

// A queue job's lock: which job, how many attempts it has used, and what the queue will do if the lock
// lapses (its stalled-job check takes the job back).
struct JobInfo
{
    QString queue;
    QString id;
    QByteArray jobKey; // the job's own key (a hash), empty when the format has none
    bool jobFound = false; // the job's key exists
    qint64 attempts = -1; // attempts made so far, -1 unknown
    qint64 stalledCount = -1; // times it was already taken back as stalled, -1 unknown
    bool markedStalled = false; // listed in the queue's stalled set at its last check
    QString reclaim; // one sentence: what the queue does when this lock lapses

    bool operator==(const JobInfo &other) const = default;
};

// How the library renews a lock while its owner runs, from its format: the yardstick for "stopped renewing".
struct RenewalPolicy
{
    enum class Rule {
        Unknown, // the format does not say
        None, // never renewed: the lease is fixed
        ElapsedFraction, // renewed once `value` of the lease has elapsed (Redisson 1/3, Bull 1/2)
        RemainingFraction, // renewed when `value` of the lease is left (redis-semaphore 0.2)
        RemainingMs, // renewed when `value` ms are left (redlock auto-extension)
        Period, // renewed every `value` ms whatever the lease
    };
    Rule rule = Rule::Unknown;
    double value = 0;
    QString text; // "every third of the lease (lockWatchdogTimeout / 3)": what the library does on its own
    // What a watch saw, when it saw renewals (LockDiagnostics::diagnose fills it): "renewed every 1.0 s while
    // watched (4 renewals seen): something renews it, …". It wins over `text`, which alone may be wrong
    // for the caller (issue 41: redis-py "renews it only when the application calls extend()", on a lock a
    // library extends every second).
    QString observed;

    // What to show: the observed rhythm with the library's own rule, or the library's rule alone.
    QString shown() const { return observed.isEmpty() ? text : observed; }

    // How long after a renewal the next one is due for a lock whose lease is `leaseMs`; -1 unknown.
    qint64 periodMs(qint64 leaseMs) const;
    bool operator==(const RenewalPolicy &other) const = default;
};

struct FairWaiter
{
    QByteArray id; // <client uuid>:<thread id>
    qint64 deadlineEpochMs = -1; // from the deadline zset; -1 when it has none

    bool operator==(const FairWaiter &other) const = default;
};

struct LockCompanion
{
    enum class Role { Queue, Deadlines, Token, ReadTimeout, UnlockLatch, Resource };

    QByteArray key;
    Role role = Role::Queue;
    QByteArray type; // "list", "zset", "string"; empty when not read
    qint64 pttlMs = -3; // -1 no TTL, -2 gone, -3 not read
    QString summary; // "3 waiters", "token 34", …

    static QString
    roleName(Role role); // "queue", "deadlines", "token", "read-timeout", "unlock-latch", "resource"
    bool operator==(const LockCompanion &other) const = default;
};

struct LockDiagnosis
{
    QString code; // no-ttl, ttl-above-threshold, watchdog-stalled, orphan-queue, contended, malformed, …
    QString text; // one sentence for people
    QString evidence; // what it rests on: the readings and the format facts ("PTTL -1 at 12:03:05; …")

    bool operator==(const LockDiagnosis &other) const = default;
};

struct LockRecord
{
    QByteArray key;
    // A lock kept as one field of a hash shared with other data (huey's task locks, issue 39): that field, and
    // `value` its bytes. Empty for a lock that is a key of its own.
    QByteArray field;
    // On a Redis Cluster: the master the lock was read from ("127.0.0.1:7000") and the key's slot. Empty and
    // -1 on a single server.
    QString node;
    int slot = -1;
    LockKind kind = LockKind::None;
    QString format; // the format catalog's id ("bullmq-job-lock"); empty when no format fits
    QString formatName; // "BullMQ job lock"
    QString library; // "BullMQ", "redis-py (probable)", …
    bool certain = false; // the format knows the key's name, or its data alone is unmistakable
    bool nameSaysLock = false; // named like a lock, or found by a pattern the user gave
    // The data names a holder (or its format knows the library): false for a word or flag under a lock
    // name, which is listed but never alarmed on.
    bool holderEvidence = true;
    QStringList alsoLibraries; // other libraries that write the same shape
    QString reason; // why this kind and library
    QString formatNote; // what the format says about such locks (what a stuck one means, how to clear it)
    QByteArray type; // the Redis type of the key; "none" for an orphan queue whose lock is gone
    qint64 pttlMs = -2; // -1 no TTL, -2 gone, -3 unknown (see unknowns)
    qint64 readAtMs = 0; // InspectClock::monotonicMs() of the reading (the PTTL's, when it was read), 0 when not read
    RenewalPolicy renewal;
    // What its library does about a TTL: "always" (none means it was removed or written by hand), "optional"
    // (the caller's choice; none means stuck for ever if the holder dies), "never" (by design, not a lease).
    QString ttlPolicy;

    QList<LockOwner> owners;
    QString rwMode; // read-write locks: the 'mode' field
    qint64 subscribers = -1; // clients subscribed to its channels, classic and sharded; -1 when unknown
    qint64 shardedSubscribers = -1; // of those, by sharded pub/sub (SSUBSCRIBE); -1 not counted
    QString waitersBasis; // how the subscribers were counted: which command, on which nodes
    bool shardedPubSub = false; // the server has sharded pub/sub (it answered, or refused, SHARDNUMSUB)
    qint64 queueLength = -1; // fair-lock queue length, -1 when there is none
    QList<FairWaiter> queue; // the first waiters of a fair lock, head first
    bool hasFencingToken = false;
    qint64 fencingToken = 0;
    QList<LockCompanion> companions;
    QList<QByteArray> groupKeys; // the other keys of a multi-resource lock (same value)
    QByteArray probeKey; // the key to read again to refresh it, when not `key` (a format's lock_key)
    qint64 permitsTotal = -1; // semaphores: the limit, -1 when it is not stored in Redis
    qint64 holderCount = -1; // semaphores, read-write: holders counted by the server (ZCARD, HLEN)
    JobInfo job; // job locks
    QList<LockUnknown> unknowns;

    QStringList problems; // why the data is malformed, one sentence each (empty when well-formed)
    QList<LockDiagnosis> diagnoses;

    // The raw data, bounded: a string's first bytes or a hash's first fields, and their full sizes.
    QByteArray value;
    qint64 valueLength = -1;
    QList<QPair<QByteArray, QByteArray>> fields;
    qint64 fieldCount = -1;
    QList<QPair<QByteArray, double>> members; // a zset's first members and scores, as read
    qint64 size = -1; // other types under a lock name: their length

    static constexpr qint64 kPttlUnknown = -3;

    bool isLock() const { return kind != LockKind::None; }
    // What tells two records apart: the key, and the field of a lock kept in a shared hash.
    QByteArray identity() const { return field.isEmpty() ? key : key + '\0' + field; }
    bool exists() const { return !type.isEmpty() && type != "none"; }
    // People waiting for it: the fair queue when there is one, else the channel's subscribers; -1 unknown.
    qint64 waiters() const;
    // The key and the other keys of a multi-resource lock.
    QList<QByteArray> memberKeys() const;
    // True when only part of the value, fields or members was read (a huge key under a lock name).
    bool isTruncated() const;
    bool hasDiagnosis(const QString &code) const;
    // The reason `field` could not be read; empty when it was.
    QString unknownReason(const QString &field) const;
    // Adds (or replaces) an unknown.
    void setUnknown(const QString &field, const QString &reason, bool refused = true);
    // True when the server refused something this record needs (ACL, replica, LOADING, an error).
    bool isIncomplete() const;
    // The TTL left at monotonic time `nowMs`, counting down from the reading; -1/-2 as PTTL.
    qint64 remainingMs(qint64 nowMs) const;
    // When it expires on the monotonic clock; -1 for no TTL.
    qint64 deadlineMs() const { return pttlMs >= 0 ? readAtMs + pttlMs : -1; }
    // "a1b2…:42 ×2" or "3 readers", for one table cell.
    QString ownerSummary() const;
    // Who holds it and how many times: equal signatures mean the same holders (used by the history).
    QByteArray ownerSignature() const;
    // Equal except for the TTL reading (compared as an expiry deadline within `toleranceMs`).
    bool sameContent(const LockRecord &other, qint64 toleranceMs = 5) const;
};

// Every member is a Qt implicitly shared type or a number: a LockRecord may be moved in memory as bytes,
// which keeps growing a table of 100,000 locks from copying every record.
Q_DECLARE_TYPEINFO(LockOwner, Q_RELOCATABLE_TYPE);
Q_DECLARE_TYPEINFO(FairWaiter, Q_RELOCATABLE_TYPE);
Q_DECLARE_TYPEINFO(LockCompanion, Q_RELOCATABLE_TYPE);
Q_DECLARE_TYPEINFO(LockDiagnosis, Q_RELOCATABLE_TYPE);
Q_DECLARE_TYPEINFO(LockUnknown, Q_RELOCATABLE_TYPE);
Q_DECLARE_TYPEINFO(LockRecord, Q_RELOCATABLE_TYPE);
Q_DECLARE_METATYPE(LockRecord)
Q_DECLARE_METATYPE(LockDiagnosis)
