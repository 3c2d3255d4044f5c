// LockDiagnostics: each rule is a fact about the record plus a sentence a person can act on, and the
// evidence — the readings and the format's facts — that makes it true.
#include "lockdiagnostics.h"

#include "inspectclock.h"
#include "inspectformat.h"
#include "locknames.h"
#include "ownerevidence.h"
#include "redis/bytes.h"

#include <algorithm>

namespace LockDiagnostics {

namespace {

// Timers fire late and readings come at intervals: a renewal is overdue only this much past its period.
constexpr double kRenewalMarginFraction = 0.25;
constexpr qint64 kRenewalMarginMinMs = 500;
// For a steady rhythm seen while watched (its jitter is measured, and the key is read when it falls due).
constexpr qint64 kSteadyMarginMinMs = 200;

QString readAt(const LockRecord &r)
{
    return r.readAtMs > 0 ? InspectFormat::clockTime(InspectClock::wallFromMonotonic(r.readAtMs))
                          : QStringLiteral("scan time");
}

QString identity(const LockRecord &r)
{
    QString what = r.formatName.isEmpty() ? LockKinds::label(r.kind) : r.formatName;
    return r.certain ? what : what + QStringLiteral(" (probable)");
}

// What makes a lock of no known library a lock, for the evidence of its alarms: its name and the shape of its
// value (a stuck "lock:…" of random bytes is flagged on those two facts alone, and says so).
QString lockBasis(const LockRecord &r)
{
    if (r.certain || !r.nameSaysLock)
        return {};
    QString basis = QStringLiteral("its name %1 says lock").arg(Bytes::displayName(r.key, 80));
    QString shape;
    if (r.type == "string") {
        shape = OwnerEvidence::describeRandomToken(r.value);
        if (shape.isEmpty() && LockNames::isUuid(r.value))
            shape = QStringLiteral("a uuid");
    }
    if (!shape.isEmpty())
        basis += QStringLiteral(" and its value is %1, what a holder draws to name itself").arg(shape);
    return basis;
}

void noTtl(LockRecord &r)
{
    // Some keys hold their holders' own expiries and never carry a TTL by design (a permit zset).
    if (!r.exists() || r.pttlMs != -1 || r.ttlPolicy == QLatin1String("never"))
        return;
    // A lock kept as a field expires only with a TTL of the field's own (HPTTL) or of the whole hash.
    QString evidence = r.field.isEmpty()
        ? QStringLiteral("PTTL -1 read at %1; the key is a %2").arg(readAt(r), identity(r))
        : QStringLiteral("no TTL on the field %1 (HPTTL -1, or a server before Redis 7.4) nor on the hash "
                         "(PTTL -1), read at %2; the field is a %3")
              .arg(Bytes::displayName(r.field, 80), readAt(r), identity(r));
    if (const QString basis = lockBasis(r); !basis.isEmpty())
        evidence += QStringLiteral(" (%1)").arg(basis);
    if (r.ttlPolicy == QLatin1String("always"))
        evidence
            += QStringLiteral(", whose library always sets a TTL: it was removed (PERSIST) or the key was "
                              "written by hand");
    else if (r.ttlPolicy == QLatin1String("optional"))
        evidence += QStringLiteral(", whose library sets no TTL unless the caller asks for one");
    r.diagnoses.append(
        {QStringLiteral("no-ttl"),
         QStringLiteral("It has no TTL: it never expires, so it stays locked until someone deletes it "
                        "(a holder that crashed never will)."),
         evidence});
}

// One rule for every record decoded as a lock (issue 41), whatever its kind or the format that read it: a
// certain lock, or one named like a lock whose value names a holder (diagnose() calls it only for those).
// Never for a key that fits no lock format, a counter under a lock word (a rate limiter's), or a value whose
// shape alone suggests a lease: widened to those, it alarmed on real keys that are no locks.
void ttlAboveThreshold(LockRecord &r, const DiagnosticContext &c)
{
    if (c.ttlThresholdMs <= 0 || r.pttlMs <= c.ttlThresholdMs)
        return;
    r.diagnoses.append(
        {QStringLiteral("ttl-above-threshold"),
         QStringLiteral("Its TTL of %1 is above the %2 threshold: if the holder dies, everyone else "
                        "waits that long.")
             .arg(InspectFormat::duration(r.pttlMs), InspectFormat::duration(c.ttlThresholdMs)),
         QStringLiteral("PTTL %1 ms read at %2; the key is a %3").arg(r.pttlMs).arg(readAt(r), identity(r))});
}

void renewalStalled(LockRecord &r, const DiagnosticContext &c)
{
    if (!r.exists() || r.pttlMs < 0 || c.renewalsSeen < 1 || c.sinceLastRenewalMs < 0)
        return;
    const qint64 deadline = renewalDeadlineMs(r, c);
    if (deadline < 0 || c.sinceLastRenewalMs <= deadline)
        return;
    const QString rhythm = steadyRhythm(c) && r.renewal.rule != RenewalPolicy::Rule::Unknown
            && r.renewal.rule != RenewalPolicy::Rule::None
        ? QStringLiteral("renewed every %1 (within %2) while watched")
              .arg(InspectFormat::duration(c.renewalIntervalMs), InspectFormat::duration(c.renewalJitterMs))
        : steadyRhythm(c)
        ? QStringLiteral("renewed every %1 (within %2) while watched: a lease with that period, whatever "
                         "made it")
              .arg(InspectFormat::duration(c.renewalIntervalMs), InspectFormat::duration(c.renewalJitterMs))
        : c.renewalsSeen >= 2 && c.renewalIntervalMs > 0
        ? QStringLiteral("renewed every %1 while watched").arg(InspectFormat::duration(c.renewalIntervalMs))
        : QStringLiteral("%1 (%2)").arg(r.renewal.text.isEmpty() ? QStringLiteral("its library renews it")
                                                                 : r.renewal.text,
                                        InspectFormat::duration(r.renewal.periodMs(c.observedLeaseMs)));
    r.diagnoses.append(
        {QStringLiteral("watchdog-stalled"),
         QStringLiteral(
             "Its owner stopped renewing it: no renewal for %1, while one was due within %2. The holder is "
             "paused or dead; the lock lapses in %3 unless it resumes.")
             .arg(InspectFormat::duration(c.sinceLastRenewalMs), InspectFormat::duration(deadline),
                  InspectFormat::duration(r.pttlMs)),
         QStringLiteral(
             "%1 renewal(s) seen, back to a lease of %2; %3; last renewal %4 ago; PTTL %5 ms at %6")
             .arg(c.renewalsSeen)
             .arg(InspectFormat::duration(c.observedLeaseMs), rhythm,
                  InspectFormat::duration(c.sinceLastRenewalMs))
             .arg(r.pttlMs)
             .arg(readAt(r))});
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
             QStringLiteral("Its fair-lock queue holds %1 but the lock itself is gone: no release will "
                            "wake them; only their next attempts or deadlines clear the queue.")
                 .arg(waiters),
             QStringLiteral("TYPE none for the lock; LLEN %1 for its queue").arg(n)});
        return;
    }
    // Only judge a queue read whole: one live deadline makes it a working queue.
    if (r.queue.size() < n)
        return;
    const bool allExpired = std::all_of(r.queue.cbegin(), r.queue.cend(), [&](const FairWaiter &w) {
        return w.deadlineEpochMs >= 0 && w.deadlineEpochMs <= c.nowEpochMs;
    });
    if (!allExpired)
        return;
    r.diagnoses.append(
        {QStringLiteral("orphan-queue"),
         QStringLiteral("Every entry of its fair-lock queue (%1) is past its deadline: those waiters "
                        "gave up or died, and the queue is stale.")
             .arg(waiters),
         QStringLiteral("%1 deadlines, the latest %2, all before now (%3)")
             .arg(n)
             .arg(InspectFormat::clockTime(std::max_element(r.queue.cbegin(), r.queue.cend(),
                                                            [](const FairWaiter &a, const FairWaiter &b) {
                                                                return a.deadlineEpochMs < b.deadlineEpochMs;
                                                            })
                                               ->deadlineEpochMs),
                  InspectFormat::clockTime(c.nowEpochMs))});
}

// Holders past their own expiry are flagged where they are shown (the libraries drop them at their next call:
// normal operation, no alarm).
void markExpiredHolders(LockRecord &r, const DiagnosticContext &c)
{
    for (LockOwner &o : r.owners) {
        if (o.untilEpochMs >= 0 && o.untilEpochMs < c.nowEpochMs
            && (o.note.isEmpty() || o.note.startsWith(QLatin1String("expired "))))
            o.note = QStringLiteral("expired %1 ago: no longer holds it (dropped at the library's next call)")
                         .arg(InspectFormat::duration(c.nowEpochMs - o.untilEpochMs));
    }
}

void jobMissing(LockRecord &r)
{
    if (r.kind != LockKind::JobLock || r.job.jobKey.isEmpty() || r.job.jobFound
        || !r.unknownReason(QStringLiteral("job")).isEmpty())
        return;
    // Only when the job was actually looked up (the prober read it).
    if (r.job.attempts >= 0 || r.job.stalledCount > 0)
        return;
    r.diagnoses.append(
        {QStringLiteral("job-missing"),
         QStringLiteral("The job %1 this lock protects is gone, yet its lock remains: no worker holds "
                        "it for a real job, and it lasts until its TTL runs out.")
             .arg(r.job.id),
         QStringLiteral("EXISTS %1 → 0").arg(QString::fromUtf8(r.job.jobKey))});
}

void contended(LockRecord &r)
{
    const qint64 waiting = r.waiters();
    if (!r.exists() || waiting <= 0)
        return;
    QStringList how;
    if (r.subscribers > 0)
        how << (r.waitersBasis.isEmpty()
                    ? QStringLiteral("%1 subscribed to its channel").arg(r.subscribers)
                    : QStringLiteral("subscribed to its channel: %1").arg(r.waitersBasis));
    if (r.queueLength > 0)
        how << QStringLiteral("%1 queued").arg(r.queueLength);
    r.diagnoses.append({QStringLiteral("contended"),
                        QStringLiteral("%1 waiting for it.")
                            .arg(waiting == 1 ? QStringLiteral("1 client is")
                                              : QStringLiteral("%1 clients are").arg(waiting)),
                        how.join(QStringLiteral(", "))});
}

void malformed(LockRecord &r)
{
    if (r.problems.isEmpty())
        return;
    r.diagnoses.append(
        {QStringLiteral("malformed"),
         QStringLiteral("The data does not fit its format: %1.").arg(r.problems.join(QStringLiteral("; "))),
         QStringLiteral("read as a %1").arg(identity(r))});
}

// Worst first: what blocks others for ever, then what will, then the rest.
void sortWorstFirst(LockRecord &record)
{
    static const QStringList order {"no-ttl",      "watchdog-stalled",    "orphan-queue",
                                    "job-missing", "ttl-above-threshold", "malformed",
                                    "contended"};
    std::stable_sort(record.diagnoses.begin(), record.diagnoses.end(),
                     [](const LockDiagnosis &a, const LockDiagnosis &b) {
                         return order.indexOf(a.code) < order.indexOf(b.code);
                     });
}

} // namespace

bool mayAlarm(const LockRecord &record)
{
    return LockKinds::hasHolders(record.kind)
        && (record.certain || (record.nameSaysLock && record.holderEvidence));
}

bool steadyRhythm(const DiagnosticContext &c)
{
    return c.renewalsSeen >= 2 && c.renewalIntervalMs > 0 && c.renewalJitterMs >= 0
        && c.renewalJitterMs * 4 <= c.renewalIntervalMs;
}

qint64 renewalDeadlineMs(const LockRecord &r, const DiagnosticContext &c)
{
    const bool libraryRhythm
        = r.renewal.rule != RenewalPolicy::Rule::Unknown && r.renewal.rule != RenewalPolicy::Rule::None;
    if (steadyRhythm(c) && !libraryRhythm) {
        // No library rhythm to go by (a lock of no known library, or one whose library does not renew it):
        // the rhythm seen is the lease's own. The monitor reads the key again when it falls due; the margin
        // covers how much the renewer's timing strayed and how precisely a renewal is timed (a notification,
        // or a poll). At most three quarters of a period, so a frozen renewer is flagged within two.
        const qint64 p = c.renewalIntervalMs;
        return p
            + std::min(p * 3 / 4,
                       std::max({kSteadyMarginMinMs, p / 4, 3 * c.renewalJitterMs, c.readingGranularityMs}));
    }
    qint64 period = -1;
    if (c.renewalsSeen >= 2 && c.renewalIntervalMs > 0)
        period = c.renewalIntervalMs;
    if (r.renewal.rule != RenewalPolicy::Rule::Unknown && r.renewal.rule != RenewalPolicy::Rule::None)
        period = std::max(period, r.renewal.periodMs(c.observedLeaseMs));
    if (period <= 0)
        return -1;
    const qint64 margin = std::max(
        {kRenewalMarginMinMs, qint64(double(period) * kRenewalMarginFraction), 2 * c.readingGranularityMs});
    return period + margin;
}

// What the watch saw of its renewals, said next to what the library does alone: a lock whose library never
// renews it on its own may be renewed by the application or by a library built on it (issue 41).
static QString observedRenewal(const LockRecord &r, const DiagnosticContext &c)
{
    if (c.renewalsSeen < 1 || r.renewal.rule == RenewalPolicy::Rule::Unknown)
        return {};
    const QString seen = c.renewalsSeen >= 2 && c.renewalIntervalMs > 0
        ? QStringLiteral("renewed every ~%1 while watched (%2 renewals seen%3)")
              .arg(InspectFormat::duration(c.renewalIntervalMs))
              .arg(c.renewalsSeen)
              .arg(steadyRhythm(c) ? QStringLiteral(", a steady rhythm") : QString())
        : QStringLiteral("renewed while watched (once so far)");
    if (r.renewal.rule == RenewalPolicy::Rule::None)
        return QStringLiteral("%1: something renews it, the library does not on its own (%2)")
            .arg(seen, r.renewal.text.isEmpty() ? QStringLiteral("it has no renewal of its own")
                                                : r.renewal.text);
    return r.renewal.text.isEmpty() ? seen : QStringLiteral("%1; %2").arg(seen, r.renewal.text);
}

void diagnose(LockRecord &record, const DiagnosticContext &context)
{
    record.diagnoses.clear();
    record.renewal.observed = observedRenewal(record, context);
    if (!record.isLock() || record.kind == LockKind::Named)
        return;
    markExpiredHolders(record, context);
    contended(record);
    if (!mayAlarm(record)) {
        // Only the shape of its value says lock: waiters are a fact, alarms would be guesses. But a key the
        // watch saw renewed on a steady rhythm before its TTL ran out is a lease with that period, whatever
        // made it and whatever its name: a stall against that rhythm rests on what was seen.
        // Not ttl-above-threshold (issue 41): that is one rule for every record decoded as a lock, and a
        // rhythm shows a lease, not a lock — a cache entry refreshed by a timer keeps one too.
        if (LockKinds::hasHolders(record.kind) && record.holderEvidence && steadyRhythm(context))
            renewalStalled(record, context);
        return;
    }
    malformed(record);
    noTtl(record);
    ttlAboveThreshold(record, context);
    renewalStalled(record, context);
    orphanQueue(record, context);
    jobMissing(record);
    sortWorstFirst(record);
}

QList<LockDiagnosis> catalog()
{
    return {
        {QStringLiteral("no-ttl"), QStringLiteral("will never expire: stuck until someone deletes it"), {}},
        {QStringLiteral("watchdog-stalled"),
         QStringLiteral("a renewed lock whose renewal is overdue for its own rhythm: owner paused or dead"),
         {}},
        {QStringLiteral("orphan-queue"),
         QStringLiteral("fair-lock queue with no lock, or with only expired deadlines"),
         {}},
        {QStringLiteral("job-missing"), QStringLiteral("a job lock whose job is gone"), {}},
        {QStringLiteral("ttl-above-threshold"), QStringLiteral("TTL longer than the threshold you set"), {}},
        {QStringLiteral("malformed"), QStringLiteral("the data does not fit its lock format"), {}},
        {QStringLiteral("contended"), QStringLiteral("clients are waiting for it"), {}},
    };
}

} // namespace LockDiagnostics
