// The timeline's colours, in a light and a dark version chosen from the widget's palette, so the picture
// reads well with either system theme (and in exports).
#pragma once

#include <QColor>

class QPalette;

struct TimelinePalette
{
    bool dark = false;
    QColor background;
    QColor laneAlt; // every other process group
    QColor header; // the lane-name column
    QColor grid;
    QColor text;
    QColor mutedText;
    QColor waiting; // amber
    QColor waitingEdge;
    QColor holding; // blue
    QColor holdingEdge;
    QColor holdingLight; // the lease's extent behind the TTL fill
    QColor stale; // held after the lease ran out
    QColor releasing;
    QColor renewOk;
    QColor renewLost;
    QColor paused;
    QColor crashed;
    QColor noTtl;
    QColor overlap; // translucent fill of a violation band
    QColor overlapEdge;
    QColor step; // story narrative
    QColor fault;
    QColor fenced; // a stale write the fenced store refused: the protection working
    QColor serverDown;
    QColor serverPaused;
    QColor cursor;
    QColor future; // beyond the replay cursor

    static TimelinePalette light();
    static TimelinePalette darkPalette();
    // Dark when the window colour is dark.
    static TimelinePalette forPalette(const QPalette &palette);
    static bool isDark(const QPalette &palette);
};
