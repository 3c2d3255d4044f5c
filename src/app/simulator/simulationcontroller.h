// Drives simulations for the GUI without ever blocking its thread: runs a scenario (each comparison variant
// in turn), drains each run's history into a TimelineData on a 30 Hz timer, recomputes the live numbers about
// once a second in the background, rebuilds the exact picture from the whole history when a run ends. Finished runs stay available (their timelines, reports and histories) until the
// next start, so the user can switch between the variants of a comparison and export them. Stories always
// run at their own pace on the real server, with their keys read at each narrated step: step mode walks
// that recording afterwards (or while it is still being made), so a pause for reading cannot change it.
#pragma once

#include "livestats.h"
#include "timeline/timelinedata.h"

#include "sim/simulation.h"
#include "sim/simulationrunner.h"

#include <QElapsedTimer>
#include <QObject>
#include <QTimer>

#include <memory>

class SimulationController : public QObject
{
    Q_OBJECT
public:
    struct Run
    {
        QString variant; // empty for a scenario without variants
        Scenario scenario; // the variant's own scenario
        std::shared_ptr<Simulation> simulation;
        std::shared_ptr<TimelineData> timeline; // nullptr until the run is Running
        EventHistory::Cursor cursor;
        LiveStats stats;
        RunReport report;
        bool finished = false; // report, final timeline and stats are in
        bool finalizing = false;
    };

    explicit SimulationController(QObject *parent = nullptr);
    ~SimulationController() override; // stops what runs; simulations end on a background thread

    // Starts `scenario` (each variant in turn, like the CLI). False with `error` when it cannot start.
    bool start(const Scenario &scenario, const Simulation::Options &options, QString *error);
    void stop();
    bool isRunning() const { return m_running; }
    bool wasStopped() const { return m_stopRequested; }

    // The user's choice for the next runs: step through the recording (the run itself is the same).
    void setStepMode(bool on) { m_stepMode = on; }
    bool stepMode() const { return m_stepMode; }
    // What the story's keys held at each narrated step of run `index` (and at its end), so far.
    QList<StorySnapshot> storySnapshots(int index) const;

    const Scenario &scenario() const { return m_scenario; }
    int runCount() const { return int(m_runs.size()); }
    const Run &run(int index) const { return m_runs.at(index); }
    int activeRun() const { return m_active; }
    // 0..1 over all variants; -1 while servers start (busy indicator).
    double progress() const;
    QString stateText() const;
    QString errorString() const { return m_error; }
    // The finished runs and the scenario's expectations judged over them, as the CLI reports them.
    SimulationRunner::Outcome outcome() const;
    // Stepping: the numbers of run `index` as they stood at `untilUs` (its events up to then, counted as the
    // live numbers are), so that a step shows the run so far and not its ending. Counted again only when the
    // run, the time or its events changed.
    const LiveStats &statsUntil(int index, qint64 untilUs) const;
    // A text lookup for event details that does not keep the simulation alive.
    std::function<QString(const HistoryEvent &)> textLookup(int index) const;

    // Lets go of a simulation off the GUI thread: ~Simulation joins its thread and stops its servers.
    static void dispose(std::shared_ptr<Simulation> simulation);

    // Time between live-stat recomputations (ms).
    void setStatsIntervalMs(int ms) { m_statsIntervalMs = ms; }
    // Longest time one timer tick took on the GUI thread (ms), for the benchmark and the status line.
    double longestTickMs() const { return m_longestTickMs; }

signals:
    void aboutToClear(); // the previous runs (and their timelines) are about to go
    void runStarted(int index); // the run's timeline exists now
    void runUpdated(int index); // new events in its timeline
    void statsUpdated(int index);
    void runFinished(int index); // final timeline, report and stats are in
    void finished(); // all runs done, stopped or failed (errorString() says which)
    void stateChanged();

private:
    void tick();
    void startRun(int index);
    void requestStats(int index);
    LiveStats::Input statsInput(const Run &r, qint64 nowUs) const;
    void requestFinal(int index);
    void end();

    QTimer m_timer;
    QList<Run> m_runs;
    Scenario m_scenario;
    Simulation::Options m_options;
    bool m_stepMode = false; // the user's choice
    int m_active = -1;
    bool m_running = false;
    bool m_stopRequested = false;
    bool m_statsBusy = false;
    int m_statsIntervalMs = 1000;
    QElapsedTimer m_sinceStats;
    QString m_error;
    quint64 m_generation = 0; // background results of an earlier start() are dropped
    double m_longestTickMs = 0;
    mutable LiveStats m_statsUntil; // statsUntil()'s last answer…
    mutable QString m_statsUntilKey; // …and the run, time and events it counted
};
