// A worker's lane: waiting (amber), holding (blue) with its fencing token, working on after the lease ran out
// (hatched red), the release and how it ended, watchdog renewals, reads and writes (and the writes a fenced
// store refused), gave-up timeouts, its Redlock rounds, and its process's pauses, crashes and partitions.
#pragma once

#include "timelinepaintcontext.h"

class QPainter;

class TimelineWorkerPainter
{
public:
    static void paintLane(QPainter &p, const TimelinePaintContext &c, const TimelineLayout::Lane &lane);
};
