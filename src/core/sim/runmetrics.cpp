// RunMetrics: one time-ordered sweep over the history.
#include "runmetrics.h"

#include <QHash>

#include <algorithm>

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
            } else if (e.phase == HistoryEvent::Phase::Fail) {
                if (HistoryEvent::AcquireOutcome(e.outcome) != HistoryEvent::AcquireOutcome::Stopped)
                    ++m.failedAcquires; // an acquire cut short by the end of the run did not give up
            } else {
                ++m.unknownAcquires;
            }
            break;
        }
        case HistoryEvent::Kind::Renew:
            if (e.phase == HistoryEvent::Phase::Ok) {
                ++m.renewals;
                const auto last = lastLeaseStart.find(holderKey(e));
                if (last != lastLeaseStart.end()) {
                    renewalIntervals << e.timeUs - last.value();
                    last.value() = e.timeUs;
                }
            } else if (e.phase == HistoryEvent::Phase::Fail)
                ++m.renewalFailures;
            break;
        case HistoryEvent::Kind::Release:
            lastLeaseStart.remove(holderKey(e));
            if (e.phase == HistoryEvent::Phase::Ok
                && HistoryEvent::ReleaseOutcome(e.outcome) == HistoryEvent::ReleaseOutcome::Released) {
                ++m.cycles;
                lastRelease.insert(e.lock, LastRelease {e.worker, e.timeUs});
            }
            break;
        case HistoryEvent::Kind::Enter:
            enters.insert(holderKey(e), e.timeUs);
            break;
        case HistoryEvent::Kind::Exit: {
            const quint64 key = holderKey(e);
            if (enters.contains(key))
                holds << e.timeUs - enters.take(key);
            break;
        }
        case HistoryEvent::Kind::Expire:
            ++m.expiries;
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
