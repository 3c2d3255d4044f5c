// Throughput, latency, hand-off, fairness and counts of a run, computed from its history alone (so the
// CLI, the GUI's live cards and the benchmarks all agree).
#pragma once

#include "historyevent.h"
#include "percentiles.h"

#include <QList>

struct RunMetrics
{
    qint64 durationUs = 0;
    int workers = 0;
    qint64 acquisitions = 0; // acquire ok (reentrant re-acquisitions included)
    qint64 cycles = 0; // releases that released: whole lock/unlock cycles
    qint64 failedAcquires = 0; // gave up (acquire timeout) or refused
    qint64 unknownAcquires = 0; // info: the outcome is unknown (error or timeout on the wire)
    qint64 renewals = 0;
    qint64 renewalFailures = 0;
    // Leases that ran out under their holders (acquisition or last renewal + lease, before the release took
    // effect, or before the history's end when never released): what the report's story calls "its lease
    // ran out".
    qint64 expiries = 0;
    qint64 errors = 0;
    qint64 commands = 0; // Redis commands recorded on completions
    double cyclesPerS = 0;
    double acquisitionsPerS = 0;
    double commandsPerAcquisition = 0;
    double fairnessJain = 0; // Jain's index over per-worker acquisitions: 1 = perfectly even
    qint64 longestWaitUs = 0; // longest time any worker spent in one acquire call
    LatencyStats acquireLatency; // acquire invoke → ok, waiting included
    LatencyStats handoffLatency; // release by one worker → acquire ok by a worker that was waiting
    LatencyStats holdTime; // enter → exit
    // Time between a holder's renewals of one lock (from its acquisition for the first): the watchdog's
    // period as it really ran. Its median is robust to the pauses and step waits a story adds, unlike the
    // count of renewals, which moves with how long each hold happened to last.
    LatencyStats renewalInterval;
    QList<qint64> acquisitionsPerWorker;
    qint64 bucketUs = 0;
    QList<int> acquisitionsPerBucket; // time series for charts
    QList<int> waitingPerBucket; // most workers waiting at once within each bucket
    // Redlock: every round (one attempt on all servers inside an acquire call), won or lost.
    qint64 rounds = 0;
    qint64 roundsWon = 0;
    qint64 roundsNoQuorum = 0; // fewer than N/2+1 servers granted it
    qint64 roundsValiditySpent = 0; // a quorum granted it, but the lease was used up getting there
    qint64 validityMinMs = -1; // least validity a won round left (-1: no round won)
    qint64 validityP50Ms = -1;

    static RunMetrics compute(const QList<HistoryEvent> &events, int workers, qint64 durationUs,
                              qint64 bucketUs = 1000000);
    static double jainIndex(const QList<qint64> &values);
};
