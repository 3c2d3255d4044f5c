// TimelineLockPainter: with more tenures on screen than a third of the lane's pixel columns, they become one
// coverage band, so a zoomed-out busy lock costs one image, not thousands of bars.
#include "timelinelockpainter.h"

#include "timelinecoverage.h"
#include "timelineshapes.h"

#include <QFontMetricsF>
#include <QPainter>

using Hold = TimelineData::Hold;
using Mark = TimelineData::Mark;
using namespace TimelineShapes;

void TimelineLockPainter::paintLane(QPainter &p, const TimelinePaintContext &c,
                                    const TimelineLayout::Lane &lane)
{
    const QRectF r = c.laneRect(lane).adjusted(0, 3, 0, -3);
    const int lock = lane.index;
    struct Item
    {
        int worker;
        const Hold *hold;
        qint64 startUs;
        qint64 endUs;
    };
    QList<Item> items;
    qsizetype total = 0;
    for (int w = 0; w < c.data.workerCount(); ++w) {
        const QList<Hold> &holds = c.data.holds(w, lock);
        if (holds.isEmpty())
            continue;
        // Sorted by start; a tenure's key may outlive it a little (expiry), so start one early.
        qsizetype i = std::partition_point(holds.begin(), holds.end(),
                                           [&](const Hold &h) { return h.startUs < c.visibleStart; })
            - holds.begin();
        i = std::max<qsizetype>(0, i - 2);
        for (; i < holds.size(); ++i) {
            const Hold &h = holds.at(i);
            if (h.startUs > c.visibleEnd)
                break;
            const qint64 end = std::min(h.keyEndUs(), c.limitUs);
            if (end < c.visibleStart)
                continue;
            // The key's own life: from when the winning attempt set it, which is before its worker heard
            // back (a reply held up by a pause or a slow network arrives late; the key did not).
            const qint64 start = std::min(h.startUs, std::max<qint64>(h.leaseFromUs, 0));
            items.append(Item {w, &h, start, end});
            ++total;
        }
    }
    if (items.isEmpty())
        return;
    const QFontMetricsF fm(c.fonts.small);
    // Many tenures: the share of each pixel column the key existed, in one image.
    if (total > qsizetype(c.lanes.width() / 3)) {
        TimelineCoverage cover(c.lanes.left(), c.lanes.width());
        for (const Item &it : items)
            cover.add(c.x(it.startUs), c.x(it.endUs));
        cover.paint(p, r.top() + r.height() * 0.25, r.height() * 0.75, c.palette.holding);
        return;
    }
    std::sort(items.begin(), items.end(), [](const Item &a, const Item &b) { return a.startUs < b.startUs; });
    // Tenures that overlap in time get rows of their own (two holders = two rows: that is the problem).
    QList<qint64> rowEnds;
    QList<int> rows;
    for (const Item &it : items) {
        int row = 0;
        while (row < rowEnds.size() && rowEnds.at(row) > it.startUs)
            ++row;
        if (row == rowEnds.size())
            rowEnds << it.endUs;
        else
            rowEnds[row] = it.endUs;
        rows << std::min(row, 3);
    }
    const int rowCount = std::min(4, int(rowEnds.size()));
    const double rowH = r.height() / rowCount;
    p.setRenderHint(QPainter::Antialiasing, true);
    for (qsizetype k = 0; k < items.size(); ++k) {
        const Item &it = items.at(k);
        const Hold &h = *it.hold;
        const double x0 = c.x(it.startUs);
        const double x1 = std::max(x0 + 1.5, c.x(it.endUs));
        const QRectF bar(x0, r.top() + rows.at(k) * rowH + (rowCount > 1 ? 1 : 0), x1 - x0,
                         rowH - (rowCount > 1 ? 2 : 0));
        const QString owner = c.data.layout().workers.value(it.worker);
        if (h.flags & Hold::NoTtl) {
            p.setPen(QPen(c.palette.noTtl, 1.2));
            p.setBrush(withAlpha(c.palette.noTtl, 40));
            p.drawRect(bar);
            hatch(p, bar, withAlpha(c.palette.noTtl, 150), 6, 1.2);
            const QString text = QObject::tr("%1's key has no TTL: it never expires").arg(owner);
            if (bar.width() > 60)
                pill(p, QPointF(bar.left() + 4, bar.center().y() - fm.height() / 2 - 1),
                     fm.elidedText(text, Qt::ElideRight, bar.width() - 18), c.fonts.small,
                     c.palette.background, c.palette.noTtl);
            continue;
        }
        p.setPen(Qt::NoPen);
        p.setBrush(c.palette.holdingLight);
        p.drawRect(bar);
        // The TTL draining: full at each (re)start of the lease, empty when it runs out.
        const bool unseen = h.flags & Hold::RenewedUnseen; // no TTL to draw: its renewals are not known
        if (h.leaseMs > 0 && !unseen && bar.width() > 3) {
            const double lease = double(h.leaseMs) * 1000.0;
            QList<QPair<qint64, qint64>> refresh; // (time, new lease end)
            qint64 until = h.leaseFromUs + qint64(lease);
            const QList<Mark> &renewals = c.data.renewals(it.worker);
            qsizetype i = std::partition_point(renewals.begin(), renewals.end(),
                                               [&](const Mark &m) { return m.startUs < it.startUs; })
                - renewals.begin();
            double lastX = -1e9;
            for (; i < renewals.size(); ++i) {
                const Mark &m = renewals.at(i);
                if (m.startUs > it.endUs)
                    break;
                if (m.type != Mark::Type::RenewOk || m.lock != lock)
                    continue;
                until = std::max(until, m.startUs + qint64(lease));
                const double mx = c.x(m.startUs);
                if (mx - lastX < 1.0 && !refresh.isEmpty()) {
                    refresh.last().second = until;
                    continue;
                }
                lastX = mx;
                refresh.append({m.startUs, until});
            }
            const auto y
                = [&](double ttl) { return bar.bottom() - std::clamp(ttl, 0.0, 1.0) * bar.height(); };
            QPolygonF poly;
            poly << QPointF(x0, bar.bottom());
            qint64 end = h.leaseFromUs + qint64(lease);
            qint64 t = it.startUs;
            poly << QPointF(x0, y(double(end - t) / lease));
            for (const auto &[at, newEnd] : refresh) {
                poly << QPointF(c.x(at), y(double(end - at) / lease));
                end = newEnd;
                poly << QPointF(c.x(at), y(double(end - at) / lease));
            }
            poly << QPointF(x1, y(double(end - it.endUs) / lease)) << QPointF(x1, bar.bottom());
            p.setBrush(withAlpha(c.palette.holding, 215));
            p.drawPolygon(poly);
        } else if (h.leaseMs <= 0 || unseen) {
            p.setBrush(withAlpha(c.palette.holding, 215));
            p.drawRect(bar);
        }
        p.setPen(QPen(c.palette.holdingEdge, 1));
        p.setBrush(Qt::NoBrush);
        p.drawRect(bar);
        if (bar.width() > fm.horizontalAdvance(owner) + 10) {
            QString label = owner;
            const QString more = h.flags & Hold::Crashed ? QObject::tr("%1 (crashed)").arg(owner)
                                                         : QObject::tr("%1 holds it").arg(owner);
            if (bar.width() > fm.horizontalAdvance(more) + 16)
                label = more;
            pill(p, QPointF(bar.left() + 3, bar.top() + 2), label, c.fonts.small,
                 withAlpha(c.palette.background, 225), c.palette.holdingEdge);
        }
        // Ran out instead of being released: mark where the key vanished.
        if (h.expired(c.limitUs) && h.validUntilUs <= c.limitUs) {
            const double ex = c.x(h.validUntilUs);
            p.setPen(QPen(c.palette.stale, 2));
            p.drawLine(QPointF(ex, bar.top()), QPointF(ex, bar.bottom()));
            if (rows.at(k) == rowCount - 1 || rowCount == 1) {
                p.setFont(c.fonts.small);
                p.setPen(c.palette.stale);
                sideLabel(p, ex, 3,
                          QRectF(bar.left(), bar.bottom() - fm.height() - 1, bar.width(), fm.height()),
                          QObject::tr("expired"), c.lanes);
            }
        }
    }
    p.setRenderHint(QPainter::Antialiasing, false);
}
