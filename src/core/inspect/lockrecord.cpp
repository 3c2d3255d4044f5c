// LockRecord: derived facts (waiters, remaining TTL, owner summary) used alike by the GUI and the CLI.
#include "lockrecord.h"

#include "redis/bytes.h"

#include <algorithm>

QString LockCompanion::roleName(Role role)
{
    switch (role) {
    case Role::Queue:
        return QStringLiteral("queue");
    case Role::Deadlines:
        return QStringLiteral("deadlines");
    case Role::Token:
        return QStringLiteral("token");
    case Role::ReadTimeout:
        return QStringLiteral("read-timeout");
    case Role::UnlockLatch:
        return QStringLiteral("unlock-latch");
    case Role::Resource:
        return QStringLiteral("resource");
    }
    return {};
}

qint64 RenewalPolicy::periodMs(qint64 leaseMs) const
{
    switch (rule) {
    case Rule::ElapsedFraction:
        return leaseMs > 0 ? qint64(double(leaseMs) * value) : -1;
    case Rule::RemainingFraction:
        return leaseMs > 0 ? qint64(double(leaseMs) * (1.0 - value)) : -1;
    case Rule::RemainingMs:
        return leaseMs > 0 ? std::max<qint64>(0, leaseMs - qint64(value)) : -1;
    case Rule::Period:
        return qint64(value);
    case Rule::None:
    case Rule::Unknown:
        break;
    }
    return -1;
}

QString LockRecord::unknownReason(const QString &field) const
{
    for (const LockUnknown &u : unknowns) {
        if (u.field == field)
            return u.reason;
    }
    return {};
}

void LockRecord::setUnknown(const QString &field, const QString &reason, bool refused)
{
    for (LockUnknown &u : unknowns) {
        if (u.field == field) {
            u.reason = reason;
            u.refused = refused;
            return;
        }
    }
    unknowns.append({field, reason, refused});
}

bool LockRecord::isIncomplete() const
{
    return std::any_of(unknowns.cbegin(), unknowns.cend(), [](const LockUnknown &u) { return u.refused; });
}

qint64 LockRecord::waiters() const
{
    if (queueLength > 0)
        return std::max(queueLength, subscribers);
    if (subscribers >= 0)
        return subscribers;
    // The channel's subscribers were not counted (refused, a replica, a library whose waiters poll): an empty
    // fair queue does not make that 0.
    if (!unknownReason(QStringLiteral("waiters")).isEmpty())
        return -1;
    return queueLength >= 0 ? queueLength : -1;
}

QList<QByteArray> LockRecord::memberKeys() const
{
    QList<QByteArray> keys {key};
    keys += groupKeys;
    return keys;
}

bool LockRecord::isTruncated() const
{
    return (valueLength >= 0 && valueLength > value.size()) || (fieldCount >= 0 && fieldCount > fields.size())
        || (type == "zset" && size > members.size());
}

bool LockRecord::hasDiagnosis(const QString &code) const
{
    return std::any_of(diagnoses.cbegin(), diagnoses.cend(),
                       [&](const LockDiagnosis &d) { return d.code == code; });
}

qint64 LockRecord::remainingMs(qint64 nowMs) const
{
    if (pttlMs < 0)
        return pttlMs;
    return std::max<qint64>(0, pttlMs - (nowMs - readAtMs));
}

QString LockRecord::ownerSummary() const
{
    if (owners.isEmpty()) {
        if (!unknownReason(QStringLiteral("owners")).isEmpty())
            return QStringLiteral("?");
        return exists() ? QStringLiteral("—") : QStringLiteral("(no lock)");
    }
    const auto one = [](const LockOwner &o) {
        if (!o.display.isEmpty())
            return o.display;
        QString text = o.client.isEmpty() ? Bytes::display(o.id, 48) : o.client.left(8) + QStringLiteral("…");
        if (!o.thread.isEmpty())
            text += QStringLiteral(":") + o.thread;
        if (o.mode == QLatin1String("write"))
            text += QStringLiteral(" (write)");
        if (o.count > 1)
            text += QStringLiteral(" ×%1").arg(o.count);
        return text;
    };
    if (owners.size() == 1)
        return one(owners.first());
    if (kind == LockKind::Semaphore) {
        const qint64 used = holderCount >= 0 ? holderCount : owners.size();
        const auto expired = std::count_if(owners.cbegin(), owners.cend(), [](const LockOwner &o) {
            return o.note.startsWith(QLatin1String("expired"));
        });
        QString text = permitsTotal > 0 ? QStringLiteral("%1 of %2 permits").arg(used).arg(permitsTotal)
                                        : QStringLiteral("%1 permits taken").arg(used);
        if (expired > 0)
            text += QStringLiteral(" (%1 expired)").arg(expired);
        return text;
    }
    if (kind == LockKind::ReadWrite) {
        const auto readers = std::count_if(owners.cbegin(), owners.cend(), [](const LockOwner &o) {
            return o.mode == QLatin1String("read");
        });
        const bool writer = readers < owners.size();
        return writer ? QStringLiteral("writer + %1 readers").arg(readers)
                      : QStringLiteral("%1 readers").arg(readers);
    }
    return QStringLiteral("%1 + %2 more").arg(one(owners.first())).arg(owners.size() - 1);
}

QByteArray LockRecord::ownerSignature() const
{
    // In any order: a semaphore's holders are read in score order, which their refreshes reshuffle.
    QList<QByteArray> parts;
    for (const LockOwner &o : owners)
        parts << o.id + '#' + QByteArray::number(o.count);
    std::sort(parts.begin(), parts.end());
    QByteArray signature = LockKinds::name(kind).toLatin1() + '|' + rwMode.toLatin1();
    for (const QByteArray &part : parts)
        signature += '|' + part;
    return signature;
}

bool LockRecord::sameContent(const LockRecord &other, qint64 toleranceMs) const
{
    const bool ttlSame = (pttlMs < 0 || other.pttlMs < 0)
        ? pttlMs == other.pttlMs
        : std::abs(deadlineMs() - other.deadlineMs()) <= toleranceMs;
    return ttlSame && key == other.key && field == other.field && node == other.node && slot == other.slot
        && kind == other.kind
        && format == other.format && formatName == other.formatName && library == other.library
        && certain == other.certain && nameSaysLock == other.nameSaysLock
        && alsoLibraries == other.alsoLibraries && renewal == other.renewal && ttlPolicy == other.ttlPolicy
        && permitsTotal == other.permitsTotal && holderCount == other.holderCount && job == other.job
        && unknowns == other.unknowns && reason == other.reason && formatNote == other.formatNote
        && type == other.type && owners == other.owners && rwMode == other.rwMode
        && subscribers == other.subscribers && shardedSubscribers == other.shardedSubscribers
        && waitersBasis == other.waitersBasis && shardedPubSub == other.shardedPubSub
        && queueLength == other.queueLength && queue == other.queue
        && hasFencingToken == other.hasFencingToken && fencingToken == other.fencingToken
        && companions == other.companions && groupKeys == other.groupKeys && probeKey == other.probeKey
        && problems == other.problems && diagnoses == other.diagnoses && value == other.value
        && valueLength == other.valueLength && fields == other.fields && fieldCount == other.fieldCount
        && size == other.size;
}
