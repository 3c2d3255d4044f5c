// A cap on the commands one target's polling sends per second (`serve --max-commands-per-second`): the locks
// read per poll are set from the commands actually counted, so a pass over many locks takes longer instead of
// costing more, and what that costs in freshness is exported (the pass time, whether the cap bites).
#pragma once

#include "inspect/lockmonitor.h"

#include <QElapsedTimer>
#include <QList>
#include <QObject>
#include <QTimer>

#include <atomic>
#include <memory>

class PollBudget : public QObject
{
    Q_OBJECT
public:
    // Gentle on any server (well under 1% of what one Redis core serves), and still a pass of about a second
    // over the first hundred locks; see docs/monitoring.md.
    static constexpr int kDefaultMaxCommandsPerSecond = 500;

    // Measures only, until setMaxPerSecond(). `tally` counts every command sent for `monitor`.
    PollBudget(LockMonitor *monitor, std::shared_ptr<std::atomic<quint64>> tally, QObject *parent = nullptr);

    // 0: no cap (the monitor's own locks per poll, as before the cap existed). Before start().
    void setMaxPerSecond(int maxPerSecond);

    void start();
    void stop();

    int maxPerSecond() const { return m_max; }
    // Commands per second measured over the last window without a full scan (scans are paced apart); -1
    // before the first such window.
    double measuredPerSecond() const { return m_measured; }
    // Locks each poll reads now.
    int locksPerPoll() const { return m_monitor->timing().maxRefresh; }
    // Seconds one pass over every known lock takes at this rate (each lock read once); 0 with no lock.
    double passSeconds() const;
    // The cap reads fewer locks per poll than the monitor would without it (never more: a cap is a ceiling,
    // and with notifications flowing a poll is only a safety net).
    bool isLimited() const { return m_limited; }

signals:
    // A line for the log: the cap started (or stopped) making the pass longer than the poll interval.
    void note(const QString &line);

private:
    void tick();
    int pollIntervalMs() const;

    LockMonitor *m_monitor;
    std::shared_ptr<std::atomic<quint64>> m_tally;
    int m_max = 0;
    int m_uncapped = 0; // the monitor's own batch before the cap touched it
    QTimer m_timer;
    struct Sample
    {
        qint64 atMs;
        quint64 commands;
        quint64 reads;
        bool scanning;
    };
    QList<Sample> m_samples; // one per tick, the last few seconds
    double m_measured = -1;
    double m_commandsPerLock = -1; // learnt from the windows so far
    quint64 m_reads = 0; // locks read since start, scans included
    bool m_limited = false;
    bool m_scanSeen = false; // a scan ran since the last tick
    qint64 m_loggedAtMs = -1; // InspectClock::monotonicMs() of the last line about the cap
};
