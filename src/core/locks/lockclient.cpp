// LockClient: the process-level objects and the interruptible sleep every wait strategy uses.
#include "lockclient.h"

#include <QRandomGenerator>
#include <QUuid>

#include <chrono>

LockClient::LockClient()
    : LockClient(Options {})
{
}

LockClient::LockClient(const Options &options)
    : m_options(options)
    , m_id(options.id.isEmpty() ? randomUuid() : options.id)
    , m_watchdog(m_hooks)
    , m_subscriber(m_hooks, options.pubsubSliceMs, options.pubsubLingerMs, options.eventLoop)
{
}

LockClient::~LockClient()
{
    stop();
}

QByteArray LockClient::ownerField(qint64 threadId) const
{
    return m_id + ':' + QByteArray::number(threadId);
}

LockClock LockClient::clock(LockClock::Source source) const
{
    return LockClock(source, m_options.clockRate, m_options.clockOffsetMs);
}

void LockClient::setPaused(bool paused)
{
    m_watchdog.setPaused(paused);
}

void LockClient::stop()
{
    {
        std::lock_guard lock(m_sleepMutex);
        m_stopped = true;
    }
    m_sleepWake.notify_all();
    m_subscriber.stop();
}

bool LockClient::sleepUs(qint64 us)
{
    std::unique_lock lock(m_sleepMutex);
    if (us > 0)
        m_sleepWake.wait_for(lock, std::chrono::microseconds(us), [this] { return m_stopped.load(); });
    return !m_stopped;
}

QByteArray LockClient::randomUuid()
{
    return QUuid::createUuid().toByteArray(QUuid::WithoutBraces);
}

QByteArray LockClient::randomHex(int bytes)
{
    QByteArray raw(bytes, Qt::Uninitialized);
    for (int i = 0; i < bytes; ++i)
        raw[i] = char(QRandomGenerator::global()->bounded(256));
    return raw.toHex();
}
