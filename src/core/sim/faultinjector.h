// FaultInjector: applies a scenario's faults — pauses, crashes, restarts, network delays, partitions and
// dropped connections, server restarts, pauses, kills and failovers — to the run's processes, external
// clients, proxies and servers, on the run's timeline, and records each in the history.
//
// It lives on the run's controller thread (Simulation's) and is told nothing the workers do.
#pragma once

#include "historyevent.h"
#include "runreport.h"
#include "scenario.h"

#include <QList>
#include <QPair>
#include <QString>
#include <QStringList>

#include <functional>
#include <memory>
#include <random>
#include <vector>

struct RunContext;
class RunTimeline;
class SimulatedProcess;
class ExternalWorker;
class FaultProxy;

class FaultInjector
{
public:
    // The processes, external clients and process names are the Simulation's, filled while it sets up
    // (the injector only reads them when a fault comes due); `run.servers` and `run.history` must be set.
    FaultInjector(RunContext &run, RunTimeline &timeline,
                  const std::vector<std::unique_ptr<SimulatedProcess>> &processes,
                  const std::vector<ExternalWorker *> &external, const QStringList &processNames);
    ~FaultInjector();
    FaultInjector(const FaultInjector &) = delete;
    FaultInjector &operator=(const FaultInjector &) = delete;

    // A FaultProxy per process and server (Scenario::usesProxy), their addresses in RunContext::proxies.
    bool startProxies(QString *error);
    // After the workers are gone: nothing of theirs goes through a proxy any more.
    void closeProxies();
    // A failover or a restart on another port moved a server: the proxies forward to where it is now.
    void followServerAddresses();

    // Puts the scenario's timed faults on the timeline (and the clock skews' note at the start).
    void scheduleFaults();
    // The probabilistic faults: `probability` is the chance per second, so this is called every 100 ms.
    void injectChanceFaults();
    // One fault on process `process` (-1: a server fault, or no process).
    void applyFault(const Scenario::Fault &fault, int process);
    void serverRestart(int server, double stayDownMs);
    void serverPause(int server, bool replica, double ms);
    // The history's fault log: faults, and the story's steps as they come due.
    void recordFault(HistoryEvent::FaultType type, int process, qint64 value, const QString &text,
                     int lock = -1);
    // A note in the fault log: what a fault's end found instead of doing it (nothing to resume).
    void recordNote(int process, const QString &text);

    // A Sentinel failover's outcome is not in the history yet: the story holds its steps meanwhile.
    bool awaitingFailover() const { return m_awaitingFailover; }
    // Called once the outcome is recorded (the story runs the steps it held).
    void setOnFailoverSettled(std::function<void()> settled) { m_onFailoverSettled = std::move(settled); }

    // The report's outages: the scheduled ones, then those the workers saw that no scheduled fault
    // explains (a server killed from outside); one still going on at `endUs` means the run lost its server.
    void addOutages(RunReport *report, qint64 endUs) const;

private:
    // The same faults on an external client's process (SIGSTOP, SIGKILL, a new process); false when the
    // fault is not one for a process (the caller goes on).
    bool applyExternalFault(const Scenario::Fault &fault, int process);
    // Delay, partition and dropped connections through the process's proxies; false when there are none or
    // the fault is not a network one.
    bool applyNetworkFault(const Scenario::Fault &fault, int process);
    QList<FaultProxy *> proxiesOf(int process, const QList<int> &servers) const; // servers empty: all
    void watchSentinelFailover(int server);
    qint64 runNowUs() const; // the run clock, as faults schedule on it

    RunContext &m_run;
    RunTimeline &m_timeline;
    const std::vector<std::unique_ptr<SimulatedProcess>> &m_processes;
    const std::vector<ExternalWorker *> &m_external; // by process, when the scenario names a client
    const QStringList &m_processNames;
    std::vector<std::vector<std::unique_ptr<FaultProxy>>> m_proxies; // [process][server]
    quint64 m_proxiedGeneration = 0; // the servers' addresses the proxies forward to
    std::mt19937_64 m_random; // the probabilistic faults' draws, from the scenario's seed
    bool m_awaitingFailover = false;
    std::function<void()> m_onFailoverSettled;
    QStringList m_outages;
    QList<QPair<qint64, qint64>> m_injectedDownUs; // run time spans of scheduled outages (kill: to the end)
};
