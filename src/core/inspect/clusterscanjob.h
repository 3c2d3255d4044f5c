// One scan of a whole Redis Cluster for locks: every master once (never a replica), one LockScanJob after
// the other on a read-only connection of its own, each lock tagged with its node and slot. Companions are
// found by the per-node job, since Redisson keeps them in the lock's slot through a hash tag.
#pragma once

#include "lockscanjob.h"
#include "redis/clusterslotmap.h"
#include "redis/connectionsettings.h"

#include <QMutex>

#include <atomic>
#include <memory>

class RedisConnection;

class ClusterScanJob
{
public:
    // `seed` reaches any node of the cluster; it is made read-only whatever it says.
    ClusterScanJob(const ConnectionSettings &seed, const ScanOptions &options);
    ~ClusterScanJob();

    // Reads the slot map on the first call, then scans the masters one page at a time.
    QList<LockRecord> nextPage();
    bool atEnd() const { return m_atEnd; }
    const RedisError &error() const { return m_error; }
    ScanProgress progress() const;
    // The masters scanned (known after the first page).
    const QList<ClusterSlotMap::Node> &masters() const { return m_map.masters(); }
    const ClusterSlotMap &slotMap() const { return m_map; }
    // Thread-safe: makes the current node's blocked calls return.
    void interrupt();

private:
    bool startNode(int index);

    ConnectionSettings m_seed;
    ScanOptions m_options;
    ClusterSlotMap m_map;
    int m_node = -1;
    QMutex m_mutex; // interrupt() reads m_connection and m_job while startNode() replaces them
    std::atomic_bool m_interrupted = false;
    std::unique_ptr<RedisConnection> m_connection;
    std::unique_ptr<LockScanJob> m_job;
    ScanProgress m_done; // the finished nodes' totals
    QElapsedTimer m_timer;
    bool m_atEnd = false;
    RedisError m_error;
};
