// One worker of a run — a thread of its own, or a fiber on the event engine: its own connection(s), one lock
// object per lock of the scenario, and the loop that acquires, enters the critical section (read → work →
// write the counter), leaves and releases — or, in a story, the steps the controller hands it. Every operation
// goes into the worker's history log (its own on a thread, its loop's on a fiber).
// On a Redis Cluster the worker has a ClusterConnection of its own and hands each lock the connection to the
// master of its key's slot (Redisson companions share the slot through their {name} hash tag); a MOVED or
// ASK reply fails that operation (recorded as it happened) and the slot map is read again.
#pragma once

#include "historyevent.h"
#include "runcontext.h"
#include "runworker.h"
#include "scenario.h"

#include "locks/connectionpool.h"
#include "locks/distributedlock.h"
#include "redis/fibercondition.h"

#include <QList>
#include <QString>

#include <atomic>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <thread>
#include <vector>

class ClusterConnection;
class SimulatedProcess;

class SimulationWorker : public RunWorker
{
public:
    SimulationWorker(int index, const QString &name, SimulatedProcess &process, RunContext &run,
                     ConnectionPool *pool = nullptr);
    ~SimulationWorker() override; // joins the thread
    SimulationWorker(const SimulationWorker &) = delete;
    SimulationWorker &operator=(const SimulationWorker &) = delete;

    int index() const { return m_index; }
    const QString &name() const { return m_name; }
    SimulatedProcess &process() { return m_process; }

    // Before the run, on the controller thread: connections, lock objects, scripts loaded.
    bool prepare(QString *error) override;
    // Starts the thread. Workload workers loop until RunContext::stopping; story workers run posted steps
    // until finish() is called.
    void start() override;
    void post(const Scenario::Step &step) override;
    void finish() override; // story: no more steps will come
    void join() override;
    bool isIdle() const override { return m_idle.load(); }
    // Interrupts what the worker's connections are waiting for (end of the run).
    void interruptConnections() override;

private:
    void run();
    void runWorkload();
    void runStory();
    bool runStep(const Scenario::Step &step);
    // One lock cycle; false when the worker must stop (crashed, stopped). `completed`: the work got done.
    bool cycle(int lock, bool *completed);
    bool leaveAndRelease(int lock);
    // Where the counter lives (server 0, or its slot's master); with a pool, a connection borrowed into
    // `borrowed`, which the caller keeps while it uses it. nullptr when there is none.
    RedisConnection *dataConnection(int lock, std::optional<ConnectionPool::Lease> *borrowed);
    // A network partition cuts this worker's process off from `connection`'s server: waits the command
    // timeout and returns true (the command must not be sent).
    bool lostInPartition(const RedisConnection &connection);

    // Operations, each recorded as invoke + completion.
    bool acquire(int lock);
    void release(int lock);
    bool readCounter(int lock);
    bool writeCounter(int lock);
    void enter(int lock);
    void exit(int lock);

    bool ensureConnections();
    // The connections lock `lock` uses; empty with `error` when its cluster master cannot be reached.
    LockServers servers(int lock, RedisError *error);
    // Cluster: the connection to the master of `key`'s slot (read the map again when none serves it).
    RedisConnection *clusterConnectionFor(const QByteArray &key, RedisError *error);
    // Cluster: a redirection means the slot moved; read the map so the next operation goes right.
    void noteRedirect(const RedisError &error);
    qint64 criticalSectionUs();
    // Tells the run's PersistentErrorTracker how `operation` went: no `error` means it went through. A
    // persistent error sets m_backoffUs.
    void noteOutcome(PersistentErrorTracker::Operation operation, const QByteArray &command,
                     const RedisError &error);

    // One Redlock round (an attempt inside acquire()), with its votes and validity.
    void recordRound(int lock, const AcquireResult &attempt);
    // Server index of each vote (votes come in the order servers() gave, near servers first).
    void setVotes(HistoryEvent &e, const QList<ServerVote> &votes) const;

    qint64 invoke(HistoryEvent::Kind kind, int lock, qint64 value, qint64 token = 0);
    HistoryEvent completion(qint64 op, HistoryEvent::Kind kind, HistoryEvent::Phase phase, int lock,
                            qint64 value, qint64 token, quint8 outcome, int commands,
                            qint64 effectUs = 0) const;
    void record(HistoryEvent e, const QByteArray &detail);
    void complete(qint64 op, HistoryEvent::Kind kind, HistoryEvent::Phase phase, int lock, qint64 value,
                  qint64 token, quint8 outcome, int commands, const QByteArray &detail = QByteArray(),
                  qint64 effectUs = 0);
    void single(HistoryEvent::Kind kind, int lock, qint64 value, quint8 outcome = 0,
                const QByteArray &detail = QByteArray());

    const int m_index;
    const int m_log; // the history log this worker writes: its own, or its loop's (RunContext::workerLog)
    const QString m_name;
    SimulatedProcess &m_process;
    RunContext &m_run;
    ConnectionPool *m_pool;
    std::vector<std::unique_ptr<RedisConnection>> m_connections; // one per server
    std::unique_ptr<ClusterConnection> m_cluster; // instead of m_connections on a cluster
    QList<RedisConnection *> m_clusterConnections; // registered with the process (a crash cuts them)
    quint64 m_serversGeneration = 0;
    QStringList m_endpoints; // of every server, by index, at m_serversGeneration
    std::vector<std::unique_ptr<DistributedLock>> m_locks; // one per lock of the scenario
    QList<int> m_holds; // reentrant holds per lock
    bool m_unreachable = false; // the last acquire failed because no server answered (it backs off)
    qint64 m_backoffUs = 0; // a server refused the last cycle for good: wait this long before the next one
    QList<bool> m_inside;
    QList<qint64> m_lastRead; // per lock, -1: nothing read in this section
    QList<qint64> m_fence; // per lock, the fencing token of the current hold
    bool m_atomicRelease = false; // the algorithm's release checks the owner and deletes in one step
    std::mt19937_64 m_random;
    std::thread m_thread;
    // Event engine instead of m_thread: the fiber's end, which join() waits for.
    bool m_onFiber = false; // controller's thread only
    std::mutex m_fiberMutex;
    FiberCondition m_fiberEnded;
    bool m_fiberDone = false;
    std::atomic_bool m_idle = true;

    // Story steps handed over by the controller.
    std::mutex m_stepsMutex;
    FiberCondition m_stepsWake;
    std::deque<Scenario::Step> m_steps;
    bool m_finished = false;
    bool m_dead = false; // crashed actor: later steps are dropped
};
