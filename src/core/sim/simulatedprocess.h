// One simulated process (one JVM, one Redisson client): its LockClient (client id, watchdog, pub/sub
// listener) shared by its worker threads, and the faults that hit a whole process:
//   pause  — stop-the-world: no thread of the process runs a step and its watchdog renews nothing
//   crash  — the process dies: its threads stop where they are, its locks stay in Redis until they expire
//   delay  — a slow network: every command waits before it is sent or after its reply arrives
//   partition — the network between the process and the servers is cut: its lock commands (renewals and
//            releases included) and counter reads/writes wait their timeout and fail; the process runs on
// Worker threads call checkpoint() between steps; the lock library reaches it through the FaultHooks, so a
// pause also freezes a thread in the middle of an acquire loop or a renewal.
#pragma once

#include "locks/lockclient.h"
#include "redis/fibercondition.h"

#include <QList>
#include <QSet>
#include <QString>

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <shared_mutex>

class FiberScheduler;
class RedisConnection;

class SimulatedProcess
{
public:
    struct Options
    {
        int index = 0;
        QString name;
        double clockRate = 1.0;
        qint64 clockOffsetMs = 0;
        // The scenario delays commands towards some servers only: the hooks then need each command's server.
        bool perServerDelays = false;
        // The scenario cuts the network of some process: the hooks check for a partition on every command.
        bool partitions = false;
        // On the event engine: the loop the process's pub/sub listener runs on, so a release wakes a
        // waiting worker without a thread switch. nullptr: the listener is a thread.
        FiberScheduler *eventLoop = nullptr;
        bool shardedPubSub
            = false; // waiters SSUBSCRIBE, releases SPUBLISH (Redisson >= 3.22 on Redis 7 Cluster)
    };

    explicit SimulatedProcess(const Options &options);
    ~SimulatedProcess();
    SimulatedProcess(const SimulatedProcess &) = delete;
    SimulatedProcess &operator=(const SimulatedProcess &) = delete;

    int index() const { return m_options.index; }
    const QString &name() const { return m_options.name; }
    LockClient &client() { return *m_client; }

    // Blocks while the process is paused. False once it crashed or the run is stopping for good.
    bool checkpoint();
    // Sleeps `us` of run time, then passes a checkpoint (a pause that starts during the sleep holds it).
    bool sleepUs(qint64 us);
    // Runs `record` (timestamp and store one history event) only while the process runs: during a pause
    // it waits for the end, after a crash it skips. pause() waits for records in flight, so no event of a
    // paused process carries a time inside the pause (a safepoint, as a JVM has). False when skipped.
    template<typename Record> bool whileRunning(Record &&record)
    {
        std::shared_lock gate(m_runGate);
        while (m_paused.load() && !m_crashed.load() && !m_stopped.load()) {
            gate.unlock();
            checkpoint();
            gate.lock();
        }
        if (m_crashed.load())
            return false;
        record();
        return true;
    }

    void pause();
    void resume();
    bool isPaused() const { return m_paused.load(); }
    void crash();
    bool isCrashed() const { return m_crashed.load(); }
    // The run is over: waits end, blocked commands return, the watchdog stops.
    void stop();
    bool isStopped() const { return m_stopped.load(); }

    // Network delay for commands of this process (to `servers` endpoints only when not empty).
    void setDelay(double ms, bool beforeSend, const QSet<QString> &servers);
    // True when this process's network is slow towards `endpoint` only (it then talks to its near servers
    // first).
    bool isDelayedTowards(const QString &endpoint);
    // Cuts (or heals) the network between this process and `servers` endpoints (empty: every server).
    void setPartitioned(bool on, const QSet<QString> &servers = {});
    bool isCutOff(const QString &endpoint);
    // Every release from now on stalls `ms` between its GET and its DEL; with `once`, only the next one.
    void setGetDelDelay(double ms, bool once = false)
    {
        m_getDelDelayOnce = once;
        m_getDelDelayUs = qint64(ms * 1000);
    }
    // The next SETNX that takes a lock ends the process before its EXPIRE (its worker records, then crashes).
    void armCrashAfterSetnx() { m_crashAfterSetnx = true; }
    void setDropNotifications(bool drop) { m_dropNotifications = drop; }

    // Connections of the process's workers, so a crash can cut them like a dying process does.
    void registerConnection(RedisConnection *connection);
    void unregisterConnection(RedisConnection *connection);

private:
    FaultHooks makeHooks();
    void delayFor(const QString &endpoint, bool beforeSend);

    Options m_options;
    std::unique_ptr<LockClient> m_client;
    std::shared_mutex m_runGate; // held shared while a worker records an event, exclusively to pause or crash
    std::mutex m_mutex;
    FiberCondition m_wake; // threads and event-engine fibers alike
    std::atomic_bool m_paused = false;
    std::atomic_bool m_crashed = false;
    std::atomic_bool m_stopped = false;
    std::atomic<qint64> m_delayUs = 0;
    std::atomic_bool m_delayBeforeSend = true;
    QSet<QString> m_delayServers; // guarded by m_mutex
    std::atomic_bool m_partitioned = false;
    QSet<QString> m_partitionServers; // guarded by m_mutex
    std::atomic<qint64> m_getDelDelayUs = 0;
    std::atomic_bool m_getDelDelayOnce = false;
    std::atomic_bool m_crashAfterSetnx = false;
    std::atomic_bool m_dropNotifications = false;
    QList<RedisConnection *> m_connections; // guarded by m_mutex
};
