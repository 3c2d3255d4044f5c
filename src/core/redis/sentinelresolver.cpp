// SentinelResolver: the client side of the Sentinel protocol ("Guidelines for Redis clients with support
// for Redis Sentinel": ask each sentinel in turn, then check the role of what they name).
#include "sentinelresolver.h"

#include "redisconnection.h"

#include <memory>

namespace {

// Opens one sentinel, or adds to `problems` why it could not be, saying what to do when it wants a login.
std::unique_ptr<RedisConnection> openSentinel(const ConnectionSettings &settings, const QString &node,
                                              QStringList *problems)
{
    auto sentinel = std::make_unique<RedisConnection>(SentinelResolver::sentinelSettings(settings, node));
    const RedisError e = sentinel->open();
    if (!e)
        return sentinel;
    if (e.code() == RedisError::Code::NoAuth)
        *problems << QStringLiteral("sentinel %1 wants a password of its own (its requirepass, not the data "
                                    "nodes'): give it with --sentinel-password-env VAR, or as the connection "
                                    "dialog's Sentinel password")
                         .arg(node);
    else if (e.code() == RedisError::Code::AuthFailed)
        *problems
            << QStringLiteral("sentinel %1 refused the sentinel password given: %2").arg(node, e.message());
    else
        *problems << e.message();
    return nullptr;
}

} // namespace

QString SentinelResolver::Master::endpoint() const
{
    return QStringLiteral("%1:%2").arg(host).arg(port);
}

ConnectionSettings SentinelResolver::sentinelSettings(const ConnectionSettings &settings, const QString &node)
{
    ConnectionSettings s = settings;
    s.sentinel = {};
    s.cluster = false;
    s.db = 0;
    // The sentinels' own login: never the data nodes' one (a sentinel with its own requirepass would refuse
    // it, and it must not be sent where it is not asked for).
    s.user = settings.sentinel.user;
    s.password = settings.sentinel.password;
    s.readOnly = true;
    ConnectionSettings::parseHostPort(node, &s.host, &s.port);
    return s;
}

RedisError SentinelResolver::resolve(const ConnectionSettings &settings, QString *host, int *port)
{
    const QString &name = settings.sentinel.masterName;
    QStringList problems;
    for (const QString &node : settings.sentinel.nodes) {
        const std::unique_ptr<RedisConnection> sentinel = openSentinel(settings, node, &problems);
        if (!sentinel)
            continue;
        const RedisResult r = sentinel->command({"SENTINEL", "GET-MASTER-ADDR-BY-NAME", name.toUtf8()});
        if (!r.ok()) {
            problems << QStringLiteral("sentinel %1: %2").arg(node, r.error.message());
            continue;
        }
        if (r.reply.isNil()) {
            problems << QStringLiteral("sentinel %1 does not monitor a master named '%2'").arg(node, name);
            continue;
        }
        bool ok = false;
        const qint64 p = r.reply.size() == 2 ? r.reply.at(1).toInteger(&ok) : 0;
        if (!ok || p < 1 || p > 65535) {
            problems << QStringLiteral("sentinel %1 answered %2").arg(node, r.reply.toDisplayString());
            continue;
        }
        *host = QString::fromUtf8(r.reply.at(0).bytes());
        *port = int(p);
        return {};
    }
    return {RedisError::Code::ConnectFailed,
            QStringLiteral("No sentinel could say where master '%1' is: %2")
                .arg(name, problems.join(QStringLiteral("; ")))};
}

QList<SentinelResolver::Master> SentinelResolver::masters(const ConnectionSettings &settings,
                                                          RedisError *error)
{
    QStringList problems;
    for (const QString &node : settings.sentinel.nodes) {
        const std::unique_ptr<RedisConnection> sentinel = openSentinel(settings, node, &problems);
        if (!sentinel)
            continue;
        const RedisResult r = sentinel->command({"SENTINEL", "MASTERS"});
        if (!r.ok() || !r.reply.isArray()) {
            problems << QStringLiteral("sentinel %1: %2").arg(node, r.error.message());
            continue;
        }
        QList<Master> out;
        for (const RedisReply &entry : r.reply.elements()) {
            // Each master is a flat list of field, value pairs.
            Master m;
            for (qsizetype i = 0; i + 1 < entry.size(); i += 2) {
                const QByteArray field = entry.at(i).bytes();
                const QByteArray value = entry.at(i + 1).bytes();
                if (field == "name")
                    m.name = QString::fromUtf8(value);
                else if (field == "ip")
                    m.host = QString::fromUtf8(value);
                else if (field == "port")
                    m.port = value.toInt();
                else if (field == "flags")
                    m.flags = QString::fromUtf8(value);
                else if (field == "num-slaves")
                    m.replicas = value.toInt();
                else if (field == "num-other-sentinels")
                    m.otherSentinels = value.toInt();
                else if (field == "quorum")
                    m.quorum = value.toInt();
            }
            if (!m.name.isEmpty())
                out << m;
        }
        *error = {};
        return out;
    }
    *error = {RedisError::Code::ConnectFailed,
              QStringLiteral("No sentinel answered: %1").arg(problems.join(QStringLiteral("; ")))};
    return {};
}
