// StoryDirector: a story's steps, each when it comes due on the run's timeline — what an actor does goes to
// its worker, what happens to it (a pause, a crash, a partition) or to a server goes to the FaultInjector.
// While the sentinels fail over, it holds the steps due, so the story reads the same on any machine.
//
// It lives on the run's controller thread (Simulation's).
#pragma once

#include "scenario.h"

#include <QList>

#include <memory>
#include <vector>

class RunTimeline;
class FaultInjector;
class RunWorker;
class StorySnapshotter;

class StoryDirector
{
public:
    // The workers are the Simulation's, one per actor, in the story's order of actors.
    StoryDirector(const Scenario &scenario, RunTimeline &timeline, FaultInjector &faults,
                  const std::vector<std::unique_ptr<RunWorker>> &workers);
    StoryDirector(const StoryDirector &) = delete;
    StoryDirector &operator=(const StoryDirector &) = delete;

    // Reads the keys before each narrated step (Simulation::Options::storySnapshots); nullptr: no longer.
    void setSnapshotter(StorySnapshotter *snapshotter) { m_snapshotter = snapshotter; }
    // Puts every step on the timeline.
    void scheduleSteps();
    // Every step has run and every actor is idle.
    bool isDone() const;

private:
    void scheduleStep(int index, qint64 atUs);
    void runStep(int index);
    void dispatchStep(int index, const Scenario::Step &step);
    void runHeldSteps(); // the sentinels' failover is in the history

    const Scenario &m_scenario;
    RunTimeline &m_timeline;
    FaultInjector &m_faults;
    const std::vector<std::unique_ptr<RunWorker>> &m_workers;
    StorySnapshotter *m_snapshotter = nullptr;
    QList<int> m_heldSteps; // steps due while the sentinels fail over, in order
    int m_stepsLeft = 0;
};
