// CustomLuaLock: the calling convention of CustomLockScripts turned into the catalog's outcomes.
#include "customlualock.h"

CustomLuaLock::CustomLuaLock(LockClient &client, const QByteArray &name, qint64 threadId, const LockOptions &options)
    : DistributedLock(client, QStringLiteral("custom-lua"), name, threadId, options)
    , m_scripts(options.customScripts)
{
}

RedisResult CustomLuaLock::run(RedisConnection &connection, LockIo &io, const LuaScript &script,
                               const QByteArray &key, const QByteArray &token, qint64 leaseMs)
{
    RedisResult r = io.script(connection, script, {key}, {token, QByteArray::number(leaseMs)});
    if (!r.ok() && r.error.code() == RedisError::Code::Busy) {
        // Someone's script (maybe this very lock's, from another worker) holds the server: stop it.
        const RedisResult kill = connection.command({"SCRIPT", "KILL"});
        r.error = RedisError(RedisError::Code::Busy,
                             QStringLiteral("a script ran past the server's busy threshold and %1: %2")
                                 .arg(kill.ok() ? QStringLiteral("was stopped (SCRIPT KILL)")
                                                : QStringLiteral("could not be stopped (%1)").arg(kill.error.message()),
                                      r.error.message()));
    }
    return r;
}

AcquireResult CustomLuaLock::attemptAcquire(const LockServers &servers, LockIo &io)
{
    AcquireResult r;
    const QByteArray token = LockClient::randomUuid();
    const RedisResult done = run(*servers.first(), io, m_scripts->acquire(), m_name, token, m_options.leaseMs);
    r.reply = done.reply;
    r.error = done.error;
    if (!done.ok())
        return r;
    // The convention: 0, false (nil in Redis's reply) or nil is busy; anything else is taken.
    if (done.reply.isNil() || (done.reply.isInteger() && done.reply.toInteger() == 0)) {
        r.outcome = AcquireResult::Outcome::Refused;
        return r;
    }
    r.outcome = AcquireResult::Outcome::Acquired;
    r.token = token;
    if (m_scripts->fencing() && done.reply.isInteger())
        r.fence = done.reply.toInteger();
    m_token = token;
    m_fence = r.fence;
    m_holdCount = 1;
    r.holdCount = 1;
    return r;
}

ReleaseResult CustomLuaLock::attemptRelease(const LockServers &servers, LockIo &io)
{
    ReleaseResult r;
    r.holdCount = m_holdCount;
    const RedisResult done = run(*servers.first(), io, m_scripts->release(), m_name, m_token, m_options.leaseMs);
    r.reply = done.reply;
    r.error = done.error;
    if (!done.ok())
        return r;
    if (!done.reply.isInteger() || (done.reply.toInteger() != 0 && done.reply.toInteger() != 1)) {
        r.error = RedisError(RedisError::Code::Protocol,
                             QStringLiteral("release.lua returned %1; the convention is 1 (released) or 0 (not the owner)")
                                 .arg(done.reply.isInteger() ? QString::number(done.reply.toInteger())
                                                             : QString::fromUtf8(done.reply.bytes().left(40))));
        return r;
    }
    return releasedAll(r, done.reply.toInteger() == 1 ? ReleaseResult::Outcome::Released
                                                      : ReleaseResult::Outcome::NotOwner);
}

LockWatchdog::RenewFunction CustomLuaLock::renewFunction(qint64 leaseMs) const
{
    if (!m_scripts->renew())
        return {};
    return [scripts = m_scripts, key = m_name, token = m_token,
            lease = leaseMs](RedisConnection &c, LockIo &io, RedisReply *reply, RedisError *error) {
        const RedisResult done = run(c, io, *scripts->renew(), key, token, lease);
        *reply = done.reply;
        *error = done.error;
        if (!done.ok())
            return RenewalEvent::Outcome::Error;
        return done.reply.isInteger() && done.reply.toInteger() == 1 ? RenewalEvent::Outcome::Renewed
                                                                     : RenewalEvent::Outcome::Lost;
    };
}
