// Paints a TimelineData as swimlanes: a ruler, the story's numbered steps, one lane per server (when they
// matter), per lock (owner and its TTL draining) and per worker (waiting amber, holding blue, renewal ticks,
// releases, lease-expired hatching, pause/crash shading), and red bands where critical sections overlap.
// Shared by the interactive view, the PNG/SVG export and the paint benchmark, so all three draw the same.
//
// A thin front: it owns the run, the colours, the fonts and the lanes (TimelineLayout), and hands each job
// to its room — TimelineFramePainter (ruler, names, backgrounds), one painter per kind of lane
// (TimelineStoryPainter, TimelineServerPainter, TimelineLockPainter, TimelineWorkerPainter with
// TimelineRoundPainter and TimelineProcessPainter), TimelineViolationPainter, and TimelineHitTester for the
// tooltips.
#pragma once

#include "timelinedata.h"
#include "timelinefonts.h"
#include "timelineframepainter.h"
#include "timelinehittester.h"
#include "timelinelayout.h"
#include "common/timelinepalette.h"

#include <QList>
#include <QRect>

class QPainter;

class TimelineRenderer
{
public:
    // The names callers know the renderer's types by.
    using LaneType = TimelineLayout::LaneType;
    using Lane = TimelineLayout::Lane;
    using View = TimelineLayout::View;
    using Hit = TimelineHitTester::Hit;
    using TextLookup = TimelineHitTester::TextLookup;

    static constexpr int kRulerHeight = TimelineLayout::kRulerHeight;
    static constexpr int kHeaderWidth = TimelineLayout::kHeaderWidth;
    static constexpr int kSectionHeight = TimelineLayout::kSectionHeight;

    void setData(const TimelineData *data);
    const TimelineData *data() const { return m_data; }
    void setPalette(const TimelinePalette &palette) { m_palette = palette; }
    const TimelinePalette &palette() const { return m_palette; }
    void setFont(const QFont &font) { m_fonts = TimelineFonts(font); }
    // Height of one worker lane; the view shrinks it when there are many workers.
    void setWorkerLaneHeight(int height);
    void setCompact(bool compact); // see TimelineLayout::setCompact
    int workerLaneHeight() const { return m_layout.workerLaneHeight(); }
    void setTextLookup(TextLookup lookup) { m_textLookup = std::move(lookup); }

    // Lays the lanes out again (after setData, a new server fault, a lane height change).
    void relayout() { m_layout.relayout(m_data); }
    const TimelineLayout &layout() const { return m_layout; }
    const QList<Lane> &lanes() const { return m_layout.lanes(); }
    int contentHeight() const { return m_layout.contentHeight(); }
    // Index into lanes() of the lane at widget y, or -1.
    int laneAt(int y, const View &view) const { return m_layout.laneAt(y, view); }
    int laneOf(LaneType type, int index) const { return m_layout.laneOf(type, index); } // or -1
    // The lane that shows `worker`: its own, or its collapsed process's (-1: none).
    int laneShowing(int worker) const { return m_layout.laneShowing(worker); }
    // Processes running several workers each have a lane of their own, over their workers' lanes or, while
    // collapsed, instead of them.
    bool groupsWorkers() const { return m_layout.groupsWorkers(); }
    void setProcessCollapsed(int process, bool collapsed);
    void setAllProcessesCollapsed(bool collapsed);
    bool isProcessCollapsed(int process) const { return m_layout.isProcessCollapsed(process); }
    // The least lane height at which each lane's name is written (thinner lanes lose names to their
    // neighbours').
    int readableLaneHeight() const;
    QRect lanesRect(const View &view) const { return TimelineLayout::lanesRect(view); }

    double xForTime(qint64 us, const View &view) const { return TimelineLayout::xForTime(us, view); }
    qint64 timeForX(double x, const View &view) const { return TimelineLayout::timeForX(x, view); }

    void paint(QPainter &painter, const View &view) const;
    // The names and states paint() writes in the name column, and where.
    QList<TimelineFramePainter::HeaderLabel> headerLabels(const View &view) const;
    Hit hitTest(const QPoint &pos, const View &view) const;

private:
    const TimelineData *m_data = nullptr;
    TimelinePalette m_palette = TimelinePalette::light();
    TimelineFonts m_fonts;
    TimelineLayout m_layout;
    TextLookup m_textLookup;
};
