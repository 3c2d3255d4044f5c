// ConnectionSettings: endpoint text and validation.
#include "connectionsettings.h"

#include <QFileInfo>

static QString masterNameOrDash(const QString &name)
{
    return name.isEmpty() ? QStringLiteral("?") : name;
}

QString ConnectionSettings::Ssh::destination() const
{
    QString d = user.isEmpty() ? host : user + u'@' + host;
    if (port != 0)
        d += QStringLiteral(":%1").arg(port);
    return d;
}

bool ConnectionSettings::onThisMachine() const
{
    if (ssh.enabled || sentinel.enabled())
        return false;
    if (usesSocket())
        return true;
    return host == QLatin1String("localhost") || host.startsWith(QLatin1String("127.")) || host == QLatin1String("::1");
}

QString ConnectionSettings::endpoint() const
{
    if (usesSocket())
        return QStringLiteral("unix:") + socketPath;
    if (host.contains(u':')) // IPv6 literal
        return QStringLiteral("[%1]:%2").arg(host).arg(port);
    return QStringLiteral("%1:%2").arg(host).arg(port);
}

QString ConnectionSettings::topologyDescription() const
{
    if (sentinel.enabled())
        return QStringLiteral("master '%1' via sentinel %2")
            .arg(masterNameOrDash(sentinel.masterName), sentinel.nodes.join(QStringLiteral(", ")));
    if (cluster)
        return QStringLiteral("cluster via %1").arg(endpoint());
    return endpoint();
}

bool ConnectionSettings::parseHostPort(const QString &text, QString *host, int *port)
{
    const QString t = text.trimmed();
    QString h;
    QString portText;
    if (t.startsWith(u'[')) {
        const qsizetype close = t.indexOf(QLatin1String("]:"));
        if (close < 0)
            return false;
        h = t.mid(1, close - 1);
        portText = t.mid(close + 2);
    } else {
        const qsizetype colon = t.lastIndexOf(u':');
        if (colon <= 0 || t.indexOf(u':') != colon)
            return false;
        h = t.left(colon);
        portText = t.mid(colon + 1);
    }
    bool ok = false;
    const int p = portText.toInt(&ok);
    if (!ok || p < 1 || p > 65535 || h.isEmpty() || h.contains(u' '))
        return false;
    *host = h;
    *port = p;
    return true;
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
    const QString where = topologyDescription();
    return transport.isEmpty() ? where : QStringLiteral("%1 (%2)").arg(where, transport);
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
    if (sentinel.enabled()) {
        if (cluster)
            return QStringLiteral("a connection goes through Sentinel or to a Cluster, not both");
        if (sentinel.masterName.trimmed().isEmpty())
            return QStringLiteral("Sentinel: give the name of the master to follow (--master NAME; the "
                                  "sentinels list them with SENTINEL MASTERS)");
        if (usesSocket())
            return QStringLiteral("Sentinel gives TCP addresses: a Unix socket cannot be used with it");
        if (ssh.enabled)
            return QStringLiteral("Sentinel through an SSH tunnel is not supported yet (the master's address "
                                  "changes on failover): tunnel to the master directly");
        for (const QString &node : sentinel.nodes) {
            QString h;
            int p = 0;
            if (!parseHostPort(node, &h, &p))
                return QStringLiteral("sentinel address '%1' is not host:port").arg(node);
        }
    }
    if (cluster) {
        if (usesSocket())
            return QStringLiteral("a Cluster is reached over TCP: give a node's host and port, not a socket");
        if (ssh.enabled)
            return QStringLiteral(
                "a Cluster through an SSH tunnel is not supported yet (every node needs its "
                "own tunnel)");
        if (db != 0)
            return QStringLiteral("a Cluster has database 0 only");
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
