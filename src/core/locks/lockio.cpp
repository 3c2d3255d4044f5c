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
    noteFailure(command, result);
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
    for (qsizetype i = 0; i < results.size(); ++i) {
        noteFailure(commands.value(i), results.at(i));
        afterReceive(connection, results.at(i));
    }
    return results;
}

RedisResult LockIo::script(RedisConnection &connection, const LuaScript &script,
                           const QList<QByteArray> &keys, const QList<QByteArray> &args,
                           const QList<RedisCommand> &after, QList<RedisResult> *afterResults)
{
    // Every try of the script carries the trailing commands in its round trip; a SCRIPT LOAD goes alone.
    // When a try fails before the script ran, only the trailing commands did (harmless: they clean up after
    // the script), and they go again with the next try.
    QList<RedisResult> trailing;
    const auto send = [&](const RedisCommand &c) {
        if (after.isEmpty() || c.first() == "SCRIPT")
            return command(connection, c);
        QList<RedisCommand> batch {c};
        batch << after;
        QList<RedisResult> results = pipeline(connection, batch);
        trailing = results.mid(1);
        return results.first();
    };
    const RedisResult result = named(script, script.run(connection, send, keys, args));
    if (afterResults)
        *afterResults << trailing;
    return result;
}

RedisResult LockIo::named(const LuaScript &script, const RedisResult &result)
{
    // "EVALSHA compare_and_delete": which script a refusal was about.
    if (!result.ok() && (m_failedCommand == "EVALSHA" || m_failedCommand == "EVAL"))
        m_failedCommand += ' ' + script.name().toUtf8();
    return result;
}

QByteArray LockIo::commandName(const RedisCommand &command)
{
    if (command.isEmpty())
        return QByteArray();
    QByteArray name = command.first().toUpper();
    if (name == "SCRIPT" && command.size() > 1)
        name += ' ' + command.at(1).toUpper();
    return name;
}

void LockIo::noteFailure(const RedisCommand &command, const RedisResult &result)
{
    if (result.ok() || command.isEmpty())
        return;
    m_failedCommand = commandName(command);
    m_failedError = result.error;
}

QByteArray LockIo::failedCommand(const RedisError &error) const
{
    return error && error == m_failedError ? m_failedCommand : QByteArray();
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
