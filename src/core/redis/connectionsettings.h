// Where and how to reach one Redis server: endpoint, login, TLS, SSH tunnel. Read-only unless the user
// explicitly says otherwise; TLS certificate verification is on unless the user explicitly turns it off.
#pragma once

#include <QMetaType>
#include <QString>

struct ConnectionSettings
{
    // TLS to the server (redis-server --tls-port). Provided by LockScope's own transport (TlsBridge),
    // since hiredis 0.14 has none.
    struct Tls
    {
        bool enabled = false;
        QString caFile; // PEM bundle of trusted CAs; empty: the system's trust store
        QString certFile; // client certificate (PEM), for servers with tls-auth-clients
        QString keyFile; // its private key (PEM, not encrypted)
        QString serverName; // SNI and the name the certificate must carry; empty: the host
        bool verifyPeer = true; // off only on an explicit request (--insecure): shown as a warning everywhere

        bool operator==(const Tls &other) const = default;
    };

    // A local port forwarded through a bastion host with the system's OpenSSH client (ssh -N -L). The Redis
    // host and port (or socket) are then as seen from the bastion.
    struct Ssh
    {
        bool enabled = false;
        QString host; // the bastion
        int port = 0; // 0: ssh's own default (the config, else 22)
        QString user; // empty: ssh's own default (the config, else the login name)
        QString identityFile; // empty: the agent and the keys ssh finds by itself
        QString jumpHosts; // ssh -J: further bastions in front of this one
        QString configFile; // ssh -F; empty: ~/.ssh/config

        // "ops@bastion.example:2222", for messages
        QString destination() const;
        bool operator==(const Ssh &other) const = default;
    };

    QString host = QStringLiteral("127.0.0.1");
    int port = 6379;
    QString socketPath; // when set, a Unix socket is used instead of host:port
    QString user; // ACL user; empty means the default user
    QString password; // held in memory only; never written to disk or logs
    int db = 0;
    int connectTimeoutMs = 3000;
    int commandTimeoutMs = 3000;
    bool readOnly = true;
    QString clientName = QStringLiteral("lockscope");
    Tls tls;
    Ssh ssh;

    bool usesSocket() const { return !socketPath.isEmpty(); }
    // "127.0.0.1:6379" or "unix:/path/to/sock"; never includes credentials.
    QString endpoint() const;
    // How the bytes travel, for messages and badges: "TLS", "TLS (unverified)", "via ssh ops@bastion", or
    // empty for a plain connection.
    QString transportDescription() const;
    // endpoint() plus the transport in parentheses when there is one.
    QString describe() const;
    // The name the server's certificate must carry: tls.serverName, else host.
    QString tlsName() const;
    // An empty string when the settings can be used, else what is wrong and what is allowed.
    QString validate() const;

    bool operator==(const ConnectionSettings &other) const = default;
};

Q_DECLARE_METATYPE(ConnectionSettings)
