// OutageTracker: windows opened by failures and closed by the next answer.
#include "outagetracker.h"

bool OutageTracker::isUnreachable(const RedisError &error)
{
    switch (error.code()) {
    case RedisError::Code::HostNotFound:
    case RedisError::Code::ConnectionRefused:
    case RedisError::Code::ConnectFailed:
    case RedisError::Code::Timeout:
    case RedisError::Code::ConnectionClosed:
    case RedisError::Code::NotConnected:
    case RedisError::Code::Io:
    case RedisError::Code::Loading: // a restarted server that is still loading its data
        return true;
    default:
        return false;
    }
}

void OutageTracker::failed(qint64 timeUs, const QString &error)
{
    std::lock_guard lock(m_mutex);
    if (!m_down.load()) {
        Window w;
        w.startUs = timeUs;
        w.firstError = error;
        m_windows << w;
        m_down = true;
    }
    Window &open = m_windows.last();
    open.startUs = std::min(open.startUs, timeUs); // workers report out of order by a few µs
    ++open.failures;
}

void OutageTracker::answered(qint64 timeUs)
{
    if (!m_down.load(std::memory_order_relaxed))
        return;
    std::lock_guard lock(m_mutex);
    if (!m_down.load())
        return;
    m_windows.last().endUs = timeUs;
    m_down = false;
}

QList<OutageTracker::Window> OutageTracker::windows() const
{
    std::lock_guard lock(m_mutex);
    return m_windows;
}
