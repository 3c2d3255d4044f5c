// TimelineFramePainter: the ruler and the background grid share one tick spacing (about 90 px between major
// ticks), so grid lines always fall on labelled times.
#include "timelineframepainter.h"

#include "common/textformat.h"
#include "timelineshapes.h"

#include <QFontMetricsF>
#include <QPainter>
#include <QPolygonF>

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

// A lane's name, its state at the cursor (in words where there is room, else as a dot).
struct LaneText
{
    QString name;
    QString state;
    QColor stateColor;
    QString aside; // muted, right-aligned on the name's line (a process's worker count)
    bool dot = false;
    QColor dotColor;
};

QColor stateColour(const TimelinePalette &palette, TimelineData::WorkerState s)
{
    using S = TimelineData::WorkerState;
    return s == S::Holding ? palette.holding
        : s == S::Waiting  ? palette.waitingEdge
        : s == S::Stale    ? palette.stale
        : s == S::Crashed  ? palette.crashed
                           : palette.mutedText;
}

// A collapsed process: how many of its workers are in each state, the most telling first.
void processText(const TimelinePaintContext &c, const Lane &lane, LaneText *t)
{
    using S = TimelineData::WorkerState;
    const QList<int> &processOf = c.data.layout().workerProcesses;
    const S order[] = {S::Stale, S::Holding, S::Releasing, S::Waiting, S::Paused, S::Crashed};
    int counts[7] = {};
    int members = 0;
    for (int w = 0; w < c.data.workerCount(); ++w) {
        if (processOf.value(w, -1) != lane.index)
            continue;
        ++members;
        ++counts[int(c.data.workerStateAt(w, c.limitUs))];
    }
    t->name = c.data.layout().processes.value(lane.index);
    t->aside = TextFormat::count(members, QObject::tr("worker"), QObject::tr("workers"));
    if (!lane.collapsed)
        return;
    QStringList parts;
    S first = S::Idle;
    for (S s : order) {
        if (counts[int(s)] == 0)
            continue;
        if (parts.isEmpty())
            first = s;
        parts << QStringLiteral("%1 %2").arg(counts[int(s)]).arg(TimelineData::stateText(s));
    }
    t->state = parts.join(QStringLiteral(" · "));
    t->stateColor = stateColour(c.palette, first);
    if (lane.height < 16 && first != S::Idle) {
        t->dot = true;
        t->dotColor = t->stateColor;
        t->state.clear();
    }
}

LaneText laneText(const TimelinePaintContext &c, const Lane &lane)
{
    LaneText t;
    t.stateColor = c.palette.mutedText;
    const qint64 at = c.limitUs;
    switch (lane.type) {
    case LaneType::Story:
        t.name = QObject::tr("Steps");
        break;
    case LaneType::Server:
        t.name = QObject::tr("server %1").arg(lane.index);
        for (const Shade &s : c.data.serverShades(lane.index)) {
            if (s.startUs <= at && at < s.endUs) {
                t.state = s.type == Shade::Type::ServerDown ? QObject::tr("down") : QObject::tr("paused");
                t.stateColor = c.palette.serverDown;
            }
        }
        break;
    case LaneType::Lock: {
        const QString key = c.data.layout().locks.value(lane.index);
        t.name = key.section(u':', -1).isEmpty() ? key : key.section(u':', -1);
        if (c.data.lockCount() == 1)
            t.name = key.section(u':', -1);
        t.state = key;
        break;
    }
    case LaneType::Process:
        processText(c, lane, &t);
        break;
    case LaneType::Worker: {
        t.name = c.data.layout().workers.value(lane.index);
        t.aside = c.data.layout().workerLibraries.value(lane.index); // an external client's library…
        const auto s = c.data.workerStateAt(lane.index, at);
        t.state = TimelineData::stateText(s);
        const QString pids = c.data.layout().workerPids.value(lane.index); // …and its process
        if (!pids.isEmpty())
            t.state = t.state.isEmpty() ? pids : t.state + QStringLiteral(" · ") + pids;
        t.stateColor = stateColour(c.palette, s);
        if (lane.height < 16) {
            t.dot = s != TimelineData::WorkerState::Idle;
            t.dotColor = t.stateColor;
            t.state.clear();
        }
        break;
    }
    }
    return t;
}

// The part of the name column beside `lane`, with a margin.
QRectF headerRect(const TimelinePaintContext &c, const Lane &lane)
{
    return QRectF(c.view.rect.left() + 8, c.lanes.top() + lane.y - c.view.scrollY,
                  TimelineLayout::kHeaderWidth - 14, lane.height);
}

// The lanes whose names (or section titles above them) are in the column: [first, end).
std::pair<int, int> visibleLanes(const TimelinePaintContext &c)
{
    const QList<Lane> &lanes = c.layout.lanes();
    const double top = c.lanes.top() + c.view.scrollY - TimelineLayout::kSectionHeight;
    const double bottom = c.lanes.bottom() + c.view.scrollY;
    const int first
        = int(std::partition_point(lanes.begin(), lanes.end(),
                                   [&](const Lane &l) { return c.lanes.top() + l.y + l.height < top; })
              - lanes.begin());
    int end = first;
    while (end < lanes.size() && c.lanes.top() + lanes.at(end).y <= bottom)
        ++end;
    return {first, end};
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
        else if (lane.type == LaneType::Lock || lane.type == LaneType::Server
                 || lane.type == LaneType::Process)
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
        // Centred on the cursor, but kept whole inside the ruler (at the run's end it was cut: "6.102").
        const double w = fm.horizontalAdvance(text) + 10;
        const double left
            = std::clamp(x - w / 2, c.lanes.left(), std::max(c.lanes.left(), c.lanes.right() - w));
        pill(p, QPointF(left, ruler.top() + 4), text, c.fonts.small, c.palette.cursor, QColor(Qt::white));
        p.setRenderHint(QPainter::Antialiasing, false);
    }
    p.restore();
}

QList<TimelineFramePainter::HeaderLabel> TimelineFramePainter::headerLabels(const TimelinePaintContext &c)
{
    constexpr int kSectionHeight = TimelineLayout::kSectionHeight;
    const QList<Lane> &lanes = c.layout.lanes();
    const QFontMetricsF small(c.fonts.small);
    const QFontMetricsF bold(c.fonts.bold);
    QList<HeaderLabel> labels;
    // Labels are laid out top to bottom and one that would reach into the one above is left out, so names
    // never overlap however small the lanes get (the view keeps lanes tall enough for every name).
    double lastBottom = -1e9;
    const auto add = [&](const QRectF &rect, const QString &text, const QFont &font, const QColor &color,
                         Qt::Alignment align, bool sameLine = false) {
        if (text.isEmpty() || (!sameLine && rect.top() < lastBottom - 0.01))
            return false;
        labels.append({rect, text, font, color, align});
        lastBottom = std::max(lastBottom, rect.bottom());
        return true;
    };
    const auto [first, end] = visibleLanes(c);
    for (int i = first; i < end; ++i) {
        const Lane &lane = lanes.at(i);
        const QRectF lr = headerRect(c, lane);
        if (!lane.section.isEmpty()) {
            QFont f = c.fonts.small;
            f.setCapitalization(QFont::AllUppercase);
            f.setLetterSpacing(QFont::PercentageSpacing, 104);
            const QFontMetricsF fm(f);
            const double h = std::min<double>(kSectionHeight, fm.height());
            add(QRectF(lr.left(), lr.top() - kSectionHeight / 2.0 - h / 2,
                       std::min(lr.width(), fm.horizontalAdvance(lane.section)), h),
                lane.section, f, c.palette.mutedText, Qt::AlignLeft | Qt::AlignVCenter);
        }
        const LaneText t = laneText(c, lane);
        const double left = lr.left() + (lane.type == LaneType::Process ? kDisclosureWidth : 0);
        const double width = lr.right() - left - (t.dot ? 8 : 0);
        if (lane.height < 8) {
            // Too thin for a name each: every tenth worker is named, in a smaller font.
            if (lane.index % 10 == 0 || lane.type != LaneType::Worker) {
                QFont f = c.fonts.small;
                f.setPointSizeF(std::max(5.0, c.fonts.small.pointSizeF() * 0.8));
                const QFontMetricsF fm(f);
                const QString text = fm.elidedText(t.name, Qt::ElideMiddle, width);
                add(QRectF(left, lr.center().y() - fm.height() / 2, fm.horizontalAdvance(text), fm.height()),
                    text, f, c.palette.mutedText, Qt::AlignLeft | Qt::AlignVCenter);
            }
            continue;
        }
        const bool twoLines = !t.state.isEmpty() && lane.height >= bold.height() + small.height() - 2;
        const bool useBold = lane.height >= std::max(16.0, bold.height());
        const QFontMetricsF &nameFm = useBold ? bold : small;
        const QString name = nameFm.elidedText(t.name, Qt::ElideMiddle, width);
        const double nameW = nameFm.horizontalAdvance(name);
        // On the name's line, right-aligned after it: a process's worker count, or a worker's state.
        const auto addAside = [&](const QString &text, const QColor &color, double y) {
            const double room = width - nameW - 6;
            const QString aside = small.elidedText(text, Qt::ElideRight, room);
            const double w = small.horizontalAdvance(aside);
            if (room > 0 && !aside.isEmpty())
                add(QRectF(left + width - w, y - small.height() / 2, w, small.height()), aside, c.fonts.small,
                    color, Qt::AlignRight | Qt::AlignVCenter, true);
        };
        if (twoLines) {
            const QRectF nameRect(left, lr.center().y() - bold.height() + 1, nameW, bold.height());
            if (add(nameRect, name, c.fonts.bold, c.palette.text, Qt::AlignLeft | Qt::AlignVCenter)) {
                if (!t.aside.isEmpty())
                    addAside(t.aside, c.palette.mutedText, nameRect.center().y());
                const QString state = small.elidedText(t.state, Qt::ElideMiddle, width);
                add(QRectF(left, lr.center().y() + 1, small.horizontalAdvance(state), small.height()), state,
                    c.fonts.small, t.stateColor, Qt::AlignLeft | Qt::AlignTop);
            }
            continue;
        }
        const QRectF nameRect(left, lr.center().y() - nameFm.height() / 2, nameW, nameFm.height());
        if (!add(nameRect, name, useBold ? c.fonts.bold : c.fonts.small, c.palette.text,
                 Qt::AlignLeft | Qt::AlignVCenter))
            continue;
        if (!t.aside.isEmpty())
            addAside(t.aside, c.palette.mutedText, lr.center().y());
        else if (!t.state.isEmpty() && lane.type == LaneType::Worker)
            addAside(t.state, t.stateColor, lr.center().y());
    }
    return labels;
}

void TimelineFramePainter::paintHeaders(QPainter &p, const TimelinePaintContext &c)
{
    constexpr int kHeaderWidth = TimelineLayout::kHeaderWidth;
    const QList<Lane> &lanes = c.layout.lanes();
    const QRectF column(c.view.rect.left(), c.lanes.top(), kHeaderWidth, c.lanes.height());
    p.save();
    p.fillRect(column, c.palette.header);
    p.setPen(QPen(c.palette.grid, 1));
    p.drawLine(QPointF(column.right() - 0.5, c.view.rect.top()),
               QPointF(column.right() - 0.5, column.bottom()));
    p.setClipRect(column);
    const auto [first, end] = visibleLanes(c);
    for (int i = first; i < end; ++i) {
        const Lane &lane = lanes.at(i);
        const QRectF lr = headerRect(c, lane);
        if (i == c.view.hoverLane)
            p.fillRect(QRectF(column.left(), lr.top(), kHeaderWidth, lr.height()),
                       withAlpha(c.palette.cursor, 30));
        const LaneText t = laneText(c, lane);
        if (t.dot) {
            // No room for the state in words: a coloured dot says it.
            p.setPen(Qt::NoPen);
            p.setBrush(t.dotColor);
            p.drawRect(QRectF(lr.right() - 6, lr.center().y() - 2, 4, 4));
        }
        if (lane.type == LaneType::Process) {
            // The disclosure triangle: pointing right while collapsed, down while the workers show.
            const QPointF o(lr.left() + 1, lr.center().y());
            QPolygonF arrow;
            if (lane.collapsed)
                arrow << o + QPointF(0, -4) << o + QPointF(5, 0) << o + QPointF(0, 4);
            else
                arrow << o + QPointF(-1, -2.5) << o + QPointF(7, -2.5) << o + QPointF(3, 2.5);
            p.setRenderHint(QPainter::Antialiasing, true);
            p.setPen(Qt::NoPen);
            p.setBrush(c.palette.mutedText);
            p.drawPolygon(arrow);
            p.setRenderHint(QPainter::Antialiasing, false);
        }
    }
    for (const HeaderLabel &l : headerLabels(c)) {
        p.setFont(l.font);
        p.setPen(l.color);
        p.drawText(l.rect, int(l.align) | Qt::TextSingleLine, l.text);
    }
    p.restore();
}
