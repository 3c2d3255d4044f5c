// SandboxServer: config file, free port, start-and-wait, faults.
#include "sandboxserver.h"

#include "logging.h"
#include "loopbackports.h"
#include "redisconnection.h"

#include <QDeadlineTimer>
#include <QDir>
#include <QFile>
#include <QRandomGenerator>
#include <QStandardPaths>
#include <QThread>


SandboxServer::SandboxServer()
    : SandboxServer(Options())
{
}

SandboxServer::SandboxServer(const Options &options)
    : m_options(options)
{
}

SandboxServer::~SandboxServer()
{
    if (m_process.pid() > 0)
        m_process.kill(); // no data to save: killing is faster than a graceful stop
}

QString SandboxServer::findExecutable()
{
    const QByteArray overridden = qgetenv("LOCKSCOPE_REDIS_SERVER");
    if (!overridden.isEmpty())
        return QFileInfo(QString::fromLocal8Bit(overridden)).isExecutable()
            ? QString::fromLocal8Bit(overridden)
            : QString();
    QString found = QStandardPaths::findExecutable(QStringLiteral("redis-server"));
    if (found.isEmpty())
        found = QStandardPaths::findExecutable(
            QStringLiteral("redis-server"),
            {QStringLiteral("/usr/bin"), QStringLiteral("/usr/sbin"), QStringLiteral("/usr/local/bin")});
    return found;
}

QString SandboxServer::installHint()
{
    return QStringLiteral(
        "redis-server was not found on PATH. Install it (Debian/Ubuntu: sudo apt-get install "
        "redis-server; Fedora: sudo dnf install redis; macOS: brew install redis), or set "
        "LOCKSCOPE_REDIS_SERVER to its full path.");
}

int SandboxServer::freeClusterPort()
{
    // Redis refuses a cluster node above 55535 (its bus listens 10000 higher): pick in 20000..55535.
    for (int attempt = 0; attempt < 200; ++attempt) {
        const int port = 20000 + int(QRandomGenerator::global()->bounded(35536));
        if (LoopbackPorts::bind(port) == port && LoopbackPorts::bind(port + 10000) == port + 10000)
            return port;
    }
    return 0;
}

QString SandboxServer::directory() const
{
    return m_dir ? m_dir->path() : QString();
}

QString SandboxServer::socketPath() const
{
    return m_options.unixSocket && m_dir ? m_dir->filePath(QStringLiteral("redis.sock")) : QString();
}

ConnectionSettings SandboxServer::connectionSettings() const
{
    ConnectionSettings s;
    s.host = host();
    s.port = m_port;
    s.readOnly = false;
    if (m_options.tls) {
        s.tls = m_options.tls->client;
        s.tls.enabled = true;
    }
    return s;
}

QString SandboxServer::logTail(int maxLines) const
{
    if (!m_dir)
        return {};
    QFile log(m_dir->filePath(QStringLiteral("redis.log")));
    if (!log.open(QIODevice::ReadOnly))
        return {};
    const QStringList lines = QString::fromLocal8Bit(log.readAll()).split(u'\n', Qt::SkipEmptyParts);
    return lines.mid(std::max<qsizetype>(0, lines.size() - maxLines)).join(u'\n');
}

bool SandboxServer::prepareDirectory()
{
    if (m_dir)
        return true;
    // Short base path: a Unix socket path must fit in 108 bytes.
    const QString base
        = QDir::tempPath() + QStringLiteral("/lockscope-") + m_options.name + QStringLiteral("-XXXXXX");
    m_dir = std::make_unique<QTemporaryDir>(base);
    if (!m_dir->isValid()) {
        m_error = QStringLiteral("cannot create a temporary directory for %1: %2")
                      .arg(m_options.name, m_dir->errorString());
        m_dir.reset();
        return false;
    }
    return true;
}

bool SandboxServer::writeConfig()
{
    QStringList lines {
        QStringLiteral("port %1").arg(m_options.tls ? 0 : m_port),
        QStringLiteral("bind 127.0.0.1"),
        QStringLiteral("daemonize no"),
        QStringLiteral("dir \"%1\"").arg(m_dir->path()),
        QStringLiteral("logfile \"\""),
    };
    if (!m_options.sentinel) {
        lines << QStringLiteral("save \"\"") << QStringLiteral("appendonly no")
              << QStringLiteral("protected-mode no");
    } else {
        lines << QStringLiteral("protected-mode no");
    }
    if (m_options.tls) {
        const Tls &tls = *m_options.tls;
        lines << QStringLiteral("tls-port %1").arg(m_port)
              << QStringLiteral("tls-cert-file \"%1\"").arg(tls.certFile)
              << QStringLiteral("tls-key-file \"%1\"").arg(tls.keyFile)
              << QStringLiteral("tls-ca-cert-file \"%1\"").arg(tls.caFile)
              << QStringLiteral("tls-auth-clients %1").arg(tls.authClients ? "yes" : "no");
    }
    if (m_options.unixSocket)
        lines << QStringLiteral("unixsocket \"%1\"").arg(socketPath())
              << QStringLiteral("unixsocketperm 700");
    lines << m_options.configLines;

    QFile config(m_dir->filePath(QStringLiteral("redis.conf")));
    if (!config.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
        m_error = QStringLiteral("cannot write %1: %2").arg(config.fileName(), config.errorString());
        return false;
    }
    config.write(lines.join(u'\n').toUtf8() + '\n');
    return true;
}

bool SandboxServer::start()
{
    if (m_process.pid() > 0 && m_process.isRunning())
        return true;
    const QString executable = m_options.executable.isEmpty() ? findExecutable() : m_options.executable;
    if (executable.isEmpty() || !QFileInfo(executable).isExecutable()) {
        m_error = installHint();
        return false;
    }
    if (!prepareDirectory())
        return false;
    if (m_port == 0) {
        m_port = m_options.port;
        m_portChosenByUs = m_port == 0;
    }
    // A port picked by us can be taken by someone else before redis binds it: then pick another.
    for (int attempt = 0; attempt < 8; ++attempt) {
        if (m_portChosenByUs && m_port == 0)
            m_port = m_options.clusterBus ? freeClusterPort() : LoopbackPorts::freePort();
        if (m_port == 0) {
            m_error = QStringLiteral("no free TCP port on 127.0.0.1");
            return false;
        }
        if (!writeConfig())
            return false;
        QStringList args {m_dir->filePath(QStringLiteral("redis.conf"))};
        if (m_options.sentinel)
            args << QStringLiteral("--sentinel");
        if (!m_process.start(executable, args, m_dir->path(), m_dir->filePath(QStringLiteral("redis.log")))) {
            m_error = m_process.errorString();
            return false;
        }
        if (waitUntilReady()) {
            m_everStarted = true;
            return true;
        }
        const bool portTaken = logTail(5).contains(QLatin1String("Address already in use"));
        m_process.kill();
        // After the first start the port is part of the server's identity (clients reconnect to it).
        if (!(portTaken && m_portChosenByUs && !m_everStarted))
            return false;
        qCDebug(lcSandbox) << m_options.name << "port" << m_port << "was taken; trying another";
        m_port = 0;
    }
    return false;
}

bool SandboxServer::waitUntilReady()
{
    ConnectionSettings probe = connectionSettings();
    probe.connectTimeoutMs = 500;
    probe.commandTimeoutMs = 500;
    probe.clientName.clear();
    QDeadlineTimer deadline(m_options.readyTimeoutMs);
    QString lastError;
    while (!deadline.hasExpired()) {
        if (!m_process.isRunning()) {
            m_error = QStringLiteral("%1 (redis-server on port %2) %3 while starting:\n%4")
                          .arg(m_options.name)
                          .arg(m_port)
                          .arg(m_process.exitDescription(), logTail(8));
            return false;
        }
        RedisConnection connection(probe);
        const RedisError e = connection.open();
        // Any answer (even NOAUTH from a password-protected sandbox) means the server is serving.
        if (!e || !e.breaksConnection())
            return true;
        lastError = e.message();
        QThread::msleep(10); // polling a starting process for readiness; no event to wait on
    }
    m_error = QStringLiteral("%1 on port %2 did not answer within %3 ms (last try: %4):\n%5")
                  .arg(m_options.name)
                  .arg(m_port)
                  .arg(m_options.readyTimeoutMs)
                  .arg(lastError, logTail(8));
    return false;
}

void SandboxServer::stop()
{
    m_process.terminate();
}

void SandboxServer::kill()
{
    m_process.kill();
}

bool SandboxServer::pause()
{
    return m_process.pause();
}

bool SandboxServer::resume()
{
    return m_process.resume();
}

bool SandboxServer::restart()
{
    m_process.kill(); // without persistence a graceful stop would change nothing but the time taken
    return start();
}

bool SandboxServer::isRunning()
{
    return m_process.isRunning();
}
