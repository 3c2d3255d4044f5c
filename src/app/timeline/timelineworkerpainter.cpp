// TimelineWorkerPainter: each kind of span is painted in one pass over what is visible (binary search to the
// first, stop after the last); spans thinner than two pixels go through a per-column coverage band, and
// labels, rounded corners and marks appear only while they are far enough apart to be read.
#include "timelineworkerpainter.h"

#include "timelinecoverage.h"
#include "timelineprocesspainter.h"
#include "timelineroundpainter.h"
#include "timelineshapes.h"

#include <QFontMetricsF>
#include <QPainter>

using Hold = TimelineData::Hold;
using Wait = TimelineData::Wait;
using Mark = TimelineData::Mark;
using namespace TimelineShapes;

namespace {

constexpr double kThinPx = 2.0; // narrower spans go through the per-column coverage
constexpr int kPrettyLimit = 400; // spans per lane below which corners are rounded and labels drawn
constexpr double kPrettySpacingPx = 12; // and when they are at least this far apart on average
constexpr double kMarkSpacingPx = 6; // read/write marks are drawn when they are this far apart on average

// One worker lane being painted: its bands, and what one layer decides for the next (how dense it is, where
// waits were given up).
struct WorkerLane
{
    WorkerLane(QPainter &p, const TimelinePaintContext &c, const TimelineLayout::Lane &lane)
        : p(p)
        , c(c)
        , lane(lane)
        , w(lane.index)
        , r(c.laneRect(lane).adjusted(0, lane.height >= 12 ? 2 : 0, 0, lane.height >= 12 ? -2 : 0))
        , tall(lane.height >= 18)
        , fm(c.fonts.small)
        , process(c.data.layout().workerProcesses.value(lane.index, -1))
    {
        const double holdH = std::max(2.0, r.height() * 0.72);
        holdBand = QRectF(r.left(), r.top() + (r.height() - holdH) / 2, r.width(), holdH);
        const double waitH = std::max(2.0, r.height() * 0.36);
        waitBand = QRectF(r.left(), r.top() + (r.height() - waitH) / 2, r.width(), waitH);
    }
    void paintWaits();
    void paintHolds();
    void paintRenewals();
    void paintMarks();
    void paintGaveUp();

    QPainter &p;
    const TimelinePaintContext &c;
    const TimelineLayout::Lane &lane;
    const int w;
    const QRectF r;
    QRectF holdBand;
    QRectF waitBand;
    const bool tall;
    const QFontMetricsF fm;
    const int process;
    QList<QPointF> gaveUp; // where a wait ended with a timeout: capped last, over everything
    bool prettyWaits = false;
    bool prettyHolds = false;
};

void WorkerLane::paintWaits()
{
    // Waiting (amber).
    const QList<Wait> &waits = c.data.waits(w);
    qsizetype wi
        = TimelineData::firstEndingAfter(waits, c.visibleStart, [](const Wait &s) { return s.endUs; });
    const qsizetype wEnd = std::partition_point(waits.begin() + wi, waits.end(),
                                                [&](const Wait &s) { return s.startUs <= c.visibleEnd; })
        - waits.begin();
    prettyWaits = wEnd - wi < kPrettyLimit && double(wEnd - wi) * kPrettySpacingPx < c.runWidth;
    TimelineCoverage waitCover(c.lanes.left(), c.lanes.width());
    QList<QRectF> waitRects;
    for (qsizetype i = wi; i < wEnd; ++i) {
        const Wait &s = waits.at(i);
        const double x0 = c.x(s.startUs);
        const double x1 = c.x(s.endUs);
        if (x1 - x0 < kThinPx) {
            waitCover.add(x0, x1);
        } else if (!waitRects.isEmpty() && x0 - waitRects.last().right() < 1.0 && !prettyWaits) {
            waitRects.last().setRight(x1);
        } else {
            waitRects << QRectF(x0, waitBand.top(), x1 - x0, waitBand.height());
        }
        if (s.outcome == Wait::Outcome::GaveUp && s.endUs <= c.limitUs)
            gaveUp << QPointF(x1, waitBand.center().y());
    }
    waitCover.paint(p, waitBand.top(), waitBand.height(), c.palette.waiting);
    p.setPen(Qt::NoPen);
    p.setBrush(c.palette.waiting);
    if (prettyWaits) {
        p.setRenderHint(QPainter::Antialiasing, true);
        for (const QRectF &rect : waitRects)
            p.drawRoundedRect(rect, std::min(3.0, rect.height() / 2), std::min(3.0, rect.height() / 2));
        p.setFont(c.fonts.small);
        p.setPen(c.palette.dark ? QColor(0x2a, 0x1c, 0x00) : QColor(0x4d, 0x34, 0x00));
        if (waitBand.height() >= fm.height() - 3) {
            for (const QRectF &rect : waitRects) {
                if (rect.width() > 70)
                    p.drawText(rect.adjusted(6, -2, -4, 2), Qt::AlignVCenter | Qt::AlignLeft,
                               QObject::tr("waiting"));
            }
        }
        p.setRenderHint(QPainter::Antialiasing, false);
    } else {
        p.drawRects(waitRects);
    }
}

void WorkerLane::paintHolds()
{
    // Holding (blue), the lease-expired part (hatched red), the release.
    TimelineCoverage holdCover(c.lanes.left(), c.lanes.width());
    QList<QRectF> holdRects;
    struct Extra
    {
        const Hold *hold;
        double x0, x1, staleX, endX, releaseX;
    };
    QList<Extra> extras;
    qsizetype holdsVisible = 0;
    for (int l = 0; l < c.data.lockCount(); ++l) {
        const QList<Hold> &holds = c.data.holds(w, l);
        qsizetype i = TimelineData::firstEndingAfter(holds, c.visibleStart, [](const Hold &h) {
            return h.releaseEndUs != TimelineData::kOpen ? h.releaseEndUs : h.endUs;
        });
        for (; i < holds.size(); ++i) {
            const Hold &h = holds.at(i);
            if (h.startUs > c.visibleEnd)
                break;
            ++holdsVisible;
            const double x0 = c.x(h.startUs);
            const double endX = c.x(h.endUs);
            const double staleX = h.validUntilUs < h.endUs ? c.x(h.validUntilUs) : endX;
            if (endX - x0 < kThinPx && h.validUntilUs >= h.endUs) {
                holdCover.add(x0, endX);
                continue;
            }
            holdRects << QRectF(x0, holdBand.top(), std::max(1.0, staleX - x0), holdBand.height());
            const double releaseX = h.releaseEndUs != TimelineData::kOpen ? c.x(h.releaseEndUs) : endX;
            extras << Extra {&h, x0, endX, staleX, endX, releaseX};
        }
    }
    holdCover.paint(p, holdBand.top(), holdBand.height(), c.palette.holding);
    prettyHolds = holdsVisible < kPrettyLimit && double(holdsVisible) * kPrettySpacingPx < c.runWidth;
    p.setPen(Qt::NoPen);
    p.setBrush(c.palette.holding);
    if (prettyHolds) {
        p.setRenderHint(QPainter::Antialiasing, true);
        for (const QRectF &rect : holdRects)
            p.drawRoundedRect(rect, std::min(3.0, rect.width() / 2), std::min(3.0, rect.height() / 3));
    } else {
        p.drawRects(holdRects);
    }
    for (const Extra &e : extras) {
        const Hold &h = *e.hold;
        // Still working after the lease ran out: the worker does not know its lock is gone.
        if (e.endX - e.staleX > 0.5) {
            const QRectF stale(e.staleX, holdBand.top(), e.endX - e.staleX, holdBand.height());
            p.setPen(Qt::NoPen);
            p.setBrush(withAlpha(c.palette.stale, 45));
            p.drawRect(stale);
            if (prettyHolds) {
                hatch(p, stale, withAlpha(c.palette.stale, 190), 6, 1.3);
                p.setPen(QPen(c.palette.stale, 1.2));
                p.setBrush(Qt::NoBrush);
                p.drawRect(stale.adjusted(0.5, 0.5, -0.5, -0.5));
                if (stale.width() > 110 && tall) {
                    pill(p, QPointF(stale.left() + 5, stale.center().y() - fm.height() / 2 - 1),
                         fm.elidedText(QObject::tr("lease expired, still working"), Qt::ElideRight,
                                       stale.width() - 20),
                         c.fonts.small, withAlpha(c.palette.background, 235), c.palette.stale);
                }
            }
            // Where the lease ran out.
            p.setPen(QPen(c.palette.stale, 2));
            p.drawLine(QPointF(e.staleX, r.top()), QPointF(e.staleX, r.bottom()));
        }
        if (prettyHolds && e.x1 - e.x0 > 80 && h.leaseMs >= 0 && tall) {
            const qint64 token = c.data.events().value(h.acquireEvent).token;
            if (token > 0 && e.staleX - e.x0 > 80) {
                p.setFont(c.fonts.small);
                p.setPen(c.palette.dark ? c.palette.text : QColor(Qt::white));
                p.drawText(QRectF(e.x0 + 6, holdBand.top(), e.staleX - e.x0 - 8, holdBand.height()),
                           Qt::AlignVCenter | Qt::AlignLeft, QObject::tr("token %1").arg(token));
            }
        }
        // The release: a dashed tail while it runs, then how it ended.
        if (h.releaseEndUs != TimelineData::kOpen && h.releaseEndUs <= c.limitUs) {
            const double cy = holdBand.center().y();
            if (e.releaseX - e.endX > 3) {
                p.setPen(QPen(c.palette.releasing, 2, Qt::DashLine));
                p.drawLine(QPointF(e.endX, cy), QPointF(e.releaseX, cy));
                if (prettyHolds && e.releaseX - e.endX > 80 && tall) {
                    p.setFont(c.fonts.small);
                    p.setPen(c.palette.mutedText);
                    p.drawText(QRectF(e.endX + 4, holdBand.top() - 1, e.releaseX - e.endX - 8,
                                      holdBand.height() / 2),
                               Qt::AlignLeft | Qt::AlignTop, QObject::tr("releasing…"));
                }
            }
            const auto outcome = HistoryEvent::ReleaseOutcome(h.releaseOutcome);
            if (h.releaseOutcome >= 0 && outcome == HistoryEvent::ReleaseOutcome::Released) {
                p.setPen(QPen(c.palette.holdingEdge, 2));
                p.drawLine(QPointF(e.releaseX, holdBand.top()), QPointF(e.releaseX, holdBand.bottom()));
            } else if (prettyHolds) {
                const QColor color = h.releaseOutcome == -2 ? c.palette.mutedText : c.palette.stale;
                cross(p, QPointF(e.releaseX, cy), std::min(4.0, holdBand.height() / 3), color);
            }
        }
    }
}

void WorkerLane::paintRenewals()
{
    // Renewals: ticks over the bar (green: renewed; red: the lock was already lost).
    if (lane.height >= 10) {
        const QList<Mark> &renewals = c.data.renewals(w);
        qsizetype i = std::partition_point(renewals.begin(), renewals.end(),
                                           [&](const Mark &m) { return m.timeUs < c.visibleStart; })
            - renewals.begin();
        double lastX = -1e9;
        for (; i < renewals.size(); ++i) {
            const Mark &m = renewals.at(i);
            if (m.timeUs > c.visibleEnd)
                break;
            const double x = c.x(m.timeUs);
            if (x - lastX < 3 && m.type == Mark::Type::RenewOk)
                continue;
            lastX = x;
            const QColor color = m.type == Mark::Type::RenewOk ? c.palette.renewOk : c.palette.renewLost;
            p.setPen(QPen(color, 2));
            p.drawLine(QPointF(x, r.top() - 1), QPointF(x, holdBand.top() + holdBand.height() * 0.4));
            if (m.type != Mark::Type::RenewOk && prettyHolds)
                cross(p, QPointF(x, r.top() + 2), 2.5, color, 1.5);
        }
    }
}

void WorkerLane::paintMarks()
{
    // The worker's own marks: reads, writes, refused writes, stray releases, errors.
    const QList<Mark> &marks = c.data.marks(w);
    qsizetype mi = std::partition_point(marks.begin(), marks.end(),
                                        [&](const Mark &m) { return m.timeUs < c.visibleStart; })
        - marks.begin();
    const qsizetype mEnd = std::partition_point(marks.begin() + mi, marks.end(),
                                                [&](const Mark &m) { return m.timeUs <= c.visibleEnd; })
        - marks.begin();
    // Marks closer than a few pixels on average are unreadable anyway (and each costs an antialiased shape).
    const bool marksReadable = double(mEnd - mi) * kMarkSpacingPx < c.runWidth;
    if (mEnd - mi < kPrettyLimit && marksReadable && lane.height >= 12) {
        p.setRenderHint(QPainter::Antialiasing, true);
        double lastX = -1e9;
        for (; mi < mEnd; ++mi) {
            const Mark &m = marks.at(mi);
            const double x = c.x(m.timeUs);
            const QPointF centre(x, holdBand.center().y());
            const double size = std::min(5.0, holdBand.height() / 2.6);
            switch (m.type) {
            case Mark::Type::Read:
                if (x - lastX < 4)
                    break;
                p.setPen(QPen(c.palette.holdingEdge, 1.3));
                p.setBrush(c.palette.background);
                p.drawEllipse(centre, size * 0.75, size * 0.75);
                break;
            case Mark::Type::Write:
                if (x - lastX < 4)
                    break;
                diamond(p, centre, size, c.palette.dark ? c.palette.text : c.palette.holdingEdge,
                        c.palette.background);
                break;
            case Mark::Type::WriteRefused:
                diamond(p, centre, size + 1.5, c.palette.fenced, c.palette.background);
                cross(p, centre, size * 0.45, c.palette.background, 1.4);
                if (tall) {
                    p.setFont(c.fonts.small);
                    p.setPen(c.palette.fenced);
                    sideLabel(p, x, size + 4, r, QObject::tr("write refused (stale token)"), c.lanes);
                }
                break;
            case Mark::Type::WriteUnknown:
            case Mark::Type::Error:
                diamond(p, centre, size, c.palette.mutedText, c.palette.background);
                break;
            case Mark::Type::ReleaseWithoutHold:
                p.setPen(QPen(c.palette.stale, 1.5));
                p.setBrush(Qt::NoBrush);
                p.drawEllipse(centre, size, size);
                break;
            default:
                break;
            }
            lastX = x;
        }
    }
}

void WorkerLane::paintGaveUp()
{
    // Gave up waiting: a red end cap.
    for (const QPointF &pt : gaveUp) {
        p.setPen(QPen(c.palette.stale, 2.5));
        p.drawLine(pt + QPointF(0, -waitBand.height()), pt + QPointF(0, waitBand.height()));
        if (tall && prettyWaits) {
            p.setFont(c.fonts.small);
            sideLabel(p, pt.x(), 4, r, QObject::tr("gave up"), c.lanes);
        }
    }
}

} // namespace

void TimelineWorkerPainter::paintLane(QPainter &p, const TimelinePaintContext &c,
                                      const TimelineLayout::Lane &lane)
{
    WorkerLane l(p, c, lane);
    // Back to front: what the worker waited for and held, its Redlock rounds, renewals and its own marks,
    // then what happened to its process over all of it.
    l.paintWaits();
    l.paintHolds();
    TimelineRoundPainter::paintRounds(p, c, lane, l.r, l.waitBand);
    l.paintRenewals();
    l.paintMarks();
    TimelineProcessPainter::paintShades(p, c, l.process, l.r, l.tall);
    TimelineProcessPainter::paintPartitions(p, c, l.process, l.r, l.tall);
    l.paintGaveUp();
    if (lane.height >= 12)
        TimelineProcessPainter::paintFaults(p, c, l.process, l.r);
    p.setRenderHint(QPainter::Antialiasing, false);
}
