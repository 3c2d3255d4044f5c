// One simulation run of one scenario (no variants — SimulationRunner handles those): starts the servers,
// the simulated processes and their worker threads, runs the timeline on which a FaultInjector injects the
// faults (and a StoryDirector dispatches the story's steps), stops everyone cleanly, reads the counters back
// and produces the report.
//
// Everything blocking happens on the run's own controller thread: start() returns at once, so the GUI
// can call it. The history can be read live while the run goes on.
#pragma once

#include "eventhistory.h"
#include "runreport.h"
#include "runtimeline.h"
#include "scenario.h"
#include "storysnapshot.h"

#include "redis/connectionsettings.h"

#include <QMutex>
#include <QString>
#include <QStringList>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

struct RunContext;
class SimulationServers;
class SimulatedProcess;
class RunWorker;
class ExternalWorker;
class ConnectionPool;
class QTemporaryDir;
class StorySnapshotter;
class FaultInjector;
class FiberScheduler;
class StoryDirector;

class Simulation
{
public:
    enum class State { Idle, Starting, Running, Stopping, Finished, Failed };

    struct Options
    {
        // Run on this server instead of sandboxes (it must allow writes; keys stay under the scenario's
        // prefix).
        std::optional<ConnectionSettings> server;
        // `server` is a private sandbox of the caller's (the explorer's shared one): what only a sandbox may
        // run (the user's own Lua) runs there too.
        bool serverIsSandbox = false;
        std::optional<quint64> seed;
        std::optional<double> durationS;
        bool recordHistory = true;
        // Events each worker, watchdog and the fault controller may record before the rest are counted as
        // dropped (a loop's log, shared by its fibers, holds this much for each of them).
        qsizetype historyCapacityPerLog = qsizetype(1) << 22;
        // Stories: read the story's keys (on a thread of their own, never delaying the story) when each
        // narrated step comes due and when the story ends; storySnapshots() has them.
        bool storySnapshots = false;
    };

    explicit Simulation(const Scenario &scenario);
    Simulation(const Scenario &scenario, const Options &options);
    ~Simulation(); // stops the run and waits for it
    Simulation(const Simulation &) = delete;
    Simulation &operator=(const Simulation &) = delete;

    void start();
    void requestStop();
    // Waits for the run to end; true when it has (timeoutMs < 0: as long as it takes).
    bool waitFinished(int timeoutMs = -1);
    State state() const { return m_state.load(); }
    bool isFinished() const { return state() == State::Finished || state() == State::Failed; }
    // Why the run failed (state Failed), in a sentence.
    QString errorString() const;

    const Scenario &scenario() const { return m_scenario; }
    // Available once the run is Running (nullptr before); stays valid until the Simulation is destroyed.
    const EventHistory *history() const;
    QStringList workerNames() const { return m_workerNames; }
    QList<int> workerProcesses() const { return m_workerProcesses; }
    QStringList processNames() const { return m_processNames; }
    QStringList lockNames() const { return m_lockNames; }
    // Independent masters (Redlock's N; a given server counts as one).
    int serverCount() const { return std::max(1, m_scenario.servers.count); }
    QString serverDescription() const;
    // Where logical server `server` is now (not through any proxy); valid once the run is Running.
    ConnectionSettings serverSettings(int server) const;
    qint64 elapsedUs() const;
    qint64 plannedDurationUs() const { return m_plannedUs; }
    // External clients: what each worker's adapter said of itself (library, version, PIDs), once Running.
    QList<RunReport::ClientWorker> clientWorkers() const;
    // Options::storySnapshots: the readings so far (all of them once the run is finished). Thread-safe.
    QList<StorySnapshot> storySnapshots() const;
    double progress() const;
    // The report, once the run is Finished.
    RunReport report() const;

private:
    void run();
    bool setup(QString *error);
    // Deletes the run's keys (every lock with its companions, the counters) and sets the counters.
    // custom-lua: compiles and tries the user's scripts on every server before the run (CustomLockScripts::check).
    bool checkCustomLua(QString *error);
    bool clearKeys(QString *error);
    void loop();
    void finish();
    void collect();
    void teardown();
    bool prepareClients(QString *error);
    void startEventLoops(); // Scenario::Workload::Engine::Events: the loops, into m_run
    void findStuckClientLocks(RunReport *report) const;
    // How pub/sub waiters listen on this run's servers (Scenario::Retry::Channels resolved against them):
    // false with `error` when the scenario asks for sharded pub/sub on a server without it.
    bool decidePubSubChannels(QString *error);
    qint64 runNowUs() const; // the run clock, as the story and faults schedule on it

    Scenario m_scenario;
    Options m_options;
    std::atomic<State> m_state {State::Idle};
    std::thread m_thread;
    std::unique_ptr<RunContext> m_run;
    std::unique_ptr<EventHistory> m_history;
    std::unique_ptr<SimulationServers> m_servers;
    bool m_shardedPubSub = false; // waiters SSUBSCRIBE and releases SPUBLISH (decidePubSubChannels)
    std::unique_ptr<StorySnapshotter> m_snapshotter; // Options::storySnapshots, from setup to finish()
    QList<StorySnapshot> m_snapshotsKept; // its readings once it is gone (under m_mutex)
    QList<QByteArray> m_storyKeys; // every key the algorithm writes for the run's locks (clearKeys)
    std::vector<std::unique_ptr<SimulatedProcess>> m_processes;
    std::vector<std::unique_ptr<ConnectionPool>> m_pools;
    // Engine "events": one fiber loop per core, declared before the workers so that it outlives them.
    std::vector<std::unique_ptr<FiberScheduler>> m_eventLoops;
    std::vector<std::unique_ptr<RunWorker>> m_workers;
    std::vector<ExternalWorker *> m_external; // by process, when the scenario names a client (else empty)
    std::unique_ptr<QTemporaryDir> m_clientLogs; // the adapters' standard error, kept until the run goes
    QStringList m_workerNames;
    QList<int> m_workerProcesses;
    QStringList m_processNames;
    QStringList m_lockNames;
    qint64 m_plannedUs = 0;
    std::atomic<qint64> m_endUs = -1;
    // Controller thread only, from setup to teardown: the faults and the story's steps, by run time.
    RunTimeline m_timeline;
    std::unique_ptr<FaultInjector> m_faults; // owns the processes' proxies (Scenario::usesProxy)
    std::unique_ptr<StoryDirector> m_story; // stories only

    mutable std::mutex m_mutex; // guards the fields below and wakes the controller
    std::condition_variable m_wake;
    bool m_stopRequested = false;
    QString m_error;
    RunReport m_report;
};
