// LockIo: hooks and counting around each command of a lock operation.
#include "lockio.h"

#include "lockclock.h"

void LockIo::beforeSend(const RedisConnection &connection, const RedisCommand &command) const
{
    if (m_hooks.beforeSend)
        m_hooks.beforeSend(m_threadId, command);
    if (m_hooks.beforeSendTo)
        m_hooks.beforeSendTo(m_threadId, connection.endpoint(), command);
    m_lastSendUs = LockClock::monotonicUs();
    if (m_firstSendUs == 0)
        m_firstSendUs = m_lastSendUs;
}
void LockIo::afterReceive(const RedisConnection &connection, const RedisResult &result) const
{
    if (m_hooks.afterReceive)
        m_hooks.afterReceive(m_threadId, result);
    if (m_hooks.afterReceiveFrom)
        m_hooks.afterReceiveFrom(m_threadId, connection.endpoint(), result);
}
bool LockIo::isCutOff(const RedisConnection &connection, int timeoutMs) const
{
    return m_hooks.cutOff && m_hooks.cutOff(m_threadId, connection.endpoint(), timeoutMs);
}

RedisResult LockIo::lostReply(const RedisConnection &connection, int timeoutMs)
{
    return RedisResult::failure({RedisError::Code::Timeout,
                                 QStringLiteral("no reply from %1 within %2 ms (network partition)")
                                     .arg(connection.endpoint())
                                     .arg(timeoutMs)});
}

RedisResult LockIo::command(RedisConnection &connection, const RedisCommand &command)
{
    beforeSend(connection, command);
    const int timeoutMs = connection.settings().commandTimeoutMs;
    const RedisResult result
        = isCutOff(connection, timeoutMs) ? lostReply(connection, timeoutMs) : connection.command(command);
    ++m_commands;
    afterReceive(connection, result);
    return result;
}

QList<RedisResult> LockIo::pipeline(RedisConnection &connection, const QList<RedisCommand> &commands)
{
    for (const RedisCommand &c : commands)
        beforeSend(connection, c);
    const int timeoutMs = connection.settings().commandTimeoutMs;
    const QList<RedisResult> results = isCutOff(connection, timeoutMs)
        ? QList<RedisResult>(commands.size(), lostReply(connection, timeoutMs))
        : connection.pipeline(commands);
    m_commands += int(commands.size());
    for (const RedisResult &r : results)
        afterReceive(connection, r);
    return results;
}

RedisResult LockIo::script(RedisConnection &connection, const LuaScript &script,
                           const QList<QByteArray> &keys, const QList<QByteArray> &args,
                           const QList<RedisCommand> &after, QList<RedisResult> *afterResults)
{
    if (after.isEmpty())
        return script.run([&](const RedisCommand &c) { return command(connection, c); }, keys, args);
    QList<RedisCommand> batch {script.evalshaCommand(keys, args)};
    batch << after;
    QList<RedisResult> results = pipeline(connection, batch);
    if (results.first().error.code() == RedisError::Code::NoScript) {
        // Nothing ran but the trailing commands (harmless: they clean up after the script). Load, retry.
        const RedisResult loaded = command(connection, script.loadCommand());
        if (!loaded.ok())
            return loaded;
        results = pipeline(connection, batch);
    }
    if (afterResults)
        *afterResults << results.mid(1);
    return results.first();
}

RedisError LockIo::requireWritable(const RedisConnection *connection)
{
    if (!connection)
        return {RedisError::Code::BadArgument, QStringLiteral("no connection given for the lock operation")};
    if (connection->isReadOnly())
        return {
            RedisError::Code::ReadOnlyRefused,
            QStringLiteral("Refused: lock operations write to Redis (SET, EVALSHA, SCRIPT LOAD...) and the "
                           "connection to %1 is read-only; connect with --read-write (or use a sandbox)")
                .arg(connection->settings().endpoint())};
    return {};
}
