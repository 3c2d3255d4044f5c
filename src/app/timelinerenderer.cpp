// TimelineRenderer: lane layout, level-of-detail painting and hit testing.
#include "timelinerenderer.h"

#include "textformat.h"
#include "timelinecoverage.h"
#include "timelineshapes.h"

#include <QFontMetrics>
#include <QImage>
#include <QPainter>
#include <QPainterPath>

#include <cmath>
#include <cstring>
#include <map>

using Hold = TimelineData::Hold;
using Wait = TimelineData::Wait;
using Mark = TimelineData::Mark;
using Shade = TimelineData::Shade;
using namespace TimelineShapes;

namespace {

constexpr int kLaneGap = 2;
constexpr double kThinPx = 2.0; // narrower spans go through the per-column coverage
constexpr int kPrettyLimit = 400; // spans per lane below which corners are rounded and labels drawn
constexpr double kPrettySpacingPx = 12; // and when they are at least this far apart on average
constexpr double kMarkSpacingPx = 6; // read/write marks are drawn when they are this far apart on average
constexpr int kPrettyViolations = 40; // visible violations below which bands are antialiased and tagged
constexpr int kVoteCellsMinLane = 20; // worker lanes at least this tall show the cells; smaller: ticks

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

} // namespace

struct TimelineRenderer::Context
{
    const View &view;
    QRectF lanes; // the lanes' area, widget coordinates
    double pxPerUs = 0;
    qint64 limitUs = 0; // nothing is drawn after this time (now, or the replay cursor)
    qint64 visibleStart = 0;
    qint64 visibleEnd = 0;

    double x(qint64 t) const
    {
        const qint64 clamped = std::min(t, limitUs);
        return lanes.left() + double(clamped - view.startUs) * pxPerUs;
    }
    qint64 clamp(qint64 t) const { return std::min(t, limitUs); }
};

TimelineRenderer::TimelineRenderer()
{
    setFont(QFont());
}

void TimelineRenderer::setFont(const QFont &font)
{
    m_font = font;
    m_smallFont = font;
    m_smallFont.setPointSizeF(std::max(6.5, font.pointSizeF() * 0.82));
    m_boldFont = font;
    m_boldFont.setBold(true);
}

void TimelineRenderer::setData(const TimelineData *data)
{
    m_data = data;
    relayout();
}

void TimelineRenderer::setWorkerLaneHeight(int height)
{
    m_workerLaneHeight = std::clamp(height, 4, 48);
    relayout();
}

void TimelineRenderer::relayout()
{
    m_lanes.clear();
    m_contentHeight = 0;
    if (!m_data)
        return;
    int y = 4;
    const auto section = [&](const QString &title) {
        Lane l;
        l.section = title;
        y += kSectionHeight;
        return l;
    };
    bool anyNote = false;
    for (const Scenario::Step &s : m_data->layout().steps)
        anyNote = anyNote || !s.note.isEmpty();
    if (anyNote) {
        Lane l = section(QObject::tr("Story"));
        l.type = LaneType::Story;
        l.y = y;
        l.height = 30;
        m_lanes << l;
        y += l.height + kLaneGap;
    }
    if (m_data->serverCount() > 1 || m_data->hasServerActivity()) {
        for (int s = 0; s < m_data->serverCount(); ++s) {
            Lane l = s == 0 ? section(QObject::tr("Redis servers")) : Lane();
            l.type = LaneType::Server;
            l.index = s;
            l.y = y;
            l.height = 15;
            m_lanes << l;
            y += l.height + kLaneGap;
        }
    }
    const int locks = m_data->lockCount();
    for (int i = 0; i < locks; ++i) {
        Lane l = i == 0 ? section(locks == 1 ? QObject::tr("Lock key") : QObject::tr("Lock keys")) : Lane();
        l.type = LaneType::Lock;
        l.index = i;
        l.y = y;
        l.height = locks > 8 ? 22 : 36;
        m_lanes << l;
        y += l.height + kLaneGap;
    }
    const int gap = m_workerLaneHeight >= 12 ? kLaneGap : 0;
    for (int w = 0; w < m_data->workerCount(); ++w) {
        Lane l = w == 0 ? section(QObject::tr("Workers")) : Lane();
        l.type = LaneType::Worker;
        l.index = w;
        l.y = y;
        l.height = m_workerLaneHeight;
        m_lanes << l;
        y += l.height + gap;
    }
    m_contentHeight = y + 4;
}

int TimelineRenderer::laneOf(LaneType type, int index) const
{
    for (int i = 0; i < m_lanes.size(); ++i) {
        if (m_lanes.at(i).type == type && m_lanes.at(i).index == index)
            return i;
    }
    return -1;
}

QRect TimelineRenderer::lanesRect(const View &view) const
{
    return QRect(view.rect.left() + kHeaderWidth, view.rect.top() + kRulerHeight,
                 std::max(1, view.rect.width() - kHeaderWidth),
                 std::max(1, view.rect.height() - kRulerHeight));
}

int TimelineRenderer::laneAt(int y, const View &view) const
{
    const int contentY = y - lanesRect(view).top() + view.scrollY;
    const auto it = std::partition_point(m_lanes.begin(), m_lanes.end(),
                                         [&](const Lane &l) { return l.y + l.height <= contentY; });
    if (it == m_lanes.end() || it->y > contentY)
        return -1;
    return int(it - m_lanes.begin());
}

double TimelineRenderer::xForTime(qint64 us, const View &view) const
{
    const QRect r = lanesRect(view);
    const double span = double(std::max<qint64>(1, view.endUs - view.startUs));
    return r.left() + double(us - view.startUs) * r.width() / span;
}

qint64 TimelineRenderer::timeForX(double x, const View &view) const
{
    const QRect r = lanesRect(view);
    const double span = double(std::max<qint64>(1, view.endUs - view.startUs));
    return view.startUs + qint64((x - r.left()) * span / r.width());
}

QRectF TimelineRenderer::laneRect(const Context &c, const Lane &lane) const
{
    return QRectF(c.lanes.left(), c.lanes.top() + lane.y - c.view.scrollY, c.lanes.width(), lane.height);
}

QString TimelineRenderer::workerStateText(TimelineData::WorkerState state) const
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

void TimelineRenderer::paint(QPainter &p, const View &view) const
{
    p.save();
    p.setFont(m_font);
    p.fillRect(view.rect, m_palette.background);
    if (!m_data) {
        p.restore();
        return;
    }
    Context c {view, QRectF(lanesRect(view))};
    c.pxPerUs = c.lanes.width() / double(std::max<qint64>(1, view.endUs - view.startUs));
    c.limitUs = std::min(m_data->nowUs(), view.cursorUs);
    c.visibleStart = view.startUs;
    c.visibleEnd = std::min(view.endUs, c.limitUs);

    paintLaneBackgrounds(p, c);
    p.save();
    p.setClipRect(c.lanes);
    // Beyond the replay cursor: the part of the run not replayed yet.
    if (view.cursorUs != TimelineData::kOpen && view.cursorUs < m_data->nowUs()) {
        const double cx = std::max(c.lanes.left(), c.x(view.cursorUs));
        p.fillRect(QRectF(cx, c.lanes.top(), c.lanes.right() - cx, c.lanes.height()),
                   withAlpha(m_palette.future, 200));
    }
    paintStepGuides(p, c);
    const int first = std::max(0, laneAt(int(c.lanes.top()), view));
    for (int i = first; i < m_lanes.size(); ++i) {
        const Lane &lane = m_lanes.at(i);
        const QRectF r = laneRect(c, lane);
        if (r.top() > c.lanes.bottom())
            break;
        if (r.bottom() < c.lanes.top())
            continue;
        switch (lane.type) {
        case LaneType::Story:
            paintStoryLane(p, c, lane);
            break;
        case LaneType::Server:
            paintServerLane(p, c, lane);
            break;
        case LaneType::Lock:
            paintLockLane(p, c, lane);
            break;
        case LaneType::Worker:
            paintWorkerLane(p, c, lane);
            break;
        }
    }
    paintViolations(p, c);
    // The cursor (replay) or the live edge.
    const qint64 marker = view.cursorUs != TimelineData::kOpen ? view.cursorUs
        : m_data->isFinished()                                 ? TimelineData::kOpen
                                                               : m_data->nowUs();
    if (marker != TimelineData::kOpen) {
        const double x = c.lanes.left() + double(marker - view.startUs) * c.pxPerUs;
        p.setPen(QPen(m_palette.cursor, 1.6));
        p.drawLine(QPointF(x, c.lanes.top()), QPointF(x, c.lanes.bottom()));
    }
    p.restore();
    paintRuler(p, c);
    paintHeaders(p, c);
    p.restore();
}

void TimelineRenderer::paintLaneBackgrounds(QPainter &p, const Context &c) const
{
    p.save();
    p.setClipRect(QRectF(c.view.rect.left(), c.lanes.top(), c.view.rect.width(), c.lanes.height()));
    const int first = std::max(0, laneAt(int(c.lanes.top()), c.view) - 1);
    for (int i = first; i < m_lanes.size(); ++i) {
        const Lane &lane = m_lanes.at(i);
        const QRectF r = laneRect(c, lane);
        if (r.top() > c.lanes.bottom())
            break;
        bool alt = false;
        if (lane.type == LaneType::Worker)
            alt = m_data->layout().workerProcesses.value(lane.index, lane.index) % 2 == 1;
        else if (lane.type == LaneType::Lock || lane.type == LaneType::Server)
            alt = lane.index % 2 == 1;
        p.fillRect(r, alt ? m_palette.laneAlt : m_palette.background);
        if (lane.height >= 10 && lane.type != LaneType::Story) {
            p.setPen(QPen(withAlpha(m_palette.grid, 120), 1));
            p.drawLine(QPointF(r.left(), r.bottom() + 0.5), QPointF(r.right(), r.bottom() + 0.5));
        }
    }
    // Vertical grid at the ruler's major ticks.
    const qint64 step = niceStep(90.0 / std::max(1e-12, c.pxPerUs));
    p.setPen(QPen(withAlpha(m_palette.grid, 150), 1, Qt::DotLine));
    for (qint64 t = (c.view.startUs / step) * step; t <= c.view.endUs; t += step) {
        const double x = c.lanes.left() + double(t - c.view.startUs) * c.pxPerUs;
        if (x >= c.lanes.left())
            p.drawLine(QPointF(x, c.lanes.top()), QPointF(x, c.lanes.bottom()));
    }
    p.restore();
}

void TimelineRenderer::paintStepGuides(QPainter &p, const Context &c) const
{
    const int story = laneOf(LaneType::Story, 0);
    if (story < 0)
        return;
    const QRectF sr = laneRect(c, m_lanes.at(story));
    const qint64 current = m_data->stepAt(c.limitUs) ? m_data->stepAt(c.limitUs)->index : -1;
    for (const TimelineData::Step &s : m_data->steps()) {
        if (s.timeUs > c.limitUs || s.timeUs < c.view.startUs || s.timeUs > c.view.endUs)
            continue;
        const double x = c.x(s.timeUs);
        p.setPen(QPen(withAlpha(m_palette.step, s.index == current ? 170 : 80), 1, Qt::DashLine));
        p.drawLine(QPointF(x, sr.bottom()), QPointF(x, c.lanes.bottom()));
    }
}

void TimelineRenderer::paintStoryLane(QPainter &p, const Context &c, const Lane &lane) const
{
    const QRectF r = laneRect(c, lane);
    const QList<TimelineData::Step> &steps = m_data->steps();
    const TimelineData::Step *current = m_data->stepAt(c.limitUs);
    p.setRenderHint(QPainter::Antialiasing, true);
    const QFontMetricsF fm(m_smallFont);
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
        p.setPen(QPen(m_palette.step, 1.5));
        p.setBrush(isCurrent ? m_palette.step : m_palette.background);
        p.drawEllipse(centre, radius, radius);
        p.setFont(m_boldFont);
        p.setPen(isCurrent ? m_palette.background : m_palette.step);
        p.drawText(QRectF(x - radius, centre.y() - radius, 2 * radius, 2 * radius), Qt::AlignCenter,
                   QString::number(s.number));
        const double textLeft = x + radius + 4;
        const double room = std::min(nextX - 8, c.lanes.right() - 2) - textLeft;
        if (room > 30 && !s.note.isEmpty()) {
            p.setFont(m_smallFont);
            p.setPen(isCurrent ? m_palette.text : m_palette.mutedText);
            p.drawText(QRectF(textLeft, r.top(), room, r.height()), Qt::AlignVCenter | Qt::AlignLeft,
                       fm.elidedText(s.note, Qt::ElideRight, room));
        }
    }
    p.setRenderHint(QPainter::Antialiasing, false);
}

void TimelineRenderer::paintServerLane(QPainter &p, const Context &c, const Lane &lane) const
{
    const QRectF r = laneRect(c, lane).adjusted(0, 2, 0, -2);
    // Up: a thin line; down / paused: a hatched bar.
    p.setPen(QPen(withAlpha(m_palette.renewOk, 150), 2));
    p.drawLine(QPointF(c.x(c.view.startUs), r.center().y()), QPointF(c.x(c.visibleEnd), r.center().y()));
    p.setRenderHint(QPainter::Antialiasing, true);
    for (const Shade &s : m_data->serverShades(lane.index)) {
        if (s.startUs > c.visibleEnd || c.clamp(s.endUs) < c.visibleStart)
            continue;
        const QRectF bar(QPointF(c.x(s.startUs), r.top()),
                         QPointF(std::max(c.x(s.startUs) + 2, c.x(s.endUs)), r.bottom()));
        const QColor color
            = s.type == Shade::Type::ServerDown ? m_palette.serverDown : m_palette.serverPaused;
        p.fillRect(bar, m_palette.background);
        p.fillRect(bar, withAlpha(color, 50));
        hatch(p, bar, withAlpha(color, 170), 5, 1);
        const QString label = s.type == Shade::Type::ServerDown ? QObject::tr("down") : QObject::tr("paused");
        if (bar.width() > 50) {
            p.setFont(m_smallFont);
            pill(p, QPointF(bar.left() + 3, bar.top() - 1), label, m_smallFont, m_palette.background, color);
        }
    }
    for (const TimelineData::ServerMark &m : m_data->serverMarks(lane.index)) {
        if (m.timeUs < c.visibleStart || m.timeUs > c.visibleEnd)
            continue;
        const double x = c.x(m.timeUs);
        if (m.type == HistoryEvent::FaultType::Failover || m.type == HistoryEvent::FaultType::ServerRestart) {
            diamond(p, QPointF(x, r.center().y()), 5, m_palette.fault, m_palette.background);
            if (m.type == HistoryEvent::FaultType::Failover) {
                p.setFont(m_smallFont);
                p.setPen(m_palette.fault);
                p.drawText(QRectF(x + 7, r.top() - 2, 120, r.height() + 4), Qt::AlignVCenter,
                           QObject::tr("failover"));
            }
        }
    }
    p.setRenderHint(QPainter::Antialiasing, false);
}

void TimelineRenderer::paintLockLane(QPainter &p, const Context &c, const Lane &lane) const
{
    const QRectF r = laneRect(c, lane).adjusted(0, 3, 0, -3);
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
    for (int w = 0; w < m_data->workerCount(); ++w) {
        const QList<Hold> &holds = m_data->holds(w, lock);
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
            items.append(Item {w, &h, h.startUs, end});
            ++total;
        }
    }
    if (items.isEmpty())
        return;
    const QFontMetricsF fm(m_smallFont);
    // Many tenures: the share of each pixel column the key existed, in one image.
    if (total > qsizetype(c.lanes.width() / 3)) {
        TimelineCoverage cover(c.lanes.left(), c.lanes.width());
        for (const Item &it : items)
            cover.add(c.x(it.startUs), c.x(it.endUs));
        cover.paint(p, r.top() + r.height() * 0.25, r.height() * 0.75, m_palette.holding);
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
        const QString owner = m_data->layout().workers.value(it.worker);
        if (h.flags & Hold::NoTtl) {
            p.setPen(QPen(m_palette.noTtl, 1.2));
            p.setBrush(withAlpha(m_palette.noTtl, 40));
            p.drawRect(bar);
            hatch(p, bar, withAlpha(m_palette.noTtl, 150), 6, 1.2);
            const QString text = QObject::tr("%1's key has no TTL: it never expires").arg(owner);
            if (bar.width() > 60)
                pill(p, QPointF(bar.left() + 4, bar.center().y() - fm.height() / 2 - 1),
                     fm.elidedText(text, Qt::ElideRight, bar.width() - 18), m_smallFont, m_palette.background,
                     m_palette.noTtl);
            continue;
        }
        p.setPen(Qt::NoPen);
        p.setBrush(m_palette.holdingLight);
        p.drawRect(bar);
        // The TTL draining: full at each (re)start of the lease, empty when it runs out.
        if (h.leaseMs > 0 && bar.width() > 3) {
            const double lease = double(h.leaseMs) * 1000.0;
            QList<QPair<qint64, qint64>> refresh; // (time, new lease end)
            qint64 until = h.leaseFromUs + qint64(lease);
            const QList<Mark> &renewals = m_data->renewals(it.worker);
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
            p.setBrush(withAlpha(m_palette.holding, 215));
            p.drawPolygon(poly);
        } else if (h.leaseMs <= 0) {
            p.setBrush(withAlpha(m_palette.holding, 215));
            p.drawRect(bar);
        }
        p.setPen(QPen(m_palette.holdingEdge, 1));
        p.setBrush(Qt::NoBrush);
        p.drawRect(bar);
        if (bar.width() > fm.horizontalAdvance(owner) + 10) {
            QString label = owner;
            const QString more = h.flags & Hold::Crashed ? QObject::tr("%1 (crashed)").arg(owner)
                                                         : QObject::tr("%1 holds it").arg(owner);
            if (bar.width() > fm.horizontalAdvance(more) + 16)
                label = more;
            pill(p, QPointF(bar.left() + 3, bar.top() + 2), label, m_smallFont,
                 withAlpha(m_palette.background, 225), m_palette.holdingEdge);
        }
        // Ran out instead of being released: mark where the key vanished.
        if (h.expired(c.limitUs) && h.validUntilUs <= c.limitUs) {
            const double ex = c.x(h.validUntilUs);
            p.setPen(QPen(m_palette.stale, 2));
            p.drawLine(QPointF(ex, bar.top()), QPointF(ex, bar.bottom()));
            if (rows.at(k) == rowCount - 1 || rowCount == 1) {
                const QString text = QObject::tr("expired");
                const double w = fm.horizontalAdvance(text);
                p.setFont(m_smallFont);
                p.setPen(m_palette.stale);
                p.drawText(QRectF(ex + 3, bar.bottom() - fm.height() - 1, w + 4, fm.height()), Qt::AlignLeft,
                           text);
            }
        }
    }
    p.setRenderHint(QPainter::Antialiasing, false);
}

void TimelineRenderer::paintWorkerLane(QPainter &p, const Context &c, const Lane &lane) const
{
    const int w = lane.index;
    const QRectF r = laneRect(c, lane).adjusted(0, lane.height >= 12 ? 2 : 0, 0, lane.height >= 12 ? -2 : 0);
    const double holdH = std::max(2.0, r.height() * 0.72);
    const QRectF holdBand(r.left(), r.top() + (r.height() - holdH) / 2, r.width(), holdH);
    const double waitH = std::max(2.0, r.height() * 0.36);
    const QRectF waitBand(r.left(), r.top() + (r.height() - waitH) / 2, r.width(), waitH);
    const bool tall = lane.height >= 18;
    const QFontMetricsF fm(m_smallFont);
    const int process = m_data->layout().workerProcesses.value(w, -1);

    // Waiting (amber).
    const QList<Wait> &waits = m_data->waits(w);
    qsizetype wi
        = TimelineData::firstEndingAfter(waits, c.visibleStart, [](const Wait &s) { return s.endUs; });
    const qsizetype wEnd = std::partition_point(waits.begin() + wi, waits.end(),
                                                [&](const Wait &s) { return s.startUs <= c.visibleEnd; })
        - waits.begin();
    const bool prettyWaits
        = wEnd - wi < kPrettyLimit && double(wEnd - wi) * kPrettySpacingPx < c.lanes.width();
    TimelineCoverage waitCover(c.lanes.left(), c.lanes.width());
    QList<QRectF> waitRects;
    QList<QPointF> gaveUp;
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
    waitCover.paint(p, waitBand.top(), waitBand.height(), m_palette.waiting);
    p.setPen(Qt::NoPen);
    p.setBrush(m_palette.waiting);
    if (prettyWaits) {
        p.setRenderHint(QPainter::Antialiasing, true);
        for (const QRectF &rect : waitRects)
            p.drawRoundedRect(rect, std::min(3.0, rect.height() / 2), std::min(3.0, rect.height() / 2));
        p.setFont(m_smallFont);
        p.setPen(m_palette.dark ? QColor(0x2a, 0x1c, 0x00) : QColor(0x4d, 0x34, 0x00));
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
    for (int l = 0; l < m_data->lockCount(); ++l) {
        const QList<Hold> &holds = m_data->holds(w, l);
        qsizetype i = TimelineData::firstEndingAfter(holds, c.visibleStart, [](const Hold &h) {
            return h.releaseEndUs != TimelineData::kOpen ? h.releaseEndUs : h.endUs;
        });
        for (; i < holds.size(); ++i) {
            const Hold &h = holds.at(i);
            if (h.startUs > c.visibleEnd)
                break;
            if (h.flags & Hold::NoTtl)
                continue;
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
    holdCover.paint(p, holdBand.top(), holdBand.height(), m_palette.holding);
    const bool prettyHolds
        = holdsVisible < kPrettyLimit && double(holdsVisible) * kPrettySpacingPx < c.lanes.width();
    p.setPen(Qt::NoPen);
    p.setBrush(m_palette.holding);
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
            p.setBrush(withAlpha(m_palette.stale, 45));
            p.drawRect(stale);
            if (prettyHolds) {
                hatch(p, stale, withAlpha(m_palette.stale, 190), 6, 1.3);
                p.setPen(QPen(m_palette.stale, 1.2));
                p.setBrush(Qt::NoBrush);
                p.drawRect(stale.adjusted(0.5, 0.5, -0.5, -0.5));
                if (stale.width() > 110 && tall) {
                    pill(p, QPointF(stale.left() + 5, stale.center().y() - fm.height() / 2 - 1),
                         fm.elidedText(QObject::tr("lease expired, still working"), Qt::ElideRight,
                                       stale.width() - 20),
                         m_smallFont, withAlpha(m_palette.background, 235), m_palette.stale);
                }
            }
            // Where the lease ran out.
            p.setPen(QPen(m_palette.stale, 2));
            p.drawLine(QPointF(e.staleX, r.top()), QPointF(e.staleX, r.bottom()));
        }
        if (prettyHolds && e.x1 - e.x0 > 80 && h.leaseMs >= 0 && tall) {
            const qint64 token = m_data->events().value(h.acquireEvent).token;
            if (token > 0 && e.staleX - e.x0 > 80) {
                p.setFont(m_smallFont);
                p.setPen(m_palette.dark ? m_palette.text : QColor(Qt::white));
                p.drawText(QRectF(e.x0 + 6, holdBand.top(), e.staleX - e.x0 - 8, holdBand.height()),
                           Qt::AlignVCenter | Qt::AlignLeft, QObject::tr("token %1").arg(token));
            }
        }
        // The release: a dashed tail while it runs, then how it ended.
        if (h.releaseEndUs != TimelineData::kOpen && h.releaseEndUs <= c.limitUs) {
            const double cy = holdBand.center().y();
            if (e.releaseX - e.endX > 3) {
                p.setPen(QPen(m_palette.releasing, 2, Qt::DashLine));
                p.drawLine(QPointF(e.endX, cy), QPointF(e.releaseX, cy));
                if (prettyHolds && e.releaseX - e.endX > 80 && tall) {
                    p.setFont(m_smallFont);
                    p.setPen(m_palette.mutedText);
                    p.drawText(QRectF(e.endX + 4, holdBand.top() - 1, e.releaseX - e.endX - 8,
                                      holdBand.height() / 2),
                               Qt::AlignLeft | Qt::AlignTop, QObject::tr("releasing…"));
                }
            }
            const auto outcome = HistoryEvent::ReleaseOutcome(h.releaseOutcome);
            if (h.releaseOutcome >= 0 && outcome == HistoryEvent::ReleaseOutcome::Released) {
                p.setPen(QPen(m_palette.holdingEdge, 2));
                p.drawLine(QPointF(e.releaseX, holdBand.top()), QPointF(e.releaseX, holdBand.bottom()));
            } else if (prettyHolds) {
                const QColor color = h.releaseOutcome == -2 ? m_palette.mutedText : m_palette.stale;
                cross(p, QPointF(e.releaseX, cy), std::min(4.0, holdBand.height() / 3), color);
            }
        }
    }

    paintRounds(p, c, lane, r, waitBand);

    // Renewals: ticks over the bar (green: renewed; red: the lock was already lost).
    if (lane.height >= 10) {
        const QList<Mark> &renewals = m_data->renewals(w);
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
            const QColor color = m.type == Mark::Type::RenewOk ? m_palette.renewOk : m_palette.renewLost;
            p.setPen(QPen(color, 2));
            p.drawLine(QPointF(x, r.top() - 1), QPointF(x, holdBand.top() + holdBand.height() * 0.4));
            if (m.type != Mark::Type::RenewOk && prettyHolds)
                cross(p, QPointF(x, r.top() + 2), 2.5, color, 1.5);
        }
    }

    // The worker's own marks: reads, writes, refused writes, stray releases, errors.
    const QList<Mark> &marks = m_data->marks(w);
    qsizetype mi = std::partition_point(marks.begin(), marks.end(),
                                        [&](const Mark &m) { return m.timeUs < c.visibleStart; })
        - marks.begin();
    const qsizetype mEnd = std::partition_point(marks.begin() + mi, marks.end(),
                                                [&](const Mark &m) { return m.timeUs <= c.visibleEnd; })
        - marks.begin();
    // Marks closer than a few pixels on average are unreadable anyway (and each costs an antialiased shape).
    const bool marksReadable = double(mEnd - mi) * kMarkSpacingPx < c.lanes.width();
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
                p.setPen(QPen(m_palette.holdingEdge, 1.3));
                p.setBrush(m_palette.background);
                p.drawEllipse(centre, size * 0.75, size * 0.75);
                break;
            case Mark::Type::Write:
                if (x - lastX < 4)
                    break;
                diamond(p, centre, size, m_palette.dark ? m_palette.text : m_palette.holdingEdge,
                        m_palette.background);
                break;
            case Mark::Type::WriteRefused:
                diamond(p, centre, size + 1.5, m_palette.fenced, m_palette.background);
                cross(p, centre, size * 0.45, m_palette.background, 1.4);
                if (tall) {
                    p.setFont(m_smallFont);
                    p.setPen(m_palette.fenced);
                    p.drawText(QRectF(x + size + 4, r.top(), 160, r.height()), Qt::AlignVCenter,
                               QObject::tr("write refused (stale token)"));
                }
                break;
            case Mark::Type::WriteUnknown:
            case Mark::Type::Error:
                diamond(p, centre, size, m_palette.mutedText, m_palette.background);
                break;
            case Mark::Type::ReleaseWithoutHold:
                p.setPen(QPen(m_palette.stale, 1.5));
                p.setBrush(Qt::NoBrush);
                p.drawEllipse(centre, size, size);
                break;
            default:
                break;
            }
            lastX = x;
        }
    }
    // Pauses and crash of the worker's process, over its bars: the lane greys out while the process is
    // frozen (its bars stay visible underneath: the worker still believes what it believed).
    if (process >= 0 && process < m_data->processCount()) {
        for (const Shade &s : m_data->processShades(process)) {
            if (s.startUs > c.visibleEnd || c.clamp(s.endUs) < c.visibleStart)
                continue;
            const QRectF area(QPointF(c.x(s.startUs), r.top()), QPointF(c.x(s.endUs), r.bottom()));
            const bool crashed = s.type == Shade::Type::Crashed;
            const QColor color = crashed ? m_palette.crashed : m_palette.paused;
            p.fillRect(area, withAlpha(m_palette.background, crashed ? 150 : 135));
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
                     fm.elidedText(label, Qt::ElideRight, area.width() - 20), m_smallFont,
                     m_palette.dark ? m_palette.crashed : color,
                     m_palette.dark ? m_palette.background : QColor(Qt::white));
                p.restore();
            }
        }
    }
    // Network partitions of the worker's process: dashed fault-coloured edges over the lane (the worker runs
    // on, but nothing it sends arrives).
    if (process >= 0 && process < m_data->processCount()) {
        for (const Shade &s : m_data->partitions(process)) {
            if (s.startUs > c.visibleEnd || c.clamp(s.endUs) < c.visibleStart)
                continue;
            const QRectF area(QPointF(c.x(s.startUs), r.top()), QPointF(c.x(s.endUs), r.bottom()));
            p.fillRect(area, withAlpha(m_palette.fault, 28));
            p.setPen(QPen(m_palette.fault, 2, Qt::DashLine));
            p.drawLine(QPointF(area.left(), r.top() + 1), QPointF(area.right(), r.top() + 1));
            p.drawLine(QPointF(area.left(), r.bottom() - 1), QPointF(area.right(), r.bottom() - 1));
            p.drawLine(QPointF(area.left(), r.top()), QPointF(area.left(), r.bottom()));
            if (tall && area.width() > 120) {
                p.save();
                p.setRenderHint(QPainter::Antialiasing, true);
                pill(
                    p, QPointF(std::max(area.left(), c.lanes.left()) + 4, r.top() + 3),
                    fm.elidedText(QObject::tr("cut off from the servers"), Qt::ElideRight, area.width() - 20),
                    m_smallFont, m_palette.fault, m_palette.dark ? m_palette.background : QColor(Qt::white));
                p.restore();
            }
        }
    }
    // Gave up waiting: a red end cap.
    for (const QPointF &pt : gaveUp) {
        p.setPen(QPen(m_palette.stale, 2.5));
        p.drawLine(pt + QPointF(0, -waitBand.height()), pt + QPointF(0, waitBand.height()));
        if (tall && prettyWaits) {
            p.setFont(m_smallFont);
            p.drawText(QRectF(pt.x() + 4, r.top(), 80, r.height()), Qt::AlignVCenter, QObject::tr("gave up"));
        }
    }
    // Process-level faults (network delay, clock skew): a small zigzag.
    if (process >= 0 && process < m_data->processCount() && lane.height >= 12) {
        for (const Mark &m : m_data->processMarks(process)) {
            if (m.timeUs < c.visibleStart || m.timeUs > c.visibleEnd)
                continue;
            zigzag(p, QPointF(c.x(m.timeUs) + 3, r.top()), std::min(10.0, r.height() * 0.6), m_palette.fault);
        }
    }
    p.setRenderHint(QPainter::Antialiasing, false);
}

void TimelineRenderer::paintRounds(QPainter &p, const Context &c, const Lane &lane, const QRectF &r,
                                   const QRectF &waitBand) const
{
    // Redlock rounds: at a glance, who granted each one (a row of cells just under the waiting bar, at the
    // start of the hold it won); dense or small lanes get a red tick per lost round instead.
    const QList<TimelineData::Round> &rounds = m_data->rounds(lane.index);
    if (rounds.isEmpty() || lane.height < 10)
        return;
    const int servers = m_data->serverCount();
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
            const QRectF frame = voteCells(p, QPointF(left, y), cellH, servers, round, m_palette);
            lastX = frame.right();
            if (round.won() && lane.height >= 24) {
                // "3/5" at the start of the hold the round won (white on the blue bar).
                const QString text = QStringLiteral("%1/%2").arg(round.grantedCount()).arg(servers);
                p.setFont(m_smallFont);
                p.setPen(m_palette.dark ? m_palette.text : QColor(Qt::white));
                const QFontMetricsF fm(m_smallFont);
                const double holdH = std::max(2.0, r.height() * 0.72);
                const QRectF label(c.x(round.endUs) + 4, r.top() + (r.height() - holdH) / 2,
                                   fm.horizontalAdvance(text) + 4, y - r.top() - (r.height() - holdH) / 2);
                if (label.height() >= fm.height() - 4 && label.right() < c.lanes.right())
                    p.drawText(label, Qt::AlignLeft | Qt::AlignVCenter, text);
            }
        } else if (!round.won() && x - lastX >= 2) {
            p.setPen(QPen(m_palette.stale, 1.5));
            p.drawLine(QPointF(x, y), QPointF(x, r.bottom() - 1));
            lastX = x;
        }
    }
    p.restore();
}

void TimelineRenderer::paintViolations(QPainter &p, const Context &c) const
{
    const QList<Violation> &list = m_data->violations();
    if (list.isEmpty())
        return;
    const auto onScreen = [&](const Violation &v) {
        const qint64 end = v.openEnded ? c.limitUs : std::min(v.endUs, c.limitUs);
        return v.startUs <= c.visibleEnd && end >= c.visibleStart;
    };
    // Many violations at once (a zoomed-out run full of them): plain bands, tags only where few.
    const bool pretty = std::count_if(list.begin(), list.end(), onScreen) <= kPrettyViolations;
    p.setRenderHint(QPainter::Antialiasing, pretty);
    const QFontMetricsF fm(m_smallFont);
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
            const int row = laneOf(LaneType::Worker, w);
            if (row >= 0)
                laneRows << row;
        }
        const int lockRow = laneOf(LaneType::Lock, v.lock);
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
            const QRectF lr = laneRect(c, m_lanes.at(row));
            top = std::min(top, lr.top());
            bottom = std::max(bottom, lr.bottom());
        }
        const QColor edge = m_palette.overlapEdge;
        if (v.type == Violation::Type::ForeignRelease) {
            // The release that deleted someone else's key: a line from the releaser to the key.
            const QRectF from = laneRect(c, m_lanes.at(laneRows.first()));
            const QRectF key = lockRow >= 0 ? laneRect(c, m_lanes.at(lockRow)) : from;
            const double x = c.x(std::max(v.startUs, v.endUs));
            p.setPen(QPen(edge, selected ? 3 : 2, Qt::SolidLine, Qt::RoundCap));
            p.drawLine(QPointF(x, from.center().y()), QPointF(x, key.center().y()));
            cross(p, QPointF(x, key.center().y()), 5, edge, 2.5);
            const QString victim = m_data->layout().workers.value(v.workers.value(1));
            const QString actor = m_data->layout().workers.value(v.workers.value(0));
            pending << Tag {QRectF(x + 8, key.top() + 1, 0, 0),
                            QObject::tr("%1 deleted %2's key").arg(actor, victim), selected};
            continue;
        }
        if (v.type == Violation::Type::LostUpdate && v.workers.size() >= 2) {
            // An arrow from the write that was lost to the stale write that overwrote it.
            const int lostRow = laneOf(LaneType::Worker, v.workers.at(1));
            const int staleRow = laneOf(LaneType::Worker, v.workers.at(0));
            if (lostRow < 0 || staleRow < 0)
                continue;
            const QPointF from(c.x(v.startUs), laneRect(c, m_lanes.at(lostRow)).center().y());
            const QPointF to(c.x(v.endUs), laneRect(c, m_lanes.at(staleRow)).center().y());
            QPainterPath path(from);
            path.cubicTo(QPointF((from.x() + to.x()) / 2, from.y()), QPointF((from.x() + to.x()) / 2, to.y()),
                         to);
            p.setPen(QPen(edge, selected ? 3 : 2, Qt::DashLine, Qt::RoundCap));
            p.setBrush(Qt::NoBrush);
            p.drawPath(path);
            cross(p, from, 5, edge, 2.5);
            const QString lost = m_data->layout().workers.value(v.workers.at(1));
            const QString stale = m_data->layout().workers.value(v.workers.at(0));
            const double tagH = fm.height() + 2;
            pending << Tag {QRectF(from.x() + 8, from.y() - tagH - 4, 0, 0),
                            QObject::tr("%1's update lost: %2 overwrote it").arg(lost, stale), selected};
            continue;
        }
        for (int row : laneRows) {
            const QRectF lr = laneRect(c, m_lanes.at(row));
            p.fillRect(QRectF(x0, lr.top(), x1 - x0, lr.height()), m_palette.overlap);
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
            names << m_data->layout().workers.value(w);
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
        const QRectF lr = laneRect(c, m_lanes.at(row));
        cover.paint(p, lr.top(), lr.height(), withAlpha(m_palette.overlapEdge, 170));
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
        tags << pill(p, r.topLeft(), text, m_smallFont, m_palette.overlapEdge, QColor(Qt::white));
    }
    p.setRenderHint(QPainter::Antialiasing, false);
}

void TimelineRenderer::paintRuler(QPainter &p, const Context &c) const
{
    const QRectF ruler(c.lanes.left(), c.view.rect.top(), c.lanes.width(), kRulerHeight);
    p.fillRect(QRectF(c.view.rect.left(), c.view.rect.top(), c.view.rect.width(), kRulerHeight),
               m_palette.header);
    p.setPen(QPen(m_palette.grid, 1));
    p.drawLine(QPointF(c.view.rect.left(), ruler.bottom() - 0.5),
               QPointF(c.view.rect.right(), ruler.bottom() - 0.5));
    const qint64 step = niceStep(90.0 / std::max(1e-12, c.pxPerUs));
    const qint64 minor = step % 5 == 0 ? step / 5 : step / 2;
    p.save();
    p.setClipRect(ruler.adjusted(-2, 0, 2, 0));
    p.setFont(m_smallFont);
    if (minor > 0 && minor * c.pxPerUs >= 6) {
        p.setPen(QPen(m_palette.grid, 1));
        for (qint64 t = (c.view.startUs / minor) * minor; t <= c.view.endUs; t += minor) {
            const double x = c.lanes.left() + double(t - c.view.startUs) * c.pxPerUs;
            p.drawLine(QPointF(x, ruler.bottom() - 5), QPointF(x, ruler.bottom()));
        }
    }
    for (qint64 t = (c.view.startUs / step) * step; t <= c.view.endUs + step; t += step) {
        const double x = c.lanes.left() + double(t - c.view.startUs) * c.pxPerUs;
        p.setPen(QPen(m_palette.mutedText, 1));
        p.drawLine(QPointF(x, ruler.bottom() - 9), QPointF(x, ruler.bottom()));
        p.setPen(m_palette.text);
        p.drawText(QRectF(x + 3, ruler.top() + 2, 90, ruler.height() - 10), Qt::AlignLeft | Qt::AlignVCenter,
                   TextFormat::runTime(t, step));
    }
    // The cursor's exact time.
    if (c.view.cursorUs != TimelineData::kOpen) {
        const double x = c.lanes.left() + double(c.view.cursorUs - c.view.startUs) * c.pxPerUs;
        p.setRenderHint(QPainter::Antialiasing, true);
        const QString text = TextFormat::runTime(c.view.cursorUs, 1000);
        const QFontMetricsF fm(m_smallFont);
        pill(p, QPointF(x - fm.horizontalAdvance(text) / 2 - 5, ruler.top() + 4), text, m_smallFont,
             m_palette.cursor, QColor(Qt::white));
        p.setRenderHint(QPainter::Antialiasing, false);
    }
    p.restore();
}

void TimelineRenderer::paintHeaders(QPainter &p, const Context &c) const
{
    const QRectF column(c.view.rect.left(), c.lanes.top(), kHeaderWidth, c.lanes.height());
    p.save();
    p.fillRect(column, m_palette.header);
    p.setPen(QPen(m_palette.grid, 1));
    p.drawLine(QPointF(column.right() - 0.5, c.view.rect.top()),
               QPointF(column.right() - 0.5, column.bottom()));
    p.setClipRect(column);
    const qint64 at = c.limitUs;
    const QFontMetricsF small(m_smallFont);
    const QFontMetricsF bold(m_boldFont);
    for (int i = 0; i < m_lanes.size(); ++i) {
        const Lane &lane = m_lanes.at(i);
        const QRectF lr(column.left() + 8, column.top() + lane.y - c.view.scrollY, kHeaderWidth - 14,
                        lane.height);
        if (lr.bottom() + kSectionHeight < column.top())
            continue;
        if (lr.top() > column.bottom())
            break;
        if (!lane.section.isEmpty()) {
            QFont f = m_smallFont;
            f.setCapitalization(QFont::AllUppercase);
            f.setLetterSpacing(QFont::PercentageSpacing, 104);
            p.setFont(f);
            p.setPen(m_palette.mutedText);
            p.drawText(QRectF(lr.left(), lr.top() - kSectionHeight, lr.width(), kSectionHeight),
                       Qt::AlignLeft | Qt::AlignVCenter, lane.section);
        }
        if (i == c.view.hoverLane)
            p.fillRect(QRectF(column.left(), lr.top(), kHeaderWidth, lr.height()),
                       withAlpha(m_palette.cursor, 30));
        QString name;
        QString state;
        QColor stateColor = m_palette.mutedText;
        switch (lane.type) {
        case LaneType::Story:
            name = QObject::tr("Steps");
            break;
        case LaneType::Server: {
            name = QObject::tr("server %1").arg(lane.index);
            for (const Shade &s : m_data->serverShades(lane.index)) {
                if (s.startUs <= at && at < s.endUs) {
                    state = s.type == Shade::Type::ServerDown ? QObject::tr("down") : QObject::tr("paused");
                    stateColor = m_palette.serverDown;
                }
            }
            break;
        }
        case LaneType::Lock: {
            const QString key = m_data->layout().locks.value(lane.index);
            name = key.section(u':', -1).isEmpty() ? key : key.section(u':', -1);
            if (m_data->lockCount() == 1)
                name = key.section(u':', -1);
            state = key;
            break;
        }
        case LaneType::Worker: {
            name = m_data->layout().workers.value(lane.index);
            const auto s = m_data->workerStateAt(lane.index, at);
            state = workerStateText(s);
            using S = TimelineData::WorkerState;
            stateColor = s == S::Holding ? m_palette.holding
                : s == S::Waiting        ? m_palette.waitingEdge
                : s == S::Stale          ? m_palette.stale
                : s == S::Crashed        ? m_palette.crashed
                                         : m_palette.mutedText;
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
                QFont f = m_smallFont;
                f.setPointSizeF(std::max(5.0, m_smallFont.pointSizeF() * 0.8));
                p.setFont(f);
                p.setPen(m_palette.mutedText);
                p.drawText(QRectF(lr.left(), lr.top() - 4, lr.width(), 12), Qt::AlignLeft | Qt::AlignVCenter,
                           name);
            }
            continue;
        }
        const bool twoLines = !state.isEmpty() && lane.height >= bold.height() + small.height() - 2;
        p.setFont(lane.height >= 16 ? m_boldFont : m_smallFont);
        p.setPen(m_palette.text);
        const QRectF nameRect = twoLines
            ? QRectF(lr.left(), lr.center().y() - bold.height() + 1, lr.width(), bold.height())
            : QRectF(lr.left(), lr.top(), lr.width(), lr.height());
        p.drawText(nameRect, Qt::AlignLeft | Qt::AlignVCenter,
                   (lane.height >= 16 ? bold : small).elidedText(name, Qt::ElideMiddle, lr.width()));
        if (twoLines) {
            p.setFont(m_smallFont);
            p.setPen(stateColor);
            p.drawText(QRectF(lr.left(), lr.center().y() + 1, lr.width(), small.height()),
                       Qt::AlignLeft | Qt::AlignTop, small.elidedText(state, Qt::ElideMiddle, lr.width()));
        } else if (!state.isEmpty() && lane.type == LaneType::Worker) {
            p.setFont(m_smallFont);
            p.setPen(stateColor);
            const double nameW = (lane.height >= 16 ? bold : small).horizontalAdvance(name) + 6;
            p.drawText(QRectF(lr.left() + nameW, lr.top(), lr.width() - nameW, lr.height()),
                       Qt::AlignRight | Qt::AlignVCenter,
                       small.elidedText(state, Qt::ElideRight, lr.width() - nameW));
        }
    }
    p.restore();
}

QString TimelineRenderer::eventText(quint32 event) const
{
    if (!m_textLookup || event >= quint32(m_data->events().size()))
        return QString();
    return m_textLookup(m_data->events().at(event));
}

QString TimelineRenderer::holdHtml(int worker, int lock, const Hold &h) const
{
    const QString name = m_data->layout().workers.value(worker).toHtmlEscaped();
    const QString key = m_data->layout().locks.value(lock).toHtmlEscaped();
    QString html;
    if (h.flags & Hold::NoTtl)
        return QObject::tr("<b>%1's key %2 has no TTL</b><br>%1 died after SETNX and before EXPIRE: the key "
                           "exists and nothing will ever delete it.")
            .arg(name, key);
    const HistoryEvent acquire = m_data->events().value(h.acquireEvent);
    html += QObject::tr("<b>%1 holds %2</b>").arg(name, key);
    html += QObject::tr("<br>acquired at %1").arg(TextFormat::runTime(h.startUs, 1000));
    if (acquire.token > 0)
        html += QObject::tr(", token %1").arg(acquire.token);
    if (const TimelineData::Round *round = m_data->roundOf(worker, h))
        html += QObject::tr("<br>Redlock quorum: %1 (votes %2)")
                    .arg(m_data->events().value(round->event).quorumText(m_data->serverCount()),
                         QString::fromLatin1(
                             m_data->events().value(round->event).votePattern(m_data->serverCount())));
    if (h.leaseMs > 0)
        html += QObject::tr("<br>lease %1 ms from %2").arg(h.leaseMs).arg(TextFormat::runTime(h.leaseFromUs, 1000));
    else
        html += QObject::tr("<br>no lease (no TTL)");
    if (h.renewals > 0)
        html += QObject::tr("<br>renewed %1")
                    .arg(TextFormat::count(h.renewals, QObject::tr("time"), QObject::tr("times")));
    if (h.validUntilUs != TimelineData::kOpen)
        html += QObject::tr("<br>lease %1 at %2")
                    .arg(h.validUntilUs <= m_data->nowUs() ? QObject::tr("ran out") : QObject::tr("runs out"),
                         TextFormat::runTime(h.validUntilUs, 1000));
    if (h.flags & Hold::Crashed)
        html += QObject::tr("<br><b>its process crashed while holding it</b>");
    if (h.releaseOutcome != -1) {
        html += QObject::tr("<br>release sent at %1").arg(TextFormat::runTime(h.endUs, 1000));
        const QString release = eventText(h.releaseEvent);
        if (!release.isEmpty())
            html += QStringLiteral(": ") + release.toHtmlEscaped();
    }
    if (h.expired(m_data->nowUs()))
        html += QObject::tr("<br><span style='color:%1'><b>the lease ran out while %2 still counted on the "
                            "lock</b></span>")
                    .arg(m_palette.stale.name(), name);
    const QString detail = eventText(h.acquireEvent);
    if (!detail.isEmpty())
        html += QStringLiteral("<br><i>%1</i>").arg(detail.toHtmlEscaped());
    return html;
}

QString TimelineRenderer::roundHtml(int worker, const TimelineData::Round &round) const
{
    const HistoryEvent e = m_data->events().value(round.event);
    const int servers = m_data->serverCount();
    QString title;
    switch (round.outcome) {
    case HistoryEvent::RoundOutcome::Won:
        title = QObject::tr("Redlock round won");
        break;
    case HistoryEvent::RoundOutcome::ValiditySpent:
        title = QObject::tr("Redlock round lost: validity spent");
        break;
    default:
        title = QObject::tr("Redlock round lost: no quorum");
        break;
    }
    QString html = QObject::tr("<b>%1: %2</b> at %3<br>%4 (quorum %5 of %6)")
                       .arg(m_data->layout().workers.value(worker).toHtmlEscaped(), title,
                            TextFormat::runTime(round.startUs, 1000), e.quorumText(servers).toHtmlEscaped())
                       .arg(servers / 2 + 1)
                       .arg(servers);
    QStringList votes;
    for (int s = 0; s < servers; ++s) {
        const int v = round.vote(s);
        votes << QObject::tr("server %1: %2")
                     .arg(s)
                     .arg(v == 1       ? QObject::tr("granted")
                              : v == 0 ? QObject::tr("refused")
                                       : QObject::tr("no answer"));
    }
    html += QStringLiteral("<br>") + votes.join(QStringLiteral(" · "));
    if (!round.won())
        html += QObject::tr("<br>its partial votes were taken back on every server");
    const QString detail = eventText(round.event);
    if (!detail.isEmpty())
        html += QStringLiteral("<br><i>%1</i>").arg(detail.toHtmlEscaped());
    return html;
}

const TimelineData::Round *TimelineRenderer::roundAt(int worker, qint64 t, qint64 tol, const View &view) const
{
    const QList<TimelineData::Round> &rounds = m_data->rounds(worker);
    if (rounds.isEmpty())
        return nullptr;
    const double rowPx = m_data->serverCount() * (kVoteCellPx + 1) + 1;
    const qint64 rowUs
        = qint64(rowPx * double(view.endUs - view.startUs) / std::max(1, lanesRect(view).width()));
    const auto it = std::partition_point(rounds.begin(), rounds.end(), [&](const TimelineData::Round &r) {
        return r.startUs + rowUs + tol < t;
    });
    for (auto i = it; i != rounds.end() && i->startUs <= t + tol; ++i) {
        if (t >= i->startUs - tol && t <= i->startUs + rowUs + tol)
            return &*i;
    }
    return nullptr;
}

TimelineRenderer::Hit TimelineRenderer::hitTest(const QPoint &pos, const View &view) const
{
    Hit hit;
    if (!m_data)
        return hit;
    const QRect lanes = lanesRect(view);
    hit.timeUs = timeForX(pos.x(), view);
    if (pos.y() < lanes.top() || pos.x() < lanes.left())
        return hit;
    const int row = laneAt(pos.y(), view);
    if (row < 0)
        return hit;
    const Lane &lane = m_lanes.at(row);
    const qint64 t = hit.timeUs;
    const qint64 limit = std::min(m_data->nowUs(), view.cursorUs);
    if (t > limit)
        return hit;
    const qint64 tol = qint64(5.0 * double(view.endUs - view.startUs) / std::max(1, lanes.width()));
    const auto near = [&](qint64 at) { return std::llabs(at - t) <= tol; };

    // Violations first: they are why people hover.
    for (int i = 0; i < m_data->violations().size(); ++i) {
        const Violation &v = m_data->violations().at(i);
        const qint64 end = v.openEnded ? limit : v.endUs;
        const bool onLane = (lane.type == LaneType::Worker && v.workers.contains(lane.index))
            || (lane.type == LaneType::Lock && lane.index == v.lock);
        if (onLane && t >= v.startUs - tol && t <= end + tol) {
            hit.violation = i;
            hit.html = QObject::tr("<b style='color:%1'>%2</b><br>%3<br>%4 – %5")
                           .arg(m_palette.overlapEdge.name(), Violation::typeName(v.type).toHtmlEscaped(),
                                v.text.toHtmlEscaped(), TextFormat::runTime(v.startUs, 1000),
                                v.openEnded ? QObject::tr("end of run") : TextFormat::runTime(v.endUs, 1000));
            return hit;
        }
    }
    switch (lane.type) {
    case LaneType::Story: {
        for (const TimelineData::Step &s : m_data->steps()) {
            if (near(s.timeUs) || (s.timeUs <= t && m_data->stepAt(t) == &s)) {
                hit.html = QObject::tr("<b>Step %1</b> at %2<br>%3")
                               .arg(s.number)
                               .arg(TextFormat::runTime(s.timeUs, 1000), s.note.toHtmlEscaped());
                if (near(s.timeUs))
                    return hit;
            }
        }
        return hit;
    }
    case LaneType::Server: {
        for (const TimelineData::ServerMark &m : m_data->serverMarks(lane.index)) {
            if (near(m.timeUs)) {
                hit.html = QObject::tr("<b>%1</b> at %2<br>%3")
                               .arg(HistoryEvent::faultName(m.type), TextFormat::runTime(m.timeUs, 1000),
                                    eventText(m.event).toHtmlEscaped());
                return hit;
            }
        }
        for (const Shade &s : m_data->serverShades(lane.index)) {
            if (s.startUs <= t && t <= s.endUs) {
                hit.html = QObject::tr("<b>server %1 %2</b> from %3<br>%4")
                               .arg(lane.index)
                               .arg(s.type == Shade::Type::ServerDown ? QObject::tr("down")
                                                                      : QObject::tr("paused"),
                                    TextFormat::runTime(s.startUs, 1000), eventText(s.event).toHtmlEscaped());
                return hit;
            }
        }
        hit.html = QObject::tr("server %1 is up").arg(lane.index);
        return hit;
    }
    case LaneType::Lock: {
        for (int w = 0; w < m_data->workerCount(); ++w) {
            for (const Hold &h : m_data->holds(w, lane.index)) {
                if (h.startUs > t + tol)
                    break;
                if (t <= std::min(h.keyEndUs(), limit) + tol) {
                    hit.html = holdHtml(w, lane.index, h);
                    if (h.validUntilUs != TimelineData::kOpen && t < h.validUntilUs && h.leaseMs > 0)
                        hit.html += QObject::tr("<br>TTL left at %1: about %2")
                                        .arg(TextFormat::runTime(t, 1000), TextFormat::duration(h.validUntilUs - t));
                    return hit;
                }
            }
        }
        hit.html = QObject::tr("<b>%1</b> is free at %2")
                       .arg(m_data->layout().locks.value(lane.index).toHtmlEscaped(), TextFormat::runTime(t, 1000));
        return hit;
    }
    case LaneType::Worker:
        break;
    }
    const int w = lane.index;
    const QString name = m_data->layout().workers.value(w).toHtmlEscaped();
    const auto markHtml = [&](const Mark &m) {
        QString what;
        switch (m.type) {
        case Mark::Type::RenewOk:
            what = QObject::tr("renewal: the watchdog pushed the lease back");
            break;
        case Mark::Type::RenewLost:
            what = QObject::tr("renewal failed: the lock was no longer %1's").arg(name);
            break;
        case Mark::Type::RenewUnknown:
            what = QObject::tr("renewal with an unknown outcome");
            break;
        case Mark::Type::Read:
            what = QObject::tr("read the counter: %1").arg(m_data->events().value(m.event).value);
            break;
        case Mark::Type::Write:
            what = QObject::tr("wrote the counter: %1").arg(m_data->events().value(m.event).value);
            break;
        case Mark::Type::WriteRefused:
            what
                = QObject::tr("the fenced store refused this write: its token is older than one it has seen");
            break;
        case Mark::Type::WriteUnknown:
            what = QObject::tr("write with an unknown outcome");
            break;
        case Mark::Type::ReleaseWithoutHold:
            what = QObject::tr("release sent without holding the lock");
            break;
        case Mark::Type::Error:
            what = QObject::tr("error");
            break;
        case Mark::Type::Fault:
            what = QObject::tr("fault");
            break;
        }
        QString html = QObject::tr("<b>%1</b>: %2 at %3").arg(name, what, TextFormat::runTime(m.timeUs, 1000));
        const QString detail = eventText(m.event);
        if (!detail.isEmpty())
            html += QStringLiteral("<br><i>%1</i>").arg(detail.toHtmlEscaped());
        return html;
    };
    const Mark *best = nullptr;
    qint64 bestDistance = tol + 1;
    for (const QList<Mark> *list : {&m_data->marks(w), &m_data->renewals(w)}) {
        const qsizetype i = std::partition_point(list->begin(), list->end(),
                                                 [&](const Mark &m) { return m.timeUs < t - tol; })
            - list->begin();
        for (qsizetype k = i; k < list->size() && list->at(k).timeUs <= t + tol; ++k) {
            const qint64 d = std::llabs(list->at(k).timeUs - t);
            if (d < bestDistance) {
                bestDistance = d;
                best = &list->at(k);
            }
        }
    }
    const int process = m_data->layout().workerProcesses.value(w, -1);
    if (!best && process >= 0 && process < m_data->processCount()) {
        for (const Mark &m : m_data->processMarks(process)) {
            if (near(m.timeUs)) {
                hit.html = QObject::tr("<b>fault</b> at %1<br>%2")
                               .arg(TextFormat::runTime(m.timeUs, 1000), eventText(m.event).toHtmlEscaped());
                return hit;
            }
        }
    }
    if (best) {
        hit.html = markHtml(*best);
        return hit;
    }
    // Redlock vote cells sit in the lower half of the lane.
    const double laneTop = lanes.top() + lane.y - view.scrollY;
    if (pos.y() >= laneTop + lane.height / 2.0) {
        if (const TimelineData::Round *round = roundAt(w, t, tol, view)) {
            hit.html = roundHtml(w, *round);
            return hit;
        }
    }
    // Cut off by a network partition: said first, whatever the worker was doing.
    QString partition;
    if (process >= 0 && process < m_data->processCount()) {
        for (const Shade &s : m_data->partitions(process)) {
            if (s.startUs <= t && t <= s.endUs) {
                partition
                    = QObject::tr("<b>%1 is cut off from the servers</b> (network partition) from %2 for "
                                  "%3: nothing it sends gets a reply, nothing renews its lease<br>")
                          .arg(name, TextFormat::runTime(s.startUs, 1000),
                               TextFormat::duration(std::min(s.endUs, limit) - s.startUs));
                break;
            }
        }
    }
    for (int l = 0; l < m_data->lockCount(); ++l) {
        const QList<Hold> &holds = m_data->holds(w, l);
        const qsizetype i = TimelineData::firstEndingAfter(holds, t, [](const Hold &h) {
            return h.releaseEndUs != TimelineData::kOpen ? h.releaseEndUs : h.endUs;
        });
        if (i < holds.size() && holds.at(i).startUs <= t && !(holds.at(i).flags & Hold::NoTtl)) {
            hit.html = partition + holdHtml(w, l, holds.at(i));
            return hit;
        }
    }
    const QList<Wait> &waits = m_data->waits(w);
    const qsizetype i = TimelineData::firstEndingAfter(waits, t, [](const Wait &s) { return s.endUs; });
    if (i < waits.size() && waits.at(i).startUs <= t) {
        const Wait &s = waits.at(i);
        QString outcome;
        switch (s.outcome) {
        case Wait::Outcome::Waiting:
            outcome = QObject::tr("still waiting");
            break;
        case Wait::Outcome::Acquired:
            outcome = QObject::tr("got the lock");
            break;
        case Wait::Outcome::GaveUp:
            outcome = QObject::tr("gave up (acquire timeout)");
            break;
        case Wait::Outcome::Unknown:
            outcome = QObject::tr("outcome unknown (error or timeout)");
            break;
        case Wait::Outcome::Stopped:
            outcome = QObject::tr("the run ended");
            break;
        case Wait::Outcome::Crashed:
            outcome = QObject::tr("crashed while waiting");
            break;
        }
        hit.html = QObject::tr("<b>%1 waits for the lock</b><br>from %2 for %3: %4")
                       .arg(name, TextFormat::runTime(s.startUs, 1000),
                            TextFormat::duration(std::min(s.endUs, limit) - s.startUs), outcome);
        int rounds = 0, lost = 0;
        for (const TimelineData::Round &round : m_data->rounds(w)) {
            if (round.startUs >= s.startUs && round.endUs <= s.endUs) {
                ++rounds;
                lost += round.won() ? 0 : 1;
            }
        }
        if (rounds > 0)
            hit.html += QObject::tr("<br>Redlock: %1, %2 lost")
                            .arg(TextFormat::count(rounds, QObject::tr("round"), QObject::tr("rounds")))
                            .arg(lost);
        const QString detail = eventText(s.endEvent);
        if (!detail.isEmpty())
            hit.html += QStringLiteral("<br><i>%1</i>").arg(detail.toHtmlEscaped());
        hit.html.prepend(partition);
        return hit;
    }
    if (!partition.isEmpty()) {
        hit.html = partition;
        return hit;
    }
    if (process >= 0 && process < m_data->processCount()) {
        for (const Shade &s : m_data->processShades(process)) {
            if (s.startUs <= t && t <= s.endUs) {
                hit.html = QObject::tr("<b>%1 %2</b> from %3<br>%4")
                               .arg(name,
                                    s.type == Shade::Type::Crashed ? QObject::tr("crashed")
                                                                   : QObject::tr("paused"),
                                    TextFormat::runTime(s.startUs, 1000), eventText(s.event).toHtmlEscaped());
                return hit;
            }
        }
    }
    return hit;
}
