// What the scanner read about one key, before any interpretation: the classifier's whole input. Every read
// that failed is recorded as such (readErrors, and the per-read error texts), never as a default value.
#pragma once

#include "formatmatch.h"

#include <QByteArray>
#include <QHash>
#include <QList>
#include <QPair>
#include <QString>
#include <QStringList>

struct ScannedKey
{
    // A key read because a format names it next to the lock (a fair lock's queue, a semaphore's weights, a
    // job's hash): read in the same round as the lock's other extras.
    struct Companion
    {
        QString role;
        QByteArray key;
        QByteArray read; // "list", "zset", "string", "exists"
        bool present = false;
        qint64 size = -1; // LLEN / ZCARD; -1 when not read
        QList<QByteArray> items; // list items, zset members (in order), or the string's value
        QList<double> scores; // zset scores, parallel to items
        QString error; // the read failed: why (the reading is then unknown, not empty)
        bool wrongType = false; // the key exists but is not the type the format says: the data is malformed
        qint64 pttlMs = -3; // its PTTL when the format takes the lock's TTL from it; -3 not read
    };

    // The job a job lock protects: its hash's fields and whether the queue's stalled check marked it.
    struct Job
    {
        bool read = false;
        bool exists = false;
        QList<QByteArray> fields; // the values of the format's attempts fields, then its stalled-count field
        bool markedStalled = false;
        QString error;
    };

    QByteArray key;
    QByteArray type; // TYPE: string, hash, list, set, zset, stream, none; empty when it could not be read
    qint64 pttlMs = -2; // PTTL: -1 no TTL, -2 the key is gone, -3 not read (see pttlError)
    qint64 readAtMs = 0; // InspectClock::monotonicMs() when the key was read (with its PTTL, when read), 0 when not
    QString pttlError; // PTTL was refused or failed: why
    bool lockNamed = false; // the name says "lock" (a lock-name word or an explicit scan pattern matched)
    bool explicitPattern = false; // found by a pattern the user gave (listed even without a lock's shape)

    QByteArray value; // string: its first bytes (GETRANGE)
    qint64 valueLength = -1; // STRLEN, -1 when not read
    QList<QPair<QByteArray, QByteArray>> fields; // hash: the fields read, at most the bound
    qint64 fieldCount = -1; // HLEN, -1 when not read
    // A hash whose fields read include locks (HashFieldLocks): those fields' own TTLs (HPTTL, Redis 7.4+):
    // -1 none, -2 gone. fieldTtlsAbsent: the server predates field TTLs (HPTTL unknown), so none can be set.
    QHash<QByteArray, qint64> fieldPttls;
    QString fieldPttlError;
    bool fieldTtlsAbsent = false;
    QList<QPair<QByteArray, double>> members; // zset: the first members and their scores
    qint64 size = -1; // LLEN / SCARD / ZCARD / XLEN: exact, from the server

    // The format the prober planned the extra reads for, and those reads.
    QString plannedFormat;
    // The prober's match, reused by the assembler while what it was made from still holds (matchBasis()
    // unchanged, and a TTL assumed for an unread PTTL turned out to be there).
    FormatMatch plannedMatch;
    bool matchPlanned = false;
    bool matchAssumedTtl = false;
    QList<qint64> plannedBasis;
    QList<Companion> companions;
    QList<QByteArray> channels; // the format's pub/sub channels for this key
    // Who waits on those channels. Classic subscribers (SUBSCRIBE) are counted with PUBSUB NUMSUB, sharded
    // ones (SSUBSCRIBE, Redis >= 7; Redisson >= 3.22 on a cluster) with PUBSUB SHARDNUMSUB, which only the
    // node owning the channel's slot knows. On a cluster a classic subscriber may sit on any master (a
    // PUBLISH reaches every node), so the classic counts are summed over every master (channelsNodes).
    QList<qint64>
        channelSubscribers; // classic: PUBSUB NUMSUB of each, parallel to channels; empty when not read
    QList<qint64> channelShardSubscribers; // PUBSUB SHARDNUMSUB of each on this node; empty when not read
    QString channelsError; // PUBSUB NUMSUB refused (ACL without +@pubsub) or not meaningful here (replica)
    QString shardChannelsError; // PUBSUB SHARDNUMSUB refused: the sharded waiters are unknown
    bool shardedPubSubAbsent = false; // the server predates sharded pub/sub (Redis < 7): nobody can wait so
    QString channelsNode; // the node NUMSUB and SHARDNUMSUB were asked on ("127.0.0.1:7001")
    QStringList
        channelsNodes; // every node whose NUMSUB is summed in channelSubscribers (a cluster's masters)
    QString
        channelsIncomplete; // masters whose classic subscribers could not be counted: the count is a floor
    Job job;

    QList<QByteArray> sameValueKeys; // other string keys holding exactly this value (multi-resource locks)
    QStringList readErrors; // reads that failed: the key changed type meanwhile, ACL, …

    bool exists() const { return !type.isEmpty() && type != "none"; }
    // What a format match depends on besides the key: sizes of what was read, and how much there is.
    QList<qint64> matchBasis() const
    {
        return {qint64(type.size()), type.isEmpty() ? 0 : qint64(type.at(0)), value.size(), valueLength,
                fields.size(), fieldCount, members.size(), size};
    }
    // The prober's match, when it still holds; null otherwise.
    const FormatMatch *reusableMatch() const
    {
        if (!matchPlanned || plannedBasis != matchBasis() || (matchAssumedTtl && pttlMs < 0))
            return nullptr;
        return &plannedMatch;
    }
    const Companion *companion(const QString &role) const
    {
        for (const Companion &c : companions) {
            if (c.role == role)
                return &c;
        }
        return nullptr;
    }
};
