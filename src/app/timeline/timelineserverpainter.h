// A Redis server's lane: a thin line while it is up, a hatched bar while it is down or paused, and a
// diamond where it restarted or failed over.
#pragma once

#include "timelinepaintcontext.h"

class QPainter;

class TimelineServerPainter
{
public:
    static void paintLane(QPainter &p, const TimelinePaintContext &c, const TimelineLayout::Lane &lane);
};
