// The renewal scheduler of one simulated process (Redisson's per-client watchdog, seed 002's wheel timer):
// one thread that extends every lock its process holds, each on its own timer, re-armed after every
// renewal and dropped when the lock is released or found lost. It talks to Redis on its own connections
// (one per server), never on a worker's.
//
// A paused process (LockClient::setPaused) pauses its watchdog too: due renewals wait until it resumes,
// as timers of a JVM stopped by GC do. FaultHooks::allowRenewal can skip single renewals.
//
// Renewals are observable: an observer callback (called on the watchdog thread, after each attempt) and
// counters. Times come from LockClock::monotonicUs().
#pragma once

#include "faulthooks.h"
#include "lockio.h"

#include "redis/connectionsettings.h"
#include "redis/fibercondition.h"
#include "redis/redisconnection.h"

#include <QByteArray>
#include <QString>

#include <atomic>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

struct RenewalEvent
{
    enum class Outcome {
        Renewed,
        Lost, // the lock is gone or someone else's: renewal stops for good
        Skipped, // FaultHooks::allowRenewal said no; the timer re-arms
        Error, // Redis unreachable or an error reply; the timer re-arms (Redisson logs and retries)
    };

    quint64 id = 0; // the registration
    QByteArray key;
    qint64 threadId = 0;
    Outcome outcome = Outcome::Error;
    qint64 leaseMs = 0; // the lease it tried to set
    qint64 startUs = 0;
    qint64 endUs = 0;
    RedisReply reply;
    RedisError error;
    int commands = 0;

    static QString outcomeName(Outcome outcome);
};

class LockWatchdog
{
public:
    // Renews one lock once, on the watchdog's connection to the lock's server. Runs on the watchdog
    // thread: it must only use values it captured (never the lock object). Fills reply/error.
    using RenewFunction
        = std::function<RenewalEvent::Outcome(RedisConnection &, LockIo &, RedisReply *, RedisError *)>;
    using Observer = std::function<void(const RenewalEvent &)>;

    struct Task
    {
        QByteArray key;
        qint64 threadId = 0;
        ConnectionSettings server; // where the lock lives (a worker connection's settings)
        qint64 periodMs = 10000; // time between renewals (Redisson: lease / 3)
        qint64 leaseMs = 30000; // for the event record
        RenewFunction renew;
    };

    explicit LockWatchdog(const FaultHooks &hooks);
    ~LockWatchdog(); // stops the thread; registered locks are simply no longer renewed
    LockWatchdog(const LockWatchdog &) = delete;
    LockWatchdog &operator=(const LockWatchdog &) = delete;

    // Starts renewing: the first renewal is one period from now. Returns the registration id.
    quint64 start(Task task);
    // Stops renewing `id`. Waits for a renewal of it that is running right now, so once this returns no
    // renewal of `id` runs or is reported any more. Unknown ids are ignored. Never call it from the
    // observer (it runs while the renewal counts as running).
    void cancel(quint64 id);
    // True once a renewal of `id` found the lock lost (the timer is then gone; cancel() forgets it).
    bool wasLost(quint64 id) const;

    void setPaused(bool paused);
    bool isPaused() const { return m_paused; }
    // Set before locks start; called on the watchdog thread.
    void setObserver(Observer observer);

    int activeCount() const;
    qint64 renewals() const { return m_renewed; } // successful renewals
    qint64 attempts() const { return m_attempts; } // renewals sent (skipped ones not counted)

private:
    struct Entry
    {
        Task task;
        qint64 dueUs = 0;
    };

    void run();
    RedisConnection &connectionFor(const ConnectionSettings &server);

    const FaultHooks &m_hooks;
    mutable std::mutex m_mutex;
    std::condition_variable m_wake; // a task due before m_plannedLookUs, pause change, stop
    // When the thread will next look at its entries on its own (0: it is looking now, and will plan again
    // under the mutex before it sleeps): start() wakes it only for a task due sooner.
    qint64 m_plannedLookUs = 0;
    qint64 m_shortestPeriodUs = 0; // of every task started so far: how long an idle thread sleeps
    FiberCondition m_idle; // a running renewal finished (waited for by workers, perhaps on fibers)
    std::map<quint64, Entry> m_entries;
    std::map<quint64, bool> m_lost; // ids whose lock was found lost
    quint64 m_nextId = 1;
    quint64 m_running = 0; // id being renewed right now (0: none)
    bool m_stop = false;
    std::atomic_bool m_paused = false;
    Observer m_observer;
    std::atomic<qint64> m_renewed = 0;
    std::atomic<qint64> m_attempts = 0;
    std::thread m_thread;
    // Used by the watchdog thread only (interrupted from the destructor to stop a blocked renewal).
    std::map<QString, std::unique_ptr<RedisConnection>> m_connections;
    std::mutex m_connectionsMutex;
};
