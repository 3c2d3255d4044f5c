// TimelineStoryPainter: markers never overlap; the dashed guide keeps a step's exact time when its marker
// had to move right to fit.
#include "timelinestorypainter.h"

#include "timelineshapes.h"

#include <QFontMetricsF>
#include <QPainter>

using namespace TimelineShapes;

void TimelineStoryPainter::paintStepGuides(QPainter &p, const TimelinePaintContext &c)
{
    const int story = c.layout.laneOf(TimelineLayout::LaneType::Story, 0);
    if (story < 0)
        return;
    const QRectF sr = c.laneRect(c.layout.lanes().at(story));
    const qint64 current = c.data.stepAt(c.limitUs) ? c.data.stepAt(c.limitUs)->index : -1;
    for (const TimelineData::Step &s : c.data.steps()) {
        if (s.timeUs > c.limitUs || s.timeUs < c.view.startUs || s.timeUs > c.view.endUs)
            continue;
        const double x = c.x(s.timeUs);
        p.setPen(QPen(withAlpha(c.palette.step, s.index == current ? 170 : 80), 1, Qt::DashLine));
        p.drawLine(QPointF(x, sr.bottom()), QPointF(x, c.lanes.bottom()));
    }
}

void TimelineStoryPainter::paintLane(QPainter &p, const TimelinePaintContext &c,
                                     const TimelineLayout::Lane &lane)
{
    const QRectF r = c.laneRect(lane);
    const QList<TimelineData::Step> &steps = c.data.steps();
    const TimelineData::Step *current = c.data.stepAt(c.limitUs);
    p.setRenderHint(QPainter::Antialiasing, true);
    const QFontMetricsF fm(c.fonts.small);
    const double radius = 9;
    // Markers of steps a few milliseconds apart (or at the run's very start) would overlap or be cut by the
    // lane names: each is drawn where it fits — at its time, or just right of the marker before it and of
    // the lanes' left edge. The dashed guide below keeps the exact time.
    double lastCentre = c.lanes.left() + 1 - radius; // the first marker's centre is at least a radius in
    for (qsizetype i = 0; i < steps.size(); ++i) {
        const TimelineData::Step &s = steps.at(i);
        if (s.timeUs > c.limitUs)
            break;
        double nextX = c.lanes.right() + 200;
        if (i + 1 < steps.size() && steps.at(i + 1).timeUs <= c.limitUs)
            nextX = c.x(steps.at(i + 1).timeUs);
        if (nextX < c.lanes.left() - 20 || c.x(s.timeUs) > c.lanes.right() + 20)
            continue;
        const double x = std::max(c.x(s.timeUs), lastCentre + 2 * radius + 2);
        lastCentre = x;
        nextX = std::max(nextX, x + 2 * radius + 2);
        const bool isCurrent = current && current->index == s.index;
        const QPointF centre(x, r.center().y());
        p.setPen(QPen(c.palette.step, 1.5));
        p.setBrush(isCurrent ? c.palette.step : c.palette.background);
        p.drawEllipse(centre, radius, radius);
        p.setFont(c.fonts.bold);
        p.setPen(isCurrent ? c.palette.background : c.palette.step);
        p.drawText(QRectF(x - radius, centre.y() - radius, 2 * radius, 2 * radius), Qt::AlignCenter,
                   QString::number(s.number));
        const double textLeft = x + radius + 4;
        const double room = std::min(nextX - 8, c.lanes.right() - 2) - textLeft;
        if (room > 30 && !s.note.isEmpty()) {
            p.setFont(c.fonts.small);
            p.setPen(isCurrent ? c.palette.text : c.palette.mutedText);
            p.drawText(QRectF(textLeft, r.top(), room, r.height()), Qt::AlignVCenter | Qt::AlignLeft,
                       fm.elidedText(s.note, Qt::ElideRight, room));
        }
    }
    p.setRenderHint(QPainter::Antialiasing, false);
}
