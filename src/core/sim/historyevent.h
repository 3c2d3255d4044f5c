// One entry of a run's Jepsen-style history. Compact (no heap per event) so recording stays cheap.
//
// The contract between the engine (which records) and the checker/metrics (which read):
//   Acquire  Invoke(value = lease ms, 0 = no TTL)  → Ok(token, value = lease ms, effectUs) | Fail(value =
//   remaining TTL ms
//            or -1) | Info (outcome unknown: error or timeout while the command may have run)
//   Renew    Invoke(value = lease ms) → Ok | Fail (lock lost) | Info
//   Release  Invoke → Ok(outcome = ReleaseOutcome, value = keys deleted without an atomic owner check,
//   effectUs) | Fail | Info Enter / Exit   single Ok events: the worker is inside the critical section of
//   `lock` between them Read     Ok(value = counter value read);  Write Invoke(value = value to write, token
//   = fence)
//            → Ok(same value) | Fail(outcome = FencedOut when the fenced store refused a stale token)
//   Completions repeat the invoke's value, so a history cut before an invoke still reads right.
//   Fault    single Ok event (outcome = FaultType, process set, value = duration ms when it has one)
//   Expire   observed expiry of `lock` (value = lease that ran out)
//   Error    a failure outside any operation (detail says what)
//   Note     a remark that is no failure (detail says what: a late reply, a restarted adapter's pid)
//   Round    one Redlock round inside an acquire: a single Ok (quorum and validity: won) or Fail event
//            (outcome = RoundOutcome, value = validity left in ms — lease − elapsed − drift, negative when
//            spent —, effectUs = when the round sent its first command, votes below). Acquire completions of
//            Redlock carry the votes of the round that decided them.
//   Votes    bit i of votesGranted: logical server i granted the lock; of votesAnswered: it answered at all
//            (granted or refused). A server in neither timed out or could not be reached.
#pragma once

#include <QByteArray>
#include <QString>
#include <QtGlobal>

struct HistoryEvent
{
    enum class Phase : quint8 { Invoke, Ok, Fail, Info };
    enum class Kind : quint8 {
        Acquire,
        Renew,
        Release,
        Enter,
        Exit,
        Read,
        Write,
        Fault,
        Expire,
        Error,
        Round,
        Note
    };
    // Stopped (Fail): the run ended while it waited (not a failure). RenewedUnseen (Ok): the lease in `value`
    // is the one the library set, and the library renews it on its own without saying when (an external
    // client's watchdog with no renewal events): nobody can tell when it would run out.
    enum class AcquireOutcome : quint8 { None, Stopped, RenewedUnseen };
    enum class ReleaseOutcome : quint8 { None, Released, StillHeld, NotOwner, AlreadyExpired };
    enum class WriteOutcome : quint8 { None, Applied, FencedOut };
    enum class RoundOutcome : quint8 { None, Won, NoQuorum, ValiditySpent };
    enum class FaultType : quint8 {
        None,
        PauseStart,
        PauseEnd,
        Crash,
        NetworkDelay,
        ServerRestart,
        ServerPause,
        ServerResume,
        ServerKill,
        Failover,
        ClockSkew,
        StoryStep, // a narrative marker of a story (detail holds the step text)
        PartitionStart, // the process is cut off from the servers (value = duration ms)
        PartitionEnd, // the network heals
        ProcessRestart, // an external client's process starts again (a new PID)
        ConnectionsDropped, // the proxy closed the process's connections
    };

    // 64 bytes: the 64-bit fields first, then the narrow ones, with no padding holes (recording stays cheap).
    qint64 timeUs = 0; // RunClock time
    qint64 token = 0; // lock token / fencing token when the algorithm has one
    qint64 value = 0; // meaning depends on kind, see above
    qint64 effectUs = 0; // Acquire Ok: when the winning attempt sent its first command (0: use the invoke)
    quint32 opId = 0; // pairs an Invoke with its completion; unique per log, so per worker (wraps at 2^32)
    qint32 worker = -1; // -1: run-level (faults injected by the controller)
    qint32 process = -1;
    qint32 lock = -1; // index into the run's lock keys; -1: none
    quint32 detail = 0; // index of a text in the recording log (0: none)
    quint16 votesGranted = 0; // Redlock: see Votes above (scenarios have at most 9 servers)
    quint16 votesAnswered = 0;
    Phase phase = Phase::Ok;
    Kind kind = Kind::Error;
    quint8 outcome = 0; // ReleaseOutcome / WriteOutcome / FaultType / RoundOutcome by kind
    quint16 commands = 0; // Redis commands this step used (on completions)
    quint16 log = 0; // which log of the EventHistory holds it (set by record())

    static QString phaseName(Phase phase);
    static QString kindName(Kind kind);
    static QString faultName(FaultType type);
    static QString releaseOutcomeName(ReleaseOutcome outcome);
    static QString roundOutcomeName(RoundOutcome outcome);
    bool isCompletion() const { return phase != Phase::Invoke; }

    // Redlock votes.
    bool hasVotes() const { return votesAnswered != 0 || kind == Kind::Round; }
    int grantedCount() const;
    // One character per server, in server order: 1 granted, 0 refused, x no answer ("11x00").
    QByteArray votePattern(int servers) const;
    // "3/5 · validity 2.8 s" (validity only on rounds that reached a quorum).
    QString quorumText(int servers) const;
    static constexpr int kMaxVoteServers = 16;
};

static_assert(sizeof(HistoryEvent) == 64, "HistoryEvent grew: recording costs more, keep it compact");

Q_DECLARE_TYPEINFO(HistoryEvent, Q_PRIMITIVE_TYPE);
