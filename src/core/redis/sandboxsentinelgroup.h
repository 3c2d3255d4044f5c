// A private master/replica group behind Redis Sentinel on loopback: one master, its replicas (1 by default)
// and 3 sentinels monitoring it under one name, as real redis-server / redis-sentinel processes. Used by
// `lockscope-cli sandbox --sentinel`, the failover stories and the tests.
#pragma once

#include "sandboxserver.h"

#include <QList>

#include <memory>

class SandboxSentinelGroup
{
public:
    struct Options
    {
        QString masterName = QStringLiteral("lockscope");
        int replicas = 1;
        int sentinels = 3;
        int quorum = 2;
        int downAfterMs = 1000; // sentinel down-after-milliseconds: how fast a dead master is noticed
        int failoverTimeoutMs = 3000;
        int readyTimeoutMs = 20000;
        QStringList nodeConfigLines; // added to every data node's configuration (e.g. keyspace events)
    };

    SandboxSentinelGroup();
    explicit SandboxSentinelGroup(const Options &options);
    ~SandboxSentinelGroup();
    SandboxSentinelGroup(const SandboxSentinelGroup &) = delete;
    SandboxSentinelGroup &operator=(const SandboxSentinelGroup &) = delete;

    // Starts the data nodes, waits for the replicas to sync, starts the sentinels and waits until each of
    // them sees the master, every replica and the other sentinels. False with errorString() on failure.
    bool start();

    const QString &masterName() const { return m_options.masterName; }
    // Data nodes: index 0 is the first master; after a failover the master is elsewhere (see currentMaster).
    int nodeCount() const { return int(m_nodes.size()); }
    SandboxServer &node(int i) { return *m_nodes[i]; }
    SandboxServer &sentinel(int i) { return *m_sentinels[i]; }
    int sentinelCount() const { return int(m_sentinels.size()); }
    // "127.0.0.1:26379" of each sentinel.
    QStringList sentinelAddresses() const;
    // Settings that reach the master through the sentinels (read-write: the sandbox is ours).
    ConnectionSettings settings() const;
    // The data node the sentinels name as master now, or -1 when they cannot say.
    int currentMaster() const;

    // SENTINEL FAILOVER: promotes a replica without agreement from the other sentinels, then waits until
    // the sentinels name the new master and it answers as one. A failover the sentinels started on their
    // own meanwhile (a dead master) counts too. False with `error` set on failure.
    bool failover(QString *error, int timeoutMs = 15000);
    QString errorString() const { return m_error; }

private:
    bool waitUntilReady();

    Options m_options;
    QList<std::shared_ptr<SandboxServer>> m_nodes;
    QList<std::shared_ptr<SandboxServer>> m_sentinels;
    QString m_error;
};
