// One server followed for an exporter: its LockMonitor (read-only, paced scans, notifications, polls, a
// heartbeat so a dead server is noticed with no lock to poll), the activity per key pattern drawn from its
// live history, what its scans achieved, the commands LockScope sent it, and its failovers through Sentinel.
// LockMetrics renders a list of these.
#pragma once

#include "inspect/lockmonitor.h"
#include "lockactivity.h"
#include "pollbudget.h"

#include <QHash>
#include <QMap>
#include <QObject>
#include <QStringList>

#include <atomic>
#include <memory>

class MonitoredTarget : public QObject
{
    Q_OBJECT
public:
    // What the last finished scan achieved, and how many scans ended each way.
    struct ScanState
    {
        bool ended = false; // at least one scan ended: before that, whether scans complete is unknown
        bool complete = false; // the last one walked the whole keyspace and read every key it met
        QStringList reasons; // why not: "failed", "cancelled", "unreadable-keys", "missing-nodes"
        QMap<QString, qint64> unreadableKeys; // keys of the last scan whose type could not be read, by reason
        qint64 durationMs = -1;
        qint64 keysScanned = -1;
        QMap<QString, quint64> endings; // "complete", "incomplete", "failed", "cancelled" → scans
    };

    MonitoredTarget(const QString &name, const ConnectionSettings &settings, const ScanOptions &options,
                    const LockMonitor::Timing &timing, QObject *parent = nullptr);

    // Caps the commands per second its polling sends (PollBudget); 0, the default: no cap. Before start().
    void setMaxCommandsPerSecond(int n) { m_budget.setMaxPerSecond(n); }
    void start();
    void stop();

    // The target's name: the `target` label of its series.
    const QString &name() const { return m_name; }
    const LockMonitor &monitor() const { return m_monitor; }
    LockMonitor &monitor() { return m_monitor; }
    const LockActivity &activity() const { return m_activity; }
    const ScanState &scanState() const { return m_scan; }
    const PollBudget &budget() const { return m_budget; }
    // Commands sent to the server on every connection of this target (scans, probes, subscriptions, pings).
    quint64 commandsSent() const { return m_tally->load(std::memory_order_relaxed); }
    // The server can be read now: it answered since the monitor started and nothing since says otherwise.
    bool isUp() const { return m_monitor.isLive() && m_monitor.lastReadAtMs() >= 0; }
    // Wall-clock ms of the last failover (the address read from moved), -1 when none was seen.
    qint64 lastFailoverEpochMs() const { return m_lastFailoverEpochMs; }

    // A short code for why a value could not be read, from the server's or LockScope's words: "acl",
    // "loading", "replica", "cluster", "timeout", "connection", "not-stored" (Redis cannot tell it at all),
    // else "error". Bounded, so it can be a label.
    static QString reasonCode(const QString &reason, bool refused = true);

signals:
    // A line for the log (journald): the server unreadable or readable again, a failover, a failed scan.
    void note(const QString &line);

private:
    // Logs the reads the server refused on the locks found now: once per command, again at most every few
    // minutes while it goes on, so an operator learns why values are unknown without a line per poll.
    void noteRefusals();
    // The command a refusal names ("PTTL" from "... run the 'pttl' command"), else the words before "refused".
    static QString refusedCommand(const QString &reason);

    QString m_name;
    QHash<QString, qint64> m_refusalLoggedAtMs; // command → InspectClock::monotonicMs() of its last log line
    std::shared_ptr<std::atomic<quint64>> m_tally;
    LockMonitor m_monitor;
    PollBudget m_budget;
    LockActivity m_activity;
    ScanState m_scan;
    qint64 m_lastFailoverEpochMs = -1;
};
