// PersistentErrorTracker: which errors are persistent, the streaks of each, back-off and giving up.
#include "persistenterrortracker.h"

#include <algorithm>

namespace {

QByteArray firstWord(const QString &message)
{
    return message.section(u' ', 0, 0).toUtf8();
}

} // namespace

QString PersistentErrorTracker::Failure::describe() const
{
    const QString what = command.isEmpty() ? operationName(operation)
                                           : QStringLiteral("%1 (%2)").arg(command, operationName(operation));
    return QStringLiteral("%1 refused %2 in %3 s: %4")
        .arg(what, failures == 1 ? QStringLiteral("once") : QStringLiteral("%1 times").arg(failures))
        .arg(double(lastUs - firstUs) / 1e6, 0, 'f', 2)
        .arg(error);
}

QString PersistentErrorTracker::operationName(Operation operation)
{
    switch (operation) {
    case Operation::Acquire:
        return QStringLiteral("acquire");
    case Operation::Release:
        return QStringLiteral("release");
    case Operation::Read:
        return QStringLiteral("counter read");
    case Operation::Write:
        return QStringLiteral("counter write");
    }
    return QString();
}

PersistentErrorTracker::PersistentErrorTracker(const Policy &policy)
    : m_policy(policy)
{
}

PersistentErrorTracker::Kind PersistentErrorTracker::classify(const RedisError &error) const
{
    using Code = RedisError::Code;
    if (error.code() == Code::None || error.code() == Code::Interrupted) // the run stopping its own workers
        return Kind::None;
    // No answer: a server restarting, paused or cut off — the simulator's faults make these on purpose.
    if (error.breaksConnection())
        return Kind::Transient;
    switch (error.code()) {
    // An answer that means "not yet": still loading, busy with a script, a cluster slot on the move.
    case Code::Loading:
    case Code::Busy:
    case Code::Redirect:
        return Kind::Transient;
    case Code::ReplicaReadOnly:
        return m_policy.readOnlyIsTransient ? Kind::Transient : Kind::Persistent;
    case Code::Server: {
        // Replies that mean "not now": a cluster or a master in the middle of a change, a slot under
        // migration, too few replicas for min-replicas-to-write, too many clients for the moment.
        static const QList<QByteArray> notNow {"TRYAGAIN",  "MASTERDOWN", "CLUSTERDOWN", "NOREPLICAS",
                                               "UNBLOCKED", "LOADING",    "BUSY"};
        if (notNow.contains(firstWord(error.message()))
            || error.message().startsWith(QLatin1String("ERR max number of clients")))
            return Kind::Transient;
        return Kind::Persistent; // OOM, MISCONF, ERR unknown command, a script's own error…
    }
    default:
        // Refusals of the user or of the data that no retry changes: AUTH, NOPERM, WRONGTYPE, NOSCRIPT still
        // there after SCRIPT LOAD and EVAL (LuaScript), LockScope's own read-only guard, a bad argument.
        return Kind::Persistent;
    }
}

const ServerVote *PersistentErrorTracker::blockingVote(const QList<ServerVote> &votes, int quorum) const
{
    const ServerVote *first = nullptr;
    qsizetype refused = 0;
    for (const ServerVote &v : votes) {
        if (v.granted || classify(v.error) != Kind::Persistent)
            continue;
        ++refused;
        if (!first)
            first = &v;
    }
    return refused > votes.size() - quorum ? first : nullptr;
}

qint64 PersistentErrorTracker::failed(int worker, Operation operation, qint64 nowUs,
                                      const QByteArray &command, const RedisError &error)
{
    if (classify(error) != Kind::Persistent)
        return 0;
    const QByteArray signature
        = command + '\n' + QByteArray::number(int(error.code())) + '\n' + firstWord(error.message());
    std::lock_guard lock(m_mutex);
    auto it = std::find_if(m_streaks.begin(), m_streaks.end(), [&](const Streak &s) {
        return s.operation == operation && s.signature == signature;
    });
    if (it == m_streaks.end()) {
        Streak s;
        s.operation = operation;
        s.signature = signature;
        s.failure.operation = operation;
        s.failure.command = QString::fromUtf8(command);
        s.failure.error = error.message(); // the first one's words (later ones differ only in their keys)
        s.failure.firstUs = nowUs;
        m_streaks.push_back(s);
        it = m_streaks.end() - 1;
        m_open = int(m_streaks.size());
    }
    Failure &f = it->failure;
    ++f.failures;
    f.firstUs = std::min(f.firstUs, nowUs); // workers report out of order by a few µs
    f.lastUs = std::max(f.lastUs, nowUs);
    if (!m_failure
        && ((f.failures >= m_policy.minFailures && f.lastUs - f.firstUs >= m_policy.windowUs)
            || f.failures >= m_policy.maxFailures)) {
        m_failure = f;
        m_gaveUp = true;
    }
    const int inARow = ++it->perWorker[worker];
    return std::min(m_policy.maxBackoffUs, m_policy.firstBackoffUs << std::min(inARow - 1, 20));
}

void PersistentErrorTracker::succeeded(Operation operation)
{
    if (m_open.load(std::memory_order_relaxed) == 0)
        return;
    std::lock_guard lock(m_mutex);
    std::erase_if(m_streaks, [operation](const Streak &s) { return s.operation == operation; });
    m_open = int(m_streaks.size());
}

std::optional<PersistentErrorTracker::Failure> PersistentErrorTracker::failure() const
{
    std::lock_guard lock(m_mutex);
    return m_failure;
}
