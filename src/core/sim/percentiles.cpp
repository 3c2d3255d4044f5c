// LatencyStats: nearest-rank percentiles, the definition a reader can check by hand.
#include "percentiles.h"

#include <algorithm>
#include <cmath>
#include <numeric>

static qint64 nearestRank(const QList<qint64> &sorted, double p)
{
    const auto rank = qsizetype(std::ceil(p / 100.0 * double(sorted.size())));
    return sorted.at(std::clamp<qsizetype>(rank - 1, 0, sorted.size() - 1));
}

LatencyStats LatencyStats::of(QList<qint64> samples)
{
    LatencyStats s;
    if (samples.isEmpty())
        return s;
    std::sort(samples.begin(), samples.end());
    s.count = samples.size();
    s.p50 = nearestRank(samples, 50);
    s.p90 = nearestRank(samples, 90);
    s.p99 = nearestRank(samples, 99);
    s.max = samples.last();
    s.mean = double(std::accumulate(samples.cbegin(), samples.cend(), qint64(0))) / double(samples.size());
    return s;
}

QJsonObject LatencyStats::toJson() const
{
    return QJsonObject {{QStringLiteral("p50"), double(p50)},
                        {QStringLiteral("p90"), double(p90)},
                        {QStringLiteral("p99"), double(p99)},
                        {QStringLiteral("max"), double(max)}};
}
