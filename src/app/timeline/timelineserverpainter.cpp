// TimelineServerPainter: outages are hatched (vector lines) so they survive the SVG export; their label only
// where the bar has room for it.
#include "timelineserverpainter.h"

#include "timelineshapes.h"

#include <QPainter>

using Shade = TimelineData::Shade;
using namespace TimelineShapes;

void TimelineServerPainter::paintLane(QPainter &p, const TimelinePaintContext &c,
                                      const TimelineLayout::Lane &lane)
{
    const QRectF r = c.laneRect(lane).adjusted(0, 2, 0, -2);
    // Up: a thin line; down / paused: a hatched bar.
    p.setPen(QPen(withAlpha(c.palette.renewOk, 150), 2));
    p.drawLine(QPointF(c.x(c.view.startUs), r.center().y()), QPointF(c.x(c.visibleEnd), r.center().y()));
    p.setRenderHint(QPainter::Antialiasing, true);
    for (const Shade &s : c.data.serverShades(lane.index)) {
        if (s.startUs > c.visibleEnd || c.clamp(s.endUs) < c.visibleStart)
            continue;
        const QRectF bar(QPointF(c.x(s.startUs), r.top()),
                         QPointF(std::max(c.x(s.startUs) + 2, c.x(s.endUs)), r.bottom()));
        const QColor color
            = s.type == Shade::Type::ServerDown ? c.palette.serverDown : c.palette.serverPaused;
        p.fillRect(bar, c.palette.background);
        p.fillRect(bar, withAlpha(color, 50));
        hatch(p, bar, withAlpha(color, 170), 5, 1);
        const QString label = s.type == Shade::Type::ServerDown ? QObject::tr("down") : QObject::tr("paused");
        if (bar.width() > 50) {
            p.setFont(c.fonts.small);
            pill(p, QPointF(bar.left() + 3, bar.top() - 1), label, c.fonts.small, c.palette.background,
                 color);
        }
    }
    for (const TimelineData::ServerMark &m : c.data.serverMarks(lane.index)) {
        if (m.timeUs < c.visibleStart || m.timeUs > c.visibleEnd)
            continue;
        const double x = c.x(m.timeUs);
        if (m.type == HistoryEvent::FaultType::Failover || m.type == HistoryEvent::FaultType::ServerRestart) {
            diamond(p, QPointF(x, r.center().y()), 5, c.palette.fault, c.palette.background);
            if (m.type == HistoryEvent::FaultType::Failover) {
                p.setFont(c.fonts.small);
                p.setPen(c.palette.fault);
                p.drawText(QRectF(x + 7, r.top() - 2, 120, r.height() + 4), Qt::AlignVCenter,
                           QObject::tr("failover"));
            }
        }
    }
    p.setRenderHint(QPainter::Antialiasing, false);
}
