// SshdFixture: ssh-keygen, an sshd_config that allows forwarding for the test key only, and start-and-wait.
#include "sshdfixture.h"

#include "redis/loopbackports.h"

#include <QDeadlineTimer>
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QStandardPaths>
#include <QThread>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pwd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

namespace {

QString userName()
{
    const passwd *pw = ::getpwuid(::getuid());
    return pw ? QString::fromLocal8Bit(pw->pw_name) : qEnvironmentVariable("USER");
}

bool portAccepts(int port)
{
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr {};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons(quint16(port));
    const bool ok = ::connect(fd, reinterpret_cast<sockaddr *>(&addr), sizeof(addr)) == 0;
    ::close(fd);
    return ok;
}

} // namespace

SshdFixture::~SshdFixture()
{
    m_sshd.kill();
}

bool SshdFixture::keygen(const QString &name)
{
    QProcess p;
    p.start(QStringLiteral("ssh-keygen"),
            {QStringLiteral("-q"), QStringLiteral("-t"), QStringLiteral("ed25519"), QStringLiteral("-N"),
             QString(), QStringLiteral("-f"), path(name)});
    if (!p.waitForFinished(20000) || p.exitCode() != 0) {
        m_error = QStringLiteral("ssh-keygen failed: %1 %2")
                      .arg(p.errorString(), QString::fromLocal8Bit(p.readAllStandardError()));
        return false;
    }
    return true;
}

bool SshdFixture::write(const QString &name, const QString &text)
{
    QFile f(path(name));
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
        m_error = f.errorString();
        return false;
    }
    f.write(text.toUtf8());
    f.setPermissions(QFile::ReadOwner | QFile::WriteOwner);
    return true;
}

QString SshdFixture::log() const
{
    QFile f(path(QStringLiteral("sshd.log")));
    return f.open(QIODevice::ReadOnly) ? QString::fromLocal8Bit(f.readAll()) : QString();
}

bool SshdFixture::start()
{
    const QString sshd = QStandardPaths::findExecutable(
        QStringLiteral("sshd"), {QStringLiteral("/usr/sbin"), QStringLiteral("/usr/local/sbin")});
    if (sshd.isEmpty()) {
        m_error = QStringLiteral("sshd is not installed (Debian: apt-get install openssh-server)");
        return false;
    }
    if (QStandardPaths::findExecutable(QStringLiteral("ssh-keygen")).isEmpty()) {
        m_error = QStringLiteral("ssh-keygen is not installed");
        return false;
    }
    // As root, sshd insists on its privilege-separation directory (normally made at boot by systemd).
    if (::geteuid() == 0 && !QFileInfo::exists(QStringLiteral("/run/sshd"))
        && ::mkdir("/run/sshd", 0755) != 0) {
        m_error = QStringLiteral("running as root, sshd needs /run/sshd, which cannot be created");
        return false;
    }
    if (!m_dir.isValid() || !keygen(QStringLiteral("host_key")) || !keygen(QStringLiteral("user_key"))
        || !keygen(QStringLiteral("stranger_key")))
        return false;
    QFile userPub(path(QStringLiteral("user_key.pub")));
    QFile hostPub(path(QStringLiteral("host_key.pub")));
    if (!userPub.open(QIODevice::ReadOnly) || !hostPub.open(QIODevice::ReadOnly)) {
        m_error = QStringLiteral("cannot read the generated keys");
        return false;
    }
    const QString hostKey = QString::fromLatin1(hostPub.readAll()).trimmed();
    m_port = LoopbackPorts::freePort();
    const QString clientConfig = QStringLiteral("Host *\n"
                                                "  UserKnownHostsFile %1\n"
                                                "  GlobalKnownHostsFile /dev/null\n"
                                                "  StrictHostKeyChecking yes\n"
                                                "  IdentitiesOnly yes\n"
                                                "  IdentityAgent none\n"
                                                "  LogLevel ERROR\n");
    if (!write(QStringLiteral("authorized_keys"), QString::fromLatin1(userPub.readAll()))
        || !write(QStringLiteral("known_hosts"),
                  QStringLiteral("[127.0.0.1]:%1 %2\n").arg(m_port).arg(hostKey))
        || !write(QStringLiteral("known_hosts_empty"), QString())
        || !write(QStringLiteral("ssh_config"), clientConfig.arg(path(QStringLiteral("known_hosts"))))
        || !write(QStringLiteral("ssh_config_unknown_host"),
                  clientConfig.arg(path(QStringLiteral("known_hosts_empty"))))
        || !write(QStringLiteral("sshd_config"),
                  QStringLiteral("Port %1\nListenAddress 127.0.0.1\nHostKey %2\nAuthorizedKeysFile %3\n"
                                 "PidFile none\nStrictModes no\nUsePAM no\nPasswordAuthentication no\n"
                                 "KbdInteractiveAuthentication no\nPermitRootLogin prohibit-password\n"
                                 "AllowTcpForwarding yes\nAllowStreamLocalForwarding yes\nLogLevel VERBOSE\n")
                      .arg(m_port)
                      .arg(path(QStringLiteral("host_key")), path(QStringLiteral("authorized_keys")))))
        return false;
    if (!m_sshd.start(sshd,
                      {QStringLiteral("-D"), QStringLiteral("-e"), QStringLiteral("-f"),
                       path(QStringLiteral("sshd_config"))},
                      m_dir.path(), path(QStringLiteral("sshd.log")))) {
        m_error = m_sshd.errorString();
        return false;
    }
    QDeadlineTimer deadline(10000);
    while (!portAccepts(m_port)) {
        if (!m_sshd.isRunning() || deadline.hasExpired()) {
            m_error = QStringLiteral("sshd did not start (%1): %2").arg(m_sshd.exitDescription(), log());
            return false;
        }
        QThread::msleep(10); // polling a starting process for readiness
    }
    return true;
}

ConnectionSettings::Ssh SshdFixture::tunnel() const
{
    ConnectionSettings::Ssh ssh;
    ssh.enabled = true;
    ssh.host = QStringLiteral("127.0.0.1");
    ssh.port = m_port;
    ssh.user = userName();
    ssh.identityFile = path(QStringLiteral("user_key"));
    ssh.configFile = path(QStringLiteral("ssh_config"));
    return ssh;
}
