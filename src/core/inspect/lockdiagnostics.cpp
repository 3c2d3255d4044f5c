// LockDiagnostics: each rule is a fact about the record plus a sentence a person can act on.
#include "lockdiagnostics.h"

#include "inspectformat.h"

#include <algorithm>

namespace LockDiagnostics {

namespace {

// Redisson renews at a third of the lease, so a healthy TTL stays above two thirds of it. "Well below"
// leaves room for a late renewal: under 60 % of the lease, the owner has missed more than one.
constexpr double kStalledFraction = 0.6;

void noTtl(LockRecord &r)
{
    if (!r.exists() || r.pttlMs != -1)
        return;
    QString text = QStringLiteral("It has no TTL: it will never expire, so it stays locked until someone "
                                  "deletes it (a holder that crashed never will).");
    if (r.kind == LockKind::RedisPy)
        text += QStringLiteral(" redis-py's Lock has no timeout unless one is given.");
    r.diagnoses.append({QStringLiteral("no-ttl"), text});
}

void ttlAboveThreshold(LockRecord &r, const DiagnosticContext &c)
{
    if (c.ttlThresholdMs <= 0 || r.pttlMs <= c.ttlThresholdMs)
        return;
    r.diagnoses.append(
        {QStringLiteral("ttl-above-threshold"),
         QStringLiteral("Its TTL of %1 is above the %2 threshold: if the holder dies, everyone "
                        "else waits that long.")
             .arg(InspectFormat::duration(r.pttlMs), InspectFormat::duration(c.ttlThresholdMs))});
}

void watchdogStalled(LockRecord &r, const DiagnosticContext &c)
{
    if (!r.exists() || r.pttlMs < 0)
        return;
    if (c.renewalsSeen > 0 && c.observedLeaseMs > 0) {
        // Seen renewing: its own lease is known, whatever the library.
        if (r.pttlMs >= kStalledFraction * double(c.observedLeaseMs))
            return;
        r.diagnoses.append(
            {QStringLiteral("watchdog-stalled"),
             QStringLiteral("It was renewed back to %1 before, but its TTL has fallen to %2%3: the owner "
                            "stopped renewing — paused or dead.")
                 .arg(InspectFormat::duration(c.observedLeaseMs), InspectFormat::duration(r.pttlMs),
                      c.sinceLastRenewalMs >= 0 ? QStringLiteral(" with no renewal for %1")
                                                      .arg(InspectFormat::duration(c.sinceLastRenewalMs))
                                                : QString())});
        return;
    }
    if (!LockKinds::isRedissonHash(r.kind) || c.watchdogLeaseMs <= 0)
        return;
    if (r.pttlMs > c.watchdogLeaseMs || r.pttlMs >= kStalledFraction * double(c.watchdogLeaseMs))
        return;
    r.diagnoses.append(
        {QStringLiteral("watchdog-stalled"),
         QStringLiteral("Its TTL of %1 is well below two thirds of Redisson's %2 watchdog lease, which is "
                        "renewed every %3: the owner stopped renewing — paused or dead (unless it was locked "
                        "with a fixed lease time, which is never renewed).")
             .arg(InspectFormat::duration(r.pttlMs), InspectFormat::duration(c.watchdogLeaseMs),
                  InspectFormat::duration(c.watchdogLeaseMs / 3))});
}

void orphanQueue(LockRecord &r, const DiagnosticContext &c)
{
    if (r.queueLength <= 0 && r.queue.isEmpty())
        return;
    const qint64 n = std::max<qint64>(r.queueLength, r.queue.size());
    const QString waiters = n == 1 ? QStringLiteral("1 waiter") : QStringLiteral("%1 waiters").arg(n);
    if (!r.exists()) {
        r.diagnoses.append(
            {QStringLiteral("orphan-queue"),
             QStringLiteral("Its fair-lock queue holds %1 but the lock itself is gone: no release "
                            "will wake them; only their next attempts or deadlines clear the "
                            "queue.")
                 .arg(waiters)});
        return;
    }
    // Only judge a queue we read whole: one live deadline makes it a working queue.
    if (r.queue.size() < n)
        return;
    const bool allExpired = std::all_of(r.queue.cbegin(), r.queue.cend(), [&](const FairWaiter &w) {
        return w.deadlineEpochMs >= 0 && w.deadlineEpochMs <= c.nowEpochMs;
    });
    if (!allExpired)
        return;
    r.diagnoses.append({QStringLiteral("orphan-queue"),
                        QStringLiteral("Every entry of its fair-lock queue (%1) is past its deadline: those "
                                       "waiters gave up or died, and the queue is stale.")
                            .arg(waiters)});
}

void contended(LockRecord &r)
{
    const qint64 waiting = r.waiters();
    if (!r.exists() || waiting <= 0)
        return;
    QStringList how;
    if (r.subscribers > 0)
        how << QStringLiteral("%1 subscribed to its channel").arg(r.subscribers);
    if (r.queueLength > 0)
        how << QStringLiteral("%1 queued").arg(r.queueLength);
    r.diagnoses.append({QStringLiteral("contended"),
                        QStringLiteral("%1 waiting for it (%2).")
                            .arg(waiting == 1 ? QStringLiteral("1 client is")
                                              : QStringLiteral("%1 clients are").arg(waiting),
                                 how.join(QStringLiteral(", ")))});
}

void malformed(LockRecord &r)
{
    if (r.problems.isEmpty())
        return;
    r.diagnoses.append(
        {QStringLiteral("malformed"),
         QStringLiteral("The data does not fit its format: %1.").arg(r.problems.join(QStringLiteral("; ")))});
}

} // namespace

void diagnose(LockRecord &record, const DiagnosticContext &context)
{
    record.diagnoses.clear();
    if (!record.isLock())
        return;
    malformed(record);
    noTtl(record);
    ttlAboveThreshold(record, context);
    watchdogStalled(record, context);
    orphanQueue(record, context);
    contended(record);
}

QList<LockDiagnosis> catalog()
{
    return {
        {QStringLiteral("no-ttl"), QStringLiteral("will never expire: stuck until someone deletes it")},
        {QStringLiteral("ttl-above-threshold"), QStringLiteral("TTL longer than the threshold you set")},
        {QStringLiteral("watchdog-stalled"),
         QStringLiteral(
             "a renewed lock whose TTL fell well below two thirds of its lease: owner paused or dead")},
        {QStringLiteral("orphan-queue"),
         QStringLiteral("fair-lock queue with no lock, or with only expired deadlines")},
        {QStringLiteral("contended"), QStringLiteral("clients are waiting for it")},
        {QStringLiteral("malformed"), QStringLiteral("the data does not fit its lock format")},
    };
}

} // namespace LockDiagnostics
