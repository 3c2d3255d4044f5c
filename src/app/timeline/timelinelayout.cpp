// TimelineLayout: lanes are stacked top to bottom in content coordinates, so scrolling is one offset and the
// lane under a y is a binary search.
#include "timelinelayout.h"

#include <QObject>

void TimelineLayout::relayout(const TimelineData *data)
{
    m_lanes.clear();
    m_workerLanes.clear();
    m_workerHeightLanes = 0;
    m_contentHeight = 0;
    m_grouped = false;
    if (!data)
        return;
    int y = 4;
    // Compact, the lane names alone say what each lane is.
    const auto section = [&](const QString &title) {
        Lane l;
        if (!m_compact) {
            l.section = title;
            y += kSectionHeight;
        }
        return l;
    };
    bool anyNote = false;
    for (const Scenario::Step &s : data->layout().steps)
        anyNote = anyNote || !s.note.isEmpty();
    if (anyNote) {
        Lane l = section(QObject::tr("Story"));
        l.type = LaneType::Story;
        l.y = y;
        l.height = m_compact ? 22 : 30;
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
        l.height = locks > 8 || m_compact ? 24 : 36;
        m_lanes << l;
        y += l.height + kLaneGap;
    }
    layOutWorkers(*data, y);
    m_contentHeight = y + 4;
}

void TimelineLayout::layOutWorkers(const TimelineData &data, int &y)
{
    const int workers = data.workerCount();
    const int processes = data.processCount();
    const QList<int> &processOf = data.layout().workerProcesses;
    m_workerLanes.fill(-1, workers);
    // Collapsing is the user's choice for one run's processes: a run with other processes starts afresh.
    if (m_collapsedFor != processOf || m_collapsed.size() != processes) {
        m_collapsed.fill(false, processes);
        m_collapsedFor = processOf;
    }
    QList<QList<int>> members(processes);
    for (int w = 0; w < workers; ++w) {
        const int p = processOf.value(w, -1);
        if (p >= 0 && p < processes)
            members[p] << w;
    }
    bool severalInOne = false;
    int grouped = 0;
    for (const QList<int> &m : members) {
        severalInOne = severalInOne || m.size() > 1;
        grouped += int(m.size());
    }
    // Every worker must belong to a known process for its lane to have a group to go in.
    m_grouped = processes > 1 && severalInOne && grouped == workers;
    const int gap = m_workerLaneHeight >= 12 ? kLaneGap : 0;
    QString section = m_compact ? QString() : QObject::tr("Workers");
    // Lanes of the worker height (workers, collapsed processes) shrink with it, gaps included.
    const auto add = [&](Lane l, bool workerHeight) {
        if (!section.isEmpty()) {
            l.section = section;
            section.clear();
            y += kSectionHeight;
        }
        l.y = y;
        m_lanes << l;
        y += l.height + (workerHeight ? gap : kLaneGap);
        m_workerHeightLanes += workerHeight ? 1 : 0;
    };
    const auto addWorker = [&](int w) {
        Lane l;
        l.type = LaneType::Worker;
        l.index = w;
        l.height = m_workerLaneHeight;
        m_workerLanes[w] = int(m_lanes.size());
        add(l, true);
    };
    if (!m_grouped) {
        for (int w = 0; w < workers; ++w)
            addWorker(w);
        return;
    }
    for (int p = 0; p < processes; ++p) {
        Lane l;
        l.type = LaneType::Process;
        l.index = p;
        l.collapsed = m_collapsed.at(p);
        l.height = l.collapsed ? m_workerLaneHeight : kGroupHeaderHeight;
        const int lane = int(m_lanes.size());
        add(l, l.collapsed);
        for (int w : members.at(p)) {
            if (l.collapsed)
                m_workerLanes[w] = lane;
            else
                addWorker(w);
        }
    }
}

void TimelineLayout::setProcessCollapsed(int process, bool collapsed)
{
    if (process >= 0 && process < m_collapsed.size())
        m_collapsed[process] = collapsed;
}

void TimelineLayout::setAllProcessesCollapsed(bool collapsed)
{
    m_collapsed.fill(collapsed);
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
