// ConnectionSettings: endpoint text and validation.
#include "connectionsettings.h"

#include <QFileInfo>

QString ConnectionSettings::Ssh::destination() const
{
    QString d = user.isEmpty() ? host : user + u'@' + host;
    if (port != 0)
        d += QStringLiteral(":%1").arg(port);
    return d;
}

QString ConnectionSettings::endpoint() const
{
    if (usesSocket())
        return QStringLiteral("unix:") + socketPath;
    if (host.contains(u':')) // IPv6 literal
        return QStringLiteral("[%1]:%2").arg(host).arg(port);
    return QStringLiteral("%1:%2").arg(host).arg(port);
}

QString ConnectionSettings::transportDescription() const
{
    QStringList parts;
    if (tls.enabled)
        parts << (tls.verifyPeer ? QStringLiteral("TLS") : QStringLiteral("TLS, certificate NOT verified"));
    if (ssh.enabled)
        parts << QStringLiteral("via ssh %1").arg(ssh.destination());
    return parts.join(QStringLiteral(", "));
}

QString ConnectionSettings::describe() const
{
    const QString transport = transportDescription();
    return transport.isEmpty() ? endpoint() : QStringLiteral("%1 (%2)").arg(endpoint(), transport);
}

QString ConnectionSettings::tlsName() const
{
    return tls.serverName.isEmpty() ? host : tls.serverName;
}

static QString checkReadableFile(const QString &what, const QString &path)
{
    if (path.isEmpty())
        return {};
    const QFileInfo info(path);
    if (!info.exists())
        return QStringLiteral("%1 %2 does not exist").arg(what, path);
    if (!info.isFile() || !info.isReadable())
        return QStringLiteral("%1 %2 is not a readable file").arg(what, path);
    return {};
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
    if (tls.enabled) {
        if (usesSocket())
            return QStringLiteral("TLS works over TCP only: give a host and the server's tls-port instead of "
                                  "a Unix socket");
        if (tls.certFile.isEmpty() != tls.keyFile.isEmpty())
            return QStringLiteral("a TLS client certificate needs both files: the certificate and its key");
        for (const auto &[what, path] : {std::pair {QStringLiteral("TLS CA file"), tls.caFile},
                                         std::pair {QStringLiteral("TLS certificate file"), tls.certFile},
                                         std::pair {QStringLiteral("TLS key file"), tls.keyFile}}) {
            if (const QString problem = checkReadableFile(what, path); !problem.isEmpty())
                return problem;
        }
        if (tls.serverName.contains(u' '))
            return QStringLiteral("TLS server name must not contain spaces");
    }
    if (ssh.enabled) {
        if (ssh.host.trimmed().isEmpty())
            return QStringLiteral("SSH tunnel: give the bastion host to connect through");
        if (ssh.host.startsWith(u'-') || ssh.user.startsWith(u'-') || ssh.jumpHosts.startsWith(u'-'))
            return QStringLiteral("SSH tunnel: host, user and jump hosts must not start with '-'");
        if (ssh.host.contains(u' ') || ssh.user.contains(u' ') || ssh.host.contains(u'@'))
            return QStringLiteral("SSH tunnel: put the user in its own field; no spaces in host or user");
        if (ssh.port < 0 || ssh.port > 65535)
            return QStringLiteral("SSH port %1 is out of range: use 1 to 65535 (0: ssh's default)")
                .arg(ssh.port);
        if (const QString p = checkReadableFile(QStringLiteral("SSH identity file"), ssh.identityFile);
            !p.isEmpty())
            return p;
        if (const QString p = checkReadableFile(QStringLiteral("SSH config file"), ssh.configFile);
            !p.isEmpty())
            return p;
    }
    return {};
}
