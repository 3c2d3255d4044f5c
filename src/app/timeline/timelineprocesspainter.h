// What happens to a whole process, drawn over the lanes of its workers: stop-the-world pauses and crashes
// (the lane greys out), network partitions (dashed edges) and faults without duration (a zigzag); and a
// collapsed process's own lane, which sums its workers up: any of them waiting (amber), holding (blue),
// working on after its lease ran out (red).
#pragma once

#include "timelinepaintcontext.h"

class QPainter;

class TimelineProcessPainter
{
public:
    // A process's lane: the summary while collapsed; expanded, it is only a header (nothing to paint).
    static void paintLane(QPainter &p, const TimelinePaintContext &c, const TimelineLayout::Lane &lane);
    // `r` is the lane's content rectangle; `tall` lanes get labels (and crashes a hatch).
    static void paintShades(QPainter &p, const TimelinePaintContext &c, int process, const QRectF &r,
                            bool tall);
    static void paintPartitions(QPainter &p, const TimelinePaintContext &c, int process, const QRectF &r,
                                bool tall);
    static void paintFaults(QPainter &p, const TimelinePaintContext &c, int process, const QRectF &r);
};
