// TimelineFramePainter: the ruler and the background grid share one tick spacing (about 90 px between major
// ticks), so grid lines always fall on labelled times.
#include "timelineframepainter.h"

#include "textformat.h"
#include "timelineshapes.h"

#include <QFontMetricsF>
#include <QPainter>

#include <cmath>

using Lane = TimelineLayout::Lane;
using LaneType = TimelineLayout::LaneType;
using Shade = TimelineData::Shade;
using namespace TimelineShapes;

namespace {

// Nice 1-2-5 steps.
qint64 niceStep(double minUs)
{
    double base = std::pow(10.0, std::floor(std::log10(std::max(1.0, minUs))));
    for (double m : {1.0, 2.0, 5.0, 10.0}) {
        if (base * m >= minUs)
            return std::max<qint64>(1, qint64(base * m));
    }
    return qint64(base * 10);
}

qint64 majorStep(const TimelinePaintContext &c)
{
    return niceStep(90.0 / std::max(1e-12, c.pxPerUs));
}

QString workerStateText(TimelineData::WorkerState state)
{
    using S = TimelineData::WorkerState;
    switch (state) {
    case S::Idle:
        return QString();
    case S::Waiting:
        return QObject::tr("waiting");
    case S::Holding:
        return QObject::tr("holding");
    case S::Stale:
        return QObject::tr("lease expired!");
    case S::Releasing:
        return QObject::tr("releasing");
    case S::Paused:
        return QObject::tr("paused");
    case S::Crashed:
        return QObject::tr("crashed");
    }
    return QString();
}

} // namespace

void TimelineFramePainter::paintLaneBackgrounds(QPainter &p, const TimelinePaintContext &c)
{
    const QList<Lane> &lanes = c.layout.lanes();
    p.save();
    p.setClipRect(QRectF(c.view.rect.left(), c.lanes.top(), c.view.rect.width(), c.lanes.height()));
    const int first = std::max(0, c.layout.laneAt(int(c.lanes.top()), c.view) - 1);
    for (int i = first; i < lanes.size(); ++i) {
        const Lane &lane = lanes.at(i);
        const QRectF r = c.laneRect(lane);
        if (r.top() > c.lanes.bottom())
            break;
        // Alternate shades: worker lanes by process (a process's threads share one), others one by one.
        bool alt = false;
        if (lane.type == LaneType::Worker)
            alt = c.data.layout().workerProcesses.value(lane.index, lane.index) % 2 == 1;
        else if (lane.type == LaneType::Lock || lane.type == LaneType::Server)
            alt = lane.index % 2 == 1;
        p.fillRect(r, alt ? c.palette.laneAlt : c.palette.background);
        if (lane.height >= 10 && lane.type != LaneType::Story) {
            p.setPen(QPen(withAlpha(c.palette.grid, 120), 1));
            p.drawLine(QPointF(r.left(), r.bottom() + 0.5), QPointF(r.right(), r.bottom() + 0.5));
        }
    }
    // Vertical grid at the ruler's major ticks.
    const qint64 step = majorStep(c);
    p.setPen(QPen(withAlpha(c.palette.grid, 150), 1, Qt::DotLine));
    for (qint64 t = (c.view.startUs / step) * step; t <= c.view.endUs; t += step) {
        const double x = c.lanes.left() + double(t - c.view.startUs) * c.pxPerUs;
        if (x >= c.lanes.left())
            p.drawLine(QPointF(x, c.lanes.top()), QPointF(x, c.lanes.bottom()));
    }
    p.restore();
}

void TimelineFramePainter::paintFuture(QPainter &p, const TimelinePaintContext &c)
{
    if (c.view.cursorUs != TimelineData::kOpen && c.view.cursorUs < c.data.nowUs()) {
        const double cx = std::max(c.lanes.left(), c.x(c.view.cursorUs));
        p.fillRect(QRectF(cx, c.lanes.top(), c.lanes.right() - cx, c.lanes.height()),
                   withAlpha(c.palette.future, 200));
    }
}

void TimelineFramePainter::paintCursor(QPainter &p, const TimelinePaintContext &c)
{
    const qint64 marker = c.view.cursorUs != TimelineData::kOpen ? c.view.cursorUs
        : c.data.isFinished()                                    ? TimelineData::kOpen
                                                                 : c.data.nowUs();
    if (marker == TimelineData::kOpen)
        return;
    // Not c.x(): the cursor may stand after the run's present, which c.x() clamps to.
    const double x = c.lanes.left() + double(marker - c.view.startUs) * c.pxPerUs;
    p.setPen(QPen(c.palette.cursor, 1.6));
    p.drawLine(QPointF(x, c.lanes.top()), QPointF(x, c.lanes.bottom()));
}

void TimelineFramePainter::paintRuler(QPainter &p, const TimelinePaintContext &c)
{
    const QRectF ruler(c.lanes.left(), c.view.rect.top(), c.lanes.width(), TimelineLayout::kRulerHeight);
    p.fillRect(
        QRectF(c.view.rect.left(), c.view.rect.top(), c.view.rect.width(), TimelineLayout::kRulerHeight),
        c.palette.header);
    p.setPen(QPen(c.palette.grid, 1));
    p.drawLine(QPointF(c.view.rect.left(), ruler.bottom() - 0.5),
               QPointF(c.view.rect.right(), ruler.bottom() - 0.5));
    const qint64 step = majorStep(c);
    const qint64 minor = step % 5 == 0 ? step / 5 : step / 2;
    p.save();
    p.setClipRect(ruler.adjusted(-2, 0, 2, 0));
    p.setFont(c.fonts.small);
    if (minor > 0 && minor * c.pxPerUs >= 6) {
        p.setPen(QPen(c.palette.grid, 1));
        for (qint64 t = (c.view.startUs / minor) * minor; t <= c.view.endUs; t += minor) {
            const double x = c.lanes.left() + double(t - c.view.startUs) * c.pxPerUs;
            p.drawLine(QPointF(x, ruler.bottom() - 5), QPointF(x, ruler.bottom()));
        }
    }
    for (qint64 t = (c.view.startUs / step) * step; t <= c.view.endUs + step; t += step) {
        const double x = c.lanes.left() + double(t - c.view.startUs) * c.pxPerUs;
        p.setPen(QPen(c.palette.mutedText, 1));
        p.drawLine(QPointF(x, ruler.bottom() - 9), QPointF(x, ruler.bottom()));
        p.setPen(c.palette.text);
        p.drawText(QRectF(x + 3, ruler.top() + 2, 90, ruler.height() - 10), Qt::AlignLeft | Qt::AlignVCenter,
                   TextFormat::runTime(t, step));
    }
    // The cursor's exact time.
    if (c.view.cursorUs != TimelineData::kOpen) {
        const double x = c.lanes.left() + double(c.view.cursorUs - c.view.startUs) * c.pxPerUs;
        p.setRenderHint(QPainter::Antialiasing, true);
        const QString text = TextFormat::runTime(c.view.cursorUs, 1000);
        const QFontMetricsF fm(c.fonts.small);
        pill(p, QPointF(x - fm.horizontalAdvance(text) / 2 - 5, ruler.top() + 4), text, c.fonts.small,
             c.palette.cursor, QColor(Qt::white));
        p.setRenderHint(QPainter::Antialiasing, false);
    }
    p.restore();
}

void TimelineFramePainter::paintHeaders(QPainter &p, const TimelinePaintContext &c)
{
    constexpr int kHeaderWidth = TimelineLayout::kHeaderWidth;
    constexpr int kSectionHeight = TimelineLayout::kSectionHeight;
    const QList<Lane> &lanes = c.layout.lanes();
    const QRectF column(c.view.rect.left(), c.lanes.top(), kHeaderWidth, c.lanes.height());
    p.save();
    p.fillRect(column, c.palette.header);
    p.setPen(QPen(c.palette.grid, 1));
    p.drawLine(QPointF(column.right() - 0.5, c.view.rect.top()),
               QPointF(column.right() - 0.5, column.bottom()));
    p.setClipRect(column);
    const qint64 at = c.limitUs;
    const QFontMetricsF small(c.fonts.small);
    const QFontMetricsF bold(c.fonts.bold);
    for (int i = 0; i < lanes.size(); ++i) {
        const Lane &lane = lanes.at(i);
        const QRectF lr(column.left() + 8, column.top() + lane.y - c.view.scrollY, kHeaderWidth - 14,
                        lane.height);
        if (lr.bottom() + kSectionHeight < column.top())
            continue;
        if (lr.top() > column.bottom())
            break;
        if (!lane.section.isEmpty()) {
            QFont f = c.fonts.small;
            f.setCapitalization(QFont::AllUppercase);
            f.setLetterSpacing(QFont::PercentageSpacing, 104);
            p.setFont(f);
            p.setPen(c.palette.mutedText);
            p.drawText(QRectF(lr.left(), lr.top() - kSectionHeight, lr.width(), kSectionHeight),
                       Qt::AlignLeft | Qt::AlignVCenter, lane.section);
        }
        if (i == c.view.hoverLane)
            p.fillRect(QRectF(column.left(), lr.top(), kHeaderWidth, lr.height()),
                       withAlpha(c.palette.cursor, 30));
        QString name;
        QString state;
        QColor stateColor = c.palette.mutedText;
        switch (lane.type) {
        case LaneType::Story:
            name = QObject::tr("Steps");
            break;
        case LaneType::Server: {
            name = QObject::tr("server %1").arg(lane.index);
            for (const Shade &s : c.data.serverShades(lane.index)) {
                if (s.startUs <= at && at < s.endUs) {
                    state = s.type == Shade::Type::ServerDown ? QObject::tr("down") : QObject::tr("paused");
                    stateColor = c.palette.serverDown;
                }
            }
            break;
        }
        case LaneType::Lock: {
            const QString key = c.data.layout().locks.value(lane.index);
            name = key.section(u':', -1).isEmpty() ? key : key.section(u':', -1);
            if (c.data.lockCount() == 1)
                name = key.section(u':', -1);
            state = key;
            break;
        }
        case LaneType::Worker: {
            name = c.data.layout().workers.value(lane.index);
            const auto s = c.data.workerStateAt(lane.index, at);
            state = workerStateText(s);
            using S = TimelineData::WorkerState;
            stateColor = s == S::Holding ? c.palette.holding
                : s == S::Waiting        ? c.palette.waitingEdge
                : s == S::Stale          ? c.palette.stale
                : s == S::Crashed        ? c.palette.crashed
                                         : c.palette.mutedText;
            if (lane.height < 16) {
                // No room for two lines: a coloured dot says the state.
                p.setPen(Qt::NoPen);
                p.setBrush(s == S::Idle ? Qt::transparent : stateColor);
                p.drawRect(QRectF(lr.right() - 6, lr.center().y() - 2, 4, 4));
                state.clear();
            }
            break;
        }
        }
        if (lane.height < 8) {
            if (lane.index % 10 == 0 || lane.type != LaneType::Worker) {
                QFont f = c.fonts.small;
                f.setPointSizeF(std::max(5.0, c.fonts.small.pointSizeF() * 0.8));
                p.setFont(f);
                p.setPen(c.palette.mutedText);
                p.drawText(QRectF(lr.left(), lr.top() - 4, lr.width(), 12), Qt::AlignLeft | Qt::AlignVCenter,
                           name);
            }
            continue;
        }
        const bool twoLines = !state.isEmpty() && lane.height >= bold.height() + small.height() - 2;
        p.setFont(lane.height >= 16 ? c.fonts.bold : c.fonts.small);
        p.setPen(c.palette.text);
        const QRectF nameRect = twoLines
            ? QRectF(lr.left(), lr.center().y() - bold.height() + 1, lr.width(), bold.height())
            : QRectF(lr.left(), lr.top(), lr.width(), lr.height());
        p.drawText(nameRect, Qt::AlignLeft | Qt::AlignVCenter,
                   (lane.height >= 16 ? bold : small).elidedText(name, Qt::ElideMiddle, lr.width()));
        if (twoLines) {
            p.setFont(c.fonts.small);
            p.setPen(stateColor);
            p.drawText(QRectF(lr.left(), lr.center().y() + 1, lr.width(), small.height()),
                       Qt::AlignLeft | Qt::AlignTop, small.elidedText(state, Qt::ElideMiddle, lr.width()));
        } else if (!state.isEmpty() && lane.type == LaneType::Worker) {
            p.setFont(c.fonts.small);
            p.setPen(stateColor);
            const double nameW = (lane.height >= 16 ? bold : small).horizontalAdvance(name) + 6;
            p.drawText(QRectF(lr.left() + nameW, lr.top(), lr.width() - nameW, lr.height()),
                       Qt::AlignRight | Qt::AlignVCenter,
                       small.elidedText(state, Qt::ElideRight, lr.width() - nameW));
        }
    }
    p.restore();
}
