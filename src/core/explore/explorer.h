// The explorer: searches fault schedules until a safety property of a lock breaks, then shrinks the failure,
// confirms it by rerunning, measures the boundary where a fault's length decides it, and tells it as a story.
// No violation found is reported as what it is — none in N schedules, with what was covered and the closest
// call — never as safe.
//
//   profile  one fault-free run: the holds' timeline the guided search aims at
//   search   batches of schedules from the ScheduleGenerator, run side by side by the ScheduleRunner
//   shrink   ScheduleShrinker: fewer faults and workers, shorter lengths, earlier times (each kept only
//            when it fails twice)
//   confirm  the minimal schedule rerun `confirmRuns` times: "4 of 5" is reported as such
//   boundary the length just below the one that fails, tried `boundaryRuns` times
//   story    StoryWriter, then the story itself replayed `storyRuns` times
//
// run() blocks (the CLI calls it on its main thread, the GUI on a worker thread); `cancelled` stops it.
#pragma once

#include "exploreresult.h"
#include "exploretarget.h"
#include "schedulegenerator.h"
#include "scheduleverdict.h"

#include "redis/connectionsettings.h"
#include "sim/scenario.h"

#include <functional>
#include <memory>
#include <optional>

class ScheduleRunner;

class Explorer
{
public:
    struct Options
    {
        ExploreTarget::Options target;
        QList<ScheduledFault::Type> faults; // empty: every fault the target can meet
        QList<ScheduleVerdict::Property> properties; // empty: all four
        ScheduleGenerator::Mode mode = ScheduleGenerator::Mode::Guided;
        double budgetS = 60; // the search's time (shrinking and confirming come after it)
        qint64 maxSchedules = 0; // > 0: stop the search after this many schedules
        quint64 seed = 1;
        int shardIndex = 0;
        int shardCount = 1;
        int parallel = 4;
        double maxPauseMs = 0; // 0: 3 × lease
        double maxDelayMs = 0; // 0: the lease
        int confirmRuns = 5;
        int boundaryRuns = 10;
        int storyRuns = 3;
        bool shrink = true;
        // Stop at the first violation seen, without shrinking or confirming (the benchmark's first-hit count).
        bool firstOnly = false;
        std::optional<ConnectionSettings> server; // the user's, read-write; empty: sandboxes
        QString commandLine; // for the story's teaching text
    };
    struct Progress
    {
        QString phase; // "search", "shrink", "confirm", "boundary", "story"
        qint64 schedules = 0;
        qint64 violating = 0; // schedules of the search whose run broke a property (seen, not yet confirmed)
        double seconds = 0;
        double perMinute = 0;
        QString best; // the worst seen so far, or the closest call
    };

    explicit Explorer(const Options &options);
    ~Explorer();
    Explorer(const Explorer &) = delete;
    Explorer &operator=(const Explorer &) = delete;

    // Checks the options and starts the sandbox. False with `error` (bad options: exit 2; no server: exit 1,
    // `badOptions` says which).
    bool prepare(QString *error, bool *badOptions = nullptr);
    ExploreResult run(const std::function<void(const Progress &)> &progress = {},
                      const std::function<bool()> &cancelled = {});
    // The shrunk failure as a story, once run() found one.
    std::optional<Scenario> story() const { return m_story; }
    const ExploreTarget *target() const { return m_target ? &*m_target : nullptr; }

private:
    QList<ScheduleVerdict> runMany(const FaultSchedule &schedule, int count, quint64 seed,
                                   const std::function<bool()> &cancelled);
    int replayStory(const Scenario &story, int runs, const std::function<bool()> &cancelled);

    Options m_options;
    std::optional<ExploreTarget> m_target;
    std::unique_ptr<ScheduleRunner> m_runner;
    std::optional<Scenario> m_story;
    QString m_storyProblem; // why the story could not be replayed (the parser refused it), empty when it could
};
