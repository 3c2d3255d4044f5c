// The one clock of a simulation run: monotonic microseconds since the run started. All workers are threads of
// one process on one host, so this gives an exact real-time order of everything recorded.
#pragma once

#include <QtGlobal>

#include <atomic>
#include <chrono>

class RunClock
{
public:
    RunClock() { restart(); }
    // The run starts now. Other threads may read the clock meanwhile — an external client's reader thread
    // stamps the adapter's hello while the run is being set up — so the start is an atomic: a reading taken
    // before the restart counts from the clock's construction, one after it from the run's start.
    void restart() { m_startTicks = std::chrono::steady_clock::now().time_since_epoch().count(); }
    qint64 nowUs() const
    {
        return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now()
                                                                     - start())
            .count();
    }
    std::chrono::steady_clock::time_point start() const
    {
        using Clock = std::chrono::steady_clock;
        return Clock::time_point(Clock::duration(m_startTicks.load()));
    }
    // A steady_clock time in µs since its epoch (LockClock::monotonicUs()) as run time.
    qint64 fromMonotonicUs(qint64 monotonicUs) const
    {
        return monotonicUs
            - std::chrono::duration_cast<std::chrono::microseconds>(start().time_since_epoch()).count();
    } // The steady-clock instant of a run time, for sleeping until it.
    std::chrono::steady_clock::time_point at(qint64 runUs) const
    {
        return start() + std::chrono::microseconds(runUs);
    }

private:
    std::atomic<std::chrono::steady_clock::rep> m_startTicks {0}; // steady_clock ticks since its epoch
};
