// One scan of a server for locks, page by page: SCAN (MATCH, COUNT) → KeyProber's two rounds →
// LockAssembler. Synchronous and step-wise, so a worker thread can run other requests between pages and
// the CLI can run it directly. Never sends KEYS or any write.
#pragma once

#include "keyprober.h"
#include "lockassembler.h"
#include "redis/rediserror.h"
#include "redis/redisreply.h"
#include "scanoptions.h"

#include <QElapsedTimer>
#include <QMap>
#include <QMetaType>
#include <QSet>

#include <memory>

class RedisConnection;

struct ScanProgress
{
    qint64 scannedKeys = 0; // keys SCAN returned so far (after MATCH)
    qint64 locks = 0; // locks found so far
    qint64 unreadableKeys = 0; // keys whose TYPE could not be read (ACL, LOADING, CLUSTERDOWN, …)
    QMap<QString, qint64> unreadReasons; // why, and how many keys each
    QStringList missing; // a cluster's masters (and their slots) that could not be scanned, with why
    qint64 dbSize = -1; // DBSIZE when the scan started, -1 when unknown
    int pages = 0;
    double fraction = 0; // 0..1 of the keyspace walked (from the SCAN cursor)
    qint64 elapsedMs = 0;
    bool finished = false;
};

Q_DECLARE_METATYPE(ScanProgress)

class ProbePool;
class ScanPacer;

class LockScanJob
{
public:
    // SCAN walks on `connection`; pages are probed on ScanOptions::probeConnections connections of their own
    // (same settings, read-only), a few pages ahead.
    LockScanJob(RedisConnection &connection, const ScanOptions &options);
    ~LockScanJob();

    // Scans one page and returns the locks it found or updated. After the last page atEnd() is true; on
    // failure error() is set and atEnd() is true.
    QList<LockRecord> nextPage();
    bool atEnd() const { return m_atEnd; }
    const RedisError &error() const { return m_error; }
    ScanProgress progress() const;

    // Thread-safe: makes the probe connections' blocked calls return (the scan then fails as interrupted).
    void interrupt();

    // What a SCAN page's `names` are to probe (into `targets`): locks, companions read on their own, and a
    // queue's lock once (remembered in `viaQueue`) unless `assembler` has it already. ClusterScanJob does the
    // same with each master's pages.
    static void targetsOf(const QList<RedisReply> &names, const QByteArray &pattern,
                          const ScanOptions &options, QSet<QByteArray> *viaQueue,
                          const LockAssembler &assembler, QList<ProbeTarget> *targets);
    // The fraction of a hash table walked when SCAN returned `cursor` (Redis walks reversed cursors).
    static double cursorFraction(quint64 cursor);

private:
    // One SCAN call: the targets of its keys, or false with m_error set.
    bool scanPage(QList<ProbeTarget> *targets);

    RedisConnection &m_connection;
    ScanOptions m_options;
    std::unique_ptr<ScanPacer> m_pacer; // shared by the SCAN walk and every probe connection
    KeyProber m_prober;
    LockAssembler m_assembler;
    std::unique_ptr<ProbePool> m_pool;
    QList<quint64> m_inFlight; // pages submitted to the pool, oldest first
    bool m_scanDone = false;
    QElapsedTimer m_timer;
    QSet<QByteArray> m_viaQueue; // lock names already probed through their queue
    QByteArray m_cursor = "0";
    int m_patternIndex = 0;
    bool m_started = false;
    bool m_atEnd = false;
    RedisError m_error;
    ScanProgress m_progress;
};
