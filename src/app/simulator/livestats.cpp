// LiveStats: RunMetrics + SafetyChecker on a snapshot, and the latency bins.
#include "livestats.h"

#include <QHash>

const QList<qint64> &LiveStats::latencyBinEdgesUs()
{
    // Two bins per decade (1-3-10): coarse enough to read under a small chart.
    static const QList<qint64> edges {100,    300,    1000,    3000,    10000,   30000,
                                      100000, 300000, 1000000, 3000000, 10000000};
    return edges;
}

QStringList LiveStats::latencyBinLabels()
{
    QStringList labels;
    // Short, so a dozen bins fit under a small chart: each bin is "up to" its label.
    for (qint64 edge : latencyBinEdgesUs()) {
        labels << (edge >= 1000000    ? QStringLiteral("%1s").arg(double(edge) / 1e6)
                       : edge >= 1000 ? QStringLiteral("%1ms").arg(double(edge) / 1e3)
                                      : QStringLiteral("%1µs").arg(edge));
    }
    labels << QStringLiteral(">10s");
    return labels;
}

QList<qint64> LiveStats::latencyHistogram(const QList<HistoryEvent> &events)
{
    const QList<qint64> &edges = latencyBinEdgesUs();
    QList<qint64> counts(edges.size() + 1, 0);
    QHash<quint64, qint64> invokes;
    for (const HistoryEvent &e : events) {
        if (e.kind != HistoryEvent::Kind::Acquire)
            continue;
        const quint64 key = (quint64(e.log) << 48) ^ quint64(e.opId);
        if (e.phase == HistoryEvent::Phase::Invoke) {
            invokes.insert(key, e.timeUs);
            continue;
        }
        const auto it = invokes.find(key);
        if (it == invokes.end())
            continue;
        const qint64 latency = e.timeUs - it.value();
        invokes.erase(it);
        if (e.phase != HistoryEvent::Phase::Ok)
            continue;
        const qsizetype bin = std::lower_bound(edges.begin(), edges.end(), latency) - edges.begin();
        ++counts[bin];
    }
    return counts;
}

qint64 LiveStats::bucketFor(qint64 durationUs)
{
    return std::max<qint64>(100000, durationUs / 60);
}

LiveStats LiveStats::compute(const QList<HistoryEvent> &events, const Input &input)
{
    LiveStats s;
    s.atUs = input.nowUs;
    s.metrics = RunMetrics::compute(events, int(input.workerNames.size()), input.nowUs, input.bucketUs);
    SafetyChecker::Input in;
    in.events = events;
    in.workerNames = input.workerNames;
    in.lockNames = input.lockNames;
    in.endUs = input.nowUs;
    // The counters' final values are only known after the run: lost updates are named from the writes.
    for (int i = 0; i < input.counters; ++i)
        in.counters.insert(i, SafetyChecker::Counter {input.counterInitial, 0, false});
    s.safety = SafetyChecker::check(in);
    s.latencyCounts = latencyHistogram(events);
    s.valid = true;
    return s;
}
