// StepGate: a condition variable with a flag per waiting step.
#include "stepgate.h"

#include <chrono>

void StepGate::setEnabled(bool on)
{
    {
        std::lock_guard lock(m_mutex);
        m_enabled = on;
    }
    m_wake.notify_all();
}

bool StepGate::isEnabled() const
{
    std::lock_guard lock(m_mutex);
    return m_enabled && !m_aborted;
}

void StepGate::wait(int stepIndex)
{
    std::unique_lock lock(m_mutex);
    if (!m_enabled || m_aborted)
        return;
    m_waiting = stepIndex;
    m_released = false;
    // Woken by continueRun/abort/setEnabled; the timeout only guards against a lost wake-up.
    while (m_enabled && !m_aborted && !m_released)
        m_wake.wait_for(lock, std::chrono::milliseconds(200));
    m_waiting = -1;
    m_released = false;
}

void StepGate::continueRun()
{
    {
        std::lock_guard lock(m_mutex);
        m_released = true;
    }
    m_wake.notify_all();
}

void StepGate::abort()
{
    {
        std::lock_guard lock(m_mutex);
        m_aborted = true;
    }
    m_wake.notify_all();
}

int StepGate::waitingStep() const
{
    std::lock_guard lock(m_mutex);
    return m_waiting;
}
