// Step mode for stories: the simulation's controller thread waits here before each narrative step until the
// user continues (Simulation::Options::stepGate). Thread-safe; the GUI polls waitingStep() on its timer.
#pragma once

#include <condition_variable>
#include <mutex>

class StepGate
{
public:
    // When off, wait() returns at once; turning it off also lets a waiting step go.
    void setEnabled(bool on);
    bool isEnabled() const;
    // Controller thread: blocks until continueRun(), setEnabled(false) or abort().
    void wait(int stepIndex);
    // GUI thread: lets the waiting step go.
    void continueRun();
    // The run is stopping: never block again.
    void abort();
    int waitingStep() const; // -1 when nothing waits

private:
    mutable std::mutex m_mutex;
    std::condition_variable m_wake;
    bool m_enabled = false;
    bool m_aborted = false;
    int m_waiting = -1;
    bool m_released = false;
};
