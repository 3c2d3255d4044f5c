// LockMetrics: one pass over each target's locks picks the locks that get series and counts the rest; then
// each family is written for every target in turn (a family's samples must be contiguous). The first part reads
// the targets (their thread); the second only the snapshot it made, so it may run on another thread.
#include "lockmetrics.h"

#include "inspect/inspectclock.h"
#include "inspect/lockdiagnostics.h"
#include "monitoredtarget.h"
#include "redis/bytes.h"
#include "version.h"

#include <QCryptographicHash>

#include <algorithm>
#include <limits>
#include <optional>

namespace {

using Labels = OpenMetricsWriter::Labels;
using Type = OpenMetricsWriter::Type;

// One lock that gets series of its own, with every value it has; an empty optional is an unknown.
struct LockRow
{
    Labels labels; // target, key, kind, library, pattern
    QStringList diagnoses;
    std::optional<double> ttl, held, heldAtLeast, holdCount, holders, waiters, sinceRenewal, renewalPeriod,
        renewalDeadline;
};

// What the writers need of a target, copied at the scrape (the locks and patterns are implicitly shared), so
// that the text can be written on another thread while the monitor goes on reading.
struct TargetFacts
{
    QString name;
    QString address;
    QString topology;
    bool sentinel = false;
    int addressChanges = 0;
    qint64 lastFailoverEpochMs = -1;
    bool notifications = false;
    quint64 commandsSent = 0;
    double pollMeasured = -1;
    int pollMax = 0;
    int pollLocksPerRound = 0;
    double pollPassSeconds = 0;
    bool pollLimited = false;
    bool scanning = false;
    MonitoredTarget::ScanState scan;
    QList<LockActivity::RenewedExpiry> renewedExpiries;
    QMap<QString, LockActivity::Counts> patterns;
};

struct TargetView
{
    TargetFacts facts;
    bool up = false;
    QList<LockRow> rows;
    qint64 notExported = 0;
    QMap<QPair<QString, QString>, qint64> locks; // (kind, library) → locks
    QMap<QPair<QString, QString>, qint64> unknowns; // (field, reason) → values
};

std::optional<double> seconds(qint64 ms)
{
    if (ms < 0)
        return std::nullopt;
    return double(ms) / 1000.0;
}

// How long the lock has been held: exactly when its acquisition was seen (or its library stores when it was
// taken), else at least since it was first seen. -1 when not even that is known.
struct Age
{
    qint64 ms = -1;
    bool exact = false;
};

Age ageOf(const MonitoredTarget &t, const LockRecord &r, qint64 nowMs, qint64 nowEpochMs)
{
    const LockActivity::Holding h = t.activity().holding(r.key);
    if (h.sinceMs >= 0 && h.exact)
        return {nowMs - h.sinceMs, true};
    qint64 since = -1;
    for (const LockOwner &o : r.owners) {
        if (o.sinceEpochMs > 0 && (since < 0 || o.sinceEpochMs < since))
            since = o.sinceEpochMs;
    }
    if (since > 0 && since <= nowEpochMs)
        return {nowEpochMs - since, true};
    if (h.sinceMs >= 0)
        return {nowMs - h.sinceMs, false};
    return {};
}

// The key as its label: as people copy it, and unique (Prometheus refuses a scrape with two series of the
// same labels), so a very long key keeps its head and a digest of the whole.
QString keyLabel(const QByteArray &key)
{
    constexpr int kWhole = 512;
    if (key.size() <= kWhole)
        return Bytes::displayName(key, kWhole);
    return Bytes::displayName(key, 400) + QStringLiteral(" #")
        + QString::fromLatin1(QCryptographicHash::hash(key, QCryptographicHash::Sha1).toHex().left(12));
}

// The lock's diagnoses now. A stalled renewer is a matter of time since the last renewal, and an expired
// holder of the wall clock: those are judged again at the scrape, as the monitor would judge them at its
// next reading (with notifications flowing, a lock nobody touches is read again only every few seconds).
QStringList diagnosesNow(const MonitoredTarget &t, const LockRecord &r, const DiagnosticContext &base,
                         qint64 nowMs, qint64 nowEpochMs)
{
    const LockHistory *h = t.monitor().history(r.key);
    const bool timed = (h && h->renewals() > 0)
        || std::any_of(r.owners.cbegin(), r.owners.cend(),
                       [](const LockOwner &o) { return o.untilEpochMs > 0; });
    QStringList codes;
    if (!timed) {
        for (const LockDiagnosis &d : r.diagnoses)
            codes << d.code;
        return codes;
    }
    LockRecord now = r;
    DiagnosticContext c = base;
    c.nowEpochMs = nowEpochMs;
    t.monitor().tracker().fillContext(r.key, nowMs, &c);
    LockDiagnostics::diagnose(now, c);
    for (const LockDiagnosis &d : std::as_const(now.diagnoses))
        codes << d.code;
    return codes;
}

LockRow rowOf(const MonitoredTarget &t, const LockRecord &r, const Age &age, const QStringList &diagnoses,
              const DiagnosticContext &base, qint64 nowMs)
{
    LockRow row;
    row.labels = {{"target", t.name()},
                  {"key", keyLabel(r.key)},
                  {"kind", LockKinds::name(r.kind)},
                  {"library", r.library},
                  {"pattern", t.activity().patternOf(r.key)}};
    row.diagnoses = diagnoses;
    row.diagnoses.removeDuplicates();
    if (r.pttlMs == -1)
        row.ttl = std::numeric_limits<double>::infinity(); // no TTL: it never expires on its own
    else if (r.pttlMs >= 0)
        row.ttl = double(r.remainingMs(nowMs)) / 1000.0;
    if (age.exact)
        row.held = seconds(age.ms);
    row.heldAtLeast = seconds(age.ms);
    qint64 count = -1;
    for (const LockOwner &o : r.owners) {
        if (o.count >= 0)
            count = std::max<qint64>(count, 0) + o.count;
    }
    if (count >= 0)
        row.holdCount = double(count);
    // A key only named like a lock, and a counter without holder identities, have no owners to count: their
    // holders are unknown, not 0.
    const bool ownersDecoded = r.kind != LockKind::Named && r.kind != LockKind::Synchronizer;
    if (r.holderCount >= 0)
        row.holders = double(r.holderCount);
    else if (ownersDecoded && r.unknownReason(QStringLiteral("owners")).isEmpty() && !r.isTruncated())
        row.holders = double(r.owners.size());
    if (r.waiters() >= 0)
        row.waiters = double(r.waiters());
    DiagnosticContext c = base;
    t.monitor().tracker().fillContext(r.key, nowMs, &c);
    if (c.sinceLastRenewalMs >= 0)
        row.sinceRenewal = seconds(c.sinceLastRenewalMs);
    if (c.renewalsSeen >= 2 && c.renewalIntervalMs > 0)
        row.renewalPeriod = seconds(c.renewalIntervalMs);
    else if (r.renewal.rule != RenewalPolicy::Rule::Unknown && r.renewal.rule != RenewalPolicy::Rule::None)
        row.renewalPeriod = seconds(r.renewal.periodMs(c.observedLeaseMs));
    row.renewalDeadline = seconds(LockDiagnostics::renewalDeadlineMs(r, c));
    return row;
}

QString topologyOf(const ConnectionSettings &s)
{
    return s.sentinel.enabled() ? QStringLiteral("sentinel")
        : s.cluster             ? QStringLiteral("cluster")
                                : QStringLiteral("standalone");
}

TargetFacts factsOf(const MonitoredTarget &t, qint64 nowMs)
{
    TargetFacts f;
    f.name = t.name();
    f.address = t.monitor().address();
    f.topology = topologyOf(t.monitor().connectionSettings());
    f.sentinel = t.monitor().connectionSettings().sentinel.enabled();
    f.addressChanges = t.monitor().addressChanges();
    f.lastFailoverEpochMs = t.lastFailoverEpochMs();
    f.notifications = t.monitor().hearsNotifications();
    f.commandsSent = t.commandsSent();
    f.pollMeasured = t.budget().measuredPerSecond();
    f.pollMax = t.budget().maxPerSecond();
    f.pollLocksPerRound = t.budget().locksPerPoll();
    f.pollPassSeconds = t.budget().passSeconds();
    f.pollLimited = t.budget().isLimited();
    f.scanning = t.monitor().isScanning();
    f.scan = t.scanState();
    f.renewedExpiries = t.activity().renewedExpiries(nowMs);
    f.patterns = t.activity().patterns();
    return f;
}

TargetView viewOf(const MonitoredTarget &t, int maxLockSeries, qint64 nowMs, qint64 nowEpochMs)
{
    TargetView v;
    v.facts = factsOf(t, nowMs);
    v.up = t.isUp();
    if (!v.up)
        return v; // its last readings are not today's: no lock series at all
    struct Candidate
    {
        QStringList diagnoses;
        Age age;
        const LockRecord *record;
    };
    const DiagnosticContext base = t.monitor().baseContext();
    std::vector<Candidate> candidates;
    candidates.reserve(size_t(t.monitor().locks().size()));
    for (const LockRecord &r : t.monitor().locks()) {
        ++v.locks[{LockKinds::name(r.kind), r.library}];
        for (const LockUnknown &u : r.unknowns)
            ++v.unknowns[{u.field, MonitoredTarget::reasonCode(u.reason, u.refused)}];
        candidates.push_back(
            {diagnosesNow(t, r, base, nowMs, nowEpochMs), ageOf(t, r, nowMs, nowEpochMs), &r});
    }
    // The diagnosed first, then the longest held (what an operator looks at first), then by key so the same
    // locks keep their series from one scrape to the next.
    const auto before = [](const Candidate &a, const Candidate &b) {
        if (a.diagnoses.isEmpty() != b.diagnoses.isEmpty())
            return !a.diagnoses.isEmpty();
        if (a.age.ms != b.age.ms)
            return a.age.ms > b.age.ms;
        return a.record->key < b.record->key;
    };
    const size_t kept = std::min(candidates.size(), size_t(std::max(0, maxLockSeries)));
    std::partial_sort(candidates.begin(), candidates.begin() + qsizetype(kept), candidates.end(), before);
    v.notExported = qint64(candidates.size() - kept);
    for (size_t i = 0; i < kept; ++i)
        v.rows.append(
            rowOf(t, *candidates[i].record, candidates[i].age, candidates[i].diagnoses, base, nowMs));
    return v;
}

// Why values of the locks found now could not be read: the server refused or failed to give them. A value
// Redis does not hold at all ("not-stored") was read as far as it can be and leaves the scan complete.
QStringList unreadReasons(const TargetView &v)
{
    QStringList reasons;
    for (auto it = v.unknowns.cbegin(); it != v.unknowns.cend(); ++it) {
        if (it.key().second != QLatin1String("not-stored") && !reasons.contains(it.key().second))
            reasons << it.key().second;
    }
    return reasons;
}

Labels targetLabel(const TargetView &v)
{
    return {{"target", v.facts.name}};
}

void writeTargets(OpenMetricsWriter &w, const QList<TargetView> &views)
{
    w.family(
        "lockscope_target_up", Type::Gauge,
        QStringLiteral("1 when the target's server can be read now, 0 when it cannot (its lock series are "
                       "then withdrawn)"));
    for (const TargetView &v : views)
        w.sample(targetLabel(v), v.up ? 1 : 0);

    w.family("lockscope_target_info", Type::Gauge,
             QStringLiteral("The address read (through Sentinel: the master the sentinels named) and the "
                            "topology; absent until the first connection"));
    for (const TargetView &v : views) {
        const QString &address = v.facts.address;
        if (!address.isEmpty())
            w.sample({{"target", v.facts.name},
                      {"address", address},
                      {"topology", v.facts.topology}},
                     1);
    }

    w.family("lockscope_sentinel_failovers", Type::Counter,
             QStringLiteral("Failovers seen through Sentinel: the master read moved to another address"));
    for (const TargetView &v : views) {
        if (v.facts.sentinel)
            w.sample(targetLabel(v), v.facts.addressChanges, "_total");
    }
    w.family("lockscope_sentinel_last_failover_timestamp_seconds", Type::Gauge,
             QStringLiteral("When the last failover was seen (Unix time); absent before the first"),
             "seconds");
    for (const TargetView &v : views) {
        if (v.facts.lastFailoverEpochMs > 0)
            w.sample(targetLabel(v), double(v.facts.lastFailoverEpochMs) / 1000.0);
    }

    w.family("lockscope_notifications_flowing", Type::Gauge,
             QStringLiteral("1 when keyspace notifications arrive (changes seen within milliseconds), 0 when "
                            "LockScope polls instead (a lock shorter than a rescan interval can go unseen)"));
    for (const TargetView &v : views)
        w.sample(targetLabel(v), v.facts.notifications ? 1 : 0);

    w.family("lockscope_commands_sent", Type::Counter,
             QStringLiteral("Commands LockScope sent to the target's servers (scans, probes, subscriptions, "
                            "pings)"));
    for (const TargetView &v : views)
        w.sample(targetLabel(v), double(v.facts.commandsSent), "_total");

    // What polling costs and what the cap does to it, so that neither is a surprise.
    w.family("lockscope_poll_commands_per_second", Type::Gauge,
             QStringLiteral("Commands per second sent to read the known locks again (polls, renewal checks, "
                            "notified keys), over the last few seconds without a full scan; absent until "
                            "measured"));
    for (const TargetView &v : views) {
        if (v.facts.pollMeasured >= 0)
            w.sample(targetLabel(v), v.facts.pollMeasured);
    }
    w.family("lockscope_poll_max_commands_per_second", Type::Gauge,
             QStringLiteral(
                 "The cap on those commands (--max-commands-per-second); absent when there is none"));
    for (const TargetView &v : views) {
        if (v.facts.pollMax > 0)
            w.sample(targetLabel(v), v.facts.pollMax);
    }
    w.family("lockscope_poll_locks_per_round", Type::Gauge,
             QStringLiteral("Locks read again at each poll (set by the cap when there is one)"));
    for (const TargetView &v : views)
        w.sample(targetLabel(v), v.facts.pollLocksPerRound);
    w.family("lockscope_poll_pass_seconds", Type::Gauge,
             QStringLiteral("How long one pass over every known lock takes (each read once) at this rate: "
                            "without notifications, how late a release or a TTL change can be seen"),
             "seconds");
    for (const TargetView &v : views)
        w.sample(targetLabel(v), v.facts.pollPassSeconds);
    w.family("lockscope_poll_budget_limited", Type::Gauge,
             QStringLiteral("1 when the cap makes a pass over the locks take more than one poll interval"));
    for (const TargetView &v : views)
        w.sample(targetLabel(v), v.facts.pollLimited ? 1 : 0);
}

void writeScans(OpenMetricsWriter &w, const QList<TargetView> &views)
{
    w.family("lockscope_scan_running", Type::Gauge, QStringLiteral("1 while a full scan runs"));
    for (const TargetView &v : views)
        w.sample(targetLabel(v), v.facts.scanning ? 1 : 0);

    w.family("lockscope_scan_complete", Type::Gauge,
             QStringLiteral("1 when the last full scan walked the whole keyspace and read every key it met, "
                            "and every value of the locks found now was read; absent before the first scan "
                            "ends and while the target cannot be read"));
    for (const TargetView &v : views) {
        if (v.up && v.facts.scan.ended)
            w.sample(targetLabel(v), v.facts.scan.complete && unreadReasons(v).isEmpty() ? 1 : 0);
    }
    w.family("lockscope_scan_incomplete_reason", Type::Gauge,
             QStringLiteral("Why the last full scan was incomplete: failed, cancelled, unreadable-keys, "
                            "missing-nodes (a cluster's master that could not be scanned), or why values "
                            "of the locks found could not be read (acl, loading, replica, cluster, timeout, "
                            "connection, error)"));
    for (const TargetView &v : views) {
        QStringList reasons = v.facts.scan.reasons;
        if (v.up)
            reasons << unreadReasons(v);
        reasons.removeDuplicates();
        for (const QString &reason : std::as_const(reasons))
            w.sample({{"target", v.facts.name}, {"reason", reason}}, 1);
    }
    w.family("lockscope_scan_unreadable_keys", Type::Gauge,
             QStringLiteral("Keys of the last full scan whose type the server would not give, by reason"));
    for (const TargetView &v : views) {
        const auto &keys = v.facts.scan.unreadableKeys;
        for (auto it = keys.cbegin(); it != keys.cend(); ++it)
            w.sample({{"target", v.facts.name}, {"reason", it.key()}}, double(it.value()));
    }
    w.family("lockscope_scan_duration_seconds", Type::Gauge,
             QStringLiteral("How long the last full scan took"), "seconds");
    for (const TargetView &v : views) {
        if (v.facts.scan.durationMs >= 0)
            w.sample(targetLabel(v), double(v.facts.scan.durationMs) / 1000.0);
    }
    w.family("lockscope_scan_keys_scanned", Type::Gauge,
             QStringLiteral("Keys the last full scan walked (after its MATCH patterns)"));
    for (const TargetView &v : views) {
        if (v.facts.scan.keysScanned >= 0)
            w.sample(targetLabel(v), double(v.facts.scan.keysScanned));
    }
    w.family("lockscope_scans", Type::Counter,
             QStringLiteral("Full scans ended, by result: complete, incomplete, failed, cancelled"));
    for (const TargetView &v : views) {
        const auto &endings = v.facts.scan.endings;
        for (auto it = endings.cbegin(); it != endings.cend(); ++it)
            w.sample({{"target", v.facts.name}, {"result", it.key()}}, double(it.value()), "_total");
    }
}

void writeLockCounts(OpenMetricsWriter &w, const QList<TargetView> &views)
{
    w.family("lockscope_locks", Type::Gauge,
             QStringLiteral("Locks found now, by kind and library (absent while the target cannot be read)"));
    for (const TargetView &v : views) {
        for (auto it = v.locks.cbegin(); it != v.locks.cend(); ++it)
            w.sample({{"target", v.facts.name}, {"kind", it.key().first}, {"library", it.key().second}},
                     double(it.value()));
    }
    w.family("lockscope_locks_not_exported", Type::Gauge,
             QStringLiteral("Locks left without series of their own by the per-lock series limit (the "
                            "diagnosed and the longest held are exported first)"));
    for (const TargetView &v : views) {
        if (v.up)
            w.sample(targetLabel(v), double(v.notExported));
    }
    w.family("lockscope_unknown_values", Type::Gauge,
             QStringLiteral("Values of the locks found now that could not be read, by field and reason (acl, "
                            "loading, replica, cluster, timeout, connection, error; not-stored: Redis does "
                            "not hold it at all); those values have no sample"));
    for (const TargetView &v : views) {
        for (auto it = v.unknowns.cbegin(); it != v.unknowns.cend(); ++it)
            w.sample({{"target", v.facts.name}, {"field", it.key().first}, {"reason", it.key().second}},
                     double(it.value()));
    }
}

struct LockFamily
{
    const char *name;
    const char *help;
    const char *unit;
    std::optional<double> LockRow::*value;
};

void writeLocks(OpenMetricsWriter &w, const QList<TargetView> &views)
{
    static const LockFamily families[] = {
        {"lockscope_lock_ttl_seconds",
         "Time left before the lock expires, counted down from its last reading; +Inf: no TTL", "seconds",
         &LockRow::ttl},
        {"lockscope_lock_held_seconds",
         "How long the lock has been held, when its acquisition was seen or its library stores the time",
         "seconds", &LockRow::held},
        {"lockscope_lock_held_at_least_seconds",
         "A lower bound of how long the lock has been held: exact when known, else the time since it was "
         "first seen held",
         "seconds", &LockRow::heldAtLeast},
        {"lockscope_lock_holds", "Reentrant holds (the owners' hold counts summed)", "", &LockRow::holdCount},
        {"lockscope_lock_holders", "Holders: owners of a lock, readers, a semaphore's permits held", "",
         &LockRow::holders},
        {"lockscope_lock_waiters",
         "Clients waiting for the lock (a fair queue, or the channel's subscribers)", "", &LockRow::waiters},
        {"lockscope_lock_since_renewal_seconds", "Time since the lock's last renewal was seen", "seconds",
         &LockRow::sinceRenewal},
        {"lockscope_lock_renewal_period_seconds",
         "The lock's renewal period: as seen while watched, else as its library renews", "seconds",
         &LockRow::renewalPeriod},
        {"lockscope_lock_renewal_deadline_seconds",
         "How long after a renewal the next one may take before the renewer is called stalled (its period "
         "plus a margin)",
         "seconds", &LockRow::renewalDeadline},
    };
    for (const LockFamily &f : families) {
        w.family(f.name, Type::Gauge, QString::fromUtf8(f.help), f.unit);
        for (const TargetView &v : views) {
            for (const LockRow &row : v.rows) {
                if (const std::optional<double> &value = row.*(f.value))
                    w.sample(row.labels, *value);
            }
        }
    }
    w.family("lockscope_lock_diagnosis", Type::Gauge,
             QStringLiteral("1 for each diagnosis a lock has now, by code (no-ttl, watchdog-stalled, "
                            "orphan-queue, job-missing, ttl-above-threshold, malformed, contended, "
                            "expired-holders)"));
    for (const TargetView &v : views) {
        for (const LockRow &row : v.rows) {
            for (const QString &code : row.diagnoses) {
                Labels labels = row.labels;
                labels.append({"code", code});
                w.sample(labels, 1);
            }
        }
    }
}

// Leases lost under a renewing holder: by then the lock is gone, so no lock series can say it; these stay for
// LockActivity::kRenewedExpiryWindowMs with the key, so a stalled renewer is alerted on whatever the lease.
void writeRenewedExpiries(OpenMetricsWriter &w, const QList<TargetView> &views, qint64 nowMs)
{
    w.family("lockscope_lock_expired_while_renewing_seconds", Type::Gauge,
             QStringLiteral("Seconds since the lease of a lock ran out under a holder that had been renewing it "
                            "(its renewer stopped: frozen or dead), for 10 minutes after the expiry"),
             "seconds");
    for (const TargetView &v : views) {
        for (const LockActivity::RenewedExpiry &r : v.facts.renewedExpiries)
            w.sample({{"target", v.facts.name}, {"key", keyLabel(r.key)}, {"pattern", r.pattern}},
                     double(std::max<qint64>(0, nowMs - r.atMs)) / 1000.0);
    }
}

void writePatterns(OpenMetricsWriter &w, const QList<TargetView> &views)
{
    struct CounterFamily
    {
        const char *name;
        const char *help;
        quint64 LockActivity::Counts::*value;
    };
    static const CounterFamily counters[] = {
        {"lockscope_pattern_acquisitions", "Acquisitions seen, per key pattern",
         &LockActivity::Counts::acquisitions},
        {"lockscope_pattern_releases", "Releases seen, per key pattern", &LockActivity::Counts::releases},
        {"lockscope_pattern_renewals", "Renewals seen, per key pattern", &LockActivity::Counts::renewals},
        {"lockscope_pattern_expiries_while_held",
         "Leases that ran out under their holder (a crash, a stall, an overrun), per key pattern",
         &LockActivity::Counts::expiries},
        {"lockscope_pattern_losses",
         "Locks gone while they could not be watched (an outage, a restart, a failover), per key pattern",
         &LockActivity::Counts::losses},
    };
    for (const CounterFamily &f : counters) {
        w.family(f.name, Type::Counter, QString::fromUtf8(f.help));
        for (const TargetView &v : views) {
            const auto &patterns = v.facts.patterns;
            for (auto it = patterns.cbegin(); it != patterns.cend(); ++it)
                w.sample({{"target", v.facts.name}, {"pattern", it.key()}}, double(it.value().*(f.value)),
                         "_total");
        }
    }
    w.family("lockscope_pattern_hold_seconds", Type::Histogram,
             QStringLiteral("Hold times of the locks whose acquisition and end (release or expiry) were both "
                            "seen, per key pattern"),
             "seconds");
    for (const TargetView &v : views) {
        const auto &patterns = v.facts.patterns;
        for (auto it = patterns.cbegin(); it != patterns.cend(); ++it)
            w.histogram({{"target", v.facts.name}, {"pattern", it.key()}}, LockActivity::holdBuckets(),
                        it.value().holdBuckets, it.value().holdSecondsSum, it.value().holds);
    }
}

} // namespace

struct LockMetrics::SnapshotData
{
    qint64 nowMs = 0;
    QList<TargetView> views;
};

LockMetrics::Snapshot LockMetrics::snapshot(const QList<const MonitoredTarget *> &targets,
                                            const Options &options)
{
    auto data = std::make_shared<SnapshotData>();
    data->nowMs = InspectClock::monotonicMs();
    const qint64 nowEpochMs = InspectClock::wallMs();
    for (const MonitoredTarget *t : targets)
        data->views.append(viewOf(*t, options.maxLockSeries, data->nowMs, nowEpochMs));
    return Snapshot(std::move(data));
}

QByteArray LockMetrics::write(const Snapshot &snapshot, OpenMetricsWriter::Format format)
{
    static const SnapshotData empty;
    const SnapshotData &d = snapshot.m_data ? *snapshot.m_data : empty;
    OpenMetricsWriter w(format);
    w.family("lockscope_build_info", Type::Gauge,
             QStringLiteral("The LockScope version serving these metrics"));
    w.sample({{"version", QStringLiteral(LOCKSCOPE_VERSION)}}, 1);
    writeTargets(w, d.views);
    writeScans(w, d.views);
    writeLockCounts(w, d.views);
    writeLocks(w, d.views);
    writeRenewedExpiries(w, d.views, d.nowMs);
    writePatterns(w, d.views);
    return w.finish();
}

QByteArray LockMetrics::render(const QList<const MonitoredTarget *> &targets, const Options &options,
                               OpenMetricsWriter::Format format)
{
    return write(snapshot(targets, options), format);
}
