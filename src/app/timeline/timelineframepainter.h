// The timeline's frame around the lanes' content: the lane backgrounds and the time grid, the ruler with the
// cursor's time, the lane-name column (names and each lane's state at the cursor; a process's lane with the
// triangle that collapses it), the part of the run not replayed yet and the cursor line.
#pragma once

#include "timelinepaintcontext.h"

class QPainter;

#include <QFont>
#include <QList>

class TimelineFramePainter
{
public:
    // One piece of text in the name column, where it is drawn (the text's own extent).
    struct HeaderLabel
    {
        QRectF rect;
        QString text;
        QFont font;
        QColor color;
        Qt::Alignment align;
    };
    static constexpr int kDisclosureWidth = 12; // a process's triangle, left of its name

    static void paintLaneBackgrounds(QPainter &p, const TimelinePaintContext &c);
    // Greys the part of the run right of the replay cursor; `p` is clipped to the lanes.
    static void paintFuture(QPainter &p, const TimelinePaintContext &c);
    // The replay cursor, or the live edge of a run still going on.
    static void paintCursor(QPainter &p, const TimelinePaintContext &c);
    static void paintRuler(QPainter &p, const TimelinePaintContext &c);
    static void paintHeaders(QPainter &p, const TimelinePaintContext &c);
    // The texts paintHeaders() draws: no two overlap.
    static QList<HeaderLabel> headerLabels(const TimelinePaintContext &c);
};
