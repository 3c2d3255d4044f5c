// A connection to a whole Redis Cluster: one RedisConnection per master, opened on first use, and every
// command sent to the master of its key's slot. Follows MOVED (and re-reads the slot map) and ASK (ASKING
// first), as redis-cli -c does. Use it from one thread only; interrupt() is safe from another thread.
#pragma once

#include "clusterslotmap.h"
#include "connectionsettings.h"
#include "redisconnection.h"

#include <QHash>
#include <QMutex>

#include <memory>
#include <optional>

class ClusterConnection
{
public:
    // `seed` is any node of the cluster; its login, TLS and timeouts are used for every node.
    explicit ClusterConnection(const ConnectionSettings &seed);
    ~ClusterConnection();
    ClusterConnection(const ClusterConnection &) = delete;
    ClusterConnection &operator=(const ClusterConnection &) = delete;

    // Connects to the seed and reads the slot map. Fails when the seed is not a cluster node.
    RedisError open();
    // Reads the slot map again, from the seed or any master that answers.
    RedisError refresh();
    const ClusterSlotMap &slotMap() const { return m_map; }

    // Sends `args` to the master of its key (see keyOf); keyless commands go to the first master.
    RedisResult command(const RedisCommand &args);
    // Sends `args` to the master of `key`'s slot, following redirections (at most kMaxRedirects).
    RedisResult commandForKey(const QByteArray &key, const RedisCommand &args);
    // Sends `args` to one node as it is, without following anything (CLUSTER INFO, SCAN of one master).
    RedisResult commandOn(const ClusterSlotMap::Node &node, const RedisCommand &args);

    // The open connection to `node`, opening it if needed; nullptr with `error` set when it cannot be.
    RedisConnection *connectionTo(const ClusterSlotMap::Node &node, RedisError *error);
    // The settings that reach `node`: the seed's, with the node's address and cluster off.
    ConnectionSettings nodeSettings(const ClusterSlotMap::Node &node) const;

    int movedFollowed() const { return m_moved; }
    int askFollowed() const { return m_asked; }
    // Thread-safe: makes every blocked call on this cluster's connections return.
    void interrupt();

    // The key a command works on, for routing: the first key of the usual key commands and of EVAL/EVALSHA/
    // FCALL (after numkeys); none for server commands (PING, INFO, CLUSTER …).
    static std::optional<QByteArray> keyOf(const RedisCommand &args);

    static constexpr int kMaxRedirects = 5;

private:
    struct Redirect
    {
        bool ask = false;
        int slot = -1;
        ClusterSlotMap::Node node;
    };
    static std::optional<Redirect> parseRedirect(const QByteArray &text, const QString &fromHost);

    ConnectionSettings m_seed;
    ClusterSlotMap m_map;
    QMutex m_connectionsMutex; // interrupt() walks the connections from another thread
    QHash<QString, std::shared_ptr<RedisConnection>> m_connections; // by endpoint
    int m_moved = 0;
    int m_asked = 0;
};
