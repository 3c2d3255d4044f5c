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
        = io.command(c, {QByteArrayLiteral("SET"), m_name, value, QByteArrayLiteral("NX"), QByteArrayLiteral("PX"),
                         leaseArgument()});
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
    if (m_release == Release::GetThenDel)
        return getThenDelete(c, io, m_client.ownerField(m_threadId));
    ReleaseResult r;
    r.holdCount = m_holdCount;
    static const LuaScript &compareAndDelete = LuaScript::get(QStringLiteral("compare_and_delete")); // once
    const RedisResult del = m_release == Release::UnconditionalDel
        ? io.command(c, {QByteArrayLiteral("DEL"), m_name}) // seed 002 step 1: deletes whoever's lock is there
        : io.script(c, compareAndDelete, {m_name}, {m_token});
    r.reply = del.reply;
    r.error = del.error;
    if (!del.ok())
        return r;
    const qint64 code = del.reply.toInteger();
    return releasedAll(r,
                       code == 1       ? ReleaseResult::Outcome::Released
                           : code == 0 ? ReleaseResult::Outcome::Expired
                                       : ReleaseResult::Outcome::NotOwner);
}

namespace {

RenewalEvent::Outcome renewOnce(SetNxPxLock::Release release, RedisConnection &c, LockIo &io,
                                const QByteArray &key, const QByteArray &token, qint64 leaseMs,
                                RedisReply *reply, RedisError *error)
{
    RedisResult result;
    if (release == SetNxPxLock::Release::CompareAndDelete) {
        static const LuaScript &compareAndPexpire = LuaScript::get(QStringLiteral("compare_and_pexpire"));
        result = io.script(c, compareAndPexpire, {key},
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

LockWatchdog::RenewFunction SetNxPxLock::renewFunction(qint64 leaseMs) const
{
    return [release = m_release, key = m_name, token = m_token,
            lease = leaseMs](RedisConnection &c, LockIo &io, RedisReply *reply, RedisError *error) {
        return renewOnce(release, c, io, key, token, lease, reply, error);
    };
}
