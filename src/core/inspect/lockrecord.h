// One lock as the inspector shows it: kind, owners, TTL, waiters, companions and diagnoses. A plain value
// that crosses threads (scanner → GUI) and is printed by the CLI.
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

    bool operator==(const LockOwner &other) const = default;
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
    QString code; // no-ttl, ttl-above-threshold, watchdog-stalled, orphan-queue, contended, malformed
    QString text; // one sentence for people

    bool operator==(const LockDiagnosis &other) const = default;
};

struct LockRecord
{
    QByteArray key;
    // On a Redis Cluster: the master the lock was read from ("127.0.0.1:7000") and the key's slot. Empty and
    // -1 on a single server.
    QString node;
    int slot = -1;
    LockKind kind = LockKind::None;
    QString library; // "Redisson", "redis-py (probable)", …
    QString reason; // why this kind and library
    QByteArray type; // the Redis type of the key; "none" for an orphan queue whose lock is gone
    qint64 pttlMs = -2; // -1 no TTL, -2 gone
    qint64 readAtMs = 0; // InspectClock::monotonicMs() of the PTTL reading

    QList<LockOwner> owners;
    QString rwMode; // read-write locks: the 'mode' field
    qint64 subscribers = -1; // PUBSUB NUMSUB of its Redisson channel, -1 when unknown
    qint64 queueLength = -1; // fair-lock queue length, -1 when there is none
    QList<FairWaiter> queue; // the first waiters of a fair lock, head first
    bool hasFencingToken = false;
    qint64 fencingToken = 0;
    QList<LockCompanion> companions;
    QList<QByteArray> groupKeys; // the other keys of a multi-resource lock (same value)

    QStringList problems; // why the data is malformed, one sentence each (empty when well-formed)
    QList<LockDiagnosis> diagnoses;

    // The raw data, bounded: a string's first bytes or a hash's first fields, and their full sizes.
    QByteArray value;
    qint64 valueLength = -1;
    QList<QPair<QByteArray, QByteArray>> fields;
    qint64 fieldCount = -1;
    qint64 size = -1; // other types under a lock name: their length

    bool isLock() const { return kind != LockKind::None; }
    bool exists() const { return !type.isEmpty() && type != "none"; }
    // People waiting for it: the fair queue when there is one, else the channel's subscribers; -1 unknown.
    qint64 waiters() const;
    // The key and the other keys of a multi-resource lock.
    QList<QByteArray> memberKeys() const;
    // True when only part of the value or fields was read (a huge key under a lock name).
    bool isTruncated() const;
    bool hasDiagnosis(const QString &code) const;
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
Q_DECLARE_TYPEINFO(LockRecord, Q_RELOCATABLE_TYPE);
Q_DECLARE_METATYPE(LockRecord)
