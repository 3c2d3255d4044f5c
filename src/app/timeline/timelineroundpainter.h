// Redlock rounds on a worker's lane: a row of cells per round (one per server: granted, refused, no answer)
// just under the waiting bar, with "3/5" where a round won the lock; small or crowded lanes get a red tick
// per lost round instead.
#pragma once

#include "timelinepaintcontext.h"

class QPainter;

class TimelineRoundPainter
{
public:
    // `r` is the lane's content rectangle, `waitBand` the waiting bar's: the cells go just under it.
    static void paintRounds(QPainter &p, const TimelinePaintContext &c, const TimelineLayout::Lane &lane,
                            const QRectF &r, const QRectF &waitBand);
};
