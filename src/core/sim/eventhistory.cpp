// EventHistory: per-log storage and time-ordered merging for readers.
#include "eventhistory.h"

#include <algorithm>

EventHistory::EventHistory(int logs, qsizetype capacityPerLog)
    : EventHistory(std::vector<qsizetype>(size_t(std::max(logs, 0)), capacityPerLog))
{
}

EventHistory::EventHistory(const std::vector<qsizetype> &capacities)
{
    for (const qsizetype capacity : capacities)
        m_logs.push_back(std::make_unique<Log>(capacity));
}

void EventHistory::record(int log, const HistoryEvent &event)
{
    if (!m_recording)
        return;
    HistoryEvent stamped = event;
    stamped.log = quint16(log);
    m_logs[size_t(log)]->events.append(stamped);
}

quint32 EventHistory::addText(int log, const QByteArray &text)
{
    if (!m_recording || text.isEmpty())
        return 0;
    const qsizetype index = m_logs[size_t(log)]->texts.append(text);
    return index < 0 ? 0 : quint32(index + 1);
}

static void sortByTime(QList<HistoryEvent> &events)
{
    // Stable: events of one worker at the same microsecond keep their recorded order.
    std::stable_sort(events.begin(), events.end(),
                     [](const HistoryEvent &a, const HistoryEvent &b) { return a.timeUs < b.timeUs; });
}

QList<HistoryEvent> EventHistory::events() const
{
    QList<HistoryEvent> all;
    all.reserve(size());
    for (const auto &log : m_logs)
        log->events.readRange(0, log->events.size(), all);
    sortByTime(all);
    return all;
}

QList<HistoryEvent> EventHistory::readNew(Cursor &cursor) const
{
    cursor.positions.resize(qsizetype(m_logs.size()), 0);
    QList<HistoryEvent> fresh;
    for (size_t i = 0; i < m_logs.size(); ++i) {
        const qsizetype end = m_logs[i]->events.size();
        m_logs[i]->events.readRange(cursor.positions[qsizetype(i)], end, fresh);
        cursor.positions[qsizetype(i)] = end;
    }
    sortByTime(fresh);
    return fresh;
}

QByteArray EventHistory::text(const HistoryEvent &event) const
{
    if (event.detail == 0)
        return {};
    const int log = event.log;
    if (log >= logCount())
        return {};
    const auto &texts = m_logs[size_t(log)]->texts;
    const qsizetype index = qsizetype(event.detail) - 1;
    return index < texts.size() ? texts.at(index) : QByteArray();
}

qsizetype EventHistory::size() const
{
    qsizetype n = 0;
    for (const auto &log : m_logs)
        n += log->events.size();
    return n;
}

qsizetype EventHistory::dropped() const
{
    qsizetype n = 0;
    for (const auto &log : m_logs)
        n += log->events.dropped();
    return n;
}
