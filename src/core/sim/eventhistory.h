// A run's whole history: one append-only log per worker (plus one for the fault controller), each written by
// exactly one thread, readable live by the GUI and completely by the checker at the end.
#pragma once

#include "chunkedlog.h"
#include "historyevent.h"

#include <QByteArray>
#include <QList>

#include <memory>
#include <vector>

class EventHistory
{
public:
    // One log per writing thread: the engine gives each worker, each process's watchdog and the fault
    // controller its own log, so no two threads ever append to the same log.
    explicit EventHistory(int logs, qsizetype capacityPerLog = qsizetype(1) << 22);

    int logCount() const { return int(m_logs.size()); }

    // Writer side: only the thread that owns `log` may call these.
    void record(int log, const HistoryEvent &event);
    // Stores a text (reply, error, fault description) and returns the index to put in HistoryEvent::detail.
    quint32 addText(int log, const QByteArray &text);

    // Turning recording off makes record() a no-op (for measuring recording overhead).
    void setRecording(bool on) { m_recording = on; }
    bool isRecording() const { return m_recording; }

    // Reader side, any thread.
    QList<HistoryEvent> events() const; // everything so far, ordered by time
    struct Cursor
    {
        QList<qsizetype> positions;
    };
    // Events recorded since `cursor` (advanced), ordered by time within this batch.
    QList<HistoryEvent> readNew(Cursor &cursor) const;
    QByteArray text(const HistoryEvent &event) const;
    qsizetype size() const;
    // Events not stored because a log was full: when non-zero the history is incomplete and says so.
    qsizetype dropped() const;

private:
    struct Log
    {
        explicit Log(qsizetype capacity)
            : events(capacity)
            , texts(capacity / 4)
        {
        }
        // Small chunks (512 events, 128 texts): a fleet has thousands of logs, and each log's first chunk is
        // allocated whole by its first event (at 4,096 events a chunk, 5,000 workers took 1.5 GB before
        // recording anything much). A chunk costs one mutex round per 512 events.
        ChunkedLog<HistoryEvent, 9> events;
        ChunkedLog<QByteArray, 7> texts;
    };
    std::vector<std::unique_ptr<Log>> m_logs;
    bool m_recording = true;
};
