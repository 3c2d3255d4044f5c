// InspectClock: steady_clock for order and countdowns, QDateTime for what people read.
#include "inspectclock.h"

#include <QDateTime>

#include <chrono>

namespace InspectClock {

qint64 monotonicMs()
{
    using namespace std::chrono;
    return duration_cast<milliseconds>(steady_clock::now().time_since_epoch()).count();
}

qint64 wallMs()
{
    return QDateTime::currentMSecsSinceEpoch();
}

qint64 wallFromMonotonic(qint64 monotonic)
{
    return wallMs() - (monotonicMs() - monotonic);
}

} // namespace InspectClock
