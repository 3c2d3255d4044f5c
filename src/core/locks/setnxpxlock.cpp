// SetNxPxLock: SET NX PX with three releases, from unconditional DEL to the Lua compare-and-delete.
#include "setnxpxlock.h"

SetNxPxLock::SetNxPxLock(LockClient &client, const QString &algorithm, Release release,
                         const QByteArray &name, qint64 threadId, const LockOptions &options)
    : DistributedLock(client, algorithm, name, threadId, options)
    , m_release(release)
{
}

QStringList SetNxPxLock::scriptNames() const
{
    if (m_release == Release::CompareAndDelete)
        return {QStringLiteral("compare_and_delete"), QStringLiteral("compare_and_pexpire")};
    return {};
}

QByteArray SetNxPxLock::valueForAcquire() const
{
    switch (m_release) {
    case Release::UnconditionalDel:
        return fixedValue();
    case Release::GetThenDel:
        return m_client.ownerField(m_threadId);
    case Release::CompareAndDelete:
        return LockClient::randomUuid();
    }
    return QByteArray();
}

AcquireResult SetNxPxLock::attemptAcquire(const LockServers &servers, LockIo &io)
{
    RedisConnection &c = *servers.first();
    AcquireResult r;
    const QByteArray value = valueForAcquire();
    const RedisResult set
        = io.command(c, {"SET", m_name, value, "NX", "PX", QByteArray::number(m_options.leaseMs)});
    r.reply = set.reply;
    r.error = set.error;
    if (!set.ok())
        return r;
    if (set.reply.isNil()) {
        r.outcome = AcquireResult::Outcome::Refused;
        r.ttlMs = probeTtl(c, io, m_name);
        return r;
    }
    r.outcome = AcquireResult::Outcome::Acquired;
    r.token = value;
    m_token = value;
    m_holdCount = 1;
    r.holdCount = 1;
    return r;
}

ReleaseResult SetNxPxLock::attemptRelease(const LockServers &servers, LockIo &io)
{
    RedisConnection &c = *servers.first();
    ReleaseResult r;
    r.holdCount = m_holdCount;
    auto finish = [&](ReleaseResult::Outcome outcome) {
        r.outcome = outcome;
        m_holdCount = 0;
        r.holdCount = 0;
        return r;
    };
    switch (m_release) {
    case Release::UnconditionalDel: {
        // Seed 002 step 1: deletes whoever's lock is there.
        const RedisResult del = io.command(c, {"DEL", m_name});
        r.reply = del.reply;
        r.error = del.error;
        if (!del.ok())
            return r;
        return finish(del.reply.toInteger() == 1 ? ReleaseResult::Outcome::Released
                                                 : ReleaseResult::Outcome::Expired);
    }
    case Release::GetThenDel: {
        const RedisResult get = io.command(c, {"GET", m_name});
        r.reply = get.reply;
        r.error = get.error;
        if (!get.ok())
            return r;
        const QByteArray mine = m_client.ownerField(m_threadId);
        if (get.reply.isNil())
            return finish(ReleaseResult::Outcome::Expired);
        if (get.reply.bytes() != mine)
            return finish(ReleaseResult::Outcome::NotOwner);
        if (io.hooks().betweenGetAndDel)
            io.hooks().betweenGetAndDel(m_threadId, m_name);
        const RedisResult del = io.command(c, {"DEL", m_name});
        r.reply = del.reply;
        r.error = del.error;
        if (!del.ok())
            return r;
        return finish(del.reply.toInteger() == 1 ? ReleaseResult::Outcome::Released
                                                 : ReleaseResult::Outcome::Expired);
    }
    case Release::CompareAndDelete: {
        const RedisResult del
            = io.script(c, LuaScript::get(QStringLiteral("compare_and_delete")), {m_name}, {m_token});
        r.reply = del.reply;
        r.error = del.error;
        if (!del.ok())
            return r;
        const qint64 code = del.reply.toInteger();
        return finish(code == 1       ? ReleaseResult::Outcome::Released
                          : code == 0 ? ReleaseResult::Outcome::Expired
                                      : ReleaseResult::Outcome::NotOwner);
    }
    }
    return r;
}

namespace {

RenewalEvent::Outcome renewOnce(SetNxPxLock::Release release, RedisConnection &c, LockIo &io,
                                const QByteArray &key, const QByteArray &token, qint64 leaseMs,
                                RedisReply *reply, RedisError *error)
{
    RedisResult result;
    if (release == SetNxPxLock::Release::CompareAndDelete) {
        result = io.script(c, LuaScript::get(QStringLiteral("compare_and_pexpire")), {key},
                           {token, QByteArray::number(leaseMs)});
    } else if (release == SetNxPxLock::Release::GetThenDel) {
        const RedisResult get = io.command(c, {"GET", key});
        if (get.ok() && (get.reply.isNil() || get.reply.bytes() != token)) {
            *reply = get.reply;
            return RenewalEvent::Outcome::Lost;
        }
        result = get.ok() ? io.command(c, {"PEXPIRE", key, QByteArray::number(leaseMs)}) : get;
    } else {
        // The fixed value cannot tell holders apart: extend whatever is there.
        result = io.command(c, {"PEXPIRE", key, QByteArray::number(leaseMs)});
    }
    *reply = result.reply;
    *error = result.error;
    if (!result.ok())
        return RenewalEvent::Outcome::Error;
    return result.reply.toInteger() == 1 ? RenewalEvent::Outcome::Renewed : RenewalEvent::Outcome::Lost;
}

} // namespace

ExtendResult SetNxPxLock::attemptExtend(const LockServers &servers, LockIo &io, qint64 leaseMs)
{
    ExtendResult r;
    const RenewalEvent::Outcome o
        = renewOnce(m_release, *servers.first(), io, m_name, m_token, leaseMs, &r.reply, &r.error);
    r.outcome = o == RenewalEvent::Outcome::Renewed ? ExtendResult::Outcome::Extended
        : o == RenewalEvent::Outcome::Lost          ? ExtendResult::Outcome::Lost
                                                    : ExtendResult::Outcome::Error;
    r.leaseMs = leaseMs;
    return r;
}

LockWatchdog::RenewFunction SetNxPxLock::renewFunction() const
{
    return [release = m_release, key = m_name, token = m_token,
            lease = m_options.leaseMs](RedisConnection &c, LockIo &io, RedisReply *reply, RedisError *error) {
        return renewOnce(release, c, io, key, token, lease, reply, error);
    };
}
