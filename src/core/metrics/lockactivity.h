// What the live history says, per key pattern (KeyPattern): acquisitions, releases, renewals, expiries while
// held, losses, and a histogram of hold times; and since when each lock now held is held. Fed with the
// events LockMonitor reports (happened()), it only counts what was seen: a hold whose start was not seen (a
// lock met by a scan) has no hold time, never a guessed one.
#pragma once

#include "inspect/lockhistory.h"

#include <QByteArray>
#include <QHash>
#include <QList>
#include <QMap>
#include <QString>

class LockActivity
{
public:
    // Patterns counted apart; beyond this many, the others are counted together under kOtherPattern.
    static constexpr int kMaxPatterns = 200;
    static const QString kOtherPattern;
    // Upper bounds of the hold-time histogram's buckets, in seconds (+Inf comes last, implied).
    static const QList<double> &holdBuckets();

    struct Counts
    {
        quint64 acquisitions = 0;
        quint64 releases = 0;
        quint64 renewals = 0;
        quint64 expiries = 0; // the lease ran out under its holder: a crash, a stall, an overrun
        quint64 losses = 0; // gone while nobody could look (an outage, a restart, a failover)
        QList<quint64> holdBuckets; // non-cumulative, one per holdBuckets() bound plus +Inf
        double holdSecondsSum = 0;
        quint64 holds = 0;
    };

    // Since when the lock now held under a key is held (monotonic ms). `exact`: its acquisition was seen;
    // otherwise the lock was already held when first seen, and `sinceMs` is only a lower bound of its age.
    struct Holding
    {
        qint64 sinceMs = -1;
        bool exact = false;
        bool renewed = false; // a renewal was seen during it: something was keeping it alive
    };
    // A lease that ran out under a holder that had been renewing it: the renewer stopped (frozen or dead)
    // before its holder let go — a stalled renewer, however short the lease was.
    struct RenewedExpiry
    {
        QByteArray key;
        QString pattern;
        qint64 atMs = 0; // monotonic ms of the expiry
    };
    // How long a renewed expiry stays listed (its series lives this long, so an alert can see it).
    static constexpr qint64 kRenewedExpiryWindowMs = 10 * 60 * 1000;

    // Counts `events` of `key`, in order.
    void record(const QByteArray &key, const QList<LockEvent> &events);
    // The counts per pattern, by pattern.
    const QMap<QString, Counts> &patterns() const { return m_patterns; }
    // The pattern `key` is (or would be) counted under: its own, unless kMaxPatterns were taken by others
    // (then kOtherPattern).
    QString patternOf(const QByteArray &key) const;
    // The holding under `key`, or sinceMs -1 when none is known.
    Holding holding(const QByteArray &key) const { return m_holdings.value(key); }
    // The renewed expiries of the last kRenewedExpiryWindowMs before `nowMs`, oldest first.
    QList<RenewedExpiry> renewedExpiries(qint64 nowMs) const;
    // `key` holds no lock any more (the monitor found it gone): its holding, if any, ends unmeasured.
    void forget(const QByteArray &key);
    void clear();

private:
    Counts &countsFor(const QString &pattern);

    QMap<QString, Counts> m_patterns;
    QHash<QByteArray, Holding> m_holdings; // locks held now; bounded by the locks the monitor knows
    QList<RenewedExpiry> m_renewedExpiries; // the latest, at most kMaxRenewedExpiries
    static constexpr qsizetype kMaxRenewedExpiries = 500;
};
