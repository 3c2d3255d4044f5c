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

qint64 LockRecord::waiters() const
{
    if (queueLength > 0)
        return std::max(queueLength, subscribers);
    if (subscribers >= 0)
        return subscribers;
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
    return (valueLength >= 0 && valueLength > value.size())
        || (fieldCount >= 0 && fieldCount > fields.size());
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
    if (owners.isEmpty())
        return exists() ? QStringLiteral("—") : QStringLiteral("(no lock)");
    const auto one = [](const LockOwner &o) {
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
    if (kind == LockKind::RedissonRw) {
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
    QByteArray signature = LockKinds::name(kind).toLatin1() + '|' + rwMode.toLatin1();
    for (const LockOwner &o : owners)
        signature += '|' + o.id + '#' + QByteArray::number(o.count);
    return signature;
}

bool LockRecord::sameContent(const LockRecord &other, qint64 toleranceMs) const
{
    const bool ttlSame = (pttlMs < 0 || other.pttlMs < 0)
        ? pttlMs == other.pttlMs
        : std::abs(deadlineMs() - other.deadlineMs()) <= toleranceMs;
    return ttlSame && key == other.key && node == other.node && slot == other.slot && kind == other.kind
        && library == other.library && reason == other.reason && type == other.type && owners == other.owners
        && rwMode == other.rwMode && subscribers == other.subscribers && queueLength == other.queueLength
        && queue == other.queue && hasFencingToken == other.hasFencingToken
        && fencingToken == other.fencingToken && companions == other.companions
        && groupKeys == other.groupKeys && problems == other.problems && diagnoses == other.diagnoses
        && value == other.value && valueLength == other.valueLength && fields == other.fields
        && fieldCount == other.fieldCount && size == other.size;
}
