// CustomLockScripts: reading a user's lock, and trying it once before a run trusts it.
#include "customlockscripts.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QUuid>

namespace {

constexpr qsizetype kMaxScriptBytes = 64 * 1024; // a lock is a few lines; more is a wrong file

bool readScript(const QDir &dir, const QString &file, bool required, QByteArray *out,
                CustomLockScripts::Problem *problem)
{
    QFile f(dir.filePath(file));
    if (!f.exists()) {
        if (required)
            *problem = {file, 0, QStringLiteral("missing: %1 needs %2").arg(dir.path(), file)};
        return !required;
    }
    if (!f.open(QIODevice::ReadOnly)) {
        *problem = {file, 0, QStringLiteral("cannot be read: %1").arg(f.errorString())};
        return false;
    }
    *out = f.read(kMaxScriptBytes + 1);
    if (out->size() > kMaxScriptBytes) {
        *problem = {file, 0, QStringLiteral("is over %1 KiB: not a lock script").arg(kMaxScriptBytes / 1024)};
        return false;
    }
    if (out->trimmed().isEmpty()) {
        *problem = {file, 0, QStringLiteral("is empty")};
        return false;
    }
    return true;
}

// What Redis said a script returned, for a message: "nil", "integer 0", "'OK'".
QString describe(const RedisReply &reply)
{
    if (reply.isNil())
        return QStringLiteral("nil");
    if (reply.isInteger())
        return QStringLiteral("integer %1").arg(reply.toInteger());
    return QStringLiteral("'%1'").arg(QString::fromUtf8(reply.bytes().left(60)));
}

} // namespace

QString CustomLockScripts::Problem::text() const
{
    QString where = script;
    if (line > 0)
        where += QStringLiteral(" line %1").arg(line);
    return where.isEmpty() ? message : QStringLiteral("%1: %2").arg(where, message);
}

CustomLockScripts::CustomLockScripts(const QByteArray &acquire, const QByteArray &release, const QByteArray &renew)
    : m_acquire(LuaScript::fromSource(QStringLiteral("acquire.lua"), acquire))
    , m_release(LuaScript::fromSource(QStringLiteral("release.lua"), release))
    , m_title(QStringLiteral("your lock"))
{
    if (!renew.trimmed().isEmpty())
        m_renew = LuaScript::fromSource(QStringLiteral("renew.lua"), renew);
}

std::shared_ptr<const CustomLockScripts> CustomLockScripts::fromDirectory(const QString &path, Problem *problem)
{
    const QDir dir(path);
    if (!dir.exists()) {
        *problem = {QString(), 0, QStringLiteral("--lua %1: no such folder").arg(path)};
        return nullptr;
    }
    QByteArray acquire, release, renew, settings;
    if (!readScript(dir, QStringLiteral("acquire.lua"), true, &acquire, problem)
        || !readScript(dir, QStringLiteral("release.lua"), true, &release, problem)
        || !readScript(dir, QStringLiteral("renew.lua"), false, &renew, problem)
        || !readScript(dir, QStringLiteral("lock.json"), false, &settings, problem))
        return nullptr;
    QJsonObject json;
    if (!settings.isEmpty()) {
        QJsonParseError parseError;
        const QJsonDocument doc = QJsonDocument::fromJson(settings, &parseError);
        if (!doc.isObject()) {
            *problem = {QStringLiteral("lock.json"), 0,
                        parseError.error != QJsonParseError::NoError
                            ? QStringLiteral("not JSON (%1 at byte %2)").arg(parseError.errorString()).arg(parseError.offset)
                            : QStringLiteral("expected an object such as {\"fencing\": true}")};
            return nullptr;
        }
        json = doc.object();
    }
    auto made = fromSources(acquire, release, renew, json, problem);
    if (made)
        std::const_pointer_cast<CustomLockScripts>(made)->m_directory = dir.absolutePath();
    return made;
}

std::shared_ptr<const CustomLockScripts> CustomLockScripts::fromSources(const QByteArray &acquire,
                                                                        const QByteArray &release,
                                                                        const QByteArray &renew,
                                                                        const QJsonObject &settings, Problem *problem)
{
    if (acquire.trimmed().isEmpty() || release.trimmed().isEmpty()) {
        *problem = {acquire.trimmed().isEmpty() ? QStringLiteral("acquire.lua") : QStringLiteral("release.lua"), 0,
                    QStringLiteral("is empty")};
        return nullptr;
    }
    std::shared_ptr<CustomLockScripts> made(new CustomLockScripts(acquire, release, renew));
    for (auto it = settings.constBegin(); it != settings.constEnd(); ++it) {
        if (it.key() == QLatin1String("fencing") && it.value().isBool()) {
            made->m_fencing = it.value().toBool();
        } else if (it.key() == QLatin1String("title") && it.value().isString()) {
            made->m_title = it.value().toString().left(80);
        } else {
            *problem = {QStringLiteral("lock.json"), 0,
                        it.key() == QLatin1String("fencing") || it.key() == QLatin1String("title")
                            ? QStringLiteral("\"%1\" has the wrong type (fencing: true or false; title: a string)")
                                  .arg(it.key())
                            : QStringLiteral("\"%1\" is not a setting; lock.json knows \"fencing\" and \"title\"")
                                  .arg(it.key())};
            return nullptr;
        }
    }
    return made;
}

std::shared_ptr<const CustomLockScripts> CustomLockScripts::fromJson(const QJsonObject &json, Problem *problem)
{
    QJsonObject settings;
    for (auto it = json.constBegin(); it != json.constEnd(); ++it) {
        const QString &key = it.key();
        if (key == QLatin1String("acquire") || key == QLatin1String("release") || key == QLatin1String("renew")) {
            if (!it.value().isString()) {
                *problem = {key + QStringLiteral(".lua"), 0, QStringLiteral("expected the script as a string")};
                return nullptr;
            }
        } else {
            settings.insert(key, it.value());
        }
    }
    return fromSources(json.value(QLatin1String("acquire")).toString().toUtf8(),
                       json.value(QLatin1String("release")).toString().toUtf8(),
                       json.value(QLatin1String("renew")).toString().toUtf8(), settings, problem);
}

QJsonObject CustomLockScripts::toJson() const
{
    QJsonObject o {{QStringLiteral("acquire"), QString::fromUtf8(m_acquire.source())},
                   {QStringLiteral("release"), QString::fromUtf8(m_release.source())}};
    if (m_renew)
        o.insert(QStringLiteral("renew"), QString::fromUtf8(m_renew->source()));
    if (m_fencing)
        o.insert(QStringLiteral("fencing"), true);
    if (m_title != QLatin1String("your lock"))
        o.insert(QStringLiteral("title"), m_title);
    return o;
}

QString CustomLockScripts::conventionText()
{
    return QStringLiteral(
        "Each script gets KEYS[1] = the lock key, ARGV[1] = the caller's token (fresh for every acquisition), "
        "ARGV[2] = the lease in ms.\n"
        "acquire.lua returns 0, false or nil when the lock is busy, anything else when it is taken (with "
        "\"fencing\": true in lock.json, its integer is the fencing token).\n"
        "release.lua and renew.lua return 1 when done, 0 when the caller is not the owner.\n"
        "lock.json (optional): {\"fencing\": true|false, \"title\": \"…\"}.");
}

CustomLockScripts::Problem CustomLockScripts::problemFromRedis(const QString &script, const QString &error)
{
    // Redis 7: "ERR Error compiling script (new function): user_script:3: unexpected symbol near 'end'";
    // at run time: "ERR user_script:3: Script attempted to access nonexistent global variable 'x' script: …".
    static const QRegularExpression at(QStringLiteral("user_script:(\\d+):\\s*(.*)"));
    const QRegularExpressionMatch m = at.match(error);
    if (!m.hasMatch())
        return {script, 0, error};
    QString message = m.captured(2);
    const qsizetype tail = message.indexOf(QLatin1String(" script: "));
    if (tail > 0)
        message.truncate(tail); // Redis appends the script's SHA1 and the calling function
    return {script, m.captured(1).toInt(), message.trimmed()};
}

CustomLockScripts::Problem CustomLockScripts::check(RedisConnection &connection, int timeoutMs) const
{
    QList<const LuaScript *> scripts {&m_acquire, &m_release};
    if (m_renew)
        scripts << &*m_renew;
    for (const LuaScript *script : scripts) {
        const RedisResult loaded = connection.command(script->loadCommand());
        if (!loaded.ok())
            return problemFromRedis(script->name(), loaded.error.message());
    }

    // A script that never ends blocks the server: let the server answer others after 100 ms of it (the
    // sandbox is ours), and stop it from a second connection opened beforehand.
    connection.command({"CONFIG", "SET", "busy-reply-threshold", "100"});
    RedisConnection killer(connection.settings());
    if (const RedisError e = killer.open())
        return {QString(), 0, QStringLiteral("cannot open a second connection to stop a runaway script: %1").arg(e.message())};
    const QByteArray key = "lockscope:check:" + QUuid::createUuid().toString(QUuid::WithoutBraces).toUtf8();
    const QByteArray lease = "10000";
    const auto run = [&](const LuaScript &script, const QByteArray &token, RedisReply *reply) -> Problem {
        if (const RedisError e = connection.append(script.evalshaCommand({key}, {token, lease})))
            return {script.name(), 0, e.message()};
        RedisResult r = connection.readReply(timeoutMs);
        if (!r.ok() && r.error.code() == RedisError::Code::Timeout) {
            killer.command({"SCRIPT", "KILL"});
            r = connection.readReply(5000);
            killer.command({"DEL", key});
            return {script.name(), 0,
                    QStringLiteral("did not finish within %1 ms and was stopped (SCRIPT KILL): does it loop forever?")
                        .arg(timeoutMs)};
        }
        if (!r.ok())
            return problemFromRedis(script.name(), r.error.message());
        *reply = r.reply;
        return {};
    };
    const QByteArray mine = "check-owner-a", theirs = "check-owner-b";
    RedisReply reply;
    Problem p = run(m_acquire, mine, &reply);
    const auto taken = [](const RedisReply &r) {
        return !r.isNil() && !(r.isInteger() && r.toInteger() == 0);
    };
    const auto finish = [&](Problem found) {
        killer.command({"DEL", key});
        return found;
    };
    if (p.isSet())
        return finish(p);
    if (!taken(reply))
        return finish({m_acquire.name(), 0,
                       QStringLiteral("refused a free lock (it returned %1; a taken lock returns anything but 0, "
                                      "false or nil)")
                           .arg(describe(reply))});
    if (m_fencing && !reply.isInteger())
        return finish({m_acquire.name(), 0,
                       QStringLiteral("lock.json says fencing, but acquire returned %1, not an integer token")
                           .arg(describe(reply))});
    if ((p = run(m_acquire, theirs, &reply)).isSet())
        return finish(p);
    // A second owner taking a held lock is the kind of flaw the explorer is there to show, not a broken
    // script: only a script that cannot run, or that loops, stops the run here.
    if ((p = run(m_release, theirs, &reply)).isSet())
        return finish(p);
    if (m_renew && (p = run(*m_renew, mine, &reply)).isSet())
        return finish(p);
    if ((p = run(m_release, mine, &reply)).isSet())
        return finish(p);
    return finish({});
}
