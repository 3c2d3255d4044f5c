// PollBudget: a feedback loop on the command tally, not a model of what each lock costs: a lock's reads
// depend on its type and library (6 to 8 commands, more for a fair queue), and whatever else reads the
// server between polls (renewal checks, notification flushes) is counted too, so the cap holds for the sum.
#include "pollbudget.h"

#include "inspect/inspectclock.h"

#include <algorithm>
#include <cmath>

namespace {

// Until a window has been measured, a lock is taken to cost this many commands (a Redisson hash's TYPE,
// PTTL, HSCAN, its queue's LLEN and ZCARD and their ranges): the first polls stay under the cap.
constexpr double kAssumedCommandsPerLock = 7;
constexpr int kTickMs = 1000;
// The cap's state is logged when it changes, but a target hovering at the edge is not a log line a minute.
constexpr qint64 kRelogMs = 10 * 60 * 1000;

} // namespace

PollBudget::PollBudget(LockMonitor *monitor, std::shared_ptr<std::atomic<quint64>> tally, QObject *parent)
    : QObject(parent)
    , m_monitor(monitor)
    , m_tally(std::move(tally))
{
    m_timer.setInterval(kTickMs);
    connect(&m_timer, &QTimer::timeout, this, &PollBudget::tick);
    // A scan's commands are paced by its own share of the time, not by this cap: a window it touched says
    // nothing about what polling costs.
    connect(m_monitor, &LockMonitor::scanStarted, this, [this] { m_scanSeen = true; });
    // What the commands bought: locks read (or found gone), to learn what one costs on this server.
    connect(m_monitor, &LockMonitor::updated, this,
            [this](const QList<LockRecord> &records) { m_reads += quint64(records.size()); });
    connect(m_monitor, &LockMonitor::gone, this, [this] { ++m_reads; });
}

void PollBudget::setMaxPerSecond(int maxPerSecond)
{
    LockMonitor::Timing t = m_monitor->timing();
    if (m_max == 0)
        m_uncapped = t.maxRefresh; // the monitor's own, untouched so far
    m_max = std::max(0, maxPerSecond);
    t.maxRefresh = m_max > 0
        ? std::clamp(int(m_max * (t.pollMs / 1000.0) / kAssumedCommandsPerLock), 1, m_uncapped)
        : m_uncapped;
    m_monitor->setTiming(t);
    m_samples.clear();
}

void PollBudget::start()
{
    m_samples.clear();
    m_timer.start();
}

void PollBudget::stop()
{
    m_timer.stop();
}

int PollBudget::pollIntervalMs() const
{
    const LockMonitor::Timing &t = m_monitor->timing();
    return m_monitor->hearsNotifications() ? t.pollWithEventsMs : t.pollMs;
}

double PollBudget::passSeconds() const
{
    const qsizetype locks = m_monitor->locks().size();
    if (locks == 0)
        return 0;
    const qsizetype perPoll = std::max(1, locksPerPoll());
    return double((locks + perPoll - 1) / perPoll) * pollIntervalMs() / 1000.0;
}

void PollBudget::tick()
{
    const qint64 now = InspectClock::monotonicMs();
    // A scan running at the last tick may have sent more pages since: this window is the scan's too.
    const bool scanning = m_monitor->isScanning();
    m_samples.append({now, m_tally->load(std::memory_order_relaxed), m_reads, m_scanSeen || scanning});
    m_scanSeen = scanning;
    // A few polls at least: with notifications flowing a poll comes every few seconds only.
    const qint64 windowMs = std::max<qint64>(5000, 2 * qint64(pollIntervalMs()));
    while (m_samples.size() > 2 && now - m_samples.at(1).atMs >= windowMs)
        m_samples.removeFirst();
    const Sample &first = m_samples.first();
    const qint64 span = now - first.atMs;
    const bool scanned = std::any_of(m_samples.cbegin() + 1, m_samples.cend(),
                                     [](const Sample &s) { return s.scanning; });
    if (scanned) {
        m_samples = {m_samples.last()};
        return;
    }
    if (span < windowMs - kTickMs / 2)
        return;
    m_measured = double(m_samples.last().commands - first.commands) * 1000.0 / double(span);

    const qsizetype locks = m_monitor->locks().size();
    LockMonitor::Timing t = m_monitor->timing();
    const quint64 reads = m_samples.last().reads - first.reads;
    if (reads > 0) {
        // Smoothed: each batch is a different mix of strings, hashes and queues.
        const double perLock = double(m_samples.last().commands - first.commands) / double(reads);
        m_commandsPerLock = m_commandsPerLock < 0 ? perLock : (m_commandsPerLock + perLock) / 2;
    }
    if (m_max > 0 && locks > 0 && m_commandsPerLock > 0) {
        const double pollS = pollIntervalMs() / 1000.0;
        // The polls get what the cap leaves after what is read anyway (renewal checks, notified keys): the
        // reads per second beyond this batch's.
        const double readsPerS = double(reads) * 1000.0 / double(span);
        const double polled = double(std::min<qsizetype>(locks, t.maxRefresh)) / pollS;
        const double others = std::max(0.0, readsPerS - polled);
        const double room = std::max(0.0, m_max / m_commandsPerLock - others);
        const int target = std::clamp(int(std::floor(room * pollS)), 1, m_uncapped);
        // Small corrections are noise (a renewal check more or less); each change restarts the window, so
        // the next measurement is of the new batch alone.
        if (std::abs(target - t.maxRefresh) > std::max(1, t.maxRefresh / 10)) {
            t.maxRefresh = target;
            m_monitor->setTiming(t);
            m_samples = {m_samples.last()};
        }
    }
    const bool limited = m_max > 0 && locks > t.maxRefresh && t.maxRefresh < m_uncapped;
    if (limited == m_limited)
        return;
    m_limited = limited;
    if (m_loggedAtMs >= 0 && now - m_loggedAtMs < kRelogMs)
        return; // the gauge says it meanwhile
    m_loggedAtMs = now;
    if (limited)
        emit note(QStringLiteral("polling is capped at %1 commands/s (--max-commands-per-second): %2 of %3 "
                                 "locks are read every %4 s, so each lock is read every %5 s "
                                 "(lockscope_poll_pass_seconds, lockscope_poll_budget_limited 1)")
                      .arg(m_max)
                      .arg(t.maxRefresh)
                      .arg(locks)
                      .arg(pollIntervalMs() / 1000.0)
                      .arg(passSeconds(), 0, 'f', 1));
    else
        emit note(QStringLiteral("polling is within its cap of %1 commands/s again: every lock is read at "
                                 "each poll")
                      .arg(m_max));
}
