// The timeline's picture of one run, built incrementally from history events: per worker its waits, holds
// (with the lease each one believes it has, pushed back by renewals), releases and marks; per process its
// pauses and crash; per server its outages; the story's numbered steps; the violations the checker found.
// Plain data with no widgets: TimelineRenderer paints it, the tests and the benchmark feed it directly.
#pragma once

#include "sim/historyevent.h"
#include "sim/scenario.h"
#include "sim/violation.h"

#include <QHash>
#include <QList>
#include <QStringList>

#include <algorithm>
#include <limits>

class TimelineData
{
public:
    static constexpr qint64 kOpen = std::numeric_limits<qint64>::max();
    static constexpr quint32 kNoEvent = std::numeric_limits<quint32>::max();

    struct Layout
    {
        QStringList workers;
        QList<int> workerProcesses; // index = worker
        QStringList processes;
        // External clients: the library each worker runs ("redis-py") and its process ("pid 4242", "pids
        // 4242 → 4300" after a restart); empty for LockScope's own workers.
        QStringList workerLibraries;
        QStringList workerPids;
        QStringList locks;
        int servers = 1;
        QList<Scenario::Step> steps; // a story's steps, to number the narrative as the Learn place does
    };

    // One acquire call, from its invoke to its completion.
    struct Wait
    {
        enum class Outcome : quint8 { Waiting, Acquired, GaveUp, Unknown, Stopped, Crashed };
        qint64 startUs = 0;
        qint64 endUs = kOpen;
        quint32 event = kNoEvent; // the invoke
        quint32 endEvent = kNoEvent; // the completion
        Outcome outcome = Outcome::Waiting;
    };

    // One Redlock round inside a wait (an attempt on every server): who granted it, who refused, who did not
    // answer, and the validity it left.
    struct Round
    {
        qint64 startUs = 0; // the round sent its first command
        qint64 endUs = 0; // it was decided (and, when lost, its partial votes taken back)
        quint32 event = kNoEvent;
        qint32 validityMs = 0;
        quint16 granted = 0; // bit per server, as HistoryEvent::votesGranted
        quint16 answered = 0;
        HistoryEvent::RoundOutcome outcome = HistoryEvent::RoundOutcome::None;
        bool won() const { return outcome == HistoryEvent::RoundOutcome::Won; }
        int grantedCount() const;
        // 1 granted · 0 refused · -1 no answer
        int vote(int server) const;
    };

    // One tenure of a lock by one worker (reentrant re-acquisitions fold into it).
    struct Hold
    {
        // RenewedUnseen: its library's watchdog renews the lease without saying when (validUntilUs stays
        // open: nobody can tell when it would run out).
        enum Flag : quint8 { Crashed = 1, NoTtl = 2, RenewedUnseen = 4 };
        qint64 startUs = 0; // acquire ok
        qint64 leaseFromUs = 0; // when the winning attempt set the key
        qint64 validUntilUs = kOpen; // when the lease runs out, pushed back by renewals (kOpen: no TTL)
        qint64 endUs = kOpen; // the holder stops counting on it: release invoke, crash
        qint64 releaseEndUs = kOpen; // release completion
        qint64 releaseEffectUs = kOpen; // when the release's delete went out (two-step releases: after GET)
        qint64 deletedUs = kOpen; // another worker's release deleted this key (a DEL without owner check)
        quint32 acquireEvent = kNoEvent;
        quint32 releaseEvent = kNoEvent;
        qint32 leaseMs = 0;
        quint16 renewals = 0;
        quint8 flags = 0;
        qint8 releaseOutcome = -1; // HistoryEvent::ReleaseOutcome, -1 none yet, -2 unknown (info)

        // The worker's own view: from the acquire to the release (or crash), open while it lasts.
        qint64 workerEndUs() const { return endUs; }
        // When the key itself stopped existing on the server, as far as this tenure goes: the release deleted
        // it, its lease ran out, or another worker's release deleted it (kOpen: not yet known).
        qint64 keyEndUs() const;
        bool expired(qint64 nowUs) const; // the lease ran out before the key was released
    };

    struct Mark
    {
        enum class Type : quint8 {
            RenewOk,
            RenewLost,
            RenewUnknown,
            Read,
            Write,
            WriteRefused,
            WriteUnknown,
            ReleaseWithoutHold, // a release sent by a worker that did not hold the lock (the seeds send them)
            Error,
            Fault, // a process-level fault without duration (network delay, clock skew)
        };
        qint64 timeUs = 0; // the completion
        qint64 startUs = 0; // the invoke (renewals: when the new lease started)
        quint32 event = kNoEvent;
        Type type = Type::Read;
        qint16 lock = -1;
    };

    // A stretch of time a process or a server spent in a state.
    struct Shade
    {
        enum class Type : quint8 { Paused, Crashed, ServerDown, ServerPaused, Partitioned };
        qint64 startUs = 0;
        qint64 endUs = kOpen;
        quint32 event = kNoEvent;
        Type type = Type::Paused;
    };

    struct Step
    {
        qint64 timeUs = 0;
        quint32 event = kNoEvent;
        int index = -1; // the scenario's step index
        int number = 0; // narrative number (1-based) among the steps with a note; 0: no note
        QString note;
    };

    struct ServerMark
    {
        qint64 timeUs = 0;
        quint32 event = kNoEvent;
        HistoryEvent::FaultType type = HistoryEvent::FaultType::None;
    };

    // The state of a worker at one moment, for the lane headers and tooltips.
    enum class WorkerState { Idle, Waiting, Holding, Stale, Releasing, Paused, Crashed };

    TimelineData() = default;
    explicit TimelineData(const Layout &layout);

    const Layout &layout() const { return m_layout; }
    int workerCount() const { return int(m_layout.workers.size()); }
    int lockCount() const { return int(m_layout.locks.size()); }
    int processCount() const { return int(m_layout.processes.size()); }
    int serverCount() const { return m_layout.servers; }

    // Adds events (ordered by time within the batch; batches may interleave by a few ms across logs).
    void append(const QList<HistoryEvent> &events);
    // The latest time the run has reached (open spans are drawn up to here).
    void setNowUs(qint64 nowUs);
    qint64 nowUs() const { return m_nowUs; }
    // The run is over at `endUs`: nothing is open any more, except what the run left behind (a crashed
    // holder's key, a key without TTL).
    void finish(qint64 endUs);
    bool isFinished() const { return m_finished; }
    void setViolations(const QList<Violation> &violations) { m_violations = violations; }

    const QList<HistoryEvent> &events() const { return m_events; }
    const QList<Wait> &waits(int worker) const { return m_waits.at(worker); }
    const QList<Hold> &holds(int worker, int lock) const { return m_holds.at(worker * lockCount() + lock); }
    const QList<Mark> &marks(int worker) const { return m_marks.at(worker); } // worker's own, by time
    const QList<Round> &rounds(int worker) const { return m_rounds.at(worker); } // Redlock, by time
    bool hasRounds() const { return m_roundCount > 0; }
    qint64 roundCount() const { return m_roundCount; }
    qint64 roundsWon() const { return m_roundsWon; }
    // The round that decided `hold` (the last one its worker finished by the time it got the lock), or
    // nullptr.
    const Round *roundOf(int worker, const Hold &hold) const;
    const QList<Mark> &renewals(int worker) const { return m_renewals.at(worker); } // from its watchdog
    const QList<Shade> &processShades(int process) const { return m_processShades.at(process); }
    // Network partitions of a process (they overlap pauses, so they have a list of their own).
    const QList<Shade> &partitions(int process) const { return m_partitions.at(process); }
    const QList<Mark> &processMarks(int process) const { return m_processMarks.at(process); }
    const QList<Shade> &serverShades(int server) const { return m_serverShades.at(server); }
    const QList<ServerMark> &serverMarks(int server) const { return m_serverMarks.at(server); }
    const QList<Step> &steps() const { return m_steps; }
    // The narrative number (1-based, as the banner counts) of the scenario's step `stepIndex`; 0: no note.
    int stepNumber(int stepIndex) const { return m_stepNumbers.value(stepIndex, 0); }
    const QList<Violation> &violations() const { return m_violations; }
    bool hasServerActivity() const { return m_serverActivity; }

    // The step the narrative is at, at `timeUs` (the latest one with a note): nullptr before the first.
    const Step *stepAt(qint64 timeUs) const;
    WorkerState workerStateAt(int worker, qint64 timeUs) const;
    // The state in a word or two, as lane names and tooltips write it (empty for Idle).
    static QString stateText(WorkerState state);
    // Leases that ran out while their key was still counted on (the holder never released it in time).
    int expiries() const;
    // The same, as they stood at `timeUs` (stepping shows the run as of the step on screen).
    int expiriesUntil(qint64 timeUs) const;
    qint64 renewalCount() const { return m_renewalCount; }
    // Earliest and latest event time.
    qint64 firstUs() const { return m_firstUs; }
    qint64 lastUs() const { return m_lastUs; }
    // Rough memory held by this picture (bytes), for the benchmark.
    qint64 memoryBytes() const;

    // Index of the first span of `list` that may end at or after `timeUs` (lists are ordered by time and
    // their spans do not overlap).
    template<typename T, typename End>
    static qsizetype firstEndingAfter(const QList<T> &list, qint64 timeUs, End end)
    {
        return std::partition_point(list.begin(), list.end(), [&](const T &s) { return end(s) < timeUs; })
            - list.begin();
    }

private:
    void process(const HistoryEvent &e, quint32 index);
    void acquireDone(const HistoryEvent &e, quint32 index, const HistoryEvent *invoke);
    void releaseDone(const HistoryEvent &e, quint32 index, const HistoryEvent *invoke);
    // A delete without owner check by `worker` at `atUs`, when its own key was gone: whose key it deleted.
    void deletedOthersKey(int worker, int lock, qint64 atUs);
    void renewDone(const HistoryEvent &e, quint32 index, const HistoryEvent *invoke);
    void fault(const HistoryEvent &e, quint32 index);
    void crash(int process, qint64 timeUs, quint32 index);
    Hold *openHold(int worker, int lock);
    void closeHold(int worker, int lock, Hold &hold);
    QList<int> processesOf(int process) const; // -1: all
    static quint64 opKey(const HistoryEvent &e) { return (quint64(e.log) << 48) ^ quint64(e.opId); }
    bool validWorker(int w) const { return w >= 0 && w < workerCount(); }
    bool validLock(int l) const { return l >= 0 && l < lockCount(); }

    Layout m_layout;
    QList<HistoryEvent> m_events;
    QList<QList<Wait>> m_waits;
    QList<QList<Hold>> m_holds; // worker * locks + lock
    QList<QList<Mark>> m_marks;
    QList<QList<Round>> m_rounds;
    QList<QList<Mark>> m_renewals;
    QList<QList<Shade>> m_processShades;
    QList<QList<Shade>> m_partitions;
    QList<QList<Mark>> m_processMarks;
    QList<QList<Shade>> m_serverShades;
    QList<QList<ServerMark>> m_serverMarks;
    QList<Step> m_steps;
    QList<Violation> m_violations;
    QList<int> m_stepNumbers; // scenario step index → narrative number
    QHash<quint64, quint32> m_pendingInvokes; // op → its invoke's index in m_events
    QHash<int, int> m_depth; // worker * locks + lock → reentrant depth of its open hold
    int m_closedExpiries = 0;
    qint64 m_renewalCount = 0;
    qint64 m_roundCount = 0;
    qint64 m_roundsWon = 0;
    qint64 m_nowUs = 0;
    qint64 m_firstUs = kOpen;
    qint64 m_lastUs = 0;
    bool m_finished = false;
    bool m_serverActivity = false;
};
