// One `ssh -N -L` process forwarding a free loopback port to a Redis server behind a bastion host. It runs
// the system's OpenSSH client with the user's own keys, agent and config, never asks for a password
// (BatchMode), and never outlives LockScope (ChildProcess). RedisConnection gets tunnels from SshTunnelPool.
#pragma once

#include "childprocess.h"
#include "connectionsettings.h"
#include "rediserror.h"

#include <QMutex>
#include <QTemporaryDir>

#include <atomic>

class SshTunnel
{
public:
    explicit SshTunnel(const ConnectionSettings &settings);
    ~SshTunnel(); // stops ssh
    SshTunnel(const SshTunnel &) = delete;
    SshTunnel &operator=(const SshTunnel &) = delete;

    // Starts ssh and waits until the local port accepts connections, at most `timeoutMs`. Setting
    // `*interrupted` (from another thread) aborts the wait. Thread-safe.
    RedisError start(int timeoutMs, const std::atomic_bool *interrupted = nullptr);
    void stop();
    bool isRunning();
    int localPort() const { return m_localPort; }
    qint64 pid();
    // What ssh said about forwarded connections that failed ("connect failed: Connection refused"), the
    // bastion's view of why Redis is unreachable; empty when it said nothing.
    QString forwardProblem() const;
    // Everything ssh wrote to its standard error so far.
    QString log() const;

    // The full command line, program first, that start() runs for `localPort`.
    static QStringList command(const QString &sshProgram, const ConnectionSettings &settings, int localPort,
                               int connectTimeoutMs);
    // Full path of the OpenSSH client, or empty ($LOCKSCOPE_SSH overrides the search).
    static QString findSsh();
    // Turns what ssh wrote to standard error before it gave up into one clear error.
    static RedisError errorFromLog(const QString &log, const ConnectionSettings &settings);

private:
    bool portAccepts() const;

    const ConnectionSettings m_settings;
    mutable QMutex m_mutex; // ChildProcess is not thread-safe; tunnels are shared between threads
    ChildProcess m_process;
    QTemporaryDir m_dir;
    int m_localPort = 0;
};
