// What the run's controller needs of a worker, whether it is one of LockScope's own threads
// (SimulationWorker) or a real library in a process of its own (ExternalWorker).
#pragma once

#include "scenario.h"

#include <QString>

class RunWorker
{
public:
    virtual ~RunWorker() = default;

    // Before the run, on the controller thread: connections, lock objects, the adapter's process.
    virtual bool prepare(QString *error) = 0;
    // Starts the worker's thread. Workload workers loop until RunContext::stopping; story workers run posted
    // steps until finish() is called.
    virtual void start() = 0;
    virtual void post(const Scenario::Step &step) = 0;
    virtual void finish() = 0; // story: no more steps will come
    virtual void join() = 0;
    virtual bool isIdle() const = 0;
    // Interrupts what the worker is waiting for (end of the run).
    virtual void interruptConnections() = 0;
};
