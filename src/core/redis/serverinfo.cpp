// ServerInfo: gathered with HELLO (Redis 6+) and INFO server as the fallback for older servers.
#include "serverinfo.h"

#include "redisconnection.h"

#include <QElapsedTimer>

QString ServerInfo::summary() const
{
    QStringList parts;
    parts << QStringLiteral("Redis %1").arg(version.isEmpty() ? QStringLiteral("?") : version);
    QString what
        = role == QLatin1String("master") || role.isEmpty() ? mode : mode + QStringLiteral(" ") + role;
    if (role == QLatin1String("replica"))
        what += master.isEmpty()
            ? QStringLiteral(" (master unknown)")
            : QStringLiteral(" of %1 (link %2)")
                  .arg(master, masterLink.isEmpty() ? QStringLiteral("unknown") : masterLink);
    if (loading)
        what += QStringLiteral(" · LOADING its data set");
    parts << what;
    if (mode != QLatin1String("sentinel"))
        parts << QStringLiteral("db %1").arg(db);
    if (keys >= 0)
        parts << (keys == 1 ? QStringLiteral("1 key") : QStringLiteral("%1 keys").arg(keys));
    return parts.join(QStringLiteral(" · "));
}

static QString infoField(const QByteArray &info, const QByteArray &name)
{
    for (const QByteArray &line : info.split('\n')) {
        if (line.startsWith(name + ':'))
            return QString::fromUtf8(line.mid(name.size() + 1).trimmed());
    }
    return {};
}

ServerInfo ServerInfo::fetch(RedisConnection &connection, RedisError *error)
{
    ServerInfo info;
    info.endpoint = connection.settings().endpoint();
    info.db = connection.settings().db;
    info.readOnly = connection.isReadOnly();
    info.clientId = connection.clientId();

    QElapsedTimer timer;
    timer.start();
    const RedisResult ping = connection.command({"PING"});
    info.roundTripMs = double(timer.nsecsElapsed()) / 1e6;
    if (!ping.ok() && ping.error.breaksConnection()) {
        if (error)
            *error = ping.error;
        return {};
    }

    const RedisResult hello = connection.command({"HELLO", "2"});
    if (hello.ok() && hello.reply.isArray()) {
        const auto &e = hello.reply.elements();
        for (qsizetype i = 0; i + 1 < e.size(); i += 2) {
            const QByteArray key = e.at(i).bytes();
            const QString value = QString::fromUtf8(e.at(i + 1).bytes());
            if (key == "version")
                info.version = value;
            else if (key == "mode")
                info.mode = value;
            else if (key == "role")
                info.role = value;
        }
    } else {
        const RedisResult server = connection.command({"INFO", "server"});
        if (!server.ok()) {
            if (error)
                *error = server.error;
            return {};
        }
        info.version = infoField(server.reply.bytes(), "redis_version");
        info.mode = infoField(server.reply.bytes(), "redis_mode");
        const RedisResult replication = connection.command({"INFO", "replication"});
        if (replication.ok())
            info.role = infoField(replication.reply.bytes(), "role");
    }
    if (info.role == QLatin1String("slave"))
        info.role = QStringLiteral("replica");
    if (info.mode.isEmpty())
        info.mode = QStringLiteral("standalone");

    if (info.mode != QLatin1String("sentinel")) {
        const RedisResult size = connection.command({"DBSIZE"});
        if (size.ok())
            info.keys = size.reply.toInteger();
        else if (size.error.code() == RedisError::Code::Loading)
            info.loading = true;
        // A replica's master and link, and whether the data set is still loading: from INFO when the user
        // may run it (a least-privilege ACL user may not; then they stay unknown).
        const RedisResult replication = connection.command({"INFO", "replication"});
        if (replication.ok()) {
            const QByteArray text = replication.reply.bytes();
            if (info.role.isEmpty())
                info.role = infoField(text, "role") == QLatin1String("slave") ? QStringLiteral("replica")
                                                                              : infoField(text, "role");
            if (info.role == QLatin1String("replica")) {
                const QString host = infoField(text, "master_host");
                const QString port = infoField(text, "master_port");
                if (!host.isEmpty())
                    info.master = host + u':' + port;
                info.masterLink = infoField(text, "master_link_status");
            }
        }
        const RedisResult persistence = connection.command({"INFO", "persistence"});
        if (persistence.ok() && infoField(persistence.reply.bytes(), "loading") == QLatin1String("1"))
            info.loading = true;
    }
    if (error)
        *error = {};
    return info;
}
