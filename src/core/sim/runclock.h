// The one clock of a simulation run: monotonic microseconds since the run started. All workers are threads of
// one process on one host, so this gives an exact real-time order of everything recorded.
#pragma once

#include <QtGlobal>

#include <chrono>

class RunClock
{
public:
    RunClock() { restart(); }
    void restart() { m_start = std::chrono::steady_clock::now(); }
    qint64 nowUs() const
    {
        return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now()
                                                                     - m_start)
            .count();
    }
    std::chrono::steady_clock::time_point start() const { return m_start; }
    // A steady_clock time in µs since its epoch (LockClock::monotonicUs()) as run time.
    qint64 fromMonotonicUs(qint64 monotonicUs) const
    {
        return monotonicUs
            - std::chrono::duration_cast<std::chrono::microseconds>(m_start.time_since_epoch()).count();
    } // The steady-clock instant of a run time, for sleeping until it.
    std::chrono::steady_clock::time_point at(qint64 runUs) const
    {
        return m_start + std::chrono::microseconds(runUs);
    }

private:
    std::chrono::steady_clock::time_point m_start;
};
