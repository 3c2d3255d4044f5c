// The key to the timeline's colours and marks, in as many rows as a width needs: painted under the timeline
// (TimelineLegend) and into the PNG and SVG exports, with the same marks the lanes use (TimelineShapes).
#pragma once

#include "common/timelinepalette.h"

#include <QFont>
#include <QRect>

class QPainter;

class TimelineLegendPainter
{
public:
    // `votes` adds Redlock's vote cells.
    static void paint(QPainter &painter, const QRect &rect, const TimelinePalette &palette, const QFont &font,
                      bool votes = false);
    static int height(int width, const QFont &font, bool votes = false);
};
