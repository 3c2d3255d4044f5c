// A lock written by the user in Lua: acquire.lua, release.lua and optionally renew.lua, with a small lock.json,
// read from a folder (`lockscope-cli explore --lua DIR`, a scenario's "algorithm": {"id": "custom-lua", "dir": …})
// or given inline (a story keeps its scripts with it). The calling convention is conventionText(); the lock
// that runs them is CustomLuaLock. Only sandbox servers run them: a user's script may loop forever.
//
// Before anything runs, check() compiles each script on the server (SCRIPT LOAD) and names the script and the
// line of a syntax error; then tries the lock once on a scratch key, stopping (SCRIPT KILL) a script that does
// not finish, so an endless loop is reported instead of freezing the run.
#pragma once

#include "luascript.h"

#include "redis/redisconnection.h"

#include <QByteArray>
#include <QJsonObject>
#include <QString>

#include <memory>
#include <optional>

class CustomLockScripts
{
public:
    // What is wrong with a script: which one, at which line (0 when Redis named none), and Redis's words.
    struct Problem
    {
        QString script; // "acquire.lua", "release.lua", "renew.lua", "lock.json", or empty for the folder
        int line = 0;
        QString message;

        bool isSet() const { return !message.isEmpty(); }
        QString text() const; // "release.lua line 3: unexpected symbol near 'end'"
    };

    // Reads DIR/acquire.lua, DIR/release.lua, DIR/renew.lua (optional) and DIR/lock.json (optional).
    static std::shared_ptr<const CustomLockScripts> fromDirectory(const QString &dir, Problem *problem);
    // The scripts themselves ("renew" may be empty), and lock.json's fields ({"fencing": true, "title": …}).
    static std::shared_ptr<const CustomLockScripts> fromSources(const QByteArray &acquire, const QByteArray &release,
                                                                const QByteArray &renew,
                                                                const QJsonObject &settings, Problem *problem);
    // The inline form a scenario carries: {"acquire": …, "release": …, "renew": …, "fencing": …, "title": …}.
    static std::shared_ptr<const CustomLockScripts> fromJson(const QJsonObject &json, Problem *problem);
    QJsonObject toJson() const;

    // The calling convention, for --help, the docs and the GUI's editors.
    static QString conventionText();

    const LuaScript &acquire() const { return m_acquire; }
    const LuaScript &release() const { return m_release; }
    const LuaScript *renew() const { return m_renew ? &*m_renew : nullptr; }
    // acquire's integer reply is a fencing token (lock.json "fencing": true).
    bool fencing() const { return m_fencing; }
    // lock.json "title", else "your lock".
    const QString &title() const { return m_title; }
    // Where it was read from; empty for inline scripts.
    const QString &directory() const { return m_directory; }

    // Compiles every script on `connection` (a sandbox's, read-write), then runs acquire, a second acquire by
    // another owner, release by that other owner, release and (when there is one) renew on a scratch key,
    // stopping any script that runs longer than `timeoutMs`. The first problem found, or none. Leaves
    // nothing behind on the scratch key.
    Problem check(RedisConnection &connection, int timeoutMs = 1000) const;

    // "user_script:3: unexpected symbol near 'end'" inside Redis's error → 3 and "unexpected symbol near 'end'".
    static Problem problemFromRedis(const QString &script, const QString &error);

private:
    CustomLockScripts(const QByteArray &acquire, const QByteArray &release, const QByteArray &renew);

    LuaScript m_acquire;
    LuaScript m_release;
    std::optional<LuaScript> m_renew;
    bool m_fencing = false;
    QString m_title;
    QString m_directory;
};
