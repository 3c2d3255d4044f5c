// RunTimeline: what a run's controller thread does at given moments of the run clock — scheduled faults,
// their ends, server resumes, story steps — kept in time order and run when due.
#pragma once

#include <QtGlobal>

#include <functional>
#include <map>

// Controller thread only: nothing here is guarded.
class RunTimeline
{
public:
    void schedule(qint64 atUs, std::function<void()> action);
    // Runs every action due by `nowUs` in time order, those that a running action schedules for by then too.
    void runDue(qint64 nowUs);
    // The run has ended: every pending action runs once, now. isDraining() tells them so, so that they
    // schedule nothing more and only undo what must not stay (a frozen or stopped server).
    void drain();
    bool isDraining() const { return m_draining; }
    bool isEmpty() const { return m_actions.empty(); }
    qint64 nextDueUs() const; // the earliest pending action's time; only when !isEmpty()

private:
    std::multimap<qint64, std::function<void()>> m_actions;
    bool m_draining = false;
};
