// ConnectionSettings: endpoint text and validation.
#include "connectionsettings.h"

QString ConnectionSettings::endpoint() const
{
    if (usesSocket())
        return QStringLiteral("unix:") + socketPath;
    if (host.contains(u':')) // IPv6 literal
        return QStringLiteral("[%1]:%2").arg(host).arg(port);
    return QStringLiteral("%1:%2").arg(host).arg(port);
}

QString ConnectionSettings::validate() const
{
    if (!usesSocket()) {
        if (host.trimmed().isEmpty())
            return QStringLiteral("host is empty: give a host name or IP address, or a Unix socket path");
        if (port < 1 || port > 65535)
            return QStringLiteral("port %1 is out of range: use 1 to 65535").arg(port);
    }
    if (db < 0)
        return QStringLiteral("database %1 is negative: databases are numbered from 0").arg(db);
    if (connectTimeoutMs <= 0 || commandTimeoutMs <= 0)
        return QStringLiteral("timeouts must be positive (milliseconds)");
    if (!user.isEmpty() && password.isEmpty())
        return QStringLiteral("user '%1' is given without a password").arg(user);
    if (clientName.contains(u' '))
        return QStringLiteral("client name must not contain spaces");
    return {};
}
