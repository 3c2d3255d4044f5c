// ScanPacer: the time a chunk must wait is what makes busy time ≤ duty × elapsed and ops ≤ budget × elapsed
// true again; a small allowance lets the first chunks go at once.
#include "scanpacer.h"

#include <algorithm>
#include <chrono>

namespace {
// Lead time the scan may run ahead of its share before it waits (keeps waits from being many tiny sleeps).
constexpr qint64 kAllowanceUs = 2000;
} // namespace

ScanPacer::ScanPacer(double duty, int maxOpsPerSecond, int chunkCommands)
    : m_duty(std::clamp(duty, 0.01, 1.0))
    , m_maxOps(std::max(0, maxOpsPerSecond))
    , m_chunk(std::max(1, chunkCommands))
{
    m_clock.start();
}

bool ScanPacer::beforeChunk(int commands)
{
    std::unique_lock lock(m_mutex);
    while (!m_interrupted) {
        const qint64 elapsedUs = m_clock.nsecsElapsed() / 1000;
        qint64 waitUs = 0;
        if (m_duty < 1.0)
            waitUs = std::max(waitUs, qint64(double(m_busyUs) / m_duty) - elapsedUs - kAllowanceUs);
        if (m_maxOps > 0)
            waitUs = std::max(waitUs, (m_ops + commands) * 1'000'000 / m_maxOps - elapsedUs - kAllowanceUs);
        if (waitUs <= 0)
            break;
        m_waitedUs += waitUs;
        m_wake.wait_for(lock, std::chrono::microseconds(waitUs));
    }
    m_ops += commands;
    return !m_interrupted;
}

void ScanPacer::afterChunk(qint64 microseconds)
{
    std::lock_guard lock(m_mutex);
    m_busyUs += std::max<qint64>(0, microseconds);
}

void ScanPacer::interrupt()
{
    {
        std::lock_guard lock(m_mutex);
        m_interrupted = true;
    }
    m_wake.notify_all();
}

qint64 ScanPacer::waitedUs() const
{
    std::lock_guard lock(m_mutex);
    return m_waitedUs;
}
