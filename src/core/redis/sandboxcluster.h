// A private Redis Cluster on loopback: N masters (3 by default), each with optional replicas, as real
// redis-server processes with cluster-enabled, slots split evenly, started and torn down with us. Used by
// `lockscope-cli sandbox --cluster`, the simulator and the tests.
#pragma once

#include "clusterslotmap.h"
#include "sandboxserver.h"

#include <QList>

#include <memory>

class SandboxCluster
{
public:
    struct Options
    {
        int masters = 3;
        int replicasPerMaster = 0;
        QStringList configLines; // extra redis.conf lines for every node
        int nodeTimeoutMs = 1000; // cluster-node-timeout: how fast a dead master is failed over
        int readyTimeoutMs = 20000;
    };

    SandboxCluster();
    explicit SandboxCluster(const Options &options);
    ~SandboxCluster();
    SandboxCluster(const SandboxCluster &) = delete;
    SandboxCluster &operator=(const SandboxCluster &) = delete;

    // Starts every node, assigns the slots, joins the nodes and waits until every node says cluster_state:ok
    // and knows every master. False with errorString() on failure.
    bool start();
    void stop();

    int masterCount() const { return int(m_masters.size()); }
    SandboxServer &master(int i) { return *m_masters[i]; }
    // Replicas of master `i`.
    QList<SandboxServer *> replicasOf(int i) const;
    // Settings that reach the cluster through master 0 (cluster on, read-write: the sandbox is ours).
    ConnectionSettings seedSettings() const;
    // The slot map as the first master sees it.
    ClusterSlotMap slotMap(RedisError *error) const;
    QString errorString() const { return m_error; }

private:
    bool waitUntilReady();

    Options m_options;
    QList<std::shared_ptr<SandboxServer>> m_masters;
    QList<QList<std::shared_ptr<SandboxServer>>> m_replicas;
    QString m_error;
};
