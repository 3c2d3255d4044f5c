// LockAssembler: state kept across pages is bounded: groups keep three numbers per member key, Redisson
// records are kept only for locks that can have companions, pending companions are capped.
#include "lockassembler.h"

#include "lockclassifier.h"
#include "lockdiagnostics.h"
#include "locknames.h"

namespace {
constexpr qsizetype kMaxPendingCompanions = 10000;

LockCompanion::Role roleOf(LockNames::CompanionRole role)
{
    return role == LockNames::CompanionRole::ReadTimeout ? LockCompanion::Role::ReadTimeout
                                                         : LockCompanion::Role::UnlockLatch;
}
} // namespace

LockAssembler::LockAssembler(const ScanOptions &options)
    : m_options(options)
{
}

void LockAssembler::finish(LockRecord &record, qint64 nowEpochMs) const
{
    DiagnosticContext context;
    context.nowEpochMs = nowEpochMs;
    context.ttlThresholdMs = m_options.ttlThresholdMs;
    context.watchdogLeaseMs = m_options.watchdogLeaseMs;
    LockDiagnostics::diagnose(record, context);
}

void LockAssembler::attachCompanion(LockRecord &record, const ScannedKey &companion) const
{
    const LockNames::Companion c = LockNames::companionOf(companion.key);
    for (LockCompanion &existing : record.companions) {
        if (existing.key == companion.key) {
            existing.type = companion.type;
            existing.pttlMs = companion.pttlMs;
            return;
        }
    }
    record.companions.append({companion.key, roleOf(c.role), companion.type, companion.pttlMs,
                              c.role == LockNames::CompanionRole::ReadTimeout
                                  ? QStringLiteral("read hold of %1").arg(QString::fromUtf8(c.owner))
                                  : QStringLiteral("unlock in progress (idempotency latch)")});
}

LockRecord LockAssembler::assembleGroup(const Group &group, qint64 nowEpochMs) const
{
    ScannedKey primary = group.primary;
    for (const Member &m : group.others)
        primary.sameValueKeys.append(m.key);
    LockRecord record = LockClassifier::classify(primary);
    // The lock's TTL stays its first key's (they are set together); each other key's TTL is shown with it as
    // a companion. Keeping the row's TTL and diagnoses stable as members arrive spares a sorted table a
    // re-sort per member.
    for (const Member &m : group.others) {
        for (LockCompanion &c : record.companions) {
            if (c.key == m.key)
                c.pttlMs = m.pttlMs;
        }
    }
    finish(record, nowEpochMs);
    return record;
}

QList<LockRecord> LockAssembler::add(const QList<ScannedKey> &keys, qint64 nowEpochMs)
{
    QList<LockRecord> out;
    QHash<QByteArray, qsizetype> indexOf; // one record per lock per batch: a later update replaces it
    const auto emitRecord = [&](const LockRecord &record) {
        const auto it = indexOf.constFind(record.key);
        if (it != indexOf.constEnd()) {
            out[*it] = record;
            return;
        }
        indexOf.insert(record.key, out.size());
        out.append(record);
    };
    QSet<QByteArray> updatedRedisson;
    for (const ScannedKey &k : keys) {
        const LockNames::Companion companion = LockNames::companionOf(k.key);
        // Cheap rejection first: most keys are not locks and need no lookup at all.
        if (companion.role == LockNames::CompanionRole::None && !LockClassifier::mayBeLock(k))
            continue;
        if (m_seen.contains(k.key))
            continue; // SCAN may return a key twice
        if (companion.role == LockNames::CompanionRole::ReadTimeout
            || companion.role == LockNames::CompanionRole::UnlockLatch) {
            m_seen.insert(k.key);
            if (!k.exists())
                continue;
            auto it = m_redisson.find(companion.lockName);
            if (it != m_redisson.end()) {
                attachCompanion(*it, k);
                updatedRedisson.insert(companion.lockName);
            } else if (m_pendingCount < kMaxPendingCompanions) {
                m_pendingCompanions[companion.lockName].append(k);
                ++m_pendingCount;
            }
            continue;
        }
        if (!k.exists() && !k.redisson.read)
            continue; // gone between SCAN and TYPE

        if (k.type == "string" && LockClassifier::isLowerHex32(k.value)) {
            auto it = m_groups.find(k.value);
            if (it != m_groups.end()) {
                m_seen.insert(k.key);
                it->others.append({k.key, k.pttlMs, k.readAtMs});
                emitRecord(assembleGroup(*it, nowEpochMs));
                continue;
            }
            Group g;
            g.primary = k;
            LockRecord record = LockClassifier::classify(k);
            if (!record.isLock())
                continue;
            m_groups.insert(k.value, g);
            m_seen.insert(k.key);
            m_locks.insert(k.key);
            finish(record, nowEpochMs);
            emitRecord(record);
            continue;
        }

        LockRecord record = LockClassifier::classify(k);
        if (!record.isLock())
            continue; // not remembered: a non-lock seen twice is simply not a lock twice
        m_seen.insert(k.key);
        m_locks.insert(k.key);
        if (LockKinds::isRedissonHash(record.kind)) {
            const auto pending = m_pendingCompanions.take(k.key);
            m_pendingCount -= pending.size();
            for (const ScannedKey &c : pending)
                attachCompanion(record, c);
            m_redisson.insert(k.key, record);
        }
        finish(record, nowEpochMs);
        emitRecord(record);
    }
    for (const QByteArray &lock : updatedRedisson) {
        LockRecord &record = m_redisson[lock];
        finish(record, nowEpochMs);
        emitRecord(record);
    }
    return out;
}
