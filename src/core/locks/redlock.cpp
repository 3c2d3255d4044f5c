// Redlock: parallel rounds with per-server timeouts, quorum and validity, release everywhere on failure.
#include "redlock.h"

#include "redis/fiberscheduler.h"

#include <chrono>
#include <cmath>
#include <optional>

Redlock::Redlock(LockClient &client, const QByteArray &name, qint64 threadId, const LockOptions &options)
    : DistributedLock(client, QStringLiteral("redlock"), name, threadId, options)
{
}

QStringList Redlock::scriptNames() const
{
    return {QStringLiteral("compare_and_delete"), QStringLiteral("compare_and_pexpire")};
}

qint64 Redlock::driftMs(qint64 leaseMs) const
{
    return qint64(std::llround(double(leaseMs) * m_options.driftFactor)) + m_options.driftExtraMs;
}

qint64 Redlock::validityRemainingMs() const
{
    if (m_holdCount == 0)
        return -1;
    return m_validUntilMs - m_clock.nowMs();
}

QList<ServerVote> Redlock::round(const LockServers &servers, LockIo &io,
                                 const std::function<RedisCommand(int)> &commandFor,
                                 const std::function<bool(const RedisReply &)> &granted)
{
    const qsizetype n = servers.size();
    QList<ServerVote> votes(n);
    QList<int> savedTimeouts(n);
    QList<qint64> sentUs(n, -1);
    QList<std::optional<RedisResult>> early(n);
    QList<bool> lost(n, false); // cut off by a network partition: sent into the void
    const int timeoutMs = m_options.serverTimeoutMs;
    auto send = [&](qsizetype i) {
        RedisConnection &c = *servers.at(i);
        const qint64 startUs = LockClock::monotonicUs();
        if (io.isCutOff(c, 0)) { // no connection can be made either
            io.beforeSend(c, commandFor(int(i)));
            io.countSent();
            sentUs[i] = startUs;
            lost[i] = true;
            return;
        }
        if (!c.isOpen()) {
            if (const RedisError e = c.open()) {
                votes[i].error = e;
                votes[i].latencyUs = LockClock::monotonicUs() - startUs;
                return;
            }
        }
        const RedisCommand command = commandFor(int(i));
        votes[i].errorCommand = LockIo::commandName(command); // kept only with an error, below
        io.beforeSend(c, command);
        if (const RedisError e = c.append(command)) {
            votes[i].error = e;
            return;
        }
        io.countSent();
        sentUs[i] = startUs;
        // append() only buffers: a zero wait writes the command out now, so every server works on it at
        // once (a reply that is already there is kept).
        RedisResult r = c.readReply(0);
        if (r.error.code() != RedisError::Code::Timeout || !c.isOpen())
            early[i] = std::move(r);
    };
    for (qsizetype i = 0; i < n; ++i) {
        RedisConnection &c = *servers.at(i);
        votes[i].server = c.settings().endpoint();
        savedTimeouts[i] = c.settings().commandTimeoutMs;
        c.setCommandTimeout(timeoutMs); // also bounds a reconnect's handshake
    }
    // Open connections first; reconnecting (maybe to a paused server) can take up to the timeout.
    for (qsizetype i = 0; i < n; ++i) {
        if (servers.at(i)->isOpen())
            send(i);
    }
    for (qsizetype i = 0; i < n; ++i) {
        if (sentUs[i] < 0 && !votes[i].error)
            send(i);
    }
    for (qsizetype i = 0; i < n; ++i) {
        if (sentUs[i] < 0)
            continue;
        RedisConnection &c = *servers.at(i);
        RedisResult r;
        if (lost[i]) {
            // Waits out the server's timeout as for a silent server (rounds wait for all servers at once).
            const qint64 leftUs = sentUs[i] + qint64(timeoutMs) * 1000 - LockClock::monotonicUs();
            if (leftUs > 0)
                FiberScheduler::sleepFor(std::chrono::microseconds(leftUs)); // a fiber's, on the event engine
            r = LockIo::lostReply(c, timeoutMs);
        } else if (early[i]) {
            r = *early[i];
        } else {
            const qint64 leftMs = (sentUs[i] + qint64(timeoutMs) * 1000 - LockClock::monotonicUs()) / 1000;
            r = c.readReply(int(qMax<qint64>(0, leftMs)));
        }
        io.afterReceive(c, r);
        votes[i].latencyUs = LockClock::monotonicUs() - sentUs[i];
        if (r.error.code() == RedisError::Code::Timeout && !lost[i]) {
            // The late reply would confuse the next command on this connection: drop it, reconnect later.
            c.close();
            r.error = {RedisError::Code::Timeout,
                       QStringLiteral("no reply from %1 within %2 ms").arg(votes[i].server).arg(timeoutMs)};
        }
        votes[i].reply = r.reply;
        votes[i].error = r.error;
        votes[i].granted = r.ok() && granted(r.reply);
    }
    for (qsizetype i = 0; i < n; ++i) {
        servers.at(i)->setCommandTimeout(savedTimeouts[i]);
        if (!votes[i].error)
            votes[i].errorCommand.clear();
    }
    return votes;
}

QList<ServerVote> Redlock::scriptEverywhere(const LockServers &servers, LockIo &io, const QString &name,
                                            const QList<QByteArray> &args)
{
    const LuaScript &script = LuaScript::get(name);
    auto isOne = [](const RedisReply &reply) { return reply.toInteger() == 1; };
    QList<ServerVote> votes = round(
        servers, io, [&](int i) { return script.commandFor(*servers.at(i), {m_name}, args); }, isOne);
    for (qsizetype i = 0; i < votes.size(); ++i) {
        if (!votes[i].error)
            continue;
        if (votes[i].error.code() != RedisError::Code::NoScript
            && !LuaScript::refusesCachedScripts(votes[i].error)) {
            votes[i].errorCommand += ' ' + name.toUtf8();
            continue;
        }
        RedisConnection &c = *servers.at(i);
        if (LuaScript::refusesCachedScripts(votes[i].error))
            c.setScriptsByEval(true); // refused once already: straight to EVAL
        const int saved = c.settings().commandTimeoutMs;
        c.setCommandTimeout(m_options.serverTimeoutMs);
        const RedisResult r = io.script(c, script, {m_name}, args);
        c.setCommandTimeout(saved);
        votes[i].reply = r.reply;
        votes[i].error = r.error;
        votes[i].errorCommand = io.failedCommand(r.error);
        votes[i].granted = r.ok() && isOne(r.reply);
    }
    return votes;
}

AcquireResult Redlock::attemptAcquire(const LockServers &servers, LockIo &io)
{
    AcquireResult r;
    const QByteArray token = LockClient::randomUuid();
    const qint64 lease = m_options.leaseMs;
    const qint64 startMs = m_clock.nowMs();
    r.votes = round(
        servers, io,
        [&](int) { return RedisCommand {"SET", m_name, token, "NX", "PX", QByteArray::number(lease)}; },
        [](const RedisReply &reply) { return reply.isStatus() && reply.bytes() == "OK"; });
    const qint64 endMs = m_clock.nowMs();
    r.quorum = quorumFor(int(servers.size()));
    r.elapsedMs = endMs - startMs;
    r.validityMs = lease - r.elapsedMs - driftMs(lease);
    r.token = token;
    const int granted = r.grantedCount();
    if (granted >= r.quorum && r.validityMs > 0) {
        r.outcome = AcquireResult::Outcome::Acquired;
        r.holdCount = 1;
        m_token = token;
        m_holdCount = 1;
        m_validUntilMs = startMs + lease - driftMs(lease);
        return r;
    }
    // A failed round: take the key back everywhere, also where no answer came (a late grant may land).
    scriptEverywhere(servers, io, QStringLiteral("compare_and_delete"), {token});
    // Unreachable servers are in the votes; the round itself is a refusal, retried by acquire().
    r.outcome = granted >= r.quorum ? AcquireResult::Outcome::ValiditySpent : AcquireResult::Outcome::Refused;
    return r;
}

ReleaseResult Redlock::attemptRelease(const LockServers &servers, LockIo &io)
{
    ReleaseResult r;
    r.votes = scriptEverywhere(servers, io, QStringLiteral("compare_and_delete"), {m_token});
    int deleted = 0;
    int foreign = 0;
    int failed = 0;
    for (const ServerVote &v : r.votes) {
        deleted += v.granted ? 1 : 0;
        foreign += (!v.error && v.reply.toInteger() == -1) ? 1 : 0;
        if (v.error) {
            ++failed;
            if (!r.error) {
                r.error = v.error;
                r.errorCommand = v.errorCommand;
            }
        }
    }
    if (deleted > 0)
        r.outcome = ReleaseResult::Outcome::Released;
    else if (foreign > 0)
        r.outcome = ReleaseResult::Outcome::NotOwner;
    else if (failed == r.votes.size())
        return r; // Error: no server answered; we may still hold it
    else
        r.outcome = ReleaseResult::Outcome::Expired;
    m_holdCount = 0;
    m_validUntilMs = 0;
    r.holdCount = 0;
    return r;
}

ExtendResult Redlock::attemptExtend(const LockServers &servers, LockIo &io, qint64 leaseMs)
{
    ExtendResult r;
    const qint64 startMs = m_clock.nowMs();
    r.votes = scriptEverywhere(servers, io, QStringLiteral("compare_and_pexpire"),
                               {m_token, QByteArray::number(leaseMs)});
    const qint64 elapsed = m_clock.nowMs() - startMs;
    int extended = 0;
    for (const ServerVote &v : r.votes)
        extended += v.granted ? 1 : 0;
    r.leaseMs = leaseMs;
    r.validityMs = leaseMs - elapsed - driftMs(leaseMs);
    if (extended >= quorumFor(int(servers.size())) && r.validityMs > 0) {
        r.outcome = ExtendResult::Outcome::Extended;
        m_validUntilMs = startMs + leaseMs - driftMs(leaseMs);
    } else {
        r.outcome = ExtendResult::Outcome::Lost;
        m_validUntilMs = 0;
    }
    return r;
}
