// The small drawings of the timeline — stripes, crosses, diamonds, zigzags, tags, Redlock vote cells — shared
// by the lane painters and the legend, so a mark means the same wherever it appears.
#pragma once

#include "timelinedata.h"
#include "common/timelinepalette.h"

#include <QColor>
#include <QPointF>
#include <QRectF>
#include <QString>

class QFont;
class QPainter;

namespace TimelineShapes {
constexpr double kVoteCellPx = 4; // Redlock: one cell per server under each round, this wide (+1 px gap)

QColor withAlpha(QColor c, int alpha);
// Diagonal stripes inside `r` (vector lines, so they survive the SVG export).
void hatch(QPainter &p, const QRectF &r, const QColor &color, double spacing = 6, double width = 1.2);
void cross(QPainter &p, const QPointF &c, double size, const QColor &color, double width = 2);
void diamond(QPainter &p, const QPointF &c, double r, const QColor &fill, const QColor &edge);
void zigzag(QPainter &p, const QPointF &top, double h, const QColor &color);
// A Redlock round as one cell per server (granted: green, refused: red, no answer: hollow grey), in a frame
// that says how the round ended (won: the holder's blue; lost: red, hatched when the validity was spent).
QRectF voteCells(QPainter &p, const QPointF &topLeft, double cellH, int servers, const TimelineData::Round &r,
                 const TimelinePalette &pal);
// A rounded tag with text (violation labels, the cursor time).
QRectF pill(QPainter &p, const QPointF &topLeft, const QString &text, const QFont &font, const QColor &fill,
            const QColor &color);
// A short label beside the mark at `x` (`gap` px away), in the current pen and font, vertically centred in
// `row`: to its right, or to its left when it would run past `bounds` (a label at the run's end stays whole).
void sideLabel(QPainter &p, double x, double gap, const QRectF &row, const QString &text,
               const QRectF &bounds);
} // namespace TimelineShapes
