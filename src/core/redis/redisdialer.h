// How a RedisConnection reaches its server: asks the sentinels where the master is, opens the SSH tunnel,
// starts TLS and connects hiredis, then hands over the connected context. RedisConnection only speaks the
// protocol on it; keeping Sentinel, SSH and TLS here means the classes that themselves open
// RedisConnections (SentinelResolver, SentinelWatch) are not also used by RedisConnection.
#pragma once

#include "connectionsettings.h"
#include "rediserror.h"

#include <QMutex>
#include <QString>

#include <atomic>
#include <memory>

struct redisContext;
class SentinelWatch;
class SshTunnel;
class TlsBridge;

class RedisDialer
{
public:
    RedisDialer();
    ~RedisDialer();
    RedisDialer(const RedisDialer &) = delete;
    RedisDialer &operator=(const RedisDialer &) = delete;

    // Connects to `settings`' server and sets `*context`. Through Sentinel, rewrites settings->host and
    // ->port to the master the sentinels name. `interrupted` aborts waiting for a tunnel. On an error the
    // caller calls hangUp().
    RedisError dial(ConnectionSettings *settings, const std::atomic_bool *interrupted,
                    redisContext **context);
    // Lets go of the TLS bridge and of the tunnel (the last connection through a tunnel stops its ssh).
    void hangUp();
    // The running tunnel, or null. A reconnect holds it over hangUp() and the next dial(), so that the pool
    // hands the same tunnel back instead of stopping its ssh and starting another.
    std::shared_ptr<const void> tunnelInUse() const { return m_tunnel; }
    // Lets go of the TLS bridge only: hiredis' end of it was freed.
    void dropTls();
    // Thread-safe: aborts a TLS handshake or pump in progress.
    void interrupt();

    // Through Sentinel: a +switch-master came since the last dial(), the master we know may be a replica.
    bool masterMayHaveMoved() const;
    // A failure while opening through a tunnel, completed with what ssh said about it.
    RedisError withTunnelDiagnosis(const RedisError &error, const ConnectionSettings &settings) const;
    // What the TLS bridge recorded as failing (e.g. an alert), empty without TLS or failure.
    QString tlsFailure() const;
    // "TLSv1.3 TLS_AES_256_GCM_SHA384" over TLS, else empty.
    QString tlsProtocol() const;
    static QString tlsLibraryVersion();

private:
    RedisError connectError(const QString &detail, int savedErrno, const ConnectionSettings &settings) const;

    // interrupt() comes from another thread: the mutex keeps the bridge alive meanwhile.
    mutable QMutex m_bridgeMutex;
    std::unique_ptr<TlsBridge> m_bridge; // while open over TLS
    std::shared_ptr<SshTunnel> m_tunnel; // while open through SSH
    std::shared_ptr<SentinelWatch> m_sentinelWatch; // through Sentinel: +switch-master, kept across dials
    quint64 m_switchesSeen = 0;
};
