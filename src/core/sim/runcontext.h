// What every worker of one run shares with the controller: the scenario, the history, the clock, the
// servers, key names, lock options, and the start/stop switches.
#pragma once

#include "eventhistory.h"
#include "locks/lockoptions.h"
#include "outagetracker.h"
#include "persistenterrortracker.h"
#include "redis/fibercondition.h"
#include "runclock.h"
#include "scenario.h"
#include "simulationservers.h"

#include <QByteArray>
#include <QList>

#include <atomic>
#include <mutex>

struct RunContext
{
    Scenario scenario;
    EventHistory *history = nullptr;
    RunClock clock;
    SimulationServers *servers = nullptr;
    QList<QByteArray> lockKeys;
    QList<QByteArray> counterKeys; // one per lock; empty when the scenario has no counter
    LockOptions lockOptions;
    bool noLock = false; // algorithm "none": the inventory demo's baseline
    // Engine "events": the loops the workers run on as fibers (owned by the Simulation, which outlives the
    // workers); empty with the thread engine.
    QList<FiberScheduler *> eventLoops;
    // The history's logs: the workers' first, then one per process (its watchdog's renewals, an external
    // client's reports), the fault controller's last. A worker thread has a log of its own; on the event
    // engine the fibers of one loop share the loop's log, which only the loop's thread writes. A fleet's
    // events then land side by side in a few logs instead of in a chunk apiece of thousands, which cost
    // memory and the loop's caches.
    int workerLogs = 0;

    // The loop a worker's fiber runs on (event engine): workers spread evenly.
    FiberScheduler *workerLoop(int worker) const { return eventLoops.at(worker % eventLoops.size()); }
    // The log a worker writes: its own, or (event engine) the log of the loop workerLoop() puts it on.
    int workerLog(int worker) const
    {
        return eventLoops.isEmpty() ? worker : worker % int(eventLoops.size());
    }
    int processLog(int process) const { return workerLogs + process; }
    // servers.proxy: where each process reaches each server ([process][server], a FaultProxy's address),
    // empty when processes talk to the servers directly.
    QList<QList<QPair<QString, int>>> proxies;

    // The settings a worker of `process` connects to server `server` with: the server's, through the
    // process's proxy when there is one.
    ConnectionSettings serverSettings(int process, int server) const
    {
        ConnectionSettings s = servers->settings(server);
        if (process >= 0 && process < proxies.size() && server < proxies.at(process).size()) {
            s.host = proxies.at(process).at(server).first;
            s.port = proxies.at(process).at(server).second;
        }
        return s;
    }

    std::atomic_bool stopping = false; // workload: start no new cycle
    std::atomic<qint64> failedRounds = 0;
    std::atomic<qint64> cycles = 0; // counted by the workers, with or without the history
    std::atomic<qint64> commands = 0; // Redis commands of the workers' completed steps, likewise
    OutageTracker outages; // servers that stopped answering without a scheduled fault
    PersistentErrorTracker persistentErrors; // servers that keep refusing the run's commands the same way

    // Workers wait here until every worker is ready, so the run starts for all at once.
    void waitForGo()
    {
        std::unique_lock lock(goMutex);
        goWake.wait(lock, [this] { return go; });
    }
    void releaseGo()
    {
        {
            std::lock_guard lock(goMutex);
            go = true;
        }
        goWake.notify_all();
    }

private:
    std::mutex goMutex;
    FiberCondition goWake; // workers on fibers park here
    bool go = false;
};
