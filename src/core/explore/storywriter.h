// Tells a failing schedule as an ordinary story: the actors' acquires, reads, work, writes and releases at the
// times the failing run did them, the schedule's faults as steps, each step's note written from what happened
// in that run, and `expect` lines that encode the violation — so `lockscope-cli simulate` replays it (and
// passes when the violation happens again), and the Simulator and Learn step through it like any story.
#pragma once

#include "exploretarget.h"
#include "faultschedule.h"
#include "scheduleverdict.h"

#include "sim/scenario.h"

class StoryWriter
{
public:
    struct Context
    {
        QString command; // the explore command line that found it, for the teaching text
        QString reproduced; // "5 of 5 reruns"
        QString boundary; // "overlaps when A pauses ≥ 420 ms (lease 500 ms)…"
    };
    // `failing`: a run of `schedule` that broke `property` (with its events).
    static Scenario write(const ExploreTarget &target, const ScheduleVerdict &failing,
                          ScheduleVerdict::Property property, const Context &context);
    // The expectation that says `property` broke ("overlaps >= 1").
    static QString expectationFor(ScheduleVerdict::Property property);
};
