// Latency summaries (nearest-rank percentiles) over microsecond samples.
#pragma once

#include <QJsonObject>
#include <QList>

struct LatencyStats
{
    qint64 count = 0;
    qint64 p50 = 0;
    qint64 p90 = 0;
    qint64 p99 = 0;
    qint64 max = 0;
    double mean = 0;

    // Sorts a copy of `samples`; all zero when empty.
    static LatencyStats of(QList<qint64> samples);
    // {"p50","p90","p99","max"} in µs, as the report JSON wants them.
    QJsonObject toJson() const;
};
