// ConnectionOptions: parsing and validation. Passwords come from an environment variable only, never argv,
// because process arguments are visible to every user of the machine (ps, /proc).
#include "connectionoptions.h"

#include <QCommandLineParser>

void ConnectionOptions::addTo(QCommandLineParser &parser)
{
    parser.addOptions({
        {QStringLiteral("host"), QStringLiteral("Redis host name or IP address (default 127.0.0.1)."),
         QStringLiteral("host")},
        {QStringLiteral("port"), QStringLiteral("Redis TCP port (default 6379)."), QStringLiteral("port")},
        {QStringLiteral("socket"), QStringLiteral("Redis Unix socket path (instead of host and port)."),
         QStringLiteral("path")},
        {QStringLiteral("user"), QStringLiteral("ACL user name (Redis 6+)."), QStringLiteral("name")},
        {QStringLiteral("password-env"),
         QStringLiteral("Name of the environment variable holding the password (never give a password on the "
                        "command line)."),
         QStringLiteral("VAR")},
        {QStringLiteral("db"), QStringLiteral("Database number (default 0)."), QStringLiteral("n")},
        {QStringLiteral("sandbox"),
         QStringLiteral("Start a private redis-server on a free loopback port for this run.")},
        {QStringLiteral("read-write"),
         QStringLiteral("Allow commands that write to the server (connections are read-only by default).")},
        {QStringLiteral("connect-timeout"), QStringLiteral("Connect timeout in milliseconds (default 3000)."),
         QStringLiteral("ms")},
        {QStringLiteral("timeout"), QStringLiteral("Command timeout in milliseconds (default 3000)."),
         QStringLiteral("ms")},
    });
}

static bool readInt(const QCommandLineParser &parser, const QString &name, int min, int max, int *out,
                    QString *error)
{
    if (!parser.isSet(name))
        return true;
    bool ok = false;
    const int value = parser.value(name).toInt(&ok);
    if (!ok || value < min || value > max) {
        *error = QStringLiteral("--%1 %2: expected a whole number from %3 to %4")
                     .arg(name, parser.value(name))
                     .arg(min)
                     .arg(max);
        return false;
    }
    *out = value;
    return true;
}

bool ConnectionOptions::read(const QCommandLineParser &parser, ConnectionOptions *out, QString *error)
{
    ConnectionOptions o;
    ConnectionSettings &s = o.settings;
    if (parser.isSet(QStringLiteral("host")))
        s.host = parser.value(QStringLiteral("host"));
    if (parser.isSet(QStringLiteral("socket")))
        s.socketPath = parser.value(QStringLiteral("socket"));
    if (parser.isSet(QStringLiteral("user")))
        s.user = parser.value(QStringLiteral("user"));
    if (!readInt(parser, QStringLiteral("port"), 1, 65535, &s.port, error)
        || !readInt(parser, QStringLiteral("db"), 0, 1 << 20, &s.db, error)
        || !readInt(parser, QStringLiteral("connect-timeout"), 1, 600000, &s.connectTimeoutMs, error)
        || !readInt(parser, QStringLiteral("timeout"), 1, 600000, &s.commandTimeoutMs, error))
        return false;
    if (parser.isSet(QStringLiteral("password-env"))) {
        const QString var = parser.value(QStringLiteral("password-env"));
        if (!qEnvironmentVariableIsSet(var.toLocal8Bit().constData())) {
            *error = QStringLiteral("--password-env %1: the environment variable %1 is not set").arg(var);
            return false;
        }
        s.password = qEnvironmentVariable(var.toLocal8Bit().constData());
    }
    s.readOnly = !parser.isSet(QStringLiteral("read-write"));
    o.sandbox = parser.isSet(QStringLiteral("sandbox"));
    o.serverGiven = parser.isSet(QStringLiteral("host")) || parser.isSet(QStringLiteral("port"))
        || parser.isSet(QStringLiteral("socket"));
    if (o.sandbox && o.serverGiven) {
        *error = QStringLiteral(
            "--sandbox starts a private server: do not combine it with --host, --port or --socket");
        return false;
    }
    if (!s.user.isEmpty() && s.password.isEmpty()) {
        *error = QStringLiteral("--user %1 needs a password: give --password-env VAR").arg(s.user);
        return false;
    }
    *out = o;
    return true;
}
