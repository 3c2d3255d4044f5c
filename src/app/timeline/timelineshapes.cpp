// TimelineShapes: plain QPainter calls; each restores the painter state it changed where the caller relies on it.
#include "timelineshapes.h"

#include <QFontMetricsF>
#include <QPainter>
#include <QPolygonF>

namespace TimelineShapes {

QColor withAlpha(QColor c, int alpha)
{
    c.setAlpha(alpha);
    return c;
}

void hatch(QPainter &p, const QRectF &r, const QColor &color, double spacing, double width)
{
    if (r.width() <= 0 || r.height() <= 0)
        return;
    p.save();
    p.setClipRect(r, Qt::IntersectClip);
    p.setPen(QPen(color, width));
    for (double x = r.left() - r.height(); x < r.right(); x += spacing)
        p.drawLine(QPointF(x, r.bottom()), QPointF(x + r.height(), r.top()));
    p.restore();
}

void cross(QPainter &p, const QPointF &c, double size, const QColor &color, double width)
{
    p.setPen(QPen(color, width, Qt::SolidLine, Qt::RoundCap));
    p.drawLine(c + QPointF(-size, -size), c + QPointF(size, size));
    p.drawLine(c + QPointF(-size, size), c + QPointF(size, -size));
}

void diamond(QPainter &p, const QPointF &c, double r, const QColor &fill, const QColor &edge)
{
    QPolygonF d;
    d << c + QPointF(0, -r) << c + QPointF(r, 0) << c + QPointF(0, r) << c + QPointF(-r, 0);
    p.setPen(QPen(edge, 1.2));
    p.setBrush(fill);
    p.drawPolygon(d);
}

void zigzag(QPainter &p, const QPointF &top, double h, const QColor &color)
{
    QPolygonF z;
    z << top + QPointF(1.5, 0) << top + QPointF(-2, h * 0.55) << top + QPointF(1.5, h * 0.45)
      << top + QPointF(-1.5, h);
    p.setPen(QPen(color, 1.6, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin));
    p.setBrush(Qt::NoBrush);
    p.drawPolyline(z);
}

QRectF voteCells(QPainter &p, const QPointF &topLeft, double cellH, int servers, const TimelineData::Round &r,
                 const TimelinePalette &pal)
{
    const double step = kVoteCellPx + 1;
    const QRectF frame(topLeft, QSizeF(servers * step + 1, cellH + 2));
    p.setPen(Qt::NoPen);
    p.setBrush(pal.background);
    p.drawRect(frame.adjusted(-1, -1, 1, 1));
    for (int s = 0; s < servers; ++s) {
        const QRectF cell(topLeft.x() + 1 + s * step, topLeft.y() + 1, kVoteCellPx, cellH);
        switch (r.vote(s)) {
        case 1:
            p.fillRect(cell, pal.renewOk);
            break;
        case 0:
            p.fillRect(cell, pal.stale);
            break;
        default:
            p.setPen(QPen(pal.mutedText, 1));
            p.setBrush(Qt::NoBrush);
            p.drawRect(cell.adjusted(0.5, 0.5, -0.5, -0.5));
            break;
        }
    }
    p.setBrush(Qt::NoBrush);
    p.setPen(QPen(r.won() ? pal.holdingEdge : pal.stale, 1));
    p.drawRect(frame.adjusted(0.5, 0.5, -0.5, -0.5));
    if (r.outcome == HistoryEvent::RoundOutcome::ValiditySpent)
        hatch(p, frame, withAlpha(pal.stale, 160), 3, 0.8);
    return frame;
}

QRectF pill(QPainter &p, const QPointF &topLeft, const QString &text, const QFont &font, const QColor &fill,
            const QColor &color)
{
    const QFontMetricsF fm(font);
    const QRectF r(topLeft, QSizeF(fm.horizontalAdvance(text) + 10, fm.height() + 2));
    p.setPen(Qt::NoPen);
    p.setBrush(fill);
    p.drawRoundedRect(r, 4, 4);
    p.setFont(font);
    p.setPen(color);
    p.drawText(r, Qt::AlignCenter, text);
    return r;
}

void sideLabel(QPainter &p, double x, double gap, const QRectF &row, const QString &text,
               const QRectF &bounds)
{
    const double w = QFontMetricsF(p.font()).horizontalAdvance(text) + 2;
    const bool right = x + gap + w <= bounds.right() || x - gap - w < bounds.left();
    const QRectF box(right ? x + gap : x - gap - w, row.top(), w, row.height());
    p.drawText(box, Qt::AlignVCenter | (right ? Qt::AlignLeft : Qt::AlignRight), text);
}

} // namespace TimelineShapes
