// LockHistory: bounded event list plus the numbers the cadence sentence needs.
#include "lockhistory.h"

#include "inspectformat.h"

#include <algorithm>
#include <cstdlib>

QString LockEvent::typeName(Type type)
{
    switch (type) {
    case Type::Seen:
        return QStringLiteral("seen");
    case Type::Acquired:
        return QStringLiteral("acquired");
    case Type::Renewed:
        return QStringLiteral("renewed");
    case Type::Changed:
        return QStringLiteral("changed");
    case Type::Released:
        return QStringLiteral("released");
    case Type::Expired:
        return QStringLiteral("expired");
    case Type::Lost:
        return QStringLiteral("lost");
    }
    return {};
}

void LockHistory::append(const LockEvent &event)
{
    if (m_watchedSinceMs < 0)
        m_watchedSinceMs = event.atMs;
    m_events.append(event);
    if (m_events.size() > kMaxEvents)
        m_events.remove(0, m_events.size() - kMaxEvents);
    if (event.type == LockEvent::Type::Renewed) {
        ++m_renewals;
        m_lastRenewalMs = event.atMs;
        m_renewalTimes.append(event.atMs);
        if (m_renewalTimes.size() > 11)
            m_renewalTimes.removeFirst();
    } else if (event.type == LockEvent::Type::Acquired || event.type == LockEvent::Type::Released
               || event.type == LockEvent::Type::Expired) {
        // A new holder starts a new cadence.
        m_renewalTimes.clear();
        m_lastRenewalMs = -1;
        if (event.type == LockEvent::Type::Acquired)
            m_renewalTimes.append(event.atMs);
    }
}

qint64 LockHistory::renewalIntervalMs() const
{
    if (m_renewalTimes.size() < 2)
        return -1;
    return (m_renewalTimes.last() - m_renewalTimes.first()) / (m_renewalTimes.size() - 1);
}

qint64 LockHistory::renewalJitterMs() const
{
    if (m_renewalTimes.size() < 3)
        return -1;
    const qint64 mean = renewalIntervalMs();
    qint64 worst = 0;
    for (qsizetype i = 1; i < m_renewalTimes.size(); ++i)
        worst = std::max(worst, std::abs(m_renewalTimes.at(i) - m_renewalTimes.at(i - 1) - mean));
    return worst;
}

void LockHistory::noteLease(qint64 leaseMs)
{
    if (leaseMs > m_observedLeaseMs)
        m_observedLeaseMs = leaseMs;
}

QString LockHistory::cadenceText(qint64 nowMs) const
{
    const qint64 interval = renewalIntervalMs();
    if (m_lastRenewalMs >= 0 && interval > 0)
        return QStringLiteral("renewed every %1, last %2 ago")
            .arg(InspectFormat::duration(interval), InspectFormat::duration(nowMs - m_lastRenewalMs));
    if (m_lastRenewalMs >= 0)
        return QStringLiteral("renewed once, %1 ago").arg(InspectFormat::duration(nowMs - m_lastRenewalMs));
    if (m_watchedSinceMs >= 0)
        return QStringLiteral("no renewal seen in %1 of watching")
            .arg(InspectFormat::duration(nowMs - m_watchedSinceMs));
    return QStringLiteral("not watched yet");
}
