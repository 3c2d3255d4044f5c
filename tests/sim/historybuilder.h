// Builds histories by hand for checker and metrics tests: each call appends one event at a given time (ms).
#pragma once

#include "sim/historyevent.h"

#include <QList>

class HistoryBuilder
{
public:
    // Worker w belongs to process w unless told otherwise.
    HistoryBuilder &acquire(int w, int lock, double invokeMs, double okMs, qint64 leaseMs, qint64 token = 0)
    {
        const qint64 op = ++m_op;
        add(w, lock, invokeMs, HistoryEvent::Phase::Invoke, HistoryEvent::Kind::Acquire, op, leaseMs, token);
        add(w, lock, okMs, HistoryEvent::Phase::Ok, HistoryEvent::Kind::Acquire, op, leaseMs, token);
        return *this;
    }
    HistoryBuilder &acquireFailed(int w, int lock, double invokeMs, double failMs, qint64 leaseMs)
    {
        const qint64 op = ++m_op;
        add(w, lock, invokeMs, HistoryEvent::Phase::Invoke, HistoryEvent::Kind::Acquire, op, leaseMs);
        add(w, lock, failMs, HistoryEvent::Phase::Fail, HistoryEvent::Kind::Acquire, op, -1);
        return *this;
    }
    // An acquire still waiting when the history ends (a live run).
    HistoryBuilder &acquireInvoked(int w, int lock, double invokeMs, qint64 leaseMs = 10000)
    {
        add(w, lock, invokeMs, HistoryEvent::Phase::Invoke, HistoryEvent::Kind::Acquire, ++m_op, leaseMs);
        return *this;
    }
    HistoryBuilder &renew(int w, int lock, double invokeMs, double okMs, qint64 leaseMs, quint16 log = 0)
    {
        const qint64 op = ++m_op;
        add(w, lock, invokeMs, HistoryEvent::Phase::Invoke, HistoryEvent::Kind::Renew, op, leaseMs, 0, 0,
            log);
        add(w, lock, okMs, HistoryEvent::Phase::Ok, HistoryEvent::Kind::Renew, op, leaseMs, 0, 0, log);
        return *this;
    }
    HistoryBuilder &release(int w, int lock, double invokeMs, double okMs,
                            HistoryEvent::ReleaseOutcome outcome = HistoryEvent::ReleaseOutcome::Released,
                            qint64 deleted = 1)
    {
        const qint64 op = ++m_op;
        add(w, lock, invokeMs, HistoryEvent::Phase::Invoke, HistoryEvent::Kind::Release, op, 0);
        add(w, lock, okMs, HistoryEvent::Phase::Ok, HistoryEvent::Kind::Release, op, deleted, 0,
            quint8(outcome));
        return *this;
    }
    HistoryBuilder &enter(int w, int lock, double ms)
    {
        return single(w, lock, ms, HistoryEvent::Kind::Enter, 0);
    }
    HistoryBuilder &exit(int w, int lock, double ms)
    {
        return single(w, lock, ms, HistoryEvent::Kind::Exit, 0);
    }
    HistoryBuilder &read(int w, int lock, double ms, qint64 value)
    {
        return single(w, lock, ms, HistoryEvent::Kind::Read, value);
    }
    HistoryBuilder &write(int w, int lock, double invokeMs, double okMs, qint64 value, qint64 token = 0)
    {
        const qint64 op = ++m_op;
        add(w, lock, invokeMs, HistoryEvent::Phase::Invoke, HistoryEvent::Kind::Write, op, value, token);
        add(w, lock, okMs, HistoryEvent::Phase::Ok, HistoryEvent::Kind::Write, op, value, token,
            quint8(HistoryEvent::WriteOutcome::Applied));
        return *this;
    }
    // A write whose reply never came: it may or may not have been applied.
    HistoryBuilder &writeUnknown(int w, int lock, double invokeMs, double infoMs, qint64 value)
    {
        const qint64 op = ++m_op;
        add(w, lock, invokeMs, HistoryEvent::Phase::Invoke, HistoryEvent::Kind::Write, op, value);
        add(w, lock, infoMs, HistoryEvent::Phase::Info, HistoryEvent::Kind::Write, op, value);
        return *this;
    }
    HistoryBuilder &fencedOut(int w, int lock, double invokeMs, double failMs, qint64 value, qint64 token)
    {
        const qint64 op = ++m_op;
        add(w, lock, invokeMs, HistoryEvent::Phase::Invoke, HistoryEvent::Kind::Write, op, value, token);
        add(w, lock, failMs, HistoryEvent::Phase::Fail, HistoryEvent::Kind::Write, op, value, token,
            quint8(HistoryEvent::WriteOutcome::FencedOut));
        return *this;
    }
    // A Redlock round from startMs to endMs: granted/answered are bit masks per server.
    HistoryBuilder &round(int w, int lock, double startMs, double endMs, HistoryEvent::RoundOutcome outcome,
                          quint16 granted, quint16 answered, qint64 validityMs)
    {
        add(w, lock, endMs,
            outcome == HistoryEvent::RoundOutcome::Won ? HistoryEvent::Phase::Ok : HistoryEvent::Phase::Fail,
            HistoryEvent::Kind::Round, ++m_op, validityMs, 0, quint8(outcome));
        HistoryEvent &e = m_events.last();
        e.effectUs = qint64(startMs * 1000);
        e.votesGranted = granted;
        e.votesAnswered = answered;
        e.commands = 0;
        return *this;
    }
    HistoryBuilder &fault(HistoryEvent::FaultType type, int process, double ms)
    {
        HistoryEvent e;
        e.timeUs = qint64(ms * 1000);
        e.kind = HistoryEvent::Kind::Fault;
        e.outcome = quint8(type);
        e.process = process;
        e.log = 999;
        m_events.append(e);
        return *this;
    }
    QList<HistoryEvent> events() const
    {
        QList<HistoryEvent> sorted = m_events;
        std::stable_sort(sorted.begin(), sorted.end(),
                         [](const HistoryEvent &a, const HistoryEvent &b) { return a.timeUs < b.timeUs; });
        return sorted;
    }

private:
    HistoryBuilder &single(int w, int lock, double ms, HistoryEvent::Kind kind, qint64 value)
    {
        add(w, lock, ms, HistoryEvent::Phase::Ok, kind, ++m_op, value);
        m_events.last().commands = 0; // entering, leaving and local reads of the builder use no Redis command
        return *this;
    }
    void add(int w, int lock, double ms, HistoryEvent::Phase phase, HistoryEvent::Kind kind, qint64 op,
             qint64 value, qint64 token = 0, quint8 outcome = 0, quint16 log = 0)
    {
        HistoryEvent e;
        e.timeUs = qint64(ms * 1000);
        e.worker = w;
        e.process = w;
        e.lock = lock;
        e.phase = phase;
        e.kind = kind;
        e.opId = quint32(op);
        e.value = value;
        e.token = token;
        e.outcome = outcome;
        e.commands = phase == HistoryEvent::Phase::Invoke ? 0 : 1;
        e.log = log ? log : quint16(w);
        m_events.append(e);
    }

    QList<HistoryEvent> m_events;
    qint64 m_op = 0;
};
