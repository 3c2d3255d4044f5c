// SetnxExpireLock: SETNX + EXPIRE, GET + compare + DEL, with the seed's gaps left in on purpose.
#include "setnxexpirelock.h"

SetnxExpireLock::SetnxExpireLock(LockClient &client, const QByteArray &name, qint64 threadId,
                                 const LockOptions &options)
    : DistributedLock(client, QStringLiteral("setnx-expire"), name, threadId, options)
{
}

qint64 SetnxExpireLock::leaseSeconds(qint64 leaseMs)
{
    return qMax<qint64>(1, (leaseMs + 999) / 1000);
}

AcquireResult SetnxExpireLock::attemptAcquire(const LockServers &servers, LockIo &io)
{
    RedisConnection &c = *servers.first();
    AcquireResult r;
    // Seed 001 makes a new UUID on every pass of its loop.
    const QByteArray value = LockClient::randomUuid();
    const RedisResult set = io.command(c, {"SETNX", m_name, value});
    r.reply = set.reply;
    r.error = set.error;
    if (!set.ok())
        return r;
    if (set.reply.toInteger() != 1) {
        r.outcome = AcquireResult::Outcome::Refused;
        r.ttlMs = probeTtl(c, io, m_name);
        return r;
    }
    r.token = value;
    const FaultHooks &hooks = io.hooks();
    if (hooks.crashAfterSetnx && hooks.crashAfterSetnx(m_threadId, m_name)) {
        // The worker is gone: nobody will ever send the EXPIRE, and this object holds nothing.
        r.outcome = AcquireResult::Outcome::Crashed;
        r.ttlMs = LockTtl::NoExpiry;
        return r;
    }
    const RedisResult expire
        = io.command(c, {"EXPIRE", m_name, QByteArray::number(leaseSeconds(m_options.leaseMs))});
    // The lock is ours even if EXPIRE failed; the error tells that it has no TTL.
    r.outcome = AcquireResult::Outcome::Acquired;
    r.error = expire.error;
    m_token = value;
    m_holdCount = 1;
    r.holdCount = 1;
    return r;
}

ReleaseResult SetnxExpireLock::attemptRelease(const LockServers &servers, LockIo &io)
{
    return getThenDelete(*servers.first(), io, m_token);
}

namespace {

// GET + compare + EXPIRE: the same two-step gap as the release (the seed has no renewal at all).
RenewalEvent::Outcome getThenExpire(RedisConnection &c, LockIo &io, const QByteArray &key,
                                    const QByteArray &token, qint64 leaseMs, RedisReply *reply,
                                    RedisError *error)
{
    const RedisResult get = io.command(c, {"GET", key});
    *reply = get.reply;
    *error = get.error;
    if (!get.ok())
        return RenewalEvent::Outcome::Error;
    if (get.reply.isNil() || get.reply.bytes() != token)
        return RenewalEvent::Outcome::Lost;
    const RedisResult expire
        = io.command(c, {"EXPIRE", key, QByteArray::number(SetnxExpireLock::leaseSeconds(leaseMs))});
    *reply = expire.reply;
    *error = expire.error;
    if (!expire.ok())
        return RenewalEvent::Outcome::Error;
    return expire.reply.toInteger() == 1 ? RenewalEvent::Outcome::Renewed : RenewalEvent::Outcome::Lost;
}

} // namespace

LockWatchdog::RenewFunction SetnxExpireLock::renewFunction(qint64 leaseMs) const
{
    return [key = m_name, token = m_token, lease = leaseMs](RedisConnection &c, LockIo &io, RedisReply *reply,
                                                            RedisError *error) {
        return getThenExpire(c, io, key, token, lease, reply, error);
    };
}
