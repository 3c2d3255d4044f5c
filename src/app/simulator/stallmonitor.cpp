// StallMonitor: timer lateness.
#include "stallmonitor.h"

#include "logging.h"

StallMonitor::StallMonitor(QObject *parent)
    : QObject(parent)
{
    m_timer.setInterval(kIntervalMs);
    m_timer.setTimerType(Qt::PreciseTimer);
    connect(&m_timer, &QTimer::timeout, this, &StallMonitor::tick);
}

void StallMonitor::start()
{
    reset();
    m_timer.start();
}

void StallMonitor::stop()
{
    m_timer.stop();
}

void StallMonitor::reset()
{
    m_clock.start();
    m_lastNs = 0;
    m_longestMs = 0;
    m_stalls = 0;
}

void StallMonitor::tick()
{
    const qint64 now = m_clock.nsecsElapsed();
    const double lateMs = double(now - m_lastNs) / 1e6 - kIntervalMs;
    m_lastNs = now;
    if (lateMs > m_longestMs)
        m_longestMs = lateMs;
    if (lateMs > kStallMs) {
        ++m_stalls;
        qCDebug(lcUi) << "GUI thread blocked for" << lateMs << "ms";
    }
}
