// LockActivity: counters only grow (Prometheus counters); a holding starts at an acquisition or a first
// sighting and ends with a release, an expiry or a loss, the only moments a hold time can be known.
#include "lockactivity.h"

#include "keypattern.h"

const QString LockActivity::kOtherPattern = QStringLiteral("(other patterns)");

const QList<double> &LockActivity::holdBuckets()
{
    // From a quick critical section to a job of an hour: the range lock holds span.
    static const QList<double> bounds {0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300, 900, 3600};
    return bounds;
}

QString LockActivity::patternOf(const QByteArray &key) const
{
    const QString pattern = KeyPattern::fold(key);
    return m_patterns.contains(pattern) || m_patterns.size() < kMaxPatterns - 1 ? pattern : kOtherPattern;
}

LockActivity::Counts &LockActivity::countsFor(const QString &pattern)
{
    // The last place goes to the others, so there are never more than kMaxPatterns.
    const QString name
        = m_patterns.contains(pattern) || m_patterns.size() < kMaxPatterns - 1 ? pattern : kOtherPattern;
    auto it = m_patterns.find(name);
    if (it == m_patterns.end()) {
        Counts fresh;
        fresh.holdBuckets.fill(0, holdBuckets().size() + 1);
        it = m_patterns.insert(name, fresh);
    }
    return *it;
}

void LockActivity::record(const QByteArray &key, const QList<LockEvent> &events)
{
    if (events.isEmpty())
        return;
    Counts &c = countsFor(KeyPattern::fold(key));
    for (const LockEvent &e : events) {
        switch (e.type) {
        case LockEvent::Type::Seen:
            m_holdings.insert(key, {e.atMs, false});
            break;
        case LockEvent::Type::Acquired:
            ++c.acquisitions;
            m_holdings.insert(key, {e.atMs, true});
            break;
        case LockEvent::Type::Renewed: {
            ++c.renewals;
            const auto held = m_holdings.find(key);
            if (held != m_holdings.end())
                held->renewed = true;
            break;
        }
        case LockEvent::Type::Changed:
            break;
        case LockEvent::Type::Released:
        case LockEvent::Type::Expired: {
            ++(e.type == LockEvent::Type::Released ? c.releases : c.expiries);
            const Holding h = m_holdings.take(key);
            if (e.type == LockEvent::Type::Expired && h.renewed) {
                m_renewedExpiries.append({key, patternOf(key), e.atMs});
                if (m_renewedExpiries.size() > kMaxRenewedExpiries)
                    m_renewedExpiries.removeFirst();
            }
            if (h.exact && e.atMs >= h.sinceMs) {
                const double seconds = double(e.atMs - h.sinceMs) / 1000.0;
                const QList<double> &bounds = holdBuckets();
                qsizetype bucket = 0;
                while (bucket < bounds.size() && seconds > bounds.at(bucket))
                    ++bucket;
                ++c.holdBuckets[bucket];
                c.holdSecondsSum += seconds;
                ++c.holds;
            }
            break;
        }
        case LockEvent::Type::Lost:
            ++c.losses;
            m_holdings.remove(key);
            break;
        }
    }
}

QList<LockActivity::RenewedExpiry> LockActivity::renewedExpiries(qint64 nowMs) const
{
    QList<RenewedExpiry> recent;
    for (const RenewedExpiry &r : m_renewedExpiries) {
        if (nowMs - r.atMs <= kRenewedExpiryWindowMs)
            recent << r;
    }
    return recent;
}

void LockActivity::forget(const QByteArray &key)
{
    m_holdings.remove(key);
}

void LockActivity::clear()
{
    m_patterns.clear();
    m_holdings.clear();
    m_renewedExpiries.clear();
}
