// LockWatchdog: one thread, a timer per registered lock, renewals on the watchdog's own connections.
#include "lockwatchdog.h"

#include "lockclock.h"
#include "logging.h"

#include <chrono>
#include <limits>

QString RenewalEvent::outcomeName(Outcome outcome)
{
    switch (outcome) {
    case Outcome::Renewed:
        return QStringLiteral("renewed");
    case Outcome::Lost:
        return QStringLiteral("lost");
    case Outcome::Skipped:
        return QStringLiteral("skipped");
    case Outcome::Error:
        return QStringLiteral("error");
    }
    return QString();
}

LockWatchdog::LockWatchdog(const FaultHooks &hooks)
    : m_hooks(hooks)
{
}

LockWatchdog::~LockWatchdog()
{
    {
        std::lock_guard lock(m_mutex);
        m_stop = true;
    }
    m_wake.notify_all();
    {
        // A renewal blocked on a paused server returns at once.
        std::lock_guard lock(m_connectionsMutex);
        for (auto &c : m_connections)
            c.second->interrupt();
    }
    if (m_thread.joinable())
        m_thread.join();
}

quint64 LockWatchdog::start(Task task)
{
    std::lock_guard lock(m_mutex);
    const quint64 id = m_nextId++;
    Entry entry;
    entry.dueUs = LockClock::monotonicUs() + task.periodMs * 1000;
    const qint64 periodUs = qMax<qint64>(1, task.periodMs * 1000);
    m_shortestPeriodUs = m_shortestPeriodUs > 0 ? qMin(m_shortestPeriodUs, periodUs) : periodUs;
    const bool sooner = entry.dueUs < m_plannedLookUs;
    entry.task = std::move(task);
    m_entries.emplace(id, std::move(entry));
    if (!m_thread.joinable() && !m_stop)
        m_thread = std::thread([this] { run(); });
    // Woken only when it would otherwise look too late: a wake-up is a system call here and a context switch
    // on a core the workers and the server need, on every acquisition (a tenth of a hand-off).
    if (sooner)
        m_wake.notify_all();
    return id;
}

void LockWatchdog::cancel(quint64 id)
{
    std::unique_lock lock(m_mutex);
    m_entries.erase(id);
    m_lost.erase(id);
    m_idle.wait(lock, [&] { return m_running != id; });
    // No wake-up: one entry fewer never makes the thread look sooner.
}

bool LockWatchdog::wasLost(quint64 id) const
{
    std::lock_guard lock(m_mutex);
    return m_lost.count(id) > 0;
}

void LockWatchdog::setPaused(bool paused)
{
    {
        std::lock_guard lock(m_mutex);
        m_paused = paused;
    }
    m_wake.notify_all();
}

void LockWatchdog::setObserver(Observer observer)
{
    std::lock_guard lock(m_mutex);
    m_observer = std::move(observer);
}

int LockWatchdog::activeCount() const
{
    std::lock_guard lock(m_mutex);
    return int(m_entries.size());
}

RedisConnection &LockWatchdog::connectionFor(const ConnectionSettings &server)
{
    const QString key = server.endpoint() + u'/' + QString::number(server.db) + u'/' + server.user;
    std::lock_guard lock(m_connectionsMutex);
    auto it = m_connections.find(key);
    if (it == m_connections.end()) {
        ConnectionSettings settings = server;
        settings.readOnly = false; // renewals write; the worker's connection was read-write too
        settings.clientName = QStringLiteral("lockscope-watchdog");
        it = m_connections.emplace(key, std::make_unique<RedisConnection>(settings)).first;
    }
    return *it->second;
}

void LockWatchdog::run()
{
    std::unique_lock lock(m_mutex);
    while (!m_stop) {
        if (m_paused) {
            m_plannedLookUs = std::numeric_limits<qint64>::max();
            m_wake.wait(lock);
            m_plannedLookUs = 0;
            continue;
        }
        if (m_entries.empty()) {
            // Look again one shortest period from now: a task started meanwhile is then due no sooner, so
            // start() need not wake this thread for it. At least a millisecond, so that a tiny period
            // does not keep an idle thread busy (start() then wakes it, as m_plannedLookUs says).
            const qint64 idleUs = qMax<qint64>(1000, m_shortestPeriodUs);
            m_plannedLookUs = LockClock::monotonicUs() + idleUs;
            m_wake.wait_for(lock, std::chrono::microseconds(idleUs));
            m_plannedLookUs = 0;
            continue;
        }
        auto next = m_entries.begin();
        for (auto it = m_entries.begin(); it != m_entries.end(); ++it) {
            if (it->second.dueUs < next->second.dueUs)
                next = it;
        }
        const qint64 now = LockClock::monotonicUs();
        if (next->second.dueUs > now) {
            m_plannedLookUs = next->second.dueUs;
            m_wake.wait_for(lock, std::chrono::microseconds(next->second.dueUs - now));
            m_plannedLookUs = 0;
            continue;
        }
        const quint64 id = next->first;
        const Task task = next->second.task;
        m_running = id;
        const Observer observer = m_observer;
        lock.unlock();

        RenewalEvent event;
        event.id = id;
        event.key = task.key;
        event.threadId = task.threadId;
        event.leaseMs = task.leaseMs;
        event.startUs = LockClock::monotonicUs();
        if (m_hooks.allowRenewal && !m_hooks.allowRenewal(task.threadId, task.key)) {
            event.outcome = RenewalEvent::Outcome::Skipped;
        } else {
            RedisConnection &connection = connectionFor(task.server);
            if (!connection.isOpen())
                event.error = connection.open();
            LockIo io(m_hooks, task.threadId);
            if (!event.error)
                event.outcome = task.renew(connection, io, &event.reply, &event.error);
            else
                event.outcome = RenewalEvent::Outcome::Error;
            event.commands = io.commands();
            ++m_attempts;
            if (event.outcome == RenewalEvent::Outcome::Renewed)
                ++m_renewed;
        }
        event.endUs = LockClock::monotonicUs();
        qCDebug(lcLocks) << "watchdog" << task.key << RenewalEvent::outcomeName(event.outcome);
        if (observer)
            observer(event);

        lock.lock();
        m_running = 0;
        const auto it = m_entries.find(id);
        if (it != m_entries.end()) {
            if (event.outcome == RenewalEvent::Outcome::Lost) {
                m_entries.erase(it);
                m_lost[id] = true;
            } else {
                it->second.dueUs = LockClock::monotonicUs() + task.periodMs * 1000;
            }
        }
        m_idle.notify_all();
    }
}
