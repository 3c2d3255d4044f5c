// A story's narrated steps on the timeline: numbered markers with their notes on the story lane (the current
// step filled), and a dashed guide down through the other lanes at each step's time.
#pragma once

#include "timelinepaintcontext.h"

class QPainter;

class TimelineStoryPainter
{
public:
    static void paintLane(QPainter &p, const TimelinePaintContext &c, const TimelineLayout::Lane &lane);
    // Drawn before the lanes' content, so bars and marks stay on top of the guides.
    static void paintStepGuides(QPainter &p, const TimelinePaintContext &c);
};
