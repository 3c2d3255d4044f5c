// SshTunnel: the ssh command line, start-and-wait on the forwarded port, and ssh's errors in plain words.
#include "sshtunnel.h"

#include "logging.h"
#include "loopbackports.h"

#include <QDeadlineTimer>
#include <QFile>
#include <QFileInfo>
#include <QStandardPaths>
#include <QThread>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace {

constexpr int kPollMs = 20;

bool hasLine(const QString &log, const char *text)
{
    return log.contains(QLatin1String(text), Qt::CaseInsensitive);
}

// ssh's stderr without the lines that are noise to a user.
QStringList meaningfulLines(const QString &log)
{
    QStringList lines;
    for (const QString &line : log.split(u'\n', Qt::SkipEmptyParts)) {
        const QString l = line.trimmed();
        if (l.startsWith(QLatin1String("Warning: Permanently added")) || l.startsWith(QLatin1String("debug")))
            continue;
        lines << l;
    }
    return lines;
}

} // namespace

SshTunnel::SshTunnel(const ConnectionSettings &settings)
    : m_settings(settings)
    , m_dir(QDir::tempPath() + QStringLiteral("/lockscope-ssh-XXXXXX"))
{
}

SshTunnel::~SshTunnel()
{
    stop();
}

QString SshTunnel::findSsh()
{
    const QByteArray overridden = qgetenv("LOCKSCOPE_SSH");
    if (!overridden.isEmpty())
        return QString::fromLocal8Bit(overridden);
    QString found = QStandardPaths::findExecutable(QStringLiteral("ssh"));
    if (found.isEmpty())
        found = QStandardPaths::findExecutable(
            QStringLiteral("ssh"), {QStringLiteral("/usr/bin"), QStringLiteral("/usr/local/bin")});
    return found;
}

QStringList SshTunnel::command(const QString &sshProgram, const ConnectionSettings &settings, int localPort,
                               int connectTimeoutMs)
{
    const ConnectionSettings::Ssh &ssh = settings.ssh;
    // The far end as the bastion sees it: a host:port (IPv6 literals in brackets) or a Unix socket path.
    const QString target = settings.usesSocket() ? settings.socketPath
        : settings.host.contains(u':') ? QStringLiteral("[%1]:%2").arg(settings.host).arg(settings.port)
                                       : QStringLiteral("%1:%2").arg(settings.host).arg(settings.port);
    QStringList args {sshProgram, QStringLiteral("-N"), QStringLiteral("-T")}; // forwarding only, no shell
    args << QStringLiteral("-L") << QStringLiteral("127.0.0.1:%1:%2").arg(localPort).arg(target);
    const QStringList options {
        QStringLiteral("ExitOnForwardFailure=yes"),
        QStringLiteral("BatchMode=yes"), // never prompt: there is no terminal to prompt on
        QStringLiteral("ConnectTimeout=%1").arg(std::max(1, (connectTimeoutMs + 999) / 1000)),
        // ssh reports a forward failing at the bastion at INFO level; a quieter user config would hide why
        // Redis is unreachable. This log is ours alone.
        QStringLiteral("LogLevel=INFO"),
        QStringLiteral("ServerAliveInterval=15"),
        QStringLiteral("ServerAliveCountMax=3"),
        // A multiplexing master from the user's config would fork and outlive us.
        QStringLiteral("ControlMaster=no"),
        QStringLiteral("ControlPath=none"),
    };
    for (const QString &option : options)
        args << QStringLiteral("-o") << option;
    if (!ssh.configFile.isEmpty())
        args << QStringLiteral("-F") << ssh.configFile;
    if (ssh.port != 0)
        args << QStringLiteral("-p") << QString::number(ssh.port);
    if (!ssh.identityFile.isEmpty())
        args << QStringLiteral("-i") << ssh.identityFile;
    if (!ssh.jumpHosts.isEmpty())
        args << QStringLiteral("-J") << ssh.jumpHosts;
    if (!ssh.user.isEmpty())
        args << QStringLiteral("-l") << ssh.user;
    args << QStringLiteral("--") << ssh.host;
    return args;
}

RedisError SshTunnel::errorFromLog(const QString &log, const ConnectionSettings &settings)
{
    const ConnectionSettings::Ssh &ssh = settings.ssh;
    const QString bastion = ssh.destination();
    const QString shown = meaningfulLines(log)
                              .mid(std::max<qsizetype>(0, meaningfulLines(log).size() - 3))
                              .join(QStringLiteral(" / "));
    if (hasLine(log, "REMOTE HOST IDENTIFICATION HAS CHANGED"))
        return {RedisError::Code::Tunnel,
                QStringLiteral("SSH: the host key of %1 has CHANGED since it was last accepted (Host key "
                               "verification failed). This can be an attack; check with your administrators "
                               "before fixing known_hosts.")
                    .arg(ssh.host)};
    if (hasLine(log, "Host key verification failed"))
        return {
            RedisError::Code::Tunnel,
            QStringLiteral("SSH: the host key of %1 is not known (Host key verification failed). LockScope "
                           "never accepts host keys by itself: run `ssh %1` once in a terminal to check and "
                           "accept it.")
                .arg(bastion)};
    if (hasLine(log, "Permission denied"))
        return {RedisError::Code::Tunnel,
                QStringLiteral(
                    "SSH login to %1 was refused (%2). LockScope logs in with your SSH agent, your keys "
                    "and ~/.ssh/config, or the identity file given; it cannot type a password.")
                    .arg(bastion, shown)};
    if (hasLine(log, "Could not resolve hostname"))
        return {RedisError::Code::HostNotFound,
                QStringLiteral("SSH: cannot resolve the bastion host '%1' (%2)").arg(ssh.host, shown)};
    if (hasLine(log, "Connection refused") && !hasLine(log, "open failed"))
        return {RedisError::Code::ConnectionRefused,
                QStringLiteral("SSH: connection refused by %1: no SSH server is listening there (is the port "
                               "right?)")
                    .arg(bastion)};
    if (hasLine(log, "timed out"))
        return {RedisError::Code::Timeout,
                QStringLiteral("SSH: could not reach %1 in time (%2)").arg(bastion, shown)};
    if (hasLine(log, "No route to host") || hasLine(log, "Network is unreachable"))
        return {RedisError::Code::ConnectFailed,
                QStringLiteral("SSH: cannot reach %1 (%2)").arg(bastion, shown)};
    if (hasLine(log, "not accessible") || hasLine(log, "Load key") || hasLine(log, "invalid format"))
        return {RedisError::Code::Tunnel,
                QStringLiteral("SSH: cannot use the identity file %1 (%2)").arg(ssh.identityFile, shown)};
    return {RedisError::Code::Tunnel,
            QStringLiteral("SSH tunnel through %1 failed: %2")
                .arg(bastion, shown.isEmpty() ? QStringLiteral("ssh exited without saying why") : shown)};
}

QString SshTunnel::log() const
{
    QFile file(m_dir.filePath(QStringLiteral("ssh.log")));
    return file.open(QIODevice::ReadOnly) ? QString::fromLocal8Bit(file.readAll()) : QString();
}

QString SshTunnel::forwardProblem() const
{
    // "channel 2: open failed: connect failed: Connection refused"
    QString problem;
    for (const QString &line : meaningfulLines(log())) {
        const qsizetype at = line.indexOf(QLatin1String("open failed: "));
        if (at >= 0)
            problem = line.mid(at + 13);
    }
    return problem;
}

bool SshTunnel::portAccepts() const
{
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0)
        return false;
    sockaddr_in addr {};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons(quint16(m_localPort));
    bool accepted = ::connect(fd, reinterpret_cast<sockaddr *>(&addr), sizeof(addr)) == 0;
    if (!accepted && errno == EINPROGRESS) {
        pollfd pfd {fd, POLLOUT, 0};
        int soError = 0;
        socklen_t length = sizeof(soError);
        accepted = ::poll(&pfd, 1, kPollMs) == 1
            && ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &soError, &length) == 0 && soError == 0;
    }
    ::close(fd);
    return accepted;
}

RedisError SshTunnel::start(int timeoutMs, const std::atomic_bool *interrupted)
{
    QMutexLocker lock(&m_mutex);
    if (m_process.isRunning())
        return {};
    const QString ssh = findSsh();
    if (ssh.isEmpty() || !QFileInfo(ssh).isExecutable())
        return {RedisError::Code::Tunnel,
                QStringLiteral(
                    "SSH tunnel: the OpenSSH client (ssh) was not found. Install it (Debian/Ubuntu: sudo "
                    "apt-get install openssh-client).")};
    if (!m_dir.isValid())
        return {
            RedisError::Code::Tunnel,
            QStringLiteral("SSH tunnel: cannot create a temporary directory: %1").arg(m_dir.errorString())};
    const QString logFile = m_dir.filePath(QStringLiteral("ssh.log"));
    const QDeadlineTimer deadline(timeoutMs);
    // The free port can be taken before ssh binds it: ExitOnForwardFailure makes ssh say so, then retry.
    for (int attempt = 0; attempt < 4; ++attempt) {
        QFile::remove(logFile);
        m_localPort = LoopbackPorts::freePort();
        if (m_localPort == 0)
            return {RedisError::Code::Tunnel, QStringLiteral("SSH tunnel: no free TCP port on 127.0.0.1")};
        QStringList args = command(ssh, m_settings, m_localPort, timeoutMs);
        args.removeFirst();
        if (!m_process.start(ssh, args, QString(), logFile))
            return {RedisError::Code::Tunnel, QStringLiteral("SSH tunnel: %1").arg(m_process.errorString())};
        qCDebug(lcRedis) << "ssh tunnel" << m_settings.ssh.destination() << "local port" << m_localPort
                         << "pid" << m_process.pid();
        bool portTaken = false;
        while (true) {
            if (!m_process.isRunning()) {
                const QString text = log();
                if (hasLine(text, "Address already in use") || hasLine(text, "cannot listen to port")) {
                    portTaken = true;
                    break;
                }
                return errorFromLog(text, m_settings);
            }
            if (portAccepts())
                return {};
            if (interrupted && *interrupted) {
                m_process.kill();
                return {RedisError::Code::Interrupted,
                        QStringLiteral("Interrupted while opening the SSH tunnel through %1")
                            .arg(m_settings.ssh.destination())};
            }
            if (deadline.hasExpired()) {
                m_process.kill();
                const QStringList said = meaningfulLines(log());
                return {RedisError::Code::Timeout,
                        QStringLiteral("SSH: the tunnel through %1 was not ready within %2 ms%3")
                            .arg(m_settings.ssh.destination())
                            .arg(timeoutMs)
                            .arg(said.isEmpty()
                                     ? QStringLiteral(" (the bastion accepted the TCP connection but "
                                                      "did not complete the SSH login)")
                                     : QStringLiteral(": ") + said.join(QStringLiteral(" / ")))};
            }
            QThread::msleep(kPollMs); // waiting on another process's listening socket: nothing to block on
        }
        if (!portTaken)
            break;
    }
    return {
        RedisError::Code::Tunnel,
        QStringLiteral("SSH tunnel: could not find a free local port to forward (%1)").arg(log().trimmed())};
}

void SshTunnel::stop()
{
    QMutexLocker lock(&m_mutex);
    m_process.terminate(500);
}

bool SshTunnel::isRunning()
{
    QMutexLocker lock(&m_mutex);
    return m_process.isRunning();
}

qint64 SshTunnel::pid()
{
    QMutexLocker lock(&m_mutex);
    return m_process.isRunning() ? m_process.pid() : -1;
}
