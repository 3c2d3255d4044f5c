// What the scanner read about one key, before any interpretation: the classifier's whole input.
#pragma once

#include <QByteArray>
#include <QList>
#include <QPair>
#include <QStringList>

struct ScannedKey
{
    // Redisson's companions of a hash lock N, read in the same round as the hash itself (they are named
    // after N, so no extra round trip is needed): redisson_lock_queue:{N}, redisson_lock_timeout:{N},
    // redisson_lock_token:{N} and the subscribers of its pub/sub channels.
    struct Redisson
    {
        bool read = false; // false: these reads were not made (not a hash, or not asked for)
        qint64 queueLength = -1; // LLEN of the fair-lock queue (0 when there is none)
        QList<QByteArray> queue; // its first entries, head first
        QList<QPair<QByteArray, qint64>> deadlines; // the deadline zset: waiter → epoch ms, by score
        bool tokenPresent = false; // the fenced lock's token counter exists
        QByteArray token; // its value as stored
        qint64 lockChannelSubscribers = -1; // PUBSUB NUMSUB redisson_lock__channel:{N}
        qint64 rwChannelSubscribers = -1; // PUBSUB NUMSUB redisson_rwlock:{N}
    };

    QByteArray key;
    QByteArray type; // TYPE: string, hash, list, set, zset, stream, none; empty when it could not be read
    qint64 pttlMs = -2; // PTTL: -1 no TTL, -2 the key is gone (or, for a key that cannot be a lock: not read)
    qint64 readAtMs = 0; // InspectClock::monotonicMs() when PTTL was read, 0 when it was not
    bool lockNamed = false; // the name says "lock" (a lock-name pattern or an explicit scan pattern matched)

    QByteArray value; // string: its first bytes (GETRANGE)
    qint64 valueLength = -1; // STRLEN, -1 when not read
    QList<QPair<QByteArray, QByteArray>> fields; // hash: the fields read, at most the bound
    qint64 fieldCount = -1; // HLEN, -1 when not read
    qint64 size = -1; // LLEN / SCARD / ZCARD / XLEN for other types under a lock name

    Redisson redisson;
    QList<QByteArray> sameValueKeys; // other string keys holding exactly this value (multi-resource locks)
    QStringList readErrors; // reads that failed: the key changed type meanwhile, ACL, …

    bool exists() const { return !type.isEmpty() && type != "none"; }
};
