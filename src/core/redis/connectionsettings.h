// Where and how to reach one Redis server: endpoint, login, TLS, SSH tunnel. Read-only unless the user
// explicitly says otherwise; TLS certificate verification is on unless the user explicitly turns it off.
#pragma once

#include <QMetaType>
#include <QString>
#include <QStringList>

#include <atomic>
#include <memory>

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

    // A master/replica group behind Redis Sentinel: the master's address is asked from the sentinels on
    // every (re)connect, so a connection follows a failover. host and port then hold the master last found.
    struct Sentinel
    {
        QStringList nodes; // "host:port" of one or more sentinels, asked in order
        QString masterName; // the name the sentinels monitor it under (SENTINEL MASTERS lists them)
        // The sentinels' own login (their requirepass / ACL), which is not the data nodes'; held in memory
        // only, like `password`. Empty: the sentinels are reached without AUTH.
        QString user;
        QString password;

        bool enabled() const { return !nodes.isEmpty(); }
        bool operator==(const Sentinel &other) const = default;
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
    Sentinel sentinel;
    // Counts the commands sent on every connection made from these settings or their copies (the probe,
    // subscriber, cluster-node and sentinel connections an inspector opens), for an exporter's commands per
    // second. Not part of what the settings mean: settings that differ only here compare equal. Null: nothing
    // is counted.
    struct CommandTally
    {
        std::shared_ptr<std::atomic<quint64>> count;
        bool operator==(const CommandTally &) const { return true; }
    };
    CommandTally tally;
    // host:port is one node (a seed) of a Redis Cluster: ClusterConnection routes commands by slot from
    // there, and the inspector scans every master. A plain RedisConnection just talks to that node.
    bool cluster = false;

    bool usesSocket() const { return !socketPath.isEmpty(); }
    // The server runs on this machine: a Unix socket, or a loopback address reached directly (not through
    // an SSH tunnel or Sentinel, whose far end may be anywhere). It then competes with us for the CPU.
    bool onThisMachine() const;
    // "127.0.0.1:6379" or "unix:/path/to/sock"; never includes credentials.
    QString endpoint() const;
    // "127.0.0.1:6379 (cluster)", "master 'mymaster' via sentinel 127.0.0.1:26379, …": what the user chose.
    QString topologyDescription() const;
    // Splits "host:port" ("[::1]:26379" for IPv6). False when malformed or the port is out of range.
    static bool parseHostPort(const QString &text, QString *host, int *port);
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
