// What the timeline tests build their runs on: two workers, each a process of its own, on one lock; and the
// winning attempts' start, which the engine stamps on each acquire and HistoryBuilder does not.
#pragma once

#include "sim/historyevent.h"
#include "timeline/timelinedata.h"

#include <QList>

namespace TimelineFixture {

inline TimelineData::Layout twoWorkers()
{
    TimelineData::Layout layout;
    layout.workers = {QStringLiteral("A"), QStringLiteral("B")};
    layout.workerProcesses = {0, 1};
    layout.processes = {QStringLiteral("A"), QStringLiteral("B")};
    layout.locks = {QStringLiteral("lockscope:sim:lock")};
    return layout;
}

inline QList<HistoryEvent> withEffects(QList<HistoryEvent> events)
{
    for (HistoryEvent &e : events) {
        if (e.kind == HistoryEvent::Kind::Acquire && e.phase == HistoryEvent::Phase::Ok && e.effectUs == 0)
            e.effectUs = e.timeUs - 1000;
    }
    return events;
}

} // namespace TimelineFixture
