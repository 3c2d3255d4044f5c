// ConnectionOptions: parsing and validation. Passwords come from an environment variable or a file, never
// argv, because process arguments are visible to every user of the machine (ps, /proc).
#include "connectionoptions.h"

#include "profiles/profilestore.h"
#include "profiles/secretstore.h"

#include <QCommandLineParser>
#include <QFile>

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
        {QStringLiteral("password-file"),
         QStringLiteral(
             "File holding the password (its first line; keep it readable by you alone), instead of "
             "--password-env."),
         QStringLiteral("FILE")},
        {QStringLiteral("db"), QStringLiteral("Database number (default 0)."), QStringLiteral("n")},
        {QStringLiteral("sandbox"),
         QStringLiteral("Start a private redis-server on a free loopback port for this run.")},
        {QStringLiteral("read-write"),
         QStringLiteral("Allow commands that write to the server (connections are read-only by default).")},
        {QStringLiteral("connect-timeout"), QStringLiteral("Connect timeout in milliseconds (default 3000)."),
         QStringLiteral("ms")},
        {QStringLiteral("timeout"), QStringLiteral("Command timeout in milliseconds (default 3000)."),
         QStringLiteral("ms")},
        {QStringLiteral("tls"),
         QStringLiteral(
             "Connect with TLS (to the server's tls-port). The certificate is verified against the "
             "system's CAs or --cacert, and must name the host (or --sni).")},
        {QStringLiteral("cacert"),
         QStringLiteral("CA certificate file (PEM) to verify the server with; implies --tls."),
         QStringLiteral("file")},
        {QStringLiteral("cert"),
         QStringLiteral("Client certificate file (PEM), for servers with tls-auth-clients; implies --tls."),
         QStringLiteral("file")},
        {QStringLiteral("key"), QStringLiteral("Private key file (PEM, unencrypted) of --cert."),
         QStringLiteral("file")},
        {QStringLiteral("sni"),
         QStringLiteral("Server name for TLS (SNI), and the name the certificate must carry; implies --tls."),
         QStringLiteral("name")},
        {QStringLiteral("insecure"),
         QStringLiteral(
             "Do NOT verify the server's TLS certificate (anyone in the middle can read the traffic); "
             "implies --tls.")},
        {QStringLiteral("ssh"),
         QStringLiteral(
             "Reach the server through an SSH tunnel via this bastion, with your own ssh keys, agent and "
             "config; --host/--port are then as seen from the bastion."),
         QStringLiteral("[user@]host[:port]")},
        {QStringLiteral("ssh-identity"), QStringLiteral("Private key file for the SSH login (ssh -i)."),
         QStringLiteral("file")},
        {QStringLiteral("ssh-jump"), QStringLiteral("Further bastions to jump through first (ssh -J)."),
         QStringLiteral("hosts")},
        {QStringLiteral("ssh-config"),
         QStringLiteral("ssh config file to use instead of ~/.ssh/config (ssh -F)."), QStringLiteral("file")},
        {QStringLiteral("cluster"),
         QStringLiteral(
             "The server is a Redis Cluster reached through this node (a seed): commands follow the "
             "slot map, and inspect scans every master."),
         QStringLiteral("host:port")},
        {QStringLiteral("sentinel"),
         QStringLiteral("Reach the master through this Redis Sentinel (repeat for more sentinels); with "
                        "--master. The connection follows a failover."),
         QStringLiteral("host:port")},
        {QStringLiteral("master"),
         QStringLiteral("The name of the master the sentinels monitor (without it, the names are listed)."),
         QStringLiteral("NAME")},
        {QStringLiteral("sentinel-user"),
         QStringLiteral("ACL user to log in to the sentinels with (their own login, not the data nodes')."),
         QStringLiteral("NAME")},
        {QStringLiteral("sentinel-password-env"),
         QStringLiteral("Read the sentinels' password (their requirepass) from environment variable VAR."),
         QStringLiteral("VAR")},
        {QStringLiteral("sentinel-password-file"),
         QStringLiteral("Read the sentinels' password from the first line of FILE."), QStringLiteral("FILE")},
        {QStringLiteral("profile"),
         QStringLiteral(
             "Connect as the saved connection profile NAME says (made in the app: Connection > Profiles); "
             "its password comes from the system keychain, or --password-env."),
         QStringLiteral("NAME")},
    });
}

// The password in `path`: its first line, without the line end. False with `error` set (never the content).
static bool readPasswordFile(const QString &option, const QString &path, QString *password, QString *error)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        *error = QStringLiteral("--%1 %2: %3").arg(option, path, file.errorString());
        return false;
    }
    const QByteArray content = file.read(64 * 1024);
    QByteArray line = content.left(content.indexOf('\n'));
    if (line.endsWith('\r'))
        line.chop(1);
    if (line.isEmpty()) {
        *error = QStringLiteral("--%1 %2: the file's first line is empty").arg(option, path);
        return false;
    }
    *password = QString::fromUtf8(line);
    return true;
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
    if (parser.isSet(QStringLiteral("profile"))) {
        for (const char *name :
             {"host", "port", "socket", "user", "tls", "cacert", "cert", "key", "sni", "insecure", "ssh",
              "ssh-identity", "ssh-jump", "ssh-config", "sandbox", "cluster", "sentinel", "master"}) {
            if (parser.isSet(QString::fromLatin1(name))) {
                *error = QStringLiteral(
                             "--profile already says where and how to connect: do not combine it with "
                             "--%1 (edit the profile instead)")
                             .arg(QString::fromLatin1(name));
                return false;
            }
        }
        const ProfileStore store;
        const QString wanted = parser.value(QStringLiteral("profile"));
        o.profile = store.find(wanted);
        if (!o.profile) {
            QStringList names;
            for (const ConnectionProfile &p : store.profiles())
                names << p.name;
            *error = names.isEmpty() ? QStringLiteral("--profile %1: there are no saved profiles in %2")
                                           .arg(wanted, store.filePath())
                                     : QStringLiteral("--profile %1: no such profile (saved: %2)")
                                           .arg(wanted, names.join(QStringLiteral(", ")));
            return false;
        }
        s = o.profile->settings;
    }
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
    if (parser.isSet(QStringLiteral("password-file"))) {
        if (parser.isSet(QStringLiteral("password-env"))) {
            *error = QStringLiteral("give the password one way: --password-env or --password-file");
            return false;
        }
        if (!readPasswordFile(QStringLiteral("password-file"), parser.value(QStringLiteral("password-file")),
                              &s.password, error))
            return false;
    }
    // A profile's own read-only flag holds unless --read-write; without a profile, read-only unless
    // --read-write.
    s.readOnly = (o.profile ? s.readOnly : true) && !parser.isSet(QStringLiteral("read-write"));
    o.passwordGiven
        = parser.isSet(QStringLiteral("password-env")) || parser.isSet(QStringLiteral("password-file"));
    if (o.profile) {
        o.serverGiven = true;
        if (!o.passwordGiven && o.profile->needsPassword())
            s.password = QStringLiteral("-"); // a stand-in so validation passes; resolved before connecting
        if (const QString problem = s.validate(); !problem.isEmpty()) {
            *error = QStringLiteral("profile '%1': %2").arg(o.profile->name, problem);
            return false;
        }
        if (!o.passwordGiven)
            s.password.clear();
        *out = o;
        return true;
    }

    const auto value = [&parser](const char *name) { return parser.value(QString::fromLatin1(name)); };
    s.tls.caFile = value("cacert");
    s.tls.certFile = value("cert");
    s.tls.keyFile = value("key");
    s.tls.serverName = value("sni");
    s.tls.verifyPeer = !parser.isSet(QStringLiteral("insecure"));
    s.tls.enabled = parser.isSet(QStringLiteral("tls")) || !s.tls.caFile.isEmpty()
        || !s.tls.certFile.isEmpty() || !s.tls.keyFile.isEmpty() || !s.tls.serverName.isEmpty()
        || !s.tls.verifyPeer;
    if (parser.isSet(QStringLiteral("ssh"))) {
        s.ssh.enabled = true;
        if (!parseSshDestination(value("ssh"), &s.ssh, error))
            return false;
    }
    s.ssh.identityFile = value("ssh-identity");
    s.ssh.jumpHosts = value("ssh-jump");
    s.ssh.configFile = value("ssh-config");
    if (!s.ssh.enabled
        && (!s.ssh.identityFile.isEmpty() || !s.ssh.jumpHosts.isEmpty() || !s.ssh.configFile.isEmpty())) {
        *error = QStringLiteral("--ssh-identity, --ssh-jump and --ssh-config need --ssh [user@]bastion");
        return false;
    }
    o.sandbox = parser.isSet(QStringLiteral("sandbox"));
    o.serverGiven = parser.isSet(QStringLiteral("host")) || parser.isSet(QStringLiteral("port"))
        || parser.isSet(QStringLiteral("socket"));
    const bool cluster = parser.isSet(QStringLiteral("cluster"));
    const bool sentinel = parser.isSet(QStringLiteral("sentinel"));
    if ((cluster || sentinel) && (o.serverGiven || o.sandbox)) {
        *error = QStringLiteral(
                     "--%1 says where the servers are: do not combine it with --host, --port, --socket "
                     "or --sandbox")
                     .arg(cluster ? QStringLiteral("cluster") : QStringLiteral("sentinel"));
        return false;
    }
    if (cluster && sentinel) {
        *error = QStringLiteral("--cluster and --sentinel are different topologies: give one of them");
        return false;
    }
    if (parser.isSet(QStringLiteral("master")) && !sentinel) {
        *error
            = QStringLiteral("--master names a master monitored by Sentinel: give --sentinel host:port too");
        return false;
    }
    if (cluster) {
        const QString seed = value("cluster");
        if (!ConnectionSettings::parseHostPort(seed, &s.host, &s.port)) {
            *error = QStringLiteral("--cluster %1: expected host:port of a cluster node").arg(seed);
            return false;
        }
        s.cluster = true;
        o.serverGiven = true;
    }
    if (sentinel) {
        for (const QString &node : parser.values(QStringLiteral("sentinel"))) {
            QString h;
            int p = 0;
            if (!ConnectionSettings::parseHostPort(node, &h, &p)) {
                *error
                    = QStringLiteral("--sentinel %1: expected host:port of a sentinel (default port 26379)")
                          .arg(node);
                return false;
            }
            s.sentinel.nodes << node.trimmed();
        }
        s.sentinel.masterName = value("master");
        o.serverGiven = true;
    }
    // The sentinels' login, for --sentinel or a profile that goes through sentinels.
    if (parser.isSet(QStringLiteral("sentinel-user")) || parser.isSet(QStringLiteral("sentinel-password-env"))
        || parser.isSet(QStringLiteral("sentinel-password-file"))) {
        if (!s.sentinel.enabled()) {
            *error
                = QStringLiteral("--sentinel-user, --sentinel-password-env and --sentinel-password-file are "
                                 "the sentinels' login: give --sentinel host:port too");
            return false;
        }
        if (parser.isSet(QStringLiteral("sentinel-user")))
            s.sentinel.user = value("sentinel-user");
        if (parser.isSet(QStringLiteral("sentinel-password-env"))) {
            const QString var = parser.value(QStringLiteral("sentinel-password-env"));
            if (!qEnvironmentVariableIsSet(var.toLocal8Bit().constData())) {
                *error = QStringLiteral("--sentinel-password-env %1: the environment variable %1 is not set")
                             .arg(var);
                return false;
            }
            s.sentinel.password = qEnvironmentVariable(var.toLocal8Bit().constData());
        }
        if (parser.isSet(QStringLiteral("sentinel-password-file"))
            && !readPasswordFile(QStringLiteral("sentinel-password-file"),
                                 parser.value(QStringLiteral("sentinel-password-file")), &s.sentinel.password,
                                 error))
            return false;
        if (!s.sentinel.user.isEmpty() && s.sentinel.password.isEmpty()) {
            *error
                = QStringLiteral("--sentinel-user %1 needs a password: give --sentinel-password-env VAR or "
                                 "--sentinel-password-file FILE")
                      .arg(s.sentinel.user);
            return false;
        }
    }
    if (o.sandbox && o.serverGiven) {
        *error = QStringLiteral(
            "--sandbox starts a private server: do not combine it with --host, --port or --socket");
        return false;
    }
    if (!s.user.isEmpty() && s.password.isEmpty()) {
        *error = QStringLiteral("--user %1 needs a password: give --password-env VAR or --password-file FILE")
                     .arg(s.user);
        return false;
    }
    if (o.sandbox && (s.tls.enabled || s.ssh.enabled)) {
        *error = QStringLiteral(
            "--sandbox is a plain local server: do not combine it with TLS or --ssh options");
        return false;
    }
    // Without --master the CLI lists the sentinels' masters (CliServer): validate as if one were given.
    ConnectionSettings checked = s;
    if (checked.sentinel.enabled() && checked.sentinel.masterName.isEmpty())
        checked.sentinel.masterName = QStringLiteral("-");
    if (const QString problem = checked.validate(); !problem.isEmpty()) {
        *error = problem;
        return false;
    }
    *out = o;
    return true;
}

bool ConnectionOptions::parseSshDestination(const QString &text, ConnectionSettings::Ssh *ssh, QString *error)
{
    QString rest = text.trimmed();
    const qsizetype at = rest.lastIndexOf(u'@');
    if (at >= 0) {
        ssh->user = rest.left(at);
        rest = rest.mid(at + 1);
    }
    QString portText;
    if (rest.startsWith(u'[')) { // [IPv6]:port
        const qsizetype close = rest.indexOf(u']');
        if (close < 0) {
            *error = QStringLiteral("--ssh %1: missing ']' after an IPv6 address").arg(text);
            return false;
        }
        portText = rest.mid(close + 1);
        rest = rest.mid(1, close - 1);
        if (!portText.isEmpty() && !portText.startsWith(u':')) {
            *error = QStringLiteral("--ssh %1: expected ':port' after ']'").arg(text);
            return false;
        }
        portText = portText.mid(1);
    } else if (rest.count(u':') == 1) {
        portText = rest.mid(rest.indexOf(u':') + 1);
        rest = rest.left(rest.indexOf(u':'));
    }
    ssh->host = rest;
    ssh->port = 0;
    if (!portText.isEmpty()) {
        bool ok = false;
        ssh->port = portText.toInt(&ok);
        if (!ok || ssh->port < 1 || ssh->port > 65535) {
            *error = QStringLiteral("--ssh %1: port must be a whole number from 1 to 65535").arg(text);
            return false;
        }
    }
    if (ssh->host.isEmpty() || (at >= 0 && ssh->user.isEmpty())) {
        *error = QStringLiteral("--ssh %1: expected [user@]host[:port]").arg(text);
        return false;
    }
    return true;
}

bool ConnectionOptions::resolveProfilePassword(ConnectionOptions *options, QString *error)
{
    if (!options->profile || options->passwordGiven || !options->profile->needsPassword())
        return true;
    const ConnectionProfile &p = *options->profile;
    if (p.passwordStorage == ConnectionProfile::PasswordStorage::Ask) {
        *error
            = QStringLiteral("profile '%1' asks for its password every time: give it with --password-env VAR")
                  .arg(p.name);
        return false;
    }
    SecretStore secrets;
    const SecretStore::Result r = secrets.readNow(p.keychainKey());
    if (!r.ok()) {
        *error = QStringLiteral(
                     "the password of profile '%1' cannot be read: %2. Give it with --password-env VAR")
                     .arg(p.name, r.error);
        return false;
    }
    options->settings.password = r.secret;
    return true;
}

QString ConnectionOptions::securityWarning(const ConnectionSettings &settings)
{
    if (settings.tls.enabled && !settings.tls.verifyPeer)
        return QStringLiteral(
                   "warning: TLS certificate verification is OFF for %1 (--insecure): the traffic is "
                   "encrypted, but anyone in the middle can read and change it, including the password.")
            .arg(settings.endpoint());
    return {};
}
