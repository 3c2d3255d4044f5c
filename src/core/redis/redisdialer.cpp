// RedisDialer: Sentinel lookup, SSH tunnel, TLS bridge and the hiredis connect, in that order.
#include "redisdialer.h"

#include "logging.h"
#include "sentinelresolver.h"
#include "sentinelwatch.h"
#include "sshtunnel.h"
#include "sshtunnelpool.h"
#include "tlsbridge.h"

#include <hiredis/hiredis.h>

#include <cerrno>

RedisDialer::RedisDialer() = default;

RedisDialer::~RedisDialer()
{
    hangUp();
}

QString RedisDialer::tlsLibraryVersion()
{
    return TlsBridge::libraryVersion();
}

QString RedisDialer::tlsProtocol() const
{
    return m_bridge ? m_bridge->protocolDescription() : QString();
}

QString RedisDialer::tlsFailure() const
{
    return m_bridge ? m_bridge->failure() : QString();
}

void RedisDialer::dropTls()
{
    QMutexLocker lock(&m_bridgeMutex);
    m_bridge.reset();
}

void RedisDialer::hangUp()
{
    dropTls();
    m_tunnel.reset(); // the last connection through a tunnel stops its ssh
}

void RedisDialer::interrupt()
{
    QMutexLocker lock(&m_bridgeMutex);
    if (m_bridge)
        m_bridge->interrupt(); // also aborts a TLS handshake in progress
}

bool RedisDialer::masterMayHaveMoved() const
{
    return m_sentinelWatch && m_sentinelWatch->switches() != m_switchesSeen;
}

RedisError RedisDialer::connectError(const QString &detail, int savedErrno,
                                     const ConnectionSettings &settings) const
{
    const QString where = settings.endpoint();
    if (m_tunnel && (detail.contains(QLatin1String("refused")) || savedErrno == ECONNREFUSED))
        return {RedisError::Code::Tunnel,
                QStringLiteral("The SSH tunnel to %1 through %2 stopped accepting connections")
                    .arg(where, settings.ssh.destination())};
    if (detail.contains(QLatin1String("refused")) || savedErrno == ECONNREFUSED)
        return {RedisError::Code::ConnectionRefused,
                QStringLiteral("Connection refused by %1: no Redis server is listening there "
                               "(is redis-server running, and is the port right?)")
                    .arg(where)};
    if (detail.contains(QLatin1String("timed out")) || savedErrno == ETIMEDOUT || savedErrno == EINPROGRESS)
        return {RedisError::Code::Timeout,
                QStringLiteral("Could not connect to %1 within %2 ms "
                               "(host unreachable or firewalled?)")
                    .arg(where)
                    .arg(settings.connectTimeoutMs)};
    if (detail.contains(QLatin1String("not known")) || detail.contains(QLatin1String("resolve"))
        || detail.contains(QLatin1String("No address")))
        return {RedisError::Code::HostNotFound,
                QStringLiteral("Host '%1' not found: %2").arg(settings.host, detail)};
    if (settings.usesSocket() && !m_tunnel
        && (savedErrno == ENOENT || detail.contains(QLatin1String("No such file"))))
        return {RedisError::Code::ConnectionRefused,
                QStringLiteral("No Unix socket at %1: %2").arg(settings.socketPath, detail)};
    return {RedisError::Code::ConnectFailed, QStringLiteral("Cannot connect to %1: %2").arg(where, detail)};
}

RedisError RedisDialer::withTunnelDiagnosis(const RedisError &error, const ConnectionSettings &settings) const
{
    if (!m_tunnel || !error.breaksConnection() || error.code() == RedisError::Code::Interrupted)
        return error;
    const QString bastion = settings.ssh.destination();
    const QString problem = m_tunnel->forwardProblem();
    if (!problem.isEmpty())
        return {RedisError::Code::Tunnel,
                QStringLiteral("The SSH bastion %1 could not reach Redis at %2: %3")
                    .arg(bastion, settings.endpoint(), problem)};
    if (!m_tunnel->isRunning())
        return {RedisError::Code::Tunnel,
                QStringLiteral("The SSH tunnel through %1 ended: %2")
                    .arg(bastion, SshTunnel::errorFromLog(m_tunnel->log(), settings).message())};
    return error;
}

RedisError RedisDialer::dial(ConnectionSettings *settings, const std::atomic_bool *interrupted,
                             redisContext **context)
{
    *context = nullptr;
    if (settings->sentinel.enabled()) {
        // Asked on every (re)connect: after a failover the sentinels name the promoted replica.
        if (!m_sentinelWatch)
            m_sentinelWatch = SentinelWatch::acquire(*settings);
        m_switchesSeen = m_sentinelWatch->switches(); // before asking: a switch meanwhile asks again
        QString masterHost;
        int masterPort = 0;
        if (const RedisError e = SentinelResolver::resolve(*settings, &masterHost, &masterPort))
            return e;
        if (masterHost != settings->host || masterPort != settings->port)
            qCInfo(lcRedis) << "sentinel: master" << settings->sentinel.masterName << "is at" << masterHost
                            << masterPort;
        settings->host = masterHost;
        settings->port = masterPort;
    }

    // Where the socket actually goes: the server, or the local end of an SSH tunnel to it.
    QString dialHost = settings->host;
    int dialPort = settings->port;
    bool viaSocket = settings->usesSocket();
    if (settings->ssh.enabled) {
        RedisError tunnelError;
        m_tunnel = SshTunnelPool::acquire(*settings, interrupted, &tunnelError);
        if (!m_tunnel)
            return tunnelError;
        dialHost = QStringLiteral("127.0.0.1");
        dialPort = m_tunnel->localPort();
        viaSocket = false;
    }

    redisContext *c = nullptr;
    if (settings->tls.enabled) {
        {
            QMutexLocker lock(&m_bridgeMutex);
            m_bridge = std::make_unique<TlsBridge>();
        }
        if (const RedisError e = m_bridge->open(dialHost, dialPort, *settings, settings->endpoint()))
            return withTunnelDiagnosis(e, *settings);
        c = redisConnectFd(m_bridge->takeClientFd());
    } else {
        timeval connectTimeout;
        connectTimeout.tv_sec = settings->connectTimeoutMs / 1000;
        connectTimeout.tv_usec = (settings->connectTimeoutMs % 1000) * 1000;
        c = viaSocket
            ? redisConnectUnixWithTimeout(settings->socketPath.toLocal8Bit().constData(), connectTimeout)
            : redisConnectWithTimeout(dialHost.toUtf8().constData(), dialPort, connectTimeout);
    }
    if (!c)
        return {RedisError::Code::ConnectFailed, QStringLiteral("out of memory creating a connection")};
    if (c->err) {
        const int savedErrno = errno;
        const QString detail = QString::fromLocal8Bit(c->errstr);
        redisFree(c);
        return connectError(detail, savedErrno, *settings);
    }
    if (!viaSocket && !m_bridge)
        redisEnableKeepAlive(c); // TCP only: on a Unix socket (or a TLS bridge's socketpair) it fails
    *context = c;
    return {};
}
