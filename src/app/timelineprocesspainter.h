// What happens to a whole process, drawn over the lanes of its workers: stop-the-world pauses and crashes
// (the lane greys out), network partitions (dashed edges) and faults without duration (a zigzag).
#pragma once

#include "timelinepaintcontext.h"

class QPainter;

class TimelineProcessPainter
{
public:
    // `r` is the lane's content rectangle; `tall` lanes get labels (and crashes a hatch).
    static void paintShades(QPainter &p, const TimelinePaintContext &c, int process, const QRectF &r,
                            bool tall);
    static void paintPartitions(QPainter &p, const TimelinePaintContext &c, int process, const QRectF &r,
                                bool tall);
    static void paintFaults(QPainter &p, const TimelinePaintContext &c, int process, const QRectF &r);
};
