// RunMetrics: one time-ordered sweep over the history.
#include "runmetrics.h"

#include <QHash>

#include <algorithm>
#include <limits>

namespace {
quint64 opKey(const HistoryEvent &e)
{
    return (quint64(e.log) << 48) ^ quint64(e.opId);
}

struct LastRelease
{
    int worker = -1;
    qint64 okUs = -1;
};

constexpr qint64 kNoExpiry = std::numeric_limits<qint64>::max();

// One holder's tenure of one lock: until when its lease runs (acquisition or renewal + the lease it set),
// and how many times it holds it (reentrant acquisitions). No lease (no TTL): it never runs out.
struct Tenure
{
    qint64 validUntilUs = kNoExpiry;
    int depth = 0;
    int process = -1;
};
} // namespace

double RunMetrics::jainIndex(const QList<qint64> &values)
{
    double sum = 0;
    double squares = 0;
    for (qint64 v : values) {
        sum += double(v);
        squares += double(v) * double(v);
    }
    if (values.isEmpty() || squares == 0)
        return 0;
    return sum * sum / (double(values.size()) * squares);
}

RunMetrics RunMetrics::compute(const QList<HistoryEvent> &events, int workers, qint64 durationUs,
                               qint64 bucketUs)
{
    RunMetrics m;
    m.durationUs = durationUs;
    m.workers = workers;
    m.bucketUs = bucketUs > 0 ? bucketUs : 1000000;
    m.acquisitionsPerWorker.fill(0, workers);
    const qsizetype buckets = durationUs > 0 ? (durationUs + m.bucketUs - 1) / m.bucketUs : 0;
    m.acquisitionsPerBucket.fill(0, buckets);
    m.waitingPerBucket.fill(0, buckets);
    const auto bucketOf = [&](qint64 t) {
        return std::clamp<qsizetype>(t / m.bucketUs, 0, std::max<qsizetype>(0, buckets - 1));
    };

    QHash<quint64, qint64> acquireInvokes;
    QHash<quint64, qint64> enters; // worker<<32|lock → enter time
    QHash<int, LastRelease> lastRelease; // per lock
    QHash<quint64, qint64> lastLeaseStart; // worker<<32|lock → its acquisition or its last renewal
    // Expiries, from the history as the report tells it ("its lease ran out at 2.001 s"): a tenure whose
    // lease ran out before its release took effect, or, never released (its holder crashed, or the run
    // ended), before the history's end. A release that found the key gone before then saw it lost another
    // way (a restart, someone's DEL): no expiry.
    QHash<quint64, Tenure> tenures; // worker<<32|lock
    QList<Tenure> abandoned; // tenures of crashed processes: their keys live on until their leases end
    QHash<quint64, QPair<qint64, qint64>> renewInvokes; // op → (invoke time, lease asked)
    QHash<quint64, qint64> releaseInvokes; // op → invoke time
    qint64 lastEventUs = 0;
    QList<qint64> acquireLatencies, handoffs, holds, validities, renewalIntervals;
    const auto holderKey
        = [](const HistoryEvent &e) { return (quint64(quint32(e.worker)) << 32) | quint32(e.lock); };
    int waiting = 0;
    // A worker that waits across several buckets counts in each of them, not only where it started waiting:
    // the level reached so far is carried into every bucket the history passes through (events are in time
    // order).
    qsizetype carriedTo = 0;
    const auto carryWaitingTo = [&](qsizetype bucket) {
        for (; carriedTo < bucket; ++carriedTo)
            m.waitingPerBucket[carriedTo + 1] = std::max(m.waitingPerBucket[carriedTo + 1], waiting);
    };

    for (const HistoryEvent &e : events) {
        lastEventUs = std::max(lastEventUs, e.timeUs);
        if (e.isCompletion())
            m.commands += e.commands;
        if (buckets > 0)
            carryWaitingTo(bucketOf(e.timeUs));
        switch (e.kind) {
        case HistoryEvent::Kind::Acquire: {
            if (e.phase == HistoryEvent::Phase::Invoke) {
                acquireInvokes.insert(opKey(e), e.timeUs);
                ++waiting;
                if (buckets > 0)
                    m.waitingPerBucket[bucketOf(e.timeUs)]
                        = std::max(m.waitingPerBucket[bucketOf(e.timeUs)], waiting);
                break;
            }
            const qint64 invokeUs = acquireInvokes.take(opKey(e));
            waiting = std::max(0, waiting - 1);
            const qint64 waited = e.timeUs - invokeUs;
            m.longestWaitUs = std::max(m.longestWaitUs, waited);
            if (e.phase == HistoryEvent::Phase::Ok) {
                ++m.acquisitions;
                acquireLatencies << waited;
                if (e.worker >= 0 && e.worker < workers)
                    ++m.acquisitionsPerWorker[e.worker];
                if (buckets > 0)
                    ++m.acquisitionsPerBucket[bucketOf(e.timeUs)];
                const LastRelease r = lastRelease.value(e.lock);
                if (r.okUs >= 0 && r.worker != e.worker && invokeUs <= r.okUs)
                    handoffs << e.timeUs - r.okUs;
                lastRelease.remove(e.lock);
                lastLeaseStart.insert(holderKey(e), e.timeUs);
                // The lease counts from the first command of the winning attempt, else from the call.
                const qint64 from = e.effectUs > 0 ? std::max(invokeUs, e.effectUs) : invokeUs;
                const bool unseen = HistoryEvent::AcquireOutcome(e.outcome)
                    == HistoryEvent::AcquireOutcome::RenewedUnseen;
                const qint64 until = e.value > 0 && !unseen ? from + e.value * 1000 : kNoExpiry;
                Tenure &t = tenures[holderKey(e)];
                t.validUntilUs = t.depth > 0 ? std::max(t.validUntilUs, until) : until;
                t.process = e.process;
                ++t.depth;
            } else if (e.phase == HistoryEvent::Phase::Fail) {
                if (HistoryEvent::AcquireOutcome(e.outcome) != HistoryEvent::AcquireOutcome::Stopped)
                    ++m.failedAcquires; // an acquire cut short by the end of the run did not give up
            } else {
                ++m.unknownAcquires;
            }
            break;
        }
        case HistoryEvent::Kind::Renew:
            if (e.phase == HistoryEvent::Phase::Invoke) {
                renewInvokes.insert(opKey(e), {e.timeUs, e.value});
                break;
            }
            if (e.phase == HistoryEvent::Phase::Ok) {
                const QPair<qint64, qint64> invoke = renewInvokes.take(opKey(e));
                const qint64 lease = invoke.second > 0 ? invoke.second : e.value;
                const auto t = tenures.find(holderKey(e));
                const qint64 renewedUs = invoke.first > 0 ? invoke.first : e.timeUs;
                if (t != tenures.end() && t->validUntilUs != kNoExpiry && lease > 0)
                    t->validUntilUs = std::max(t->validUntilUs, renewedUs + lease * 1000);
                ++m.renewals;
                const auto last = lastLeaseStart.find(holderKey(e));
                if (last != lastLeaseStart.end()) {
                    renewalIntervals << e.timeUs - last.value();
                    last.value() = e.timeUs;
                }
            } else if (e.phase == HistoryEvent::Phase::Fail) {
                renewInvokes.remove(opKey(e));
                ++m.renewalFailures;
            } else {
                renewInvokes.remove(opKey(e));
            }
            break;
        case HistoryEvent::Kind::Release: {
            lastLeaseStart.remove(holderKey(e));
            if (e.phase == HistoryEvent::Phase::Invoke) {
                releaseInvokes.insert(opKey(e), e.timeUs);
                break;
            }
            const qint64 invokeUs = releaseInvokes.take(opKey(e));
            const auto outcome = HistoryEvent::ReleaseOutcome(e.outcome);
            const bool ok = e.phase == HistoryEvent::Phase::Ok;
            if (ok && outcome == HistoryEvent::ReleaseOutcome::StillHeld) {
                const auto t = tenures.find(holderKey(e));
                if (t != tenures.end())
                    t->depth = std::max(1, t->depth - 1);
                break; // a reentrant hold let go once: the tenure goes on
            }
            const auto t = tenures.find(holderKey(e));
            // A release that failed or got no answer leaves the key to its TTL: judged at the history's end.
            if (t != tenures.end() && ok) {
                const qint64 effectUs = e.effectUs > 0
                    ? std::clamp(e.effectUs, std::min(invokeUs, e.timeUs), e.timeUs)
                    : e.timeUs;
                const bool expired = outcome == HistoryEvent::ReleaseOutcome::Released
                    ? effectUs > t->validUntilUs
                    : t->validUntilUs <= e.timeUs; // found gone: expired only if its lease had run out
                if (t->validUntilUs != kNoExpiry && expired)
                    ++m.expiries;
                tenures.erase(t);
            } else if (t != tenures.end()) {
                abandoned << *t;
                tenures.erase(t);
            }
            if (e.phase == HistoryEvent::Phase::Ok
                && HistoryEvent::ReleaseOutcome(e.outcome) == HistoryEvent::ReleaseOutcome::Released) {
                ++m.cycles;
                lastRelease.insert(e.lock, LastRelease {e.worker, e.timeUs});
            }
            break;
        }
        case HistoryEvent::Kind::Enter:
            enters.insert(holderKey(e), e.timeUs);
            break;
        case HistoryEvent::Kind::Exit: {
            const quint64 key = holderKey(e);
            if (enters.contains(key))
                holds << e.timeUs - enters.take(key);
            break;
        }
        case HistoryEvent::Kind::Fault: {
            // A crash (or a restart, which kills first) leaves the process's keys to their TTLs; its next
            // acquisition is a new tenure, not a reentrant one.
            const auto type = HistoryEvent::FaultType(e.outcome);
            if (type != HistoryEvent::FaultType::Crash && type != HistoryEvent::FaultType::ProcessRestart)
                break;
            for (auto t = tenures.begin(); t != tenures.end();) {
                if (e.process < 0 || t->process == e.process) {
                    abandoned << *t;
                    t = tenures.erase(t);
                } else {
                    ++t;
                }
            }
            break;
        }
        case HistoryEvent::Kind::Expire:
            ++m.expiries; // no recorder writes these today; kept for histories that do
            break;
        case HistoryEvent::Kind::Round:
            ++m.rounds;
            switch (HistoryEvent::RoundOutcome(e.outcome)) {
            case HistoryEvent::RoundOutcome::Won:
                ++m.roundsWon;
                validities << e.value;
                break;
            case HistoryEvent::RoundOutcome::ValiditySpent:
                ++m.roundsValiditySpent;
                break;
            default:
                ++m.roundsNoQuorum;
                break;
            }
            break;
        case HistoryEvent::Kind::Error:
            ++m.errors;
            break;
        default:
            break;
        }
        if (e.phase == HistoryEvent::Phase::Info)
            ++m.errors;
    }
    if (buckets > 0)
        carryWaitingTo(buckets - 1); // those still waiting at the end (a live run) wait to the last bucket
    // Never released: an expiry when the lease ran out within the history (a lease still running at the
    // end of a live run has not expired yet).
    const qint64 endUs = std::max(durationUs, lastEventUs);
    for (const Tenure &t : std::as_const(tenures))
        abandoned << t;
    for (const Tenure &t : std::as_const(abandoned)) {
        if (t.validUntilUs != kNoExpiry && t.validUntilUs <= endUs)
            ++m.expiries;
    }

    const double seconds = double(durationUs) / 1e6;
    if (seconds > 0) {
        m.cyclesPerS = double(m.cycles) / seconds;
        m.acquisitionsPerS = double(m.acquisitions) / seconds;
    }
    if (m.acquisitions > 0)
        m.commandsPerAcquisition = double(m.commands) / double(m.acquisitions);
    m.fairnessJain = jainIndex(m.acquisitionsPerWorker);
    m.acquireLatency = LatencyStats::of(acquireLatencies);
    m.handoffLatency = LatencyStats::of(handoffs);
    m.holdTime = LatencyStats::of(holds);
    m.renewalInterval = LatencyStats::of(renewalIntervals);
    if (!validities.isEmpty()) {
        std::sort(validities.begin(), validities.end());
        m.validityMinMs = validities.first();
        m.validityP50Ms = validities.at((validities.size() - 1) / 2);
    }
    return m;
}
