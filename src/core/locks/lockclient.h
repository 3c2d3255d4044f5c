// One simulated process (one Redisson client, one JVM): what the threads of a process share — the client
// id every owner string starts with, the watchdog that renews the process's locks, the pub/sub listener
// its waiters sleep on, its clock (rate/skew for the clock stories), its fault hooks, and a stop switch
// that ends every wait at once.
//
// Threads never share a connection: each lock operation takes the calling thread's RedisConnection.
// Thread ids are plain numbers the caller assigns (the simulator numbers its workers); they appear in
// owner strings "<client id>:<thread id>" exactly as Java thread ids do in Redisson's.
#pragma once

#include "faulthooks.h"
#include "lockclock.h"
#include "locksubscriber.h"
#include "lockwatchdog.h"
#include "redis/fibercondition.h"

#include <QByteArray>
#include <QString>

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>

class LockClient
{
public:
    struct Options
    {
        QString name; // for logs and the GUI, e.g. "process 2"
        QByteArray id; // the client id; empty: a random version-4 UUID, lower case, as Redisson makes
        double clockRate = 1.0; // this process's clock speed (F7: < 1 runs slow)
        qint64 clockOffsetMs = 0; // this process's wall-clock error (fair-lock deadlines)
        int pubsubSliceMs = 5; // how often the listener thread looks for new subscriptions
        int pubsubLingerMs = 100; // how long a channel stays subscribed after its last waiter left
        // The event engine's loop this process's pub/sub listener runs on (as a fiber); nullptr: a thread.
        FiberScheduler *eventLoop = nullptr;
        // Wait with SSUBSCRIBE and release with SPUBLISH (Redis >= 7 sharded pub/sub), as Redisson >= 3.22
        // does on a Redis >= 7 cluster; false: SUBSCRIBE and PUBLISH.
        bool shardedPubSub = false;
    };

    LockClient();
    explicit LockClient(const Options &options);
    ~LockClient(); // stops the watchdog and the listener; locks held in Redis stay until their lease ends
    LockClient(const LockClient &) = delete;
    LockClient &operator=(const LockClient &) = delete;

    const QByteArray &id() const { return m_id; }
    const QString &name() const { return m_options.name; }
    // "<client id>:<thread id>": the owner field of Redisson-family locks and the owner id of seed 002.
    QByteArray ownerField(qint64 threadId) const;

    LockClock clock(LockClock::Source source) const;

    // Set before any lock of this client is used (the hooks are read without locking).
    void setFaultHooks(const FaultHooks &hooks) { m_hooks = hooks; }
    const FaultHooks &faultHooks() const { return m_hooks; }

    LockWatchdog &watchdog() { return m_watchdog; }
    LockSubscriber &subscriber() { return m_subscriber; }
    // The command the releases publish with: "PUBLISH", or "SPUBLISH" when waiters listen sharded.
    QByteArray publishCommand() const { return m_options.shardedPubSub ? "SPUBLISH" : "PUBLISH"; }

    // A paused process renews nothing until it resumes (stop-the-world). Its worker threads are the
    // caller's to pause.
    void setPaused(bool paused);
    bool isPaused() const { return m_watchdog.isPaused(); }

    // Ends every wait of this client now (acquires return Interrupted) and refuses new waits. One way.
    void stop();
    bool isStopped() const { return m_stopped; }
    // Sleeps `us` microseconds unless stop() comes first; false when stopped.
    bool sleepUs(qint64 us);

    // A fresh random version-4 UUID, lower case with hyphens (36 characters).
    static QByteArray randomUuid();
    // `bytes` random bytes as lower-case hex (Redisson's request ids: 16 bytes, 32 hex digits).
    static QByteArray randomHex(int bytes);

private:
    Options m_options;
    QByteArray m_id;
    FaultHooks m_hooks;
    LockWatchdog m_watchdog;
    LockSubscriber m_subscriber;
    std::atomic_bool m_stopped = false;
    std::mutex m_sleepMutex;
    FiberCondition m_sleepWake; // a worker on a fiber sleeps without holding its thread
};
