// LockSubscriber: one subscriber connection + thread (or fiber) per server; channels shared by the process's threads.
#include "locksubscriber.h"

#include "lockclock.h"
#include "logging.h"

#include "redis/fibercondition.h"
#include "redis/fiberscheduler.h"
#include "redis/redisconnection.h"

#include <chrono>
#include <condition_variable>
#include <set>
#include <thread>

// One channel of one listener. Every field is guarded by the listener's mutex.
struct LockSubscriberChannel
{
    QByteArray name;
    int users = 0; // threads holding a LockSubscription
    bool confirmed = false; // the server acknowledged SUBSCRIBE
    int permits = 0; // messages not yet taken by a waiter
    int waiting = 0;
    qint64 idleSinceUs = 0; // when users last dropped to 0
    FiberCondition cv; // waiters may be fibers of the event engine
};

struct LockSubscriberListener
{
    LockSubscriberListener(const ConnectionSettings &server, const FaultHooks &hooks, int sliceMs,
                           int lingerMs, bool sharded, std::atomic<quint64> *messages,
                           std::atomic<quint64> *dropped)
        : settings(server)
        , hooks(hooks)
        , sliceMs(sliceMs)
        , lingerMs(lingerMs)
        , sharded(sharded)
        , messages(messages)
        , dropped(dropped)
    {
        settings.readOnly = true; // SUBSCRIBE is all it sends
        settings.clientName = QStringLiteral("lockscope-pubsub");
    }

    void run();
    void handle(const RedisReply &reply);
    // SUBSCRIBE or UNSUBSCRIBE of `channels` (`on`), the way this listener listens. Sharded: one command per
    // channel, since one SSUBSCRIBE may only name channels of one slot (CROSSSLOT otherwise).
    RedisError send(bool on, const QList<QByteArray> &channels, RedisConnection &conn) const;

    ConnectionSettings settings;
    const FaultHooks &hooks;
    int sliceMs;
    int lingerMs;
    bool sharded; // SSUBSCRIBE / smessage (Redis >= 7 sharded pub/sub) instead of SUBSCRIBE / message
    std::atomic<quint64> *messages;
    std::atomic<quint64> *dropped;

    std::mutex mutex;
    FiberCondition changed; // confirmations, connection errors, stop
    std::map<QByteArray, std::shared_ptr<LockSubscriberChannel>> channels;
    bool stop = false;
    quint64 failures = 0;
    RedisError lastError;
    std::thread thread; // the listener, unless it is a fiber of an event loop
    bool finished = false; // run() returned (under mutex; `changed` tells): how a fiber listener is joined
    RedisConnection *connection = nullptr; // while the thread runs, for interrupt() on stop
};

void LockSubscriberListener::handle(const RedisReply &reply)
{
    if (!reply.isArray() || reply.size() < 3)
        return;
    const QByteArray kind = reply.at(0).bytes();
    const QByteArray name = reply.at(1).bytes();
    if (kind == "subscribe" || kind == "ssubscribe") {
        std::lock_guard lock(mutex);
        const auto it = channels.find(name);
        if (it != channels.end())
            it->second->confirmed = true;
        changed.notify_all();
        return;
    }
    if (kind != "message" && kind != "smessage")
        return;
    const QByteArray payload = reply.at(2).bytes();
    ++*messages;
    if (hooks.deliverMessage && !hooks.deliverMessage(name, payload)) {
        ++*dropped;
        return;
    }
    std::shared_ptr<LockSubscriberChannel> channel;
    {
        std::lock_guard lock(mutex);
        const auto it = channels.find(name);
        if (it == channels.end())
            return;
        channel = it->second;
        // Redisson: "0" releases one permit, "1" (read-write unlock) one per waiting thread.
        channel->permits += payload == "1" ? qMax(1, channel->waiting) : 1;
    }
    // One permit wakes one waiter, as Redisson's semaphore does: waking every waiter for one permit makes
    // them all race for the CPU (and the mutex) before the one that gets it can send its attempt. Notified
    // after the mutex is released, so the woken waiter does not wake only to block on it (the hand-off
    // benchmark measures every wake-up on this path).
    if (payload == "1")
        channel->cv.notify_all();
    else
        channel->cv.notify_one();
}

void LockSubscriberListener::run()
{
    RedisConnection conn(settings);
    {
        std::lock_guard lock(mutex);
        connection = &conn;
    }
    std::set<QByteArray> sent; // channels the server has been asked to subscribe to
    auto failed = [&](const RedisError &error) {
        conn.close();
        sent.clear();
        std::unique_lock lock(mutex);
        for (auto &c : channels)
            c.second->confirmed = false;
        ++failures;
        lastError = error;
        changed.notify_all();
        qCDebug(lcLocks) << "pub/sub listener for" << settings.endpoint() << "failed:" << error.message();
        // Retry after a pause; stop() cuts it short.
        changed.wait_for(lock, std::chrono::milliseconds(100), [&] { return stop; });
    };
    for (;;) {
        QList<QByteArray> subscribe;
        QList<QByteArray> unsubscribe;
        {
            std::lock_guard lock(mutex);
            if (stop)
                break;
            for (auto &c : channels) {
                if (c.second->users > 0 && !sent.count(c.first))
                    subscribe << c.first;
            }
            const qint64 nowUs = LockClock::monotonicUs();
            for (const QByteArray &name : sent) {
                const auto it = channels.find(name);
                if (it == channels.end()
                    || (it->second->users == 0 && nowUs - it->second->idleSinceUs >= qint64(lingerMs) * 1000))
                    unsubscribe << name;
            }
            for (const QByteArray &name : unsubscribe) {
                const auto it = channels.find(name);
                if (it != channels.end()) {
                    it->second->confirmed = false;
                    channels.erase(it);
                }
            }
            // Channels nobody uses and the server never heard of (a subscribe that timed out).
            for (auto it = channels.begin(); it != channels.end();) {
                if (it->second->users == 0 && !sent.count(it->first))
                    it = channels.erase(it);
                else
                    ++it;
            }
        }
        if (subscribe.isEmpty() && unsubscribe.isEmpty() && sent.empty()) {
            {
                // Nothing to listen to, so no message can come: sleep until a thread subscribes.
                std::unique_lock lock(mutex);
                changed.wait(lock, [&] {
                    if (stop)
                        return true;
                    for (auto &c : channels) {
                        if (c.second->users > 0)
                            return true;
                    }
                    return false;
                });
            }
            continue;
        }
        if (!conn.isOpen()) {
            if (const RedisError e = conn.open()) {
                failed(e);
                continue;
            }
            sent.clear();
            continue; // recompute: every wanted channel must be subscribed again
        }
        if (!subscribe.isEmpty()) {
            if (const RedisError e = send(true, subscribe, conn)) {
                failed(e);
                continue;
            }
            sent.insert(subscribe.begin(), subscribe.end());
        }
        if (!unsubscribe.isEmpty()) {
            if (const RedisError e = send(false, unsubscribe, conn)) {
                failed(e);
                continue;
            }
            for (const QByteArray &name : unsubscribe)
                sent.erase(name);
        }
        const RedisResult r = conn.readReply(sliceMs);
        if (r.error.code() == RedisError::Code::Timeout && conn.isOpen())
            continue;
        if (!r.ok()) {
            failed(r.error);
            continue;
        }
        handle(r.reply);
    }
    std::lock_guard lock(mutex);
    connection = nullptr;
    finished = true;
    changed.notify_all();
}

RedisError LockSubscriberListener::send(bool on, const QList<QByteArray> &channels,
                                        RedisConnection &conn) const
{
    if (!sharded)
        return conn.append(RedisCommand {on ? "SUBSCRIBE" : "UNSUBSCRIBE"} + channels);
    for (const QByteArray &channel : channels) {
        if (const RedisError e = conn.append({on ? "SSUBSCRIBE" : "SUNSUBSCRIBE", channel}))
            return e;
    }
    return {};
}

LockSubscription::LockSubscription(std::shared_ptr<LockSubscriberListener> listener,
                                   std::shared_ptr<LockSubscriberChannel> channel)
    : m_listener(std::move(listener))
    , m_channel(std::move(channel))
{
}

LockSubscription::~LockSubscription()
{
    reset();
}

LockSubscription::LockSubscription(LockSubscription &&other) noexcept
    : m_listener(std::move(other.m_listener))
    , m_channel(std::move(other.m_channel))
{
}

LockSubscription &LockSubscription::operator=(LockSubscription &&other) noexcept
{
    if (this != &other) {
        reset();
        m_listener = std::move(other.m_listener);
        m_channel = std::move(other.m_channel);
    }
    return *this;
}

void LockSubscription::reset()
{
    if (!m_channel)
        return;
    {
        std::lock_guard lock(m_listener->mutex);
        if (--m_channel->users == 0)
            m_channel->idleSinceUs = LockClock::monotonicUs();
    }
    m_channel.reset();
    m_listener.reset();
}

QByteArray LockSubscription::channel() const
{
    return m_channel ? m_channel->name : QByteArray();
}

bool LockSubscription::wait(qint64 timeoutMs)
{
    if (!m_channel)
        return false;
    std::unique_lock lock(m_listener->mutex);
    LockSubscriberChannel &c = *m_channel;
    if (c.permits > 0 && !m_listener->stop) {
        --c.permits;
        return true;
    }
    if (timeoutMs <= 0)
        return false;
    ++c.waiting;
    c.cv.wait_for(lock, std::chrono::milliseconds(timeoutMs),
                  [&] { return c.permits > 0 || m_listener->stop; });
    --c.waiting;
    if (c.permits > 0 && !m_listener->stop) {
        --c.permits;
        return true;
    }
    return false;
}

LockSubscriber::LockSubscriber(const FaultHooks &hooks, int sliceMs, int lingerMs, FiberScheduler *eventLoop,
                               bool sharded)
    : m_hooks(hooks)
    , m_sliceMs(qMax(1, sliceMs))
    , m_lingerMs(qMax(0, lingerMs))
    , m_eventLoop(eventLoop)
    , m_sharded(sharded)
{
}

LockSubscriber::~LockSubscriber()
{
    stop();
    std::lock_guard lock(m_mutex);
    for (auto &l : m_listeners) {
        LockSubscriberListener &listener = *l.second;
        if (listener.thread.joinable()) {
            listener.thread.join();
        } else {
            std::unique_lock listenerLock(listener.mutex);
            listener.changed.wait(listenerLock, [&] { return listener.finished; });
        }
    }
}

void LockSubscriber::stop()
{
    m_stopped = true;
    std::lock_guard lock(m_mutex);
    for (auto &l : m_listeners) {
        LockSubscriberListener &listener = *l.second;
        std::lock_guard listenerLock(listener.mutex);
        listener.stop = true;
        if (listener.connection)
            listener.connection->interrupt(); // an open() blocked on a paused server returns now
        listener.changed.notify_all();
        for (auto &c : listener.channels)
            c.second->cv.notify_all();
    }
}

std::shared_ptr<LockSubscriberListener> LockSubscriber::listenerFor(const ConnectionSettings &server)
{
    const QString key = server.endpoint() + u'/' + QString::number(server.db) + u'/' + server.user;
    std::lock_guard lock(m_mutex);
    auto it = m_listeners.find(key);
    if (it == m_listeners.end()) {
        auto listener = std::make_shared<LockSubscriberListener>(server, m_hooks, m_sliceMs, m_lingerMs,
                                                                 m_sharded, &m_messages, &m_dropped);
        if (m_eventLoop)
            m_eventLoop->spawn([l = listener] { l->run(); }); // the fiber keeps its listener alive
        else
            listener->thread = std::thread([l = listener.get()] { l->run(); });
        it = m_listeners.emplace(key, std::move(listener)).first;
    }
    return it->second;
}

LockSubscription LockSubscriber::subscribe(const ConnectionSettings &server, const QByteArray &channel,
                                           int timeoutMs, RedisError *error)
{
    auto fail = [error](const RedisError &e) {
        if (error)
            *error = e;
        return LockSubscription();
    };
    if (m_stopped)
        return fail(
            {RedisError::Code::Interrupted, QStringLiteral("the process's pub/sub listener is stopped")});
    std::shared_ptr<LockSubscriberListener> listener = listenerFor(server);
    std::unique_lock lock(listener->mutex);
    std::shared_ptr<LockSubscriberChannel> &slot = listener->channels[channel];
    if (!slot) {
        slot = std::make_shared<LockSubscriberChannel>();
        slot->name = channel;
    }
    std::shared_ptr<LockSubscriberChannel> c = slot;
    if (c->users++ == 0)
        c->permits = 0; // messages from before anyone waited (while lingering) wake nobody
    listener->changed.notify_all(); // an idle listener thread starts connecting now
    const quint64 failuresBefore = listener->failures;
    listener->changed.wait_for(lock, std::chrono::milliseconds(qMax(1, timeoutMs)), [&] {
        return c->confirmed || listener->stop || listener->failures != failuresBefore;
    });
    if (!c->confirmed) {
        if (--c->users == 0)
            c->idleSinceUs = LockClock::monotonicUs();
        if (listener->stop)
            return fail(
                {RedisError::Code::Interrupted, QStringLiteral("the process's pub/sub listener stopped")});
        if (listener->failures != failuresBefore)
            return fail(listener->lastError);
        return fail({RedisError::Code::Timeout,
                     QStringLiteral("%1 did not confirm %2 %3 within %4 ms")
                         .arg(server.endpoint(),
                              m_sharded ? QStringLiteral("SSUBSCRIBE") : QStringLiteral("SUBSCRIBE"),
                              QString::fromUtf8(channel))
                         .arg(timeoutMs)});
    }
    return LockSubscription(listener, c);
}
