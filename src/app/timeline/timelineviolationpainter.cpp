// TimelineViolationPainter: tags are placed last and skipped where they would cover another (the selected
// violation's always shows); past a few dozen on screen, bands merge per pixel column and lose their tags.
#include "timelineviolationpainter.h"

#include "timelinecoverage.h"
#include "timelineshapes.h"

#include <QFontMetricsF>
#include <QPainter>
#include <QPainterPath>

#include <map>

using LaneType = TimelineLayout::LaneType;
using namespace TimelineShapes;

namespace {
constexpr int kPrettyViolations = 40; // visible violations below which bands are antialiased and tagged
}

void TimelineViolationPainter::paint(QPainter &p, const TimelinePaintContext &c)
{
    const QList<Violation> &list = c.data.violations();
    if (list.isEmpty())
        return;
    const auto onScreen = [&](const Violation &v) {
        const qint64 end = v.openEnded ? c.limitUs : std::min(v.endUs, c.limitUs);
        return v.startUs <= c.visibleEnd && end >= c.visibleStart;
    };
    // Many violations at once (a zoomed-out run full of them): plain bands, tags only where few.
    const bool pretty = std::count_if(list.begin(), list.end(), onScreen) <= kPrettyViolations;
    p.setRenderHint(QPainter::Antialiasing, pretty);
    const QFontMetricsF fm(c.fonts.small);
    QList<QRectF> tags; // drawn last, never on top of each other
    struct Tag
    {
        QRectF rect;
        QString text;
        bool selected;
    };
    QList<Tag> pending;
    int drawn = 0;
    std::map<int, TimelineCoverage> crowdedRows; // when not pretty: each lane's bands merged per pixel column
    for (int i = 0; i < list.size(); ++i) {
        const Violation &v = list.at(i);
        const bool selected = i == c.view.selectedViolation;
        if (!onScreen(v))
            continue;
        const qint64 end = v.openEnded ? c.limitUs : std::min(v.endUs, c.limitUs);
        if (v.type == Violation::Type::FencingRejection
            || (v.type == Violation::Type::StaleHolder && !selected))
            continue;
        if (++drawn > 300 && !selected && pretty)
            continue;
        double x0 = c.x(v.startUs);
        double x1 = std::max(x0 + 3, c.x(end));
        QList<int> laneRows;
        for (int w : v.workers) {
            const int row = c.layout.laneShowing(w); // its own lane, or its collapsed process's (once)
            if (row >= 0 && !laneRows.contains(row))
                laneRows << row;
        }
        const int lockRow = c.layout.laneOf(LaneType::Lock, v.lock);
        if (lockRow >= 0 && v.type != Violation::Type::LostUpdate)
            laneRows << lockRow;
        if (laneRows.isEmpty())
            continue;
        if (!pretty && !selected && v.type != Violation::Type::ForeignRelease) {
            for (int row : laneRows)
                crowdedRows.try_emplace(row, c.lanes.left(), c.lanes.width()).first->second.add(x0, x1);
            continue;
        }
        double top = 1e9, bottom = -1e9;
        for (int row : laneRows) {
            const QRectF lr = c.laneRect(c.layout.lanes().at(row));
            top = std::min(top, lr.top());
            bottom = std::max(bottom, lr.bottom());
        }
        const QColor edge = c.palette.overlapEdge;
        if (v.type == Violation::Type::ForeignRelease) {
            // The release that deleted someone else's key: a line from the releaser to the key.
            const QRectF from = c.laneRect(c.layout.lanes().at(laneRows.first()));
            const QRectF key = lockRow >= 0 ? c.laneRect(c.layout.lanes().at(lockRow)) : from;
            const double x = c.x(std::max(v.startUs, v.endUs));
            p.setPen(QPen(edge, selected ? 3 : 2, Qt::SolidLine, Qt::RoundCap));
            p.drawLine(QPointF(x, from.center().y()), QPointF(x, key.center().y()));
            cross(p, QPointF(x, key.center().y()), 5, edge, 2.5);
            const QString victim = c.data.layout().workers.value(v.workers.value(1));
            const QString actor = c.data.layout().workers.value(v.workers.value(0));
            pending << Tag {QRectF(x + 8, key.top() + 1, 0, 0),
                            QObject::tr("%1 deleted %2's key").arg(actor, victim), selected};
            continue;
        }
        if (v.type == Violation::Type::LostUpdate && v.workers.size() >= 2) {
            // An arrow from the write that was lost to the stale write that overwrote it.
            const int lostRow = c.layout.laneShowing(v.workers.at(1));
            const int staleRow = c.layout.laneShowing(v.workers.at(0));
            if (lostRow < 0 || staleRow < 0)
                continue;
            const QPointF from(c.x(v.startUs), c.laneRect(c.layout.lanes().at(lostRow)).center().y());
            const QPointF to(c.x(v.endUs), c.laneRect(c.layout.lanes().at(staleRow)).center().y());
            QPainterPath path(from);
            path.cubicTo(QPointF((from.x() + to.x()) / 2, from.y()), QPointF((from.x() + to.x()) / 2, to.y()),
                         to);
            p.setPen(QPen(edge, selected ? 3 : 2, Qt::DashLine, Qt::RoundCap));
            p.setBrush(Qt::NoBrush);
            p.drawPath(path);
            cross(p, from, 5, edge, 2.5);
            const QString lost = c.data.layout().workers.value(v.workers.at(1));
            const QString stale = c.data.layout().workers.value(v.workers.at(0));
            const double tagH = fm.height() + 2;
            pending << Tag {QRectF(from.x() + 8, from.y() - tagH - 4, 0, 0),
                            QObject::tr("%1's update lost: %2 overwrote it").arg(lost, stale), selected};
            continue;
        }
        for (int row : laneRows) {
            const QRectF lr = c.laneRect(c.layout.lanes().at(row));
            p.fillRect(QRectF(x0, lr.top(), x1 - x0, lr.height()), c.palette.overlap);
        }
        const Qt::PenStyle style = v.type == Violation::Type::Overlap ? Qt::SolidLine : Qt::DashLine;
        p.setPen(QPen(edge, selected ? 3 : 1.6, style));
        p.setBrush(Qt::NoBrush);
        if (pretty)
            p.drawRoundedRect(QRectF(x0, top, x1 - x0, bottom - top), 3, 3);
        else
            p.drawRect(QRectF(x0, top, x1 - x0, bottom - top));
        if (!pretty && !selected)
            continue;
        QString text;
        QStringList names;
        QList<int> workers = v.workers;
        std::sort(workers.begin(), workers.end());
        for (int w : workers)
            names << c.data.layout().workers.value(w);
        switch (v.type) {
        case Violation::Type::Overlap:
            text = QObject::tr("overlap: %1 both inside").arg(names.join(QObject::tr(" and ")));
            break;
        case Violation::Type::LostUpdate:
            text = QObject::tr("lost update");
            break;
        case Violation::Type::StaleHolder:
            text = QObject::tr("stale holder");
            break;
        default:
            break;
        }
        // The tag sits just above the band (in the gap over the lanes) when there is room.
        const double tagH = fm.height() + 2;
        const double tagY = top - tagH - 1 >= c.lanes.top() ? top - tagH - 1 : top + 1;
        pending << Tag {QRectF(x0, tagY, x1 - x0, 0), text, selected};
    }
    for (const auto &[row, cover] : crowdedRows) {
        const QRectF lr = c.laneRect(c.layout.lanes().at(row));
        cover.paint(p, lr.top(), lr.height(), withAlpha(c.palette.overlapEdge, 170));
    }
    for (const Tag &t : pending) {
        const QString text = fm.horizontalAdvance(t.text) + 12 < std::max(t.rect.width(), 150.0) || t.selected
            ? t.text
            : QStringLiteral("!");
        QRectF r(t.rect.topLeft(), QSizeF(fm.horizontalAdvance(text) + 10, fm.height() + 2));
        bool clash = false;
        for (const QRectF &o : tags)
            clash = clash || o.intersects(r);
        if (clash && !t.selected)
            continue;
        tags << pill(p, r.topLeft(), text, c.fonts.small, c.palette.overlapEdge, QColor(Qt::white));
    }
    p.setRenderHint(QPainter::Antialiasing, false);
}
