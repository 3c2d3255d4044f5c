// LuaScript: the registry of bundled scripts (read once from the Qt resource) and EVALSHA with fallback.
#include "luascript.h"

#include "logging.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QMap>

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
    RedisCommand command;
    command.reserve(3 + keys.size() + args.size());
    command << "EVALSHA" << m_sha1 << QByteArray::number(keys.size());
    command << keys << args;
    return command;
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

RedisResult LuaScript::run(const Sender &send, const QList<QByteArray> &keys,
                           const QList<QByteArray> &args) const
{
    const RedisCommand evalsha = evalshaCommand(keys, args);
    RedisResult result = send(evalsha);
    if (result.error.code() != RedisError::Code::NoScript)
        return result;
    qCDebug(lcLocks) << "NOSCRIPT for" << m_name << "- loading it";
    const RedisResult loaded = send(loadCommand());
    if (!loaded.ok())
        return loaded;
    return send(evalsha);
}

RedisResult LuaScript::run(RedisConnection &connection, const QList<QByteArray> &keys,
                           const QList<QByteArray> &args) const
{
    return run([&connection](const RedisCommand &c) { return connection.command(c); }, keys, args);
}
