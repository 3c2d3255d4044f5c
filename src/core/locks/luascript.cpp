// LuaScript: the registry of bundled scripts (read once from the Qt resource) and EVALSHA with fallbacks.
#include "luascript.h"

#include "logging.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QMap>

#include <iterator>

class LuaScriptRegistry
{
public:
    static const QMap<QString, LuaScript> &scripts()
    {
        static const QMap<QString, LuaScript> registry = [] {
            QMap<QString, LuaScript> map;
            const QDir dir(QStringLiteral(":/lua"));
            for (const QString &file : dir.entryList({QStringLiteral("*.lua")}, QDir::Files, QDir::Name)) {
                QFile f(dir.filePath(file));
                if (!f.open(QIODevice::ReadOnly))
                    continue;
                const QString name = file.chopped(4);
                map.insert(name, LuaScript(name, f.readAll()));
            }
            return map;
        }();
        return registry;
    }
};

LuaScript::LuaScript(const QString &name, const QByteArray &source)
    : m_name(name)
    , m_source(source)
    , m_sha1(QCryptographicHash::hash(source, QCryptographicHash::Sha1).toHex())
{
}

const LuaScript *LuaScript::find(const QString &name)
{
    const auto &scripts = LuaScriptRegistry::scripts();
    const auto it = scripts.constFind(name);
    return it == scripts.constEnd() ? nullptr : &it.value();
}

const LuaScript &LuaScript::get(const QString &name)
{
    const LuaScript *script = find(name);
    if (!script)
        qFatal("Lua script '%s' is not in lockscope_core's resources (resources/lua/%s.lua)",
               qPrintable(name), qPrintable(name));
    return *script;
}

QStringList LuaScript::names()
{
    return LuaScriptRegistry::scripts().keys();
}

RedisCommand LuaScript::loadCommand() const
{
    return {"SCRIPT", "LOAD", m_source};
}

RedisCommand LuaScript::evalshaCommand(const QList<QByteArray> &keys, const QList<QByteArray> &args) const
{
    return scriptCommand(QByteArrayLiteral("EVALSHA"), m_sha1, keys, args);
}

RedisCommand LuaScript::evalCommand(const QList<QByteArray> &keys, const QList<QByteArray> &args) const
{
    return scriptCommand(QByteArrayLiteral("EVAL"), m_source, keys, args);
}

RedisCommand LuaScript::scriptCommand(const QByteArray &verb, const QByteArray &script,
                                      const QList<QByteArray> &keys, const QList<QByteArray> &args)
{
    // The key counts the algorithms use, formatted once (each would be an allocation per command).
    static const QByteArray counts[] = {"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"};
    RedisCommand command;
    command.reserve(3 + keys.size() + args.size());
    command << verb << script
            << (keys.size() < qsizetype(std::size(counts)) ? counts[keys.size()] : QByteArray::number(keys.size()));
    command << keys << args;
    return command;
}

RedisCommand LuaScript::commandFor(const RedisConnection &connection, const QList<QByteArray> &keys,
                                   const QList<QByteArray> &args) const
{
    return connection.scriptsByEval() ? evalCommand(keys, args) : evalshaCommand(keys, args);
}

bool LuaScript::refusesCachedScripts(const RedisError &error)
{
    // "ERR unknown command 'EVALSHA', with args beginning with: …" (rename-command), and ACL refusals
    // ("NOPERM this user has no permissions to run the 'evalsha' command"). A NOPERM about keys would
    // refuse EVAL as well: the caller then gets EVAL's refusal, one command later.
    return error.code() == RedisError::Code::NoPermission
        || (error.code() == RedisError::Code::Server
            && error.message().startsWith(QLatin1String("ERR unknown command")));
}

RedisError LuaScript::load(RedisConnection &connection) const
{
    return loadAll(connection, {m_name});
}

RedisError LuaScript::loadAll(RedisConnection &connection, const QStringList &names)
{
    QList<RedisCommand> commands;
    QList<const LuaScript *> scripts;
    for (const QString &name : names) {
        const LuaScript *script = find(name);
        if (!script)
            return {RedisError::Code::BadArgument,
                    QStringLiteral("no bundled Lua script named '%1'").arg(name)};
        scripts << script;
        commands << script->loadCommand();
    }
    if (commands.isEmpty())
        return {};
    const QList<RedisResult> results = connection.pipeline(commands);
    for (qsizetype i = 0; i < results.size(); ++i) {
        if (refusesCachedScripts(results.at(i).error)) {
            qCDebug(lcLocks) << "SCRIPT LOAD refused by" << connection.endpoint()
                             << "- scripts go as EVAL:" << results.at(i).error.message();
            connection.setScriptsByEval(true);
            return {};
        }
        if (!results.at(i).ok())
            return RedisError(results.at(i).error.code(),
                              QStringLiteral("SCRIPT LOAD %1.lua failed: %2")
                                  .arg(scripts.at(i)->name(), results.at(i).error.message()));
        if (results.at(i).reply.bytes() != scripts.at(i)->sha1())
            return {RedisError::Code::Protocol,
                    QStringLiteral("SCRIPT LOAD %1.lua: the server computed SHA1 %2, LockScope %3")
                        .arg(scripts.at(i)->name(), QString::fromLatin1(results.at(i).reply.bytes()),
                             QString::fromLatin1(scripts.at(i)->sha1()))};
    }
    return {};
}

RedisResult LuaScript::run(RedisConnection &connection, const Sender &send, const QList<QByteArray> &keys,
                           const QList<QByteArray> &args) const
{
    if (connection.scriptsByEval())
        return send(evalCommand(keys, args));
    const RedisCommand evalsha = evalshaCommand(keys, args);
    RedisResult result = send(evalsha);
    if (result.error.code() == RedisError::Code::NoScript) {
        qCDebug(lcLocks) << "NOSCRIPT for" << m_name << "- loading it";
        const RedisResult loaded = send(loadCommand());
        if (!loaded.ok() && !refusesCachedScripts(loaded.error))
            return loaded;
        if (loaded.ok()) {
            result = send(evalsha);
            // Forgotten as soon as loaded (a proxy spreading commands over nodes, a SCRIPT FLUSH loop):
            // loading again would only repeat this.
            if (result.error.code() != RedisError::Code::NoScript)
                return result;
        } else {
            result = loaded;
        }
    } else if (!refusesCachedScripts(result.error)) {
        return result;
    }
    qCDebug(lcLocks) << connection.endpoint()
                     << "refuses cached scripts - EVAL from now on:" << result.error.message();
    connection.setScriptsByEval(true);
    return send(evalCommand(keys, args));
}

RedisResult LuaScript::run(RedisConnection &connection, const QList<QByteArray> &keys,
                           const QList<QByteArray> &args) const
{
    return run(
        connection, [&connection](const RedisCommand &c) { return connection.command(c); }, keys, args);
}
