// TimelineRenderer: the order of painting is the picture's z-order — backgrounds, the part not replayed yet,
// step guides, the lanes, violations across them, the cursor, and last the ruler and names, which lanes
// scrolled under them must not cover.
#include "timelinerenderer.h"

#include "timelinelockpainter.h"
#include "timelinepaintcontext.h"
#include "timelineprocesspainter.h"
#include "timelineserverpainter.h"
#include "timelinestorypainter.h"
#include "timelineviolationpainter.h"
#include "timelineworkerpainter.h"

#include <QFontMetricsF>
#include <QPainter>

#include <cmath>

void TimelineRenderer::setData(const TimelineData *data)
{
    m_data = data;
    relayout();
}

void TimelineRenderer::setWorkerLaneHeight(int height)
{
    m_layout.setWorkerLaneHeight(height);
    relayout();
}

void TimelineRenderer::setCompact(bool compact)
{
    if (compact == m_layout.isCompact())
        return;
    m_layout.setCompact(compact);
    relayout();
}

void TimelineRenderer::setProcessCollapsed(int process, bool collapsed)
{
    m_layout.setProcessCollapsed(process, collapsed);
    relayout();
}

void TimelineRenderer::setAllProcessesCollapsed(bool collapsed)
{
    m_layout.setAllProcessesCollapsed(collapsed);
    relayout();
}

int TimelineRenderer::readableLaneHeight() const
{
    // One line of the small print, with a pixel above and below.
    return int(std::ceil(QFontMetricsF(m_fonts.small).height())) + 2;
}

void TimelineRenderer::paint(QPainter &p, const View &view) const
{
    p.save();
    p.setFont(m_fonts.normal);
    p.fillRect(view.rect, m_palette.background);
    if (!m_data) {
        p.restore();
        return;
    }
    const TimelinePaintContext c(*m_data, m_layout, m_palette, m_fonts, view);
    TimelineFramePainter::paintLaneBackgrounds(p, c);
    p.save();
    p.setClipRect(c.lanes);
    TimelineFramePainter::paintFuture(p, c);
    TimelineStoryPainter::paintStepGuides(p, c);
    const QList<Lane> &lanes = m_layout.lanes();
    const int first = std::max(0, m_layout.laneAt(int(c.lanes.top()), view));
    for (int i = first; i < lanes.size(); ++i) {
        const Lane &lane = lanes.at(i);
        const QRectF r = c.laneRect(lane);
        if (r.top() > c.lanes.bottom())
            break;
        if (r.bottom() < c.lanes.top())
            continue;
        switch (lane.type) {
        case LaneType::Story:
            TimelineStoryPainter::paintLane(p, c, lane);
            break;
        case LaneType::Server:
            TimelineServerPainter::paintLane(p, c, lane);
            break;
        case LaneType::Lock:
            TimelineLockPainter::paintLane(p, c, lane);
            break;
        case LaneType::Process:
            TimelineProcessPainter::paintLane(p, c, lane);
            break;
        case LaneType::Worker:
            TimelineWorkerPainter::paintLane(p, c, lane);
            break;
        }
    }
    TimelineViolationPainter::paint(p, c);
    TimelineFramePainter::paintCursor(p, c);
    p.restore();
    TimelineFramePainter::paintRuler(p, c);
    TimelineFramePainter::paintHeaders(p, c);
    p.restore();
}

QList<TimelineFramePainter::HeaderLabel> TimelineRenderer::headerLabels(const View &view) const
{
    if (!m_data)
        return {};
    return TimelineFramePainter::headerLabels(TimelinePaintContext(*m_data, m_layout, m_palette, m_fonts, view));
}

TimelineRenderer::Hit TimelineRenderer::hitTest(const QPoint &pos, const View &view) const
{
    if (!m_data)
        return Hit();
    return TimelineHitTester(*m_data, m_layout, m_palette, m_textLookup).hitTest(pos, view);
}
