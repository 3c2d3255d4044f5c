// The numbers the Simulator's cards, charts and violation list show, computed from a run's history off the
// GUI thread: the core's metrics and safety checker (so they agree with the CLI) plus an acquire-latency
// histogram for the chart.
#pragma once

#include "sim/historyevent.h"
#include "sim/runmetrics.h"
#include "sim/safetychecker.h"

#include <QList>
#include <QStringList>

struct LiveStats
{
    struct Input
    {
        QStringList workerNames;
        QStringList lockNames;
        qint64 nowUs = 0;
        qint64 bucketUs = 1000000;
        qint64 counterInitial = 0; // the counters' start value (their end value is only read at the end)
        int counters = 0;
    };

    RunMetrics metrics;
    SafetyChecker::Result safety;
    QList<qint64> latencyCounts; // per latencyBinEdgesUs() bin
    qint64 atUs = 0;
    bool valid = false;
    bool final = false; // from the engine's report after the run

    // Upper edges of the latency bins (µs); the last bin takes everything above.
    static const QList<qint64> &latencyBinEdgesUs();
    static QStringList latencyBinLabels();
    static QList<qint64> latencyHistogram(const QList<HistoryEvent> &events);
    static LiveStats compute(const QList<HistoryEvent> &events, const Input &input);
    // Buckets as the engine's report uses them: at least 100 ms, about 60 over the run.
    static qint64 bucketFor(qint64 durationUs);
};
