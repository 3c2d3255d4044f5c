// Makes a failing schedule as small as it can while it still fails: fewer faults, fewer workers, shorter
// pauses and delays (to the boundary), earlier times. A smaller candidate counts only when it breaks the
// same property again on a second run (a sighting that does not come back proves nothing), and the
// candidates of one pass run side by side.
#pragma once

#include "faultschedule.h"
#include "schedulerunner.h"
#include "scheduleverdict.h"

#include <functional>
#include <optional>

class ScheduleShrinker
{
public:
    struct Result
    {
        FaultSchedule minimal;
        ScheduleVerdict failing; // a run of `minimal` that broke the property (with its events)
        int runs = 0; // runs the shrinking took
        int candidates = 0; // smaller schedules tried
        // The fault whose length decides (index in minimal.faults), the shortest length seen to fail and the
        // longest seen to pass on both tries (-1 when none was).
        int boundaryFault = -1;
        double failsAtMs = -1;
        double passedAtMs = -1;
        // Every smaller schedule accepted on the way, in order (the last is `minimal`): each failed twice,
        // so when the minimal one reproduces poorly the confirmation can step back along this path.
        QList<FaultSchedule> path;
    };

    ScheduleShrinker(ScheduleRunner &runner, ScheduleVerdict::Property property, quint64 seed);
    Result shrink(const ScheduleVerdict &failing, const std::function<bool()> &cancelled = {});

private:
    // Runs each candidate twice (all at once); the index of the first whose both runs broke the property.
    std::optional<qsizetype> firstFailing(const QList<FaultSchedule> &candidates, ScheduleVerdict *failing,
                                          QList<bool> *bothPassed = nullptr);

    ScheduleRunner &m_runner;
    ScheduleVerdict::Property m_property;
    quint64 m_seed;
    Result m_result;
    std::function<bool()> m_cancelled;
};
