// One search of the explorer (the core's Explorer) run off the GUI thread, for the app's "Try to break it".
// Its progress and its end come back to the GUI thread as signals. stop() asks the search to end at the next
// schedule; a job deleted while its search runs lets the search end on its own: the search owns everything it
// uses (its Explorer, its sandbox), so nothing it touches goes away under it.
#pragma once

#include "explore/explorer.h"

#include <QFutureWatcher>
#include <QObject>

#include <atomic>
#include <memory>
#include <optional>

class ExploreJob : public QObject
{
    Q_OBJECT
public:
    // What a search left: its report, its story (when it found a violation), or why it could not run.
    struct Outcome
    {
        bool ran = false; // false: `error` says why nothing was searched (bad options, no sandbox)
        QString error;
        ExploreResult result;
        std::optional<Scenario> story;
    };

    explicit ExploreJob(QObject *parent = nullptr);
    ~ExploreJob() override;

    // Starts a search (false when one is still running).
    bool start(const Explorer::Options &options);
    void stop();
    bool isRunning() const { return m_running; }
    // Once finished() was emitted.
    const Outcome &outcome() const { return m_outcome; }

signals:
    void progressed(const Explorer::Progress &progress);
    void finished();

private:
    std::shared_ptr<std::atomic_bool> m_cancel;
    QFutureWatcher<Outcome> m_watcher;
    Outcome m_outcome;
    bool m_running = false;
};
