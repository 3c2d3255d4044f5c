// One scan of a whole Redis Cluster for locks: every master once (never a replica), one after the other on
// read-only connections of their own, each lock tagged with the node it was read on and its slot. Keys a
// node redirects (a slot being migrated, MOVED/ASK) are read on the node the redirection names, so each key
// is listed once, with the node that holds it. A master that cannot be reached or read does not end the scan:
// the others are scanned and missing() names what was not. Companions are found on the lock's node, since
// Redisson keeps them in the lock's slot through a hash tag.
#pragma once

#include "lockassembler.h"
#include "lockscanjob.h"
#include "redis/clusterslotmap.h"
#include "redis/connectionsettings.h"

#include <QHash>
#include <QMutex>
#include <QSet>
#include <QStringList>

#include <atomic>
#include <memory>

class RedisConnection;

class ClusterScanJob
{
public:
    // `seed` reaches any node of the cluster; it is made read-only whatever it says.
    ClusterScanJob(const ConnectionSettings &seed, const ScanOptions &options);
    ~ClusterScanJob();

    // Reads the slot map on the first call, then scans the masters one page at a time. Fails (error()) only
    // when the slot map cannot be read, when no master at all could be scanned, or when interrupted.
    QList<LockRecord> nextPage();
    bool atEnd() const { return m_atEnd; }
    const RedisError &error() const { return m_error; }
    ScanProgress progress() const;
    // The masters scanned (known after the first page).
    const QList<ClusterSlotMap::Node> &masters() const { return m_map.masters(); }
    const ClusterSlotMap &slotMap() const { return m_map; }
    // What the scan could not see, one sentence each: a master not scanned (or not to the end) with its
    // slots and why ("127.0.0.1:7002 (slots 10923-16383): Connection refused …"), slots no master serves.
    // Empty when every master was scanned to the end. Keys a scanned master would not let us read are in
    // progress().unreadReasons instead.
    const QStringList &missing() const { return m_missing; }
    // Thread-safe: makes the current node's blocked calls return.
    void interrupt();

private:
    struct Node; // the master being scanned: its connections, SCAN cursor and pages in flight
    using Redirected = QList<QPair<QByteArray, RedisError>>;

    bool readMap();
    // Opens the next master that answers; masters that do not are noted in m_missing. False at the end.
    bool startNextNode();
    // The current node is done (or failed with `error`): its totals are kept, the next one is started.
    void endNode(const RedisError &error = {});
    // Every master was tried: the end, a failure when none could be scanned at all.
    void finish();
    // One SCAN call on the current node: the targets of its keys.
    bool scanPage(QList<ProbeTarget> *targets, RedisError *error);
    // One page of the current node probed: its keys, read where they live. False when the node failed.
    bool probePage(QList<ScannedKey> *scanned, QHash<QByteArray, QString> *nodeOfKey, RedisError *error);
    // Reads the keys of `targets` that were redirected on the node the redirection names, following
    // further redirections a few times; appends what was read to `scanned`.
    bool followRedirects(const QList<ProbeTarget> &targets, const Redirected &redirected,
                         QList<ScannedKey> *scanned, QHash<QByteArray, QString> *nodeOfKey,
                         RedisError *error);
    RedisConnection *redirectConnection(const ClusterSlotMap::Node &node, RedisError *error);
    QString slotsOf(const ClusterSlotMap::Node &node) const;
    ConnectionSettings settingsOf(const ClusterSlotMap::Node &node) const;

    ConnectionSettings m_seed;
    ScanOptions m_options;
    ClusterSlotMap m_map;
    bool m_mapRead = false;
    int m_next = 0; // the master to start next
    int m_scanned = 0; // masters scanned, at least in part
    RedisError m_firstNodeError;
    QMutex m_mutex; // interrupt() reads m_current and m_redirectConnections while they are replaced
    std::atomic_bool m_interrupted = false;
    std::unique_ptr<Node> m_current;
    QHash<QString, std::shared_ptr<RedisConnection>> m_redirectConnections; // by endpoint
    QHash<QString, RedisError> m_unreachable; // nodes that could not be reached: why
    // One assembler for the whole cluster: a key met on two nodes (both ends of a migration) is listed once.
    LockAssembler m_assembler;
    QSet<QByteArray> m_viaQueue; // lock names already probed through their queue
    QHash<QByteArray, QString> m_nodeOfLock; // listed lock → the node it was read on
    QMap<QString, qint64> m_redirectUnread; // redirected keys that could not be read, by node and reason
    ScanProgress m_done; // the finished nodes' totals
    QElapsedTimer m_timer;
    QStringList m_missing;
    bool m_atEnd = false;
    RedisError m_error;
};
