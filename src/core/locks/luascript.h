// One Lua script from resources/lua/, compiled into lockscope_core: its source (the GUI shows it to
// learners), its SHA1, and how to run it — EVALSHA, with a SCRIPT LOAD and a second EVALSHA when the
// server answers NOSCRIPT (a restarted server, SCRIPT FLUSH, another node). A server that refuses EVALSHA
// or SCRIPT LOAD (renamed away, or not allowed to the user), or that forgets a script as soon as it is
// loaded, gets plain EVAL with the source from then on: the connection remembers (scriptsByEval).
//
// SCRIPT LOAD and EVALSHA are writes as far as the read-only guard is concerned: running a script on a
// read-only connection fails before anything is sent.
#pragma once

#include "redis/redisconnection.h"

#include <QByteArray>
#include <QList>
#include <QString>
#include <QStringList>

#include <functional>

class LuaScript
{
public:
    // Sends one command and returns its result; lets callers put their fault hooks and command counting
    // in the path (see LockIo). The default is connection.command().
    using Sender = std::function<RedisResult(const RedisCommand &)>;

    // The script stored as ":/lua/<name>.lua", or nullptr when there is none.
    static const LuaScript *find(const QString &name);
    // For the scripts LockScope itself calls: a missing one is a packaging bug, so this aborts.
    static const LuaScript &get(const QString &name);
    // Names of every bundled script, sorted.
    static QStringList names();
    // A script that is not bundled: a user's own lock (CustomLockScripts). `name` is for messages only.
    static LuaScript fromSource(const QString &name, const QByteArray &source) { return LuaScript(name, source); }

    const QString &name() const { return m_name; }
    QString resourcePath() const { return QStringLiteral(":/lua/%1.lua").arg(m_name); }
    const QByteArray &source() const { return m_source; }
    const QByteArray &sha1() const { return m_sha1; } // 40 lower-case hex digits, as Redis computes it

    RedisCommand loadCommand() const; // SCRIPT LOAD <source>
    RedisCommand evalshaCommand(const QList<QByteArray> &keys, const QList<QByteArray> &args) const;
    RedisCommand evalCommand(const QList<QByteArray> &keys, const QList<QByteArray> &args) const;
    // EVAL on a connection that uses it (scriptsByEval), else EVALSHA.
    RedisCommand commandFor(const RedisConnection &connection, const QList<QByteArray> &keys,
                            const QList<QByteArray> &args) const;

    // True when `error` is the server refusing EVALSHA or SCRIPT LOAD themselves — an unknown (renamed)
    // command or one the user may not run — so that EVAL is the way left.
    static bool refusesCachedScripts(const RedisError &error);

    // SCRIPT LOAD on `connection`, and a check that the server's SHA1 is ours.
    RedisError load(RedisConnection &connection) const;
    // Loads several scripts in one round trip (the once-per-connection warm-up). When the server refuses
    // SCRIPT LOAD (refusesCachedScripts), the connection switches to EVAL and there is no error.
    static RedisError loadAll(RedisConnection &connection, const QStringList &names);

    // EVALSHA; on NOSCRIPT: SCRIPT LOAD, then EVALSHA once more. EVAL instead when `connection` uses it,
    // and from now on when the server refuses EVALSHA or SCRIPT LOAD, or answers NOSCRIPT right after the
    // load. `send` carries the commands (to `connection`).
    RedisResult run(RedisConnection &connection, const Sender &send, const QList<QByteArray> &keys,
                    const QList<QByteArray> &args) const;
    RedisResult run(RedisConnection &connection, const QList<QByteArray> &keys,
                    const QList<QByteArray> &args) const;

private:
    LuaScript(const QString &name, const QByteArray &source);
    // EVAL or EVALSHA with the script (its source or SHA1), the key count, the keys and the arguments.
    static RedisCommand scriptCommand(const QByteArray &verb, const QByteArray &script,
                                      const QList<QByteArray> &keys, const QList<QByteArray> &args);
    friend class LuaScriptRegistry;

    QString m_name;
    QByteArray m_source;
    QByteArray m_sha1;
};
