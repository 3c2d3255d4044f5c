// Turns probed keys into lock records as pages arrive: classifies and diagnoses them, drops keys SCAN
// returned twice, joins keys sharing one random token (any alphabet, one TTL) into one multi-resource lock
// (listed locks, and keys that only the shared token makes a lock), and attaches Redisson companions found
// by the scan to their lock, even when they arrive pages apart.
#pragma once

#include "lockrecord.h"
#include "scannedkey.h"
#include "scanoptions.h"

#include <QHash>
#include <QSet>

class LockAssembler
{
public:
    explicit LockAssembler(const ScanOptions &options);

    // Records to show or update because of this batch; a lock may come again when a later batch adds to
    // it (another resource key, a companion). Records are diagnosed against `nowEpochMs`.
    QList<LockRecord> add(const QList<ScannedKey> &keys, qint64 nowEpochMs);

    qsizetype lockCount() const { return m_locks.size(); }
    bool hasLock(const QByteArray &key) const { return m_locks.contains(key); }

private:
    struct Member
    {
        QByteArray key;
        qint64 pttlMs = -2;
        qint64 readAtMs = 0;
    };
    struct Group
    {
        ScannedKey primary;
        QList<Member> others;
    };

    LockRecord assembleGroup(const Group &group, qint64 nowEpochMs) const;
    // Whether `k` joins the group holding its value: an existing member's TTL must end within a second of
    // its own unless the format groups by value alone. Emits the group's record when it does.
    bool joinGroup(const ScannedKey &k, bool byValueAlone, qint64 nowEpochMs, LockRecord *out);
    // A key no format lists, holding a random token with a TTL: remembered (bounded) until a second key with
    // the same token and TTL makes both one lock. Returns that lock's record when `k` completes a pair.
    bool pairSharedToken(const ScannedKey &k, qint64 nowEpochMs, LockRecord *out);
    QByteArray companionLock(const QByteArray &key) const;
    void attachCompanion(LockRecord &record, const ScannedKey &companion) const;
    void finish(LockRecord &record, qint64 nowEpochMs) const;

    ScanOptions m_options;
    QSet<QByteArray> m_locks; // keys listed as locks (primary keys)
    QSet<QByteArray> m_seen; // locks and companions handled, so SCAN's repeats are dropped
    QHash<QByteArray, Group> m_groups; // a multi-resource lock's value → the keys holding it
    QHash<QByteArray, ScannedKey> m_tokenCandidates; // unlisted keys' random token → the first key holding it
    QHash<QByteArray, LockRecord> m_withCompanions; // listed locks, to attach companions found later
    QHash<QByteArray, QList<ScannedKey>> m_pendingCompanions; // lock name → companions met before the lock
    qsizetype m_pendingCount = 0;
};
