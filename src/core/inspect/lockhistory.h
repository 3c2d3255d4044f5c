// What happened to one lock while we watched: acquired, renewed, released, expired, with times, and the
// renewal cadence those events show ("renewed every 10.0 s, last 3.2 s ago").
#pragma once

#include <QList>
#include <QString>

struct LockEvent
{
    enum class Type {
        Seen, // first seen by a scan: it was taken at some unknown earlier time
        Acquired,
        Renewed,
        Changed, // same owner, different hold count or mode
        Released,
        Expired,
        Lost, // gone while it could not be watched (server unreachable or restarted): how is unknown
    };

    Type type = Type::Seen;
    qint64 atMs = 0; // InspectClock::monotonicMs()
    qint64 pttlMs = -2; // the TTL right after the event, when known
    QString detail; // "by 3f2a…:42", "hold count 1 → 2", …

    static QString
    typeName(Type type); // "seen", "acquired", "renewed", "changed", "released", "expired", "lost"
};

class LockHistory
{
public:
    static constexpr int kMaxEvents = 200;

    void append(const LockEvent &event); // keeps the last kMaxEvents
    const QList<LockEvent> &events() const { return m_events; }
    bool isEmpty() const { return m_events.isEmpty(); }

    int renewals() const { return m_renewals; }
    qint64 lastRenewalMs() const { return m_lastRenewalMs; }
    // Mean interval between the renewals seen (up to the last ten), -1 with fewer than two.
    qint64 renewalIntervalMs() const;
    // How far the intervals strayed from their mean (the largest deviation), -1 with fewer than two
    // intervals: a rhythm is steady when this is small next to the interval.
    qint64 renewalJitterMs() const;
    // The TTL renewals set the lock back to, -1 until one is seen.
    qint64 observedLeaseMs() const { return m_observedLeaseMs; }
    void noteLease(qint64 leaseMs);
    qint64 watchedSinceMs() const { return m_watchedSinceMs; }
    void setWatchedSince(qint64 ms) { m_watchedSinceMs = ms; }

    // "renewed every 10.0 s, last 3.2 s ago" / "renewed once, 3.2 s ago" / "no renewal in 45 s of watching".
    QString cadenceText(qint64 nowMs) const;

private:
    QList<LockEvent> m_events;
    QList<qint64> m_renewalTimes; // the last few, for the cadence
    int m_renewals = 0;
    qint64 m_lastRenewalMs = -1;
    qint64 m_observedLeaseMs = -1;
    qint64 m_watchedSinceMs = -1;
};
