// One simulation run of one scenario (no variants — SimulationRunner handles those): starts the servers,
// the simulated processes and their worker threads, injects the faults on schedule (or dispatches the
// story's steps), stops everyone cleanly, reads the counters back and produces the report.
//
// Everything blocking happens on the run's own controller thread: start() returns at once, so the GUI
// can call it. The history can be read live while the run goes on.
#pragma once

#include "eventhistory.h"
#include "runreport.h"
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
class FaultProxy;
class StorySnapshotter;

class Simulation
{
public:
    enum class State { Idle, Starting, Running, Stopping, Finished, Failed };

    struct Options
    {
        // Run on this server instead of sandboxes (it must allow writes; keys stay under the scenario's
        // prefix).
        std::optional<ConnectionSettings> server;
        std::optional<quint64> seed;
        std::optional<double> durationS;
        bool recordHistory = true;
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
    struct Timed;
    void run();
    bool setup(QString *error);
    // Deletes the run's keys (every lock with its companions, the counters) and sets the counters.
    bool clearKeys(QString *error);
    void loop();
    void finish();
    void collect();
    void teardown();
    void schedule(qint64 atUs, std::function<void()> action);
    void scheduleFaults();
    void scheduleStory();
    void applyFault(const Scenario::Fault &fault, int process);
    // The same faults on an external client's process (SIGSTOP, SIGKILL, a new process); false when the
    // fault is not one for a process (the caller goes on).
    bool applyExternalFault(const Scenario::Fault &fault, int process);
    bool prepareClients(QString *error);
    // Delay, partition and dropped connections through the process's proxies; false when there are none or
    // the fault is not a network one.
    bool applyNetworkFault(const Scenario::Fault &fault, int process);
    bool startProxies(QString *error);
    QList<FaultProxy *> proxiesOf(int process, const QList<int> &servers) const; // servers empty: all
    void followServerAddresses();
    void dispatchStep(int index, const Scenario::Step &step);
    void serverRestart(int server, double stayDownMs);
    void serverPause(int server, bool replica, double ms);
    void watchSentinelFailover(int server);
    void scheduleStep(int index, qint64 atUs);
    void runStep(int index);
    void recordFault(HistoryEvent::FaultType type, int process, qint64 value, const QString &text,
                     int lock = -1);
    bool storyDone() const;
    // Outages the workers saw that no scheduled fault explains (a server killed from outside); one still
    // going on at the end means the run lost its server.
    void addUnscheduledOutages(RunReport *report) const;
    void findStuckClientLocks(RunReport *report) const;
    qint64 runNowUs() const; // the run clock, as the story and faults schedule on it

    Scenario m_scenario;
    Options m_options;
    std::atomic<State> m_state {State::Idle};
    std::thread m_thread;
    std::unique_ptr<RunContext> m_run;
    std::unique_ptr<EventHistory> m_history;
    std::unique_ptr<SimulationServers> m_servers;
    std::unique_ptr<StorySnapshotter> m_snapshotter; // Options::storySnapshots, from setup to finish()
    QList<StorySnapshot> m_snapshotsKept; // its readings once it is gone (under m_mutex)
    QList<QByteArray> m_storyKeys; // every key the algorithm writes for the run's locks (clearKeys)
    std::vector<std::unique_ptr<SimulatedProcess>> m_processes;
    std::vector<std::unique_ptr<ConnectionPool>> m_pools;
    std::vector<std::unique_ptr<RunWorker>> m_workers;
    std::vector<ExternalWorker *> m_external; // by process, when the scenario names a client (else empty)
    std::unique_ptr<QTemporaryDir> m_clientLogs; // the adapters' standard error, kept until the run goes
    std::vector<std::vector<std::unique_ptr<FaultProxy>>> m_proxies; // [process][server] (Scenario::usesProxy)
    quint64 m_proxiedGeneration = 0; // the servers' addresses the proxies forward to
    QStringList m_workerNames;
    QList<int> m_workerProcesses;
    QStringList m_processNames;
    QStringList m_lockNames;
    qint64 m_plannedUs = 0;
    std::atomic<qint64> m_endUs = -1;
    std::multimap<qint64, std::function<void()>> m_timeline; // controller thread only
    bool m_awaitingFailover = false; // a Sentinel failover's outcome is not in the history yet
    QList<int> m_heldSteps; // story steps due while the sentinels fail over, in order (controller thread)
    bool m_draining = false; // the run has ended: pending actions run once and schedule nothing more
    int m_stepsLeft = 0;
    QStringList m_outages;
    QList<QPair<qint64, qint64>> m_injectedDownUs; // run time spans of scheduled outages (kill: to the end)

    mutable std::mutex m_mutex; // guards the fields below and wakes the controller
    std::condition_variable m_wake;
    bool m_stopRequested = false;
    QString m_error;
    RunReport m_report;
};
