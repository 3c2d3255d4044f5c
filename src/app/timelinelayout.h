// Where each lane of the timeline sits: the lanes in order (story, servers, locks, workers) with their
// heights, the lane under a widget y, and the mapping between time and x. Painters and the hit tester read
// it; only relayout() changes it.
#pragma once

#include "timelinedata.h"

#include <QList>
#include <QRect>
#include <QString>

class TimelineLayout
{
public:
    enum class LaneType { Story, Server, Lock, Worker };
    struct Lane
    {
        LaneType type = LaneType::Worker;
        int index = 0;
        int y = 0; // in content coordinates (0 = just below the ruler)
        int height = 0;
        QString section; // non-empty on the first lane of a section: the title drawn above it
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

    // Height of one worker lane; the view shrinks it when there are many workers.
    void setWorkerLaneHeight(int height) { m_workerLaneHeight = std::clamp(height, 4, 48); }
    int workerLaneHeight() const { return m_workerLaneHeight; }

    // Lays the lanes of `data` out again (nullptr: none).
    void relayout(const TimelineData *data);
    const QList<Lane> &lanes() const { return m_lanes; }
    int contentHeight() const { return m_contentHeight; }
    // Index into lanes() of the lane at widget y, or -1.
    int laneAt(int y, const View &view) const;
    int laneOf(LaneType type, int index) const; // index into lanes(), or -1
    static QRect lanesRect(const View &view); // right of the names, below the ruler

    static double xForTime(qint64 us, const View &view);
    static qint64 timeForX(double x, const View &view);

private:
    int m_workerLaneHeight = 30;
    QList<Lane> m_lanes;
    int m_contentHeight = 0;
};
