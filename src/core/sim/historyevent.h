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
#pragma once

#include <QByteArray>
#include <QString>
#include <QtGlobal>

struct HistoryEvent
{
    enum class Phase : quint8 { Invoke, Ok, Fail, Info };
    enum class Kind : quint8 { Acquire, Renew, Release, Enter, Exit, Read, Write, Fault, Expire, Error };
    enum class AcquireOutcome : quint8 {
        None,
        Stopped
    }; // Stopped: the run ended while it waited (not a failure)
    enum class ReleaseOutcome : quint8 { None, Released, StillHeld, NotOwner, AlreadyExpired };
    enum class WriteOutcome : quint8 { None, Applied, FencedOut };
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
    };

    qint64 timeUs = 0; // RunClock time
    qint64 opId = 0; // pairs an Invoke with its completion; unique per worker
    qint64 token = 0; // lock token / fencing token when the algorithm has one
    qint64 value = 0; // meaning depends on kind, see above
    qint64 effectUs = 0; // Acquire Ok: when the winning attempt sent its first command (0: use the invoke)
    qint32 worker = -1; // -1: run-level (faults injected by the controller)
    qint32 process = -1;
    qint32 lock = -1; // index into the run's lock keys; -1: none
    quint32 detail = 0; // index of a text in the recording log (0: none)
    Phase phase = Phase::Ok;
    Kind kind = Kind::Error;
    quint8 outcome = 0; // ReleaseOutcome / WriteOutcome / FaultType by kind
    quint16 commands = 0; // Redis commands this step used (on completions)
    quint16 log = 0; // which log of the EventHistory holds it (set by record())

    static QString phaseName(Phase phase);
    static QString kindName(Kind kind);
    static QString faultName(FaultType type);
    static QString releaseOutcomeName(ReleaseOutcome outcome);
    bool isCompletion() const { return phase != Phase::Invoke; }
};

Q_DECLARE_TYPEINFO(HistoryEvent, Q_PRIMITIVE_TYPE);
