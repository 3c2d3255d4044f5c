// TimelineRoundPainter: rows of cells are never drawn over each other; when they would crowd the lane, only
// the lost rounds are marked (a red tick each), since those are the ones to look at.
#include "timelineroundpainter.h"

#include "timelineshapes.h"

#include <QFontMetricsF>
#include <QPainter>

using namespace TimelineShapes;

namespace {
constexpr int kVoteCellsMinLane = 20; // worker lanes at least this tall show the cells; smaller: ticks
}

void TimelineRoundPainter::paintRounds(QPainter &p, const TimelinePaintContext &c,
                                       const TimelineLayout::Lane &lane, const QRectF &r,
                                       const QRectF &waitBand)
{
    // Redlock rounds: at a glance, who granted each one (a row of cells just under the waiting bar, at the
    // start of the hold it won); dense or small lanes get a red tick per lost round instead.
    const QList<TimelineData::Round> &rounds = c.data.rounds(lane.index);
    if (rounds.isEmpty() || lane.height < 10)
        return;
    const int servers = c.data.serverCount();
    const double rowW = servers * (kVoteCellPx + 1) + 1;
    const qsizetype first = std::partition_point(rounds.begin(), rounds.end(),
                                                 [&](const TimelineData::Round &x) {
                                                     return c.x(x.startUs) + rowW < c.lanes.left();
                                                 })
        - rounds.begin();
    const qsizetype end = std::partition_point(rounds.begin() + first, rounds.end(),
                                               [&](const TimelineData::Round &x) {
                                                   return x.startUs <= c.visibleEnd && x.startUs <= c.limitUs;
                                               })
        - rounds.begin();
    if (end <= first)
        return;
    const bool cells = lane.height >= kVoteCellsMinLane && double(end - first) * (rowW + 3) < c.lanes.width();
    const double cellH = std::clamp(r.bottom() - waitBand.bottom() - 4, 3.0, 6.0);
    const double y = std::min(waitBand.bottom() + 1, r.bottom() - cellH - 2);
    p.save();
    p.setClipRect(c.lanes);
    double lastX = -1e9;
    for (qsizetype i = first; i < end; ++i) {
        const TimelineData::Round &round = rounds.at(i);
        const double x = c.x(round.startUs);
        if (cells) {
            // Rows never overlap: a round right after another is drawn just after it.
            const double left = std::max(x, lastX + 2);
            const QRectF frame = voteCells(p, QPointF(left, y), cellH, servers, round, c.palette);
            lastX = frame.right();
            if (round.won() && lane.height >= 24) {
                // "3/5" at the start of the hold the round won (white on the blue bar).
                const QString text = QStringLiteral("%1/%2").arg(round.grantedCount()).arg(servers);
                p.setFont(c.fonts.small);
                p.setPen(c.palette.dark ? c.palette.text : QColor(Qt::white));
                const QFontMetricsF fm(c.fonts.small);
                const double holdH = std::max(2.0, r.height() * 0.72);
                const QRectF label(c.x(round.endUs) + 4, r.top() + (r.height() - holdH) / 2,
                                   fm.horizontalAdvance(text) + 4, y - r.top() - (r.height() - holdH) / 2);
                if (label.height() >= fm.height() - 4 && label.right() < c.lanes.right())
                    p.drawText(label, Qt::AlignLeft | Qt::AlignVCenter, text);
            }
        } else if (!round.won() && x - lastX >= 2) {
            p.setPen(QPen(c.palette.stale, 1.5));
            p.drawLine(QPointF(x, y), QPointF(x, r.bottom() - 1));
            lastX = x;
        }
    }
    p.restore();
}
