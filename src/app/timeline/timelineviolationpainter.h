// What the safety checker found, over the lanes it concerns: red bands where two workers were inside at once
// (dashed for a stale holder), an arrow from a lost update to the write that overwrote it, a line from a
// release that deleted someone else's key to that key, each with a short tag.
#pragma once

#include "timelinepaintcontext.h"

class QPainter;

class TimelineViolationPainter
{
public:
    // After every lane: bands and arrows cross lanes.
    static void paint(QPainter &p, const TimelinePaintContext &c);
};
