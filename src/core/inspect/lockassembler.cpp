// LockAssembler: state kept across pages is bounded: groups keep three numbers per member key, records are
// kept to attach companions found later, pending companions are capped.
#include "lockassembler.h"

#include "hashfieldlocks.h"
#include "lockclassifier.h"
#include "lockdiagnostics.h"
#include "locknames.h"
#include "ownerevidence.h"

#include <cstdlib>

namespace {
constexpr qsizetype kMaxPendingCompanions = 10000;
constexpr qsizetype kMaxTokenCandidates = 10000;
// Keys of one multi-resource lock get their TTL in one call or a few: their expiries agree within this.
constexpr qint64 kSameTtlToleranceMs = 1000;

bool sameTtl(const ScannedKey &a, qint64 pttlMs, qint64 readAtMs)
{
    return a.pttlMs > 0 && pttlMs > 0
        && std::abs((a.readAtMs + a.pttlMs) - (readAtMs + pttlMs)) <= kSameTtlToleranceMs;
}

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
    LockDiagnostics::diagnose(record, context);
}

void LockAssembler::attachCompanion(LockRecord &record, const ScannedKey &companion) const
{
    for (LockCompanion &existing : record.companions) {
        if (existing.key == companion.key) {
            existing.type = companion.type;
            existing.pttlMs = companion.pttlMs;
            return;
        }
    }
    const LockNames::Companion c = LockNames::companionOf(companion.key);
    if (c.role != LockNames::CompanionRole::None) {
        record.companions.append({companion.key, roleOf(c.role), companion.type, companion.pttlMs,
                                  c.role == LockNames::CompanionRole::ReadTimeout
                                      ? QStringLiteral("read hold of %1").arg(QString::fromUtf8(c.owner))
                                      : QStringLiteral("unlock in progress (idempotency latch)")});
        return;
    }
    const FormatCatalog::CompanionOf of = m_options.formats->companionOf(companion.key);
    record.companions.append({companion.key, LockCompanion::Role::Resource, companion.type, companion.pttlMs,
                              of ? of.role : QStringLiteral("companion")});
}

// The lock a scanned key belongs to without being one (Redisson's read timeouts and unlock latches, a
// format's companion_of rule), or an empty name.
QByteArray LockAssembler::companionLock(const QByteArray &key) const
{
    const LockNames::Companion c = LockNames::companionOf(key);
    if (c.role == LockNames::CompanionRole::ReadTimeout || c.role == LockNames::CompanionRole::UnlockLatch)
        return c.lockName;
    if (const FormatCatalog::CompanionOf of = m_options.formats->companionOf(key))
        return of.lockKey;
    return {};
}

LockRecord LockAssembler::assembleGroup(const Group &group, qint64 nowEpochMs) const
{
    ScannedKey primary = group.primary;
    for (const Member &m : group.others)
        primary.sameValueKeys.append(m.key);
    LockRecord record = LockClassifier::classify(primary, *m_options.formats);
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

bool LockAssembler::pairSharedToken(const ScannedKey &k, qint64 nowEpochMs, LockRecord *out)
{
    if (k.type != "string" || k.pttlMs <= 0 || k.valueLength > k.value.size()
        || !OwnerEvidence::isRandomId(k.value))
        return false;
    const auto group = m_groups.find(k.value);
    if (group != m_groups.end()) {
        if (group->primary.key == k.key || !sameTtl(group->primary, k.pttlMs, k.readAtMs))
            return false;
        m_seen.insert(k.key);
        group->others.append({k.key, k.pttlMs, k.readAtMs});
        *out = assembleGroup(*group, nowEpochMs);
        return true;
    }
    const auto first = m_tokenCandidates.find(k.value);
    if (first == m_tokenCandidates.end()) {
        if (m_tokenCandidates.size() < kMaxTokenCandidates)
            m_tokenCandidates.insert(k.value, k);
        return false;
    }
    if (first->key == k.key || !sameTtl(*first, k.pttlMs, k.readAtMs))
        return false;
    Group pair;
    pair.primary = *first;
    pair.others.append({k.key, k.pttlMs, k.readAtMs});
    LockRecord record = assembleGroup(pair, nowEpochMs);
    if (!record.isLock())
        return false;
    m_tokenCandidates.erase(first);
    m_seen.insert(pair.primary.key);
    m_seen.insert(k.key);
    m_locks.insert(pair.primary.key);
    m_groups.insert(k.value, pair);
    *out = record;
    return true;
}

QList<LockRecord> LockAssembler::add(const QList<ScannedKey> &keys, qint64 nowEpochMs)
{
    QList<LockRecord> out;
    QHash<QByteArray, qsizetype> indexOf; // one record per lock per batch: a later update replaces it
    const auto emitRecord = [&](const LockRecord &record) {
        const QByteArray id = record.identity();
        const auto it = indexOf.constFind(id);
        if (it != indexOf.constEnd()) {
            out[*it] = record;
            return;
        }
        indexOf.insert(id, out.size());
        out.append(record);
    };
    QSet<QByteArray> updatedLocks;
    const FormatCatalog &catalog = *m_options.formats;
    for (const ScannedKey &k : keys) {
        // Cheap rejection first: most keys are not locks and need no lookup at all.
        const QByteArray lockOfCompanion = companionLock(k.key);
        // One match per key, reused by the classifier.
        FormatCatalog::Match match;
        if (lockOfCompanion.isEmpty() && k.exists()) {
            const FormatMatch *planned = k.reusableMatch();
            match = planned ? *planned : catalog.match(k);
        }
        if (lockOfCompanion.isEmpty() && !match && k.type == "hash") {
            // Locks kept as fields of a hash that is no lock itself (huey's results hash): one record each.
            for (LockRecord &field : HashFieldLocks::records(k, m_options.lockNamePatterns)) {
                if (m_seen.contains(field.identity()))
                    continue;
                m_seen.insert(field.identity());
                finish(field, nowEpochMs);
                emitRecord(field);
            }
        }
        if (lockOfCompanion.isEmpty() && !match && k.exists() && !k.lockNamed && !k.explicitPattern) {
            LockRecord shared;
            if (!m_seen.contains(k.key) && pairSharedToken(k, nowEpochMs, &shared))
                emitRecord(shared);
            continue;
        }
        if (m_seen.contains(k.key))
            continue; // SCAN may return a key twice
        if (!lockOfCompanion.isEmpty()) {
            m_seen.insert(k.key);
            if (!k.exists())
                continue;
            auto it = m_withCompanions.find(lockOfCompanion);
            if (it != m_withCompanions.end()) {
                attachCompanion(*it, k);
                updatedLocks.insert(lockOfCompanion);
            } else if (m_pendingCount < kMaxPendingCompanions) {
                m_pendingCompanions[lockOfCompanion].append(k);
                ++m_pendingCount;
            }
            continue;
        }
        if (!k.exists() && k.companions.isEmpty())
            continue; // gone between SCAN and TYPE

        LockRecord record = LockClassifier::classify(k, catalog, &match);
        if (!record.isLock())
            continue; // not remembered: a non-lock seen twice is simply not a lock twice
        const LockFormat *format = catalog.find(record.format);
        // node-redlock's format groups by value alone; a generic lock's random token groups keys whose TTLs
        // agree too (any alphabet: hex, base64, base64url, raw bytes), under a lock name or not.
        const bool byValue = format && format->groupBySameValue;
        const bool generic
            = format && (format->needsLockName || format->valueIs == QLatin1String("random-id"));
        if (k.type == "string" && (byValue || (generic && OwnerEvidence::isRandomId(k.value)))) {
            auto it = m_groups.find(k.value);
            if (it != m_groups.end() && !byValue && !sameTtl(it->primary, k.pttlMs, k.readAtMs))
                it = m_groups.end(); // the same token with another TTL: another lock
            if (it != m_groups.end()) {
                m_seen.insert(k.key);
                it->others.append({k.key, k.pttlMs, k.readAtMs});
                emitRecord(assembleGroup(*it, nowEpochMs));
                continue;
            }
            if (!m_groups.contains(k.value)) {
                Group g;
                g.primary = k;
                m_groups.insert(k.value, g);
            }
        }
        m_seen.insert(k.key);
        m_locks.insert(k.key);
        const auto pending = m_pendingCompanions.take(k.key);
        m_pendingCount -= pending.size();
        for (const ScannedKey &c : pending)
            attachCompanion(record, c);
        // Kept only where a companion can still arrive: Redisson's read timeouts and unlock latches, or a
        // format's companion_of rules (a 100,000-lock scan must not keep every record twice).
        if (!pending.isEmpty()
            || (format && (!format->companionOf.isEmpty() || format->library == QLatin1String("Redisson"))))
            m_withCompanions.insert(k.key, record);
        finish(record, nowEpochMs);
        emitRecord(record);
    }
    for (const QByteArray &lock : updatedLocks) {
        LockRecord &record = m_withCompanions[lock];
        finish(record, nowEpochMs);
        emitRecord(record);
    }
    return out;
}
