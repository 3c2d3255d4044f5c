// HistoryEvent: names for exports and the event log, Redlock vote texts.
#include "historyevent.h"

#include <algorithm>
#include <bit>
#include <cstdlib>

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
    case Kind::Round:
        return QStringLiteral("round");
    case Kind::Note:
        return QStringLiteral("note");
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
    case FaultType::PartitionStart:
        return QStringLiteral("partition");
    case FaultType::PartitionEnd:
        return QStringLiteral("heal");
    case FaultType::ProcessRestart:
        return QStringLiteral("restart");
    case FaultType::ConnectionsDropped:
        return QStringLiteral("drop-connections");
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

QString HistoryEvent::roundOutcomeName(RoundOutcome outcome)
{
    switch (outcome) {
    case RoundOutcome::None:
        return QString();
    case RoundOutcome::Won:
        return QStringLiteral("won");
    case RoundOutcome::NoQuorum:
        return QStringLiteral("no-quorum");
    case RoundOutcome::ValiditySpent:
        return QStringLiteral("validity-spent");
    }
    return {};
}

int HistoryEvent::grantedCount() const
{
    return std::popcount(votesGranted);
}

QByteArray HistoryEvent::votePattern(int servers) const
{
    servers = std::clamp(servers, 0, kMaxVoteServers);
    QByteArray pattern(servers, 'x');
    for (int i = 0; i < servers; ++i) {
        const quint16 bit = quint16(1u << i);
        if (votesGranted & bit)
            pattern[i] = '1';
        else if (votesAnswered & bit)
            pattern[i] = '0';
    }
    return pattern;
}

QString HistoryEvent::quorumText(int servers) const
{
    const int quorum = servers / 2 + 1;
    QString text = QStringLiteral("%1/%2").arg(grantedCount()).arg(servers);
    if (kind != Kind::Round)
        return text;
    const auto seconds = [](qint64 ms) {
        return std::abs(ms) >= 1000 ? QStringLiteral("%1 s").arg(double(ms) / 1000.0, 0, 'f', 1)
                                    : QStringLiteral("%1 ms").arg(ms);
    };
    switch (RoundOutcome(outcome)) {
    case RoundOutcome::Won:
        return text + QStringLiteral(" · validity %1").arg(seconds(value));
    case RoundOutcome::ValiditySpent:
        return text + QStringLiteral(" · validity spent (%1)").arg(seconds(value));
    case RoundOutcome::NoQuorum:
    case RoundOutcome::None:
        break;
    }
    return text + QStringLiteral(" · no quorum (needs %1)").arg(quorum);
}
