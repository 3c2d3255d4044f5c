// SimulatedProcess: pause/crash/delay state and the FaultHooks that make the lock library obey it.
#include "simulatedprocess.h"

#include "redis/redisconnection.h"

#include <thread>

SimulatedProcess::SimulatedProcess(const Options &options)
    : m_options(options)
{
    LockClient::Options co;
    co.name = options.name;
    co.clockRate = options.clockRate;
    co.clockOffsetMs = options.clockOffsetMs;
    co.eventLoop = options.eventLoop;
    co.shardedPubSub = options.shardedPubSub;
    m_client = std::make_unique<LockClient>(co);
    m_client->setFaultHooks(makeHooks());
}

SimulatedProcess::~SimulatedProcess()
{
    stop();
    m_client.reset(); // joins the watchdog and the listener before the hooks' target goes away
}

bool SimulatedProcess::checkpoint()
{
    if (m_crashed.load() || m_stopped.load())
        return false;
    if (!m_paused.load())
        return true;
    std::unique_lock lock(m_mutex);
    m_wake.wait(lock, [this] { return !m_paused.load() || m_crashed.load() || m_stopped.load(); });
    return !m_crashed.load() && !m_stopped.load();
}

bool SimulatedProcess::sleepUs(qint64 us)
{
    if (us > 0) {
        std::unique_lock lock(m_mutex);
        const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(us);
        m_wake.wait_until(lock, until, [this] { return m_crashed.load() || m_stopped.load(); });
    }
    return checkpoint();
}

void SimulatedProcess::pause()
{
    {
        std::unique_lock gate(m_runGate); // waits for events being recorded right now
        std::lock_guard lock(m_mutex);
        m_paused = true;
    }
    m_client->setPaused(true);
}
void SimulatedProcess::resume()
{
    {
        std::lock_guard lock(m_mutex);
        m_paused = false;
    }
    m_client->setPaused(false);
    m_wake.notify_all();
}

void SimulatedProcess::crash()
{
    QList<RedisConnection *> connections;
    {
        std::unique_lock gate(m_runGate); // nothing is recorded after the crash
        std::lock_guard lock(m_mutex);
        if (m_crashed.exchange(true))
            return;
        connections = m_connections;
    }
    m_client->setPaused(true); // a dead process renews nothing, ever
    m_client->stop();
    for (RedisConnection *c : connections)
        c->interrupt(); // like the kernel closing a dead process's sockets
    m_wake.notify_all();
}

void SimulatedProcess::stop()
{
    {
        std::lock_guard lock(m_mutex);
        m_stopped = true;
    }
    m_client->stop();
    m_wake.notify_all();
}

void SimulatedProcess::setDelay(double ms, bool beforeSend, const QSet<QString> &servers)
{
    std::lock_guard lock(m_mutex);
    m_delayServers = servers;
    m_delayBeforeSend = beforeSend;
    m_delayUs = qint64(ms * 1000);
}

bool SimulatedProcess::isDelayedTowards(const QString &endpoint)
{
    std::lock_guard lock(m_mutex);
    return m_delayUs.load() > 0 && !m_delayServers.isEmpty() && m_delayServers.contains(endpoint);
}

void SimulatedProcess::setPartitioned(bool on, const QSet<QString> &servers)
{
    std::lock_guard lock(m_mutex);
    m_partitionServers = servers;
    m_partitioned = on;
}

bool SimulatedProcess::isCutOff(const QString &endpoint)
{
    if (!m_partitioned.load())
        return false;
    std::lock_guard lock(m_mutex);
    return m_partitionServers.isEmpty() || m_partitionServers.contains(endpoint);
}

void SimulatedProcess::registerConnection(RedisConnection *connection)
{
    std::lock_guard lock(m_mutex);
    m_connections.append(connection);
}

void SimulatedProcess::unregisterConnection(RedisConnection *connection)
{
    std::lock_guard lock(m_mutex);
    m_connections.removeAll(connection);
}

void SimulatedProcess::delayFor(const QString &endpoint, bool beforeSend)
{
    const qint64 us = m_delayUs.load();
    if (us <= 0 || m_delayBeforeSend.load() != beforeSend)
        return;
    {
        std::lock_guard lock(m_mutex);
        if (!m_delayServers.isEmpty() && !m_delayServers.contains(endpoint))
            return;
    }
    sleepUs(us);
}

FaultHooks SimulatedProcess::makeHooks()
{
    FaultHooks hooks;
    if (m_options.perServerDelays) {
        hooks.beforeSendTo = [this](qint64, const QString &endpoint, const RedisCommand &) {
            checkpoint();
            delayFor(endpoint, true);
        };
        hooks.afterReceiveFrom = [this](qint64, const QString &endpoint, const RedisResult &) {
            delayFor(endpoint, false);
            checkpoint(); // a reply that arrives during a pause is seen only after it
        };
    } else {
        // Without per-server delays the server does not matter: no endpoint per command.
        hooks.beforeSend = [this](qint64, const RedisCommand &) {
            checkpoint();
            delayFor(QString(), true);
        };
        hooks.afterReceive = [this](qint64, const RedisResult &) {
            delayFor(QString(), false);
            checkpoint();
        };
    }
    // Only says "die here": the worker records what it did first (SETNX set the key), then crashes the
    // process (a crash here would have dropped that record, and the key A set would be missing from the run).
    hooks.crashAfterSetnx = [this](qint64, const QByteArray &) { return m_crashAfterSetnx.exchange(false); };
    if (m_options.partitions) {
        hooks.cutOff = [this](qint64, const QString &endpoint, int timeoutMs) {
            if (!isCutOff(endpoint))
                return false;
            sleepUs(qint64(timeoutMs) * 1000); // the reply that never comes (a stop ends the wait)
            return true;
        };
    }
    hooks.betweenGetAndDel = [this](qint64, const QByteArray &) {
        sleepUs(m_getDelDelayOnce.load() ? m_getDelDelayUs.exchange(0) : m_getDelDelayUs.load());
    };
    hooks.deliverMessage
        = [this](const QByteArray &, const QByteArray &) { return !m_dropNotifications.load(); };
    return hooks;
}
