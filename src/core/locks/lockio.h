// The one path every command of a lock operation takes: fault hooks before and after (a slow network),
// command counting for the result, scripts with their NOSCRIPT fallback, and a clear refusal on a
// read-only connection. One LockIo per operation; it is cheap to make.
#pragma once

#include "faulthooks.h"
#include "luascript.h"

#include "redis/redisconnection.h"

class LockIo
{
public:
    LockIo(const FaultHooks &hooks, qint64 threadId)
        : m_hooks(hooks)
        , m_threadId(threadId)
    {
    }

    RedisResult command(RedisConnection &connection, const RedisCommand &command);
    QList<RedisResult> pipeline(RedisConnection &connection, const QList<RedisCommand> &commands);
    // EVALSHA (NOSCRIPT: SCRIPT LOAD + EVALSHA; EVAL where the server refuses those, see LuaScript).
    // `after` are sent in the same round trip behind the script (Redisson's DEL of the unlock latch); their
    // results are appended to `afterResults`.
    RedisResult script(RedisConnection &connection, const LuaScript &script, const QList<QByteArray> &keys,
                       const QList<QByteArray> &args, const QList<RedisCommand> &after = {},
                       QList<RedisResult> *afterResults = nullptr);

    // Hooks for callers that append and read replies themselves (Redlock's parallel rounds).
    void beforeSend(const RedisConnection &connection, const RedisCommand &command) const;
    void afterReceive(const RedisConnection &connection, const RedisResult &result) const;
    void countSent(int n = 1) { m_commands += n; }
    // The partition hook (FaultHooks::cutOff): true when a command to `connection`'s server is lost now,
    // after waiting `timeoutMs`. Nothing may be sent then; lostReply() is what the caller sees.
    bool isCutOff(const RedisConnection &connection, int timeoutMs) const;
    static RedisResult lostReply(const RedisConnection &connection, int timeoutMs);

    int commands() const { return m_commands; }
    // The command of this operation that got `error` ("SET", "EVALSHA compare_and_delete"), when `error` is
    // the latest error a command got here; else empty. Lets a result say which command a server refused.
    QByteArray failedCommand(const RedisError &error) const;
    // "SET", "EVALSHA", "SCRIPT LOAD": how a refusal names the command.
    static QByteArray commandName(const RedisCommand &command);
    // Remembers `command` when `result` failed (the calls above do it; Redlock's parallel rounds call it).
    void noteFailure(const RedisCommand &command, const RedisResult &result);
    // LockClock::monotonicUs() when the first command of this operation was handed to the socket (after the
    // fault hooks let it go); 0 before that. A lease set by that command starts no earlier.
    qint64 firstSendUs() const { return m_firstSendUs; }
    // The same for the latest command (a two-step release's DEL).
    qint64 lastSendUs() const { return m_lastSendUs; }
    qint64 threadId() const { return m_threadId; }
    const FaultHooks &hooks() const { return m_hooks; }

    // An error when `connection` cannot take lock operations (read-only, or no connection at all).
    static RedisError requireWritable(const RedisConnection *connection);

private:
    RedisResult named(const LuaScript &script, const RedisResult &result);

    const FaultHooks &m_hooks;
    qint64 m_threadId;
    int m_commands = 0;
    mutable qint64 m_firstSendUs = 0;
    mutable qint64 m_lastSendUs = 0;
    QByteArray m_failedCommand;
    RedisError m_failedError;
};
