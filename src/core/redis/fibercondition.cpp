// FiberCondition: std::condition_variable for threads, FiberScheduler::park/unpark for fibers.
#include "fibercondition.h"

#include <algorithm>

void FiberCondition::notify_one()
{
    FiberScheduler::Handle fiber;
    {
        std::lock_guard lock(m_fibersMutex);
        if (!m_fibers.empty()) {
            fiber = std::move(m_fibers.front());
            m_fibers.erase(m_fibers.begin());
        }
    }
    if (fiber)
        FiberScheduler::unpark(fiber);
    // A thread may wait too; waking one more than asked for is allowed (a spurious wake-up).
    m_threads.notify_one();
}

void FiberCondition::notify_all()
{
    std::vector<FiberScheduler::Handle> fibers;
    {
        std::lock_guard lock(m_fibersMutex);
        fibers.swap(m_fibers);
    }
    for (const FiberScheduler::Handle &fiber : fibers)
        FiberScheduler::unpark(fiber);
    m_threads.notify_all();
}

void FiberCondition::wait(std::unique_lock<std::mutex> &lock)
{
    if (FiberScheduler::current())
        parkFiber(lock, std::nullopt);
    else
        m_threads.wait(lock);
}

std::cv_status FiberCondition::wait_until(std::unique_lock<std::mutex> &lock, Clock::time_point deadline)
{
    if (FiberScheduler::current())
        return parkFiber(lock, deadline);
    return m_threads.wait_until(lock, deadline);
}

std::cv_status FiberCondition::parkFiber(std::unique_lock<std::mutex> &lock,
                                         std::optional<Clock::time_point> deadline)
{
    const FiberScheduler::Handle me = FiberScheduler::self();
    {
        // Registered while the caller still holds its lock: a notify after the caller's state change
        // finds this fiber (and if it comes before park(), park() returns at once).
        std::lock_guard guard(m_fibersMutex);
        m_fibers.push_back(me);
    }
    lock.unlock();
    const FiberScheduler::Wake why = FiberScheduler::current()->park(deadline);
    lock.lock();
    {
        std::lock_guard guard(m_fibersMutex);
        m_fibers.erase(std::remove(m_fibers.begin(), m_fibers.end(), me), m_fibers.end());
    }
    return why == FiberScheduler::Wake::Timeout ? std::cv_status::timeout : std::cv_status::no_timeout;
}
