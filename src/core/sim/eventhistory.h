// A run's whole history: append-only logs, each written by exactly one thread (a worker's, a loop's whose
// fibers share it, a watchdog's, the fault controller's), readable live by the GUI and completely by the
// checker at the end.
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
    // One log per writing thread: the engine gives each worker thread (or each loop, for its fibers), each
    // process's watchdog and the fault controller its own log, so no two threads ever append to the same log.
    explicit EventHistory(int logs, qsizetype capacityPerLog = qsizetype(1) << 22);
    // Logs of different sizes: a log shared by many writers of one thread holds as many events as their
    // own logs would have.
    explicit EventHistory(const std::vector<qsizetype> &capacities);

    int logCount() const { return int(m_logs.size()); }

    // Writer side: only the thread that owns `log` may call these.
    void record(int log, const HistoryEvent &event);
    // Stores a text (reply, error, fault description) and returns the index to put in HistoryEvent::detail.
    quint32 addText(int log, const QByteArray &text);
    // A new operation id, unique within `log`, for pairing an Invoke with its completion. Writers that share
    // a log take their ids from it, so they never pair with each other's events. Counts also when recording
    // is off (the id is still returned to the caller).
    quint32 newOperation(int log) { return ++m_logs[size_t(log)]->lastOperation; }

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
        quint32 lastOperation = 0; // writer thread only
    };
    std::vector<std::unique_ptr<Log>> m_logs;
    bool m_recording = true;
};
