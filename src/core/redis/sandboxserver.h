// A private redis-server on a free loopback port in a temporary directory, persistence off. Used by the
// app's embedded default, the CLI's --sandbox, the simulator's faults and every test. Never outlives us.
#pragma once

#include "childprocess.h"
#include "connectionsettings.h"

#include <QString>
#include <QStringList>
#include <QTemporaryDir>

#include <memory>
#include <optional>

class SandboxServer
{
public:
    // A TLS-only sandbox: tls-port on the sandbox's port and no plain port.
    struct Tls
    {
        QString certFile; // the server's certificate (tls-cert-file)
        QString keyFile; // its key (tls-key-file)
        QString caFile; // CA that signs client certificates (tls-ca-cert-file; redis wants one)
        bool authClients = false; // tls-auth-clients: refuse clients without a certificate from caFile
        // How the readiness probe and connectionSettings() reach the server (enabled is implied).
        ConnectionSettings::Tls client;
    };

    struct Options
    {
        QString name = QStringLiteral("sandbox"); // shown in logs and errors
        QStringList configLines; // extra redis.conf lines, e.g. "notify-keyspace-events KEA"
        bool unixSocket = false; // also listen on <dir>/redis.sock
        bool sentinel = false; // run as redis-sentinel (configLines must hold its "sentinel monitor" lines)
        int port = 0; // 0: pick a free port
        // cluster-enabled: the port picked is at most 55535 and port + 10000 (the cluster bus) is free too.
        bool clusterBus = false;
        int readyTimeoutMs = 10000;
        QString executable; // empty: find redis-server on PATH (or $LOCKSCOPE_REDIS_SERVER)
        std::optional<Tls> tls;
    };

    SandboxServer();
    explicit SandboxServer(const Options &options);
    ~SandboxServer(); // stops the server and removes its directory
    SandboxServer(const SandboxServer &) = delete;
    SandboxServer &operator=(const SandboxServer &) = delete;

    // Starts and waits until it answers PING. False with errorString() on failure.
    bool start();
    void stop(); // graceful (SIGTERM, then SIGKILL after a grace period)
    void kill(); // SIGKILL: a crash as clients see it
    bool pause(); // SIGSTOP: the process freezes, clients time out
    bool resume(); // SIGCONT
    // Stop and start again on the same port with an empty dataset (persistence is off).
    bool restart();
    bool isRunning();
    bool isPaused() const { return m_process.isPaused(); }

    QString host() const { return QStringLiteral("127.0.0.1"); }
    int port() const { return m_port; }
    QString socketPath() const;
    qint64 pid() const { return m_process.pid(); }
    QString directory() const;
    const QString &name() const { return m_options.name; }
    // Settings to reach this server: read-write, since the sandbox belongs to LockScope; over TLS for a TLS
    // sandbox.
    ConnectionSettings connectionSettings() const;
    QString errorString() const { return m_error; }
    QString logTail(int maxLines = 20) const;

    // Full path of redis-server, or empty (then installHint() says how to get it).
    static QString findExecutable();
    static QString installHint();
    // A free port P ≤ 55535 with P + 10000 free too, for a cluster node and its cluster bus; 0 if none found.
    static int freeClusterPort();

private:
    bool prepareDirectory();
    bool writeConfig();
    bool spawnAndWait();
    bool waitUntilReady();

    Options m_options;
    std::unique_ptr<QTemporaryDir> m_dir;
    ChildProcess m_process;
    int m_port = 0;
    bool m_portChosenByUs = false;
    bool m_everStarted = false;
    QString m_error;
};
