// Where each lane of the timeline sits: the lanes in order (story, servers, locks, workers) with their
// heights, the lane under a widget y, and the mapping between time and x. Painters and the hit tester read
// it; only relayout() changes it.
#pragma once

#include "timelinedata.h"

#include <QList>
#include <QRect>
#include <QString>

#include <algorithm>

class TimelineLayout
{
public:
    enum class LaneType { Story, Server, Lock, Process, Worker };
    struct Lane
    {
        LaneType type = LaneType::Worker;
        int index = 0;
        int y = 0; // in content coordinates (0 = just below the ruler)
        int height = 0;
        QString section; // non-empty on the first lane of a section: the title drawn above it
        // Process lanes: collapsed, the lane sums up the process's workers; expanded, it is a header above
        // their lanes.
        bool collapsed = false;
    };
    // What part of the timeline a widget (or an export) shows, and where.
    struct View
    {
        qint64 startUs = 0;
        qint64 endUs = 1000000;
        qint64 cursorUs = TimelineData::kOpen; // replay cursor: nothing after it is shown (kOpen: none)
        int scrollY = 0;
        QRect rect; // the whole widget area to paint
        int selectedViolation = -1;
        int hoverLane = -1;
    };

    static constexpr int kRulerHeight = 28;
    static constexpr int kHeaderWidth = 136;
    static constexpr int kSectionHeight = 16;
    static constexpr int kLaneGap = 2;
    static constexpr int kGroupHeaderHeight = 18; // an expanded process's lane: its name above its workers

    // Height of one worker lane; the view shrinks it when there are many workers.
    void setWorkerLaneHeight(int height) { m_workerLaneHeight = std::clamp(height, 4, 48); }
    int workerLaneHeight() const { return m_workerLaneHeight; }
    // Compact: no section titles, lower story and lock lanes, for a short view (a 700 px screen) whose
    // worker lanes would not fit otherwise. Takes effect at the next relayout().
    void setCompact(bool compact) { m_compact = compact; }
    bool isCompact() const { return m_compact; }

    // Lays the lanes of `data` out again (nullptr: none).
    void relayout(const TimelineData *data);
    const QList<Lane> &lanes() const { return m_lanes; }
    int contentHeight() const { return m_contentHeight; }
    // Index into lanes() of the lane at widget y, or -1.
    int laneAt(int y, const View &view) const;
    int laneOf(LaneType type, int index) const; // index into lanes(), or -1
    // The lane that shows `worker`: its own, or its process's while that is collapsed (-1: none).
    int laneShowing(int worker) const { return m_workerLanes.value(worker, -1); }
    // Lanes that take the worker lane height: workers shown and collapsed processes.
    int workerHeightLanes() const { return m_workerHeightLanes; }

    // Grouping by process: only when there are several processes and one of them runs several workers.
    bool groupsWorkers() const { return m_grouped; }
    // Take effect at the next relayout(). A new run's processes start expanded.
    void setProcessCollapsed(int process, bool collapsed);
    void setAllProcessesCollapsed(bool collapsed);
    bool isProcessCollapsed(int process) const { return m_collapsed.value(process, false); }
    static QRect lanesRect(const View &view); // right of the names, below the ruler

    static double xForTime(qint64 us, const View &view);
    static qint64 timeForX(double x, const View &view);

private:
    void layOutWorkers(const TimelineData &data, int &y);

    int m_workerLaneHeight = 30;
    bool m_compact = false;
    QList<Lane> m_lanes;
    int m_contentHeight = 0;
    QList<int> m_workerLanes; // worker → the lane showing it
    int m_workerHeightLanes = 0;
    bool m_grouped = false;
    QList<bool> m_collapsed; // per process
    QList<int> m_collapsedFor; // the worker → process map m_collapsed belongs to
};
