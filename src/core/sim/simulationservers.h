// The Redis servers of one simulation run: private sandbox masters (with replicas for failover stories), a
// master and replica behind real sentinels, a private sandbox Redis Cluster, or the one server (or cluster)
// the user gave. Owns the server-side faults:
// restart without persistence (optionally staying down — the "delayed restart" mitigation), pause, kill, and
// failover to the replica.
//
// Workers ask settings(i) for where logical server i is now; generation() changes when an address changes
// (a failover), so they know to reconnect. Behind Sentinel the address never changes: workers connect
// through the sentinels and follow their +switch-master themselves. On a cluster there is one logical server:
// settings(0) is a seed node with `cluster` on, and workers route each key to its slot's master themselves.
// Thread-safe.
#pragma once

#include "redis/connectionsettings.h"
#include "redis/sandboxcluster.h"
#include "redis/sandboxsentinelgroup.h"
#include "redis/sandboxserver.h"

#include <QList>
#include <QMutex>
#include <QString>

#include <atomic>
#include <memory>
#include <optional>
#include <thread>

class SimulationServers
{
public:
    struct Options
    {
        int masters = 1;
        int replicas = 0; // per master
        bool keyspaceEvents = false;
        bool cluster = false; // a sandbox cluster of 3 masters instead of `masters` servers
        bool sentinel = false; // one master and its replicas watched by 3 sentinels, who do the failover
        std::optional<ConnectionSettings> given; // use this server (or cluster: given->cluster) instead
    };

    SimulationServers() = default;
    ~SimulationServers();
    SimulationServers(const SimulationServers &) = delete;
    SimulationServers &operator=(const SimulationServers &) = delete;

    // Starts the sandboxes (and waits until replicas are in sync). False with `error` on failure.
    bool start(const Options &options, QString *error);
    void stopAll();

    int count() const;
    bool isSandbox() const { return !m_given.has_value(); }
    bool isCluster() const { return m_given ? m_given->cluster : m_cluster != nullptr; }
    ConnectionSettings settings(int server) const;
    quint64 generation() const { return m_generation.load(); }
    QString describe() const;

    // Server faults (sandboxes only). Each returns a sentence for the history, or false with `error`.
    bool kill(int server, QString *what, QString *error);
    // Kill now; bring the server back (empty) at once or, with stayDownMs > 0, only when startAgain() runs.
    bool crashForRestart(int server, QString *what, QString *error);
    bool startAgain(int server, QString *what, QString *error);
    bool pause(int server, bool replica, QString *what, QString *error);
    bool resume(int server, bool replica, QString *what, QString *error);
    // F1: the master dies before replicating; its replica is promoted and every client follows it. Behind
    // Sentinel the sentinels are asked to promote it (SENTINEL FAILOVER) and this returns at once: the
    // promotion completes on a thread of its own, and sentinelFailoverResult() says how it went.
    bool failover(int server, QString *what, QString *error);
    bool isSentinel() const;
    // After a Sentinel failover: nothing while it runs, then a sentence for the history (ok: promoted).
    std::optional<std::pair<bool, QString>> sentinelFailoverResult() const;

private:
    struct Slot
    {
        std::unique_ptr<SandboxSentinelGroup> sentinels; // when set, it owns the two nodes below
        std::unique_ptr<SandboxServer> ownMaster;
        std::unique_ptr<SandboxServer> ownReplica;
        SandboxServer *master = nullptr;
        SandboxServer *replica = nullptr;
        bool promoted = false; // the replica is the master now
    };
    bool startSentinelGroup(const Options &options, QString *error);
    bool askSentinelsToFailOver(const std::shared_ptr<Slot> &slot, int server, QString *what);
    SandboxServer *target(int server, bool replica, QString *error);
    bool waitForReplicaSync(SandboxServer &replica, QString *error);

    mutable QMutex m_mutex;
    QList<std::shared_ptr<Slot>> m_slots;
    std::unique_ptr<SandboxCluster> m_cluster;
    std::optional<ConnectionSettings> m_given;
    std::atomic<quint64> m_generation {0};
    std::thread m_failoverThread; // a Sentinel failover in progress (joined by stopAll)
    std::optional<std::pair<bool, QString>> m_failoverResult; // guarded by m_mutex
};
