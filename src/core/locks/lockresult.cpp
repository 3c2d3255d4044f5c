// Lock results: names and one-line descriptions.
#include "lockresult.h"

namespace {

QString commandsText(int n)
{
    return n == 1 ? QStringLiteral("1 command") : QStringLiteral("%1 commands").arg(n);
}

QString ttlText(qint64 ttl)
{
    switch (ttl) {
    case LockTtl::NoExpiry:
        return QStringLiteral("no TTL");
    case LockTtl::NoKey:
        return QStringLiteral("no key");
    case LockTtl::Unknown:
        return QString();
    default:
        return QStringLiteral("TTL %1 ms").arg(ttl);
    }
}

} // namespace

int AcquireResult::grantedCount() const
{
    int n = 0;
    for (const ServerVote &v : votes)
        n += v.granted ? 1 : 0;
    return n;
}

QString AcquireResult::outcomeName(Outcome outcome)
{
    switch (outcome) {
    case Outcome::Acquired:
        return QStringLiteral("acquired");
    case Outcome::Refused:
        return QStringLiteral("refused");
    case Outcome::TimedOut:
        return QStringLiteral("timed out");
    case Outcome::Crashed:
        return QStringLiteral("crashed");
    case Outcome::ValiditySpent:
        return QStringLiteral("validity spent");
    case Outcome::Interrupted:
        return QStringLiteral("interrupted");
    case Outcome::Error:
        return QStringLiteral("error");
    }
    return QString();
}

QString AcquireResult::describe() const
{
    QStringList parts;
    if (acquired()) {
        if (holdCount > 1)
            parts << QStringLiteral("hold %1").arg(holdCount);
        if (fence >= 0)
            parts << QStringLiteral("fence %1").arg(fence);
        if (validityMs >= 0)
            parts << QStringLiteral("valid %1 ms").arg(validityMs);
    } else if (outcome == Outcome::Crashed) {
        parts << QStringLiteral("key left behind, %1").arg(ttlText(ttlMs));
    } else {
        const QString ttl = ttlText(ttlMs);
        if (!ttl.isEmpty())
            parts << QStringLiteral("holder's %1").arg(ttl);
    }
    if (!votes.isEmpty())
        parts << QStringLiteral("%1/%2 servers, quorum %3").arg(grantedCount()).arg(votes.size()).arg(quorum);
    if (attempts > 1)
        parts << QStringLiteral("%1 attempts").arg(attempts);
    parts << commandsText(commands);
    QString text = outcomeName(outcome) + QStringLiteral(" (") + parts.join(QStringLiteral(", ")) + u')';
    if (error)
        text += QStringLiteral(": ") + error.message();
    return text;
}

QString ReleaseResult::outcomeName(Outcome outcome)
{
    switch (outcome) {
    case Outcome::Released:
        return QStringLiteral("released");
    case Outcome::StillHeld:
        return QStringLiteral("still held");
    case Outcome::NotOwner:
        return QStringLiteral("not the owner");
    case Outcome::Expired:
        return QStringLiteral("already expired");
    case Outcome::Error:
        return QStringLiteral("error");
    }
    return QString();
}

QString ReleaseResult::describe() const
{
    QStringList parts;
    if (outcome == Outcome::StillHeld)
        parts << QStringLiteral("%1 left").arg(holdCount);
    if (!votes.isEmpty()) {
        int deleted = 0;
        for (const ServerVote &v : votes)
            deleted += v.granted ? 1 : 0;
        parts << QStringLiteral("deleted on %1/%2 servers").arg(deleted).arg(votes.size());
    }
    parts << commandsText(commands);
    QString text = outcomeName(outcome) + QStringLiteral(" (") + parts.join(QStringLiteral(", ")) + u')';
    if (error)
        text += QStringLiteral(": ") + error.message();
    return text;
}

QString ExtendResult::outcomeName(Outcome outcome)
{
    switch (outcome) {
    case Outcome::Extended:
        return QStringLiteral("extended");
    case Outcome::Lost:
        return QStringLiteral("lost");
    case Outcome::Error:
        return QStringLiteral("error");
    }
    return QString();
}

QString ExtendResult::describe() const
{
    QStringList parts;
    if (outcome == Outcome::Extended)
        parts << QStringLiteral("lease %1 ms").arg(leaseMs);
    if (validityMs >= 0)
        parts << QStringLiteral("valid %1 ms").arg(validityMs);
    parts << commandsText(commands);
    QString text = outcomeName(outcome) + QStringLiteral(" (") + parts.join(QStringLiteral(", ")) + u')';
    if (error)
        text += QStringLiteral(": ") + error.message();
    return text;
}
