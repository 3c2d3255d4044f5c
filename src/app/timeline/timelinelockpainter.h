// A lock key's lane: whose key it is over time, with its TTL draining and refilled by renewals, keys left
// without a TTL, where a lease ran out; tenures that overlap in time get rows of their own.
#pragma once

#include "timelinepaintcontext.h"

class QPainter;

class TimelineLockPainter
{
public:
    static void paintLane(QPainter &p, const TimelinePaintContext &c, const TimelineLayout::Lane &lane);
};
