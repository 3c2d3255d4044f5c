// StoryDirector: a story's steps on the run's controller thread.
#include "storydirector.h"

#include "faultinjector.h"
#include "runtimeline.h"
#include "runworker.h"
#include "storysnapshotter.h"

namespace {

// The fault a step is (a story's pause is a pause fault of its actor's, and so on): the scenario's defaults
// for everything the step does not say.
Scenario::Fault faultOf(Scenario::Fault::Type type, double durationMs = 0)
{
    Scenario::Fault f;
    f.type = type;
    f.durationMs = durationMs;
    return f;
}

} // namespace

StoryDirector::StoryDirector(const Scenario &scenario, RunTimeline &timeline, FaultInjector &faults,
                             const std::vector<std::unique_ptr<RunWorker>> &workers)
    : m_scenario(scenario)
    , m_timeline(timeline)
    , m_faults(faults)
    , m_workers(workers)
{
    m_faults.setOnFailoverSettled([this] { runHeldSteps(); });
}

void StoryDirector::scheduleSteps()
{
    if (m_scenario.kind != Scenario::Kind::Story)
        return;
    m_stepsLeft = int(m_scenario.story.steps.size());
    for (int i = 0; i < m_scenario.story.steps.size(); ++i)
        scheduleStep(i, qint64(m_scenario.story.steps.at(i).atMs * 1000));
}

// A step comes due at `atUs`. While the sentinels are failing over (which takes them about a second, more
// on a loaded machine) the story holds its steps, in order, until the failover's outcome is in the history:
// what it tells then happens in the same order on any machine.
void StoryDirector::scheduleStep(int i, qint64 atUs)
{
    m_timeline.schedule(atUs, [this, i] {
        // A stopped run drains its timeline for the server resumes and restarts only: the story's remaining
        // steps did not happen (they were recorded at the stop's moment, as if they had).
        if (m_timeline.isDraining())
            return;
        if (m_faults.awaitingFailover()) {
            m_heldSteps.append(i); // released by runHeldSteps()
            return;
        }
        runStep(i);
    });
}

void StoryDirector::runStep(int i)
{
    const Scenario::Step &step = m_scenario.story.steps.at(i);
    // The keys as this step comes due, read before it acts (a slow server delays the story at most this
    // long; the reading then says it is late). The same in every run, stepped through afterwards or not.
    constexpr int kSnapshotWaitMs = 100;
    if (m_snapshotter && !step.note.isEmpty())
        m_snapshotter->readBefore(i, kSnapshotWaitMs);
    dispatchStep(i, step);
    --m_stepsLeft;
}

void StoryDirector::dispatchStep(int index, const Scenario::Step &step)
{
    using A = Scenario::Step::Action;
    const int actor = int(m_scenario.story.actors.indexOf(step.actor));
    if (!step.note.isEmpty() || step.action != A::Note)
        m_faults.recordFault(HistoryEvent::FaultType::StoryStep, actor, index, step.note);
    switch (step.action) {
    case A::Acquire:
    case A::Release:
    case A::Work:
    case A::Read:
    case A::Write:
        if (actor >= 0)
            m_workers.at(size_t(actor))->post(step);
        return;
    case A::Pause:
        m_faults.applyFault(faultOf(Scenario::Fault::Type::Pause, step.ms), actor);
        return;
    case A::Crash:
        m_faults.applyFault(faultOf(Scenario::Fault::Type::Crash), actor);
        return;
    case A::Delay: {
        Scenario::Fault f = faultOf(Scenario::Fault::Type::Delay);
        f.delayMs = step.ms;
        m_faults.applyFault(f, actor);
        return;
    }
    case A::Partition:
        m_faults.applyFault(faultOf(Scenario::Fault::Type::Partition, step.ms), actor);
        return;
    case A::ServerRestart:
        m_faults.serverRestart(step.server, step.ms > 0 ? step.ms : m_scenario.servers.restartDelayMs);
        return;
    case A::ServerPause:
        m_faults.serverPause(step.server, step.replica, step.ms);
        return;
    case A::Restart:
        m_faults.applyFault(faultOf(Scenario::Fault::Type::Restart), actor);
        return;
    case A::ServerKill:
    case A::Failover: {
        Scenario::Fault f = faultOf(step.action == A::Failover ? Scenario::Fault::Type::Failover
                                                               : Scenario::Fault::Type::ServerKill);
        f.server = step.server;
        m_faults.applyFault(f, -1);
        return;
    }
    case A::Note:
        return;
    }
}

bool StoryDirector::isDone() const
{
    if (m_stepsLeft > 0)
        return false;
    for (const auto &w : m_workers) {
        if (!w->isIdle())
            return false;
    }
    return true;
}

void StoryDirector::runHeldSteps()
{
    const QList<int> held = std::exchange(m_heldSteps, {});
    if (!m_timeline.isDraining()) {
        for (int i : held)
            runStep(i);
    }
}
