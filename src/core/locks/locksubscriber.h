// The pub/sub listener of one simulated process (Redisson's one subscription per lock per client): one
// subscriber connection and thread per server, shared by every thread of the process. Threads that wait
// for the same lock share one SUBSCRIBE; the last one to leave sends UNSUBSCRIBE, so PUBSUB NUMSUB of a
// lock channel counts waiting processes, as with Redisson.
//
// A message wakes waiters the way Redisson's RedissonLockEntry does: "0" (unlock) releases one permit —
// one waiting thread of the process tries again; "1" (read-write unlock) releases one per waiting thread.
// Permits given while nobody waits are kept, so a release that lands between a failed attempt and the
// wait is not lost.
//
// On the event engine the listener is a fiber of the process's event loop instead of a thread: a message
// then wakes a waiting fiber of that loop without a thread switch (the hand-off's shortest path).
//
// The listener polls its connection in short slices (sliceMs), which is how long a new SUBSCRIBE
// may wait to be sent; messages themselves are read as soon as they arrive. A channel whose last waiter
// left stays subscribed for lingerMs more, so a process that waits for the same lock again and again (the
// usual case under contention) does not pay a SUBSCRIBE each time; PUBSUB NUMSUB therefore counts the
// processes that waited within the last lingerMs. With nothing subscribed the thread sleeps.
//
// Sharded (Redis >= 7): the listener waits with SSUBSCRIBE and hears "smessage", as Redisson >= 3.22 does on
// a Redis >= 7 cluster; the releases then publish with SPUBLISH. Only the node owning a channel's slot sees
// such a subscriber (PUBSUB SHARDNUMSUB there); the simulator hands in that node's settings, as for the lock.
#pragma once

#include "faulthooks.h"

#include "redis/connectionsettings.h"
#include "redis/rediserror.h"

#include <QByteArray>

#include <atomic>
#include <map>
#include <memory>
#include <mutex>

class FiberScheduler;
class LockSubscriber;
struct LockSubscriberChannel;
struct LockSubscriberListener;

// One thread's membership of a channel subscription (RAII: leaving it may unsubscribe). Movable.
class LockSubscription
{
public:
    LockSubscription() = default;
    ~LockSubscription();
    LockSubscription(LockSubscription &&other) noexcept;
    LockSubscription &operator=(LockSubscription &&other) noexcept;
    LockSubscription(const LockSubscription &) = delete;
    LockSubscription &operator=(const LockSubscription &) = delete;

    bool isValid() const { return m_channel != nullptr; }
    QByteArray channel() const;
    // Sleeps until a message for this channel hands this thread a permit (true), or `timeoutMs` passes or
    // the subscriber stops (false). timeoutMs <= 0 only takes a permit that is already there.
    bool wait(qint64 timeoutMs);
    void reset(); // leave now

private:
    friend class LockSubscriber;
    LockSubscription(std::shared_ptr<LockSubscriberListener> listener,
                     std::shared_ptr<LockSubscriberChannel> channel);

    std::shared_ptr<LockSubscriberListener> m_listener;
    std::shared_ptr<LockSubscriberChannel> m_channel;
};

class LockSubscriber
{
public:
    // `eventLoop`: run the listeners as fibers there; nullptr: one thread each. `sharded`: SSUBSCRIBE.
    explicit LockSubscriber(const FaultHooks &hooks, int sliceMs = 5, int lingerMs = 100,
                            FiberScheduler *eventLoop = nullptr, bool sharded = false);
    ~LockSubscriber(); // stops the listeners, waits for them to end and wakes every waiter
    LockSubscriber(const LockSubscriber &) = delete;
    LockSubscriber &operator=(const LockSubscriber &) = delete;

    // Joins (or starts) the subscription to `channel` on `server` and waits up to `timeoutMs` until the
    // server confirmed it, so a release published after this returns reaches the waiter. An invalid
    // subscription and `error` when the server cannot be reached in time.
    LockSubscription subscribe(const ConnectionSettings &server, const QByteArray &channel, int timeoutMs,
                               RedisError *error = nullptr);

    // Wakes every waiter (their wait returns false) and refuses new subscriptions. One way.
    void stop();
    bool isStopped() const { return m_stopped; }

    bool isSharded() const { return m_sharded; }
    quint64 messagesReceived() const { return m_messages; }
    quint64 messagesDropped() const { return m_dropped; }

private:
    std::shared_ptr<LockSubscriberListener> listenerFor(const ConnectionSettings &server);

    const FaultHooks &m_hooks;
    int m_sliceMs;
    int m_lingerMs;
    FiberScheduler *const m_eventLoop;
    const bool m_sharded;
    std::mutex m_mutex;
    std::map<QString, std::shared_ptr<LockSubscriberListener>> m_listeners;
    std::atomic_bool m_stopped = false;
    std::atomic<quint64> m_messages = 0;
    std::atomic<quint64> m_dropped = 0;
};
