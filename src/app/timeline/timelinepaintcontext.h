// Everything one frame's painters share: the run, the lanes, colours and fonts, the part of the run on
// screen and where, and the time → x mapping clamped at the replay cursor (nothing is drawn after it).
#pragma once

#include "timelinedata.h"
#include "timelinefonts.h"
#include "timelinelayout.h"
#include "common/timelinepalette.h"

#include <QRectF>

struct TimelinePaintContext
{
    TimelinePaintContext(const TimelineData &data, const TimelineLayout &layout,
                         const TimelinePalette &palette, const TimelineFonts &fonts,
                         const TimelineLayout::View &view);

    const TimelineData &data;
    const TimelineLayout &layout;
    const TimelinePalette &palette;
    const TimelineFonts &fonts;
    const TimelineLayout::View &view;
    QRectF lanes; // the lanes' area, widget coordinates
    double pxPerUs = 0;
    qint64 limitUs = 0; // nothing is drawn after this time (now, or the replay cursor)
    qint64 visibleStart = 0;
    qint64 visibleEnd = 0;
    // The width the visible part of the run takes: less than the lanes' while a live run has not reached the
    // view's end. How crowded a lane is is judged over this width, not the empty part after it.
    double runWidth = 1;

    // Inline: called for every span painted.
    double x(qint64 t) const
    {
        const qint64 clamped = std::min(t, limitUs);
        return lanes.left() + double(clamped - view.startUs) * pxPerUs;
    }
    qint64 clamp(qint64 t) const { return std::min(t, limitUs); }
    QRectF laneRect(const TimelineLayout::Lane &lane) const
    {
        return QRectF(lanes.left(), lanes.top() + lane.y - view.scrollY, lanes.width(), lane.height);
    }
};
