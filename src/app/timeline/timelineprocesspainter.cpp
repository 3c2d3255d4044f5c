// TimelineProcessPainter: a paused or crashed process greys its lanes over its bars instead of hiding them:
// its workers still believe what they believed when it froze.
#include "timelineprocesspainter.h"

#include "common/textformat.h"
#include "timelinecoverage.h"
#include "timelineshapes.h"

#include <QFontMetricsF>
#include <QPainter>

using Hold = TimelineData::Hold;
using Mark = TimelineData::Mark;
using Wait = TimelineData::Wait;
using Shade = TimelineData::Shade;
using namespace TimelineShapes;

void TimelineProcessPainter::paintLane(QPainter &p, const TimelinePaintContext &c,
                                       const TimelineLayout::Lane &lane)
{
    if (!lane.collapsed)
        return;
    const int process = lane.index;
    const QRectF r = c.laneRect(lane).adjusted(0, lane.height >= 12 ? 2 : 0, 0, lane.height >= 12 ? -2 : 0);
    const double holdH = std::max(2.0, r.height() * 0.72);
    const double waitH = std::max(2.0, r.height() * 0.36);
    // The workers' spans overlap one another: per-pixel coverage draws their union at one cost whatever the
    // zoom (a column any of them covers is solid).
    TimelineCoverage waiting(c.lanes.left(), c.lanes.width());
    TimelineCoverage holding(c.lanes.left(), c.lanes.width());
    TimelineCoverage stale(c.lanes.left(), c.lanes.width());
    const QList<int> &processOf = c.data.layout().workerProcesses;
    for (int w = 0; w < c.data.workerCount(); ++w) {
        if (processOf.value(w, -1) != process)
            continue;
        const QList<Wait> &waits = c.data.waits(w);
        for (qsizetype i
             = TimelineData::firstEndingAfter(waits, c.visibleStart, [](const Wait &s) { return s.endUs; });
             i < waits.size() && waits.at(i).startUs <= c.visibleEnd; ++i)
            waiting.add(c.x(waits.at(i).startUs), c.x(waits.at(i).endUs));
        for (int l = 0; l < c.data.lockCount(); ++l) {
            const QList<Hold> &holds = c.data.holds(w, l);
            for (qsizetype i = TimelineData::firstEndingAfter(holds, c.visibleStart,
                                                              [](const Hold &h) { return h.endUs; });
                 i < holds.size() && holds.at(i).startUs <= c.visibleEnd; ++i) {
                const Hold &h = holds.at(i);
                const qint64 staleFrom = std::min(h.validUntilUs, h.endUs);
                holding.add(c.x(h.startUs), c.x(staleFrom));
                if (staleFrom < h.endUs)
                    stale.add(c.x(staleFrom), c.x(h.endUs));
            }
        }
    }
    waiting.paint(p, r.top() + (r.height() - waitH) / 2, waitH, c.palette.waiting);
    holding.paint(p, r.top() + (r.height() - holdH) / 2, holdH, c.palette.holding);
    stale.paint(p, r.top() + (r.height() - holdH) / 2, holdH, c.palette.stale);
    const bool tall = lane.height >= 18;
    paintShades(p, c, process, r, tall);
    paintPartitions(p, c, process, r, tall);
    if (lane.height >= 12)
        paintFaults(p, c, process, r);
}

void TimelineProcessPainter::paintShades(QPainter &p, const TimelinePaintContext &c, int process,
                                         const QRectF &r, bool tall)
{
    // Pauses and crash of a process, over its workers' bars: the lane greys out while the process is
    // frozen (its bars stay visible underneath: a worker still believes what it believed).
    if (process < 0 || process >= c.data.processCount())
        return;
    for (const Shade &s : c.data.processShades(process)) {
        if (s.startUs > c.visibleEnd || c.clamp(s.endUs) < c.visibleStart)
            continue;
        const QRectF area(QPointF(c.x(s.startUs), r.top()), QPointF(c.x(s.endUs), r.bottom()));
        const bool crashed = s.type == Shade::Type::Crashed;
        const QColor color = crashed ? c.palette.crashed : c.palette.paused;
        p.fillRect(area, withAlpha(c.palette.background, crashed ? 150 : 135));
        p.fillRect(area, withAlpha(color, crashed ? 90 : 60));
        p.setPen(QPen(color, 2));
        p.drawLine(QPointF(area.left(), r.top() + 1), QPointF(area.right(), r.top() + 1));
        p.drawLine(QPointF(area.left(), r.bottom() - 1), QPointF(area.right(), r.bottom() - 1));
        if (crashed && tall)
            hatch(p, area, withAlpha(color, 120), 4, 1);
        if (tall && area.width() > 50) {
            QString label = crashed ? QObject::tr("crashed") : QObject::tr("paused");
            if (!crashed && s.endUs != TimelineData::kOpen && area.width() > 150)
                label = QObject::tr("paused %1: stop-the-world, no renewals")
                            .arg(TextFormat::duration(s.endUs - s.startUs));
            p.save();
            p.setRenderHint(QPainter::Antialiasing, true);
            pill(p, QPointF(std::max(area.left(), c.lanes.left()) + 4, r.top() + 3),
                 QFontMetricsF(c.fonts.small).elidedText(label, Qt::ElideRight, area.width() - 20),
                 c.fonts.small, c.palette.dark ? c.palette.crashed : color,
                 c.palette.dark ? c.palette.background : QColor(Qt::white));
            p.restore();
        }
    }
}

void TimelineProcessPainter::paintPartitions(QPainter &p, const TimelinePaintContext &c, int process,
                                             const QRectF &r, bool tall)
{
    // Network partitions of a process: dashed fault-coloured edges over the lane (its workers run on, but
    // nothing they send arrives).
    if (process < 0 || process >= c.data.processCount())
        return;
    for (const Shade &s : c.data.partitions(process)) {
        if (s.startUs > c.visibleEnd || c.clamp(s.endUs) < c.visibleStart)
            continue;
        const QRectF area(QPointF(c.x(s.startUs), r.top()), QPointF(c.x(s.endUs), r.bottom()));
        p.fillRect(area, withAlpha(c.palette.fault, 28));
        p.setPen(QPen(c.palette.fault, 2, Qt::DashLine));
        p.drawLine(QPointF(area.left(), r.top() + 1), QPointF(area.right(), r.top() + 1));
        p.drawLine(QPointF(area.left(), r.bottom() - 1), QPointF(area.right(), r.bottom() - 1));
        p.drawLine(QPointF(area.left(), r.top()), QPointF(area.left(), r.bottom()));
        if (tall && area.width() > 120) {
            p.save();
            p.setRenderHint(QPainter::Antialiasing, true);
            pill(p, QPointF(std::max(area.left(), c.lanes.left()) + 4, r.top() + 3),
                 QFontMetricsF(c.fonts.small)
                     .elidedText(QObject::tr("cut off from the servers"), Qt::ElideRight, area.width() - 20),
                 c.fonts.small, c.palette.fault, c.palette.dark ? c.palette.background : QColor(Qt::white));
            p.restore();
        }
    }
}

void TimelineProcessPainter::paintFaults(QPainter &p, const TimelinePaintContext &c, int process,
                                         const QRectF &r)
{
    // Process-level faults (network delay, clock skew): a small zigzag.
    if (process < 0 || process >= c.data.processCount())
        return;
    for (const Mark &m : c.data.processMarks(process)) {
        if (m.timeUs < c.visibleStart || m.timeUs > c.visibleEnd)
            continue;
        zigzag(p, QPointF(c.x(m.timeUs) + 3, r.top()), std::min(10.0, r.height() * 0.6), c.palette.fault);
    }
}
