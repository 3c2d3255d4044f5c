// A condition variable that threads and fibers can wait on alike: a thread blocks as with
// std::condition_variable, a fiber parks on its FiberScheduler so the other fibers of that thread go on.
// Same contract and calls (wait, wait_for, wait_until with or without a predicate, notify_one/notify_all)
// with a std::unique_lock<std::mutex>, so a class shared by the thread and the event engine swaps its
// std::condition_variable for this one and changes nothing else.
#pragma once

#include "fiberscheduler.h"

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <vector>

class FiberCondition
{
public:
    using Clock = std::chrono::steady_clock;

    void notify_one();
    void notify_all();

    void wait(std::unique_lock<std::mutex> &lock);
    std::cv_status wait_until(std::unique_lock<std::mutex> &lock, Clock::time_point deadline);

    template<typename Predicate>
    void wait(std::unique_lock<std::mutex> &lock, Predicate ready)
    {
        while (!ready())
            wait(lock);
    }
    template<typename Predicate>
    bool wait_until(std::unique_lock<std::mutex> &lock, Clock::time_point deadline, Predicate ready)
    {
        while (!ready()) {
            if (wait_until(lock, deadline) == std::cv_status::timeout)
                return ready();
        }
        return true;
    }
    template<typename Rep, typename Period>
    std::cv_status wait_for(std::unique_lock<std::mutex> &lock, std::chrono::duration<Rep, Period> timeout)
    {
        return wait_until(lock, deadlineAfter(timeout));
    }
    template<typename Rep, typename Period, typename Predicate>
    bool wait_for(std::unique_lock<std::mutex> &lock, std::chrono::duration<Rep, Period> timeout,
                  Predicate ready)
    {
        return wait_until(lock, deadlineAfter(timeout), ready);
    }

private:
    template<typename Rep, typename Period>
    static Clock::time_point deadlineAfter(std::chrono::duration<Rep, Period> timeout)
    {
        // Saturate: "wait a very long time" must not overflow into the past.
        const auto capped = std::min<std::chrono::duration<double>>(timeout, std::chrono::hours(24 * 365));
        return Clock::now() + std::chrono::duration_cast<Clock::duration>(capped);
    }
    // A fiber waits: registered, the caller's lock let go, parked, the lock taken back.
    std::cv_status parkFiber(std::unique_lock<std::mutex> &lock, std::optional<Clock::time_point> deadline);

    std::condition_variable m_threads;
    std::mutex m_fibersMutex; // guards m_fibers: notify may come without the caller's lock
    std::vector<FiberScheduler::Handle> m_fibers;
};
