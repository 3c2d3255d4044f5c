// TimelineLayout: lanes are stacked top to bottom in content coordinates, so scrolling is one offset and the
// lane under a y is a binary search.
#include "timelinelayout.h"

#include <QObject>

void TimelineLayout::relayout(const TimelineData *data)
{
    m_lanes.clear();
    m_contentHeight = 0;
    if (!data)
        return;
    int y = 4;
    const auto section = [&](const QString &title) {
        Lane l;
        l.section = title;
        y += kSectionHeight;
        return l;
    };
    bool anyNote = false;
    for (const Scenario::Step &s : data->layout().steps)
        anyNote = anyNote || !s.note.isEmpty();
    if (anyNote) {
        Lane l = section(QObject::tr("Story"));
        l.type = LaneType::Story;
        l.y = y;
        l.height = 30;
        m_lanes << l;
        y += l.height + kLaneGap;
    }
    // Server lanes only when there is something to see on them: several servers, or one that went down.
    if (data->serverCount() > 1 || data->hasServerActivity()) {
        for (int s = 0; s < data->serverCount(); ++s) {
            Lane l = s == 0 ? section(QObject::tr("Redis servers")) : Lane();
            l.type = LaneType::Server;
            l.index = s;
            l.y = y;
            l.height = 15;
            m_lanes << l;
            y += l.height + kLaneGap;
        }
    }
    const int locks = data->lockCount();
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
    for (int w = 0; w < data->workerCount(); ++w) {
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

int TimelineLayout::laneOf(LaneType type, int index) const
{
    for (int i = 0; i < m_lanes.size(); ++i) {
        if (m_lanes.at(i).type == type && m_lanes.at(i).index == index)
            return i;
    }
    return -1;
}

QRect TimelineLayout::lanesRect(const View &view)
{
    return QRect(view.rect.left() + kHeaderWidth, view.rect.top() + kRulerHeight,
                 std::max(1, view.rect.width() - kHeaderWidth),
                 std::max(1, view.rect.height() - kRulerHeight));
}

int TimelineLayout::laneAt(int y, const View &view) const
{
    const int contentY = y - lanesRect(view).top() + view.scrollY;
    const auto it = std::partition_point(m_lanes.begin(), m_lanes.end(),
                                         [&](const Lane &l) { return l.y + l.height <= contentY; });
    if (it == m_lanes.end() || it->y > contentY)
        return -1;
    return int(it - m_lanes.begin());
}

double TimelineLayout::xForTime(qint64 us, const View &view)
{
    const QRect r = lanesRect(view);
    const double span = double(std::max<qint64>(1, view.endUs - view.startUs));
    return r.left() + double(us - view.startUs) * r.width() / span;
}

qint64 TimelineLayout::timeForX(double x, const View &view)
{
    const QRect r = lanesRect(view);
    const double span = double(std::max<qint64>(1, view.endUs - view.startUs));
    return view.startUs + qint64((x - r.left()) * span / r.width());
}
