// HistoryEvent: names for exports and the event log.
#include "historyevent.h"

QString HistoryEvent::phaseName(Phase phase)
{
    switch (phase) {
    case Phase::Invoke:
        return QStringLiteral("invoke");
    case Phase::Ok:
        return QStringLiteral("ok");
    case Phase::Fail:
        return QStringLiteral("fail");
    case Phase::Info:
        return QStringLiteral("info");
    }
    return {};
}

QString HistoryEvent::kindName(Kind kind)
{
    switch (kind) {
    case Kind::Acquire:
        return QStringLiteral("acquire");
    case Kind::Renew:
        return QStringLiteral("renew");
    case Kind::Release:
        return QStringLiteral("release");
    case Kind::Enter:
        return QStringLiteral("enter");
    case Kind::Exit:
        return QStringLiteral("exit");
    case Kind::Read:
        return QStringLiteral("read");
    case Kind::Write:
        return QStringLiteral("write");
    case Kind::Fault:
        return QStringLiteral("fault");
    case Kind::Expire:
        return QStringLiteral("expire");
    case Kind::Error:
        return QStringLiteral("error");
    }
    return {};
}

QString HistoryEvent::faultName(FaultType type)
{
    switch (type) {
    case FaultType::None:
        return QString();
    case FaultType::PauseStart:
        return QStringLiteral("pause");
    case FaultType::PauseEnd:
        return QStringLiteral("resume");
    case FaultType::Crash:
        return QStringLiteral("crash");
    case FaultType::NetworkDelay:
        return QStringLiteral("network-delay");
    case FaultType::ServerRestart:
        return QStringLiteral("server-restart");
    case FaultType::ServerPause:
        return QStringLiteral("server-pause");
    case FaultType::ServerResume:
        return QStringLiteral("server-resume");
    case FaultType::ServerKill:
        return QStringLiteral("server-kill");
    case FaultType::Failover:
        return QStringLiteral("failover");
    case FaultType::ClockSkew:
        return QStringLiteral("clock-skew");
    case FaultType::StoryStep:
        return QStringLiteral("step");
    }
    return {};
}

QString HistoryEvent::releaseOutcomeName(ReleaseOutcome outcome)
{
    switch (outcome) {
    case ReleaseOutcome::None:
        return QString();
    case ReleaseOutcome::Released:
        return QStringLiteral("released");
    case ReleaseOutcome::StillHeld:
        return QStringLiteral("still-held");
    case ReleaseOutcome::NotOwner:
        return QStringLiteral("not-owner");
    case ReleaseOutcome::AlreadyExpired:
        return QStringLiteral("already-expired");
    }
    return {};
}
