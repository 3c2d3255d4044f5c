// ClusterScanJob: walks the masters of the slot map in order, summing their progress.
#include "clusterscanjob.h"

#include "redis/clusterslot.h"
#include "redis/redisconnection.h"

ClusterScanJob::ClusterScanJob(const ConnectionSettings &seed, const ScanOptions &options)
    : m_seed(seed)
    , m_options(options)
{
    m_seed.readOnly = true;
    m_seed.cluster = false;
    m_timer.start();
}

ClusterScanJob::~ClusterScanJob() = default;

bool ClusterScanJob::startNode(int index)
{
    m_node = index;
    ConnectionSettings s = m_seed;
    s.host = m_map.masters().at(index).host;
    s.port = m_map.masters().at(index).port;
    {
        QMutexLocker lock(&m_mutex);
        m_job.reset();
        m_connection = std::make_unique<RedisConnection>(s);
    }
    if (m_interrupted) {
        m_error = {RedisError::Code::Interrupted, QStringLiteral("the cluster scan was interrupted")};
        m_atEnd = true;
        return false;
    }
    if (const RedisError e = m_connection->open()) {
        m_error = e;
        m_atEnd = true;
        return false;
    }
    QMutexLocker lock(&m_mutex);
    m_job = std::make_unique<LockScanJob>(*m_connection, m_options);
    return true;
}

QList<LockRecord> ClusterScanJob::nextPage()
{
    if (m_atEnd)
        return {};
    if (m_node < 0) {
        RedisConnection seed(m_seed);
        if (const RedisError e = seed.open()) {
            m_error = e;
            m_atEnd = true;
            return {};
        }
        RedisError error;
        m_map = ClusterSlotMap::fetch(seed, &error);
        if (error) {
            m_error = error;
            m_atEnd = true;
            return {};
        }
        if (!startNode(0))
            return {};
    }
    QList<LockRecord> records = m_job->nextPage();
    const QString node = m_map.masters().at(m_node).endpoint();
    for (LockRecord &r : records) {
        r.node = node;
        r.slot = ClusterSlot::of(r.key);
    }
    if (m_job->atEnd()) {
        if (m_job->error()) {
            m_error = RedisError(m_job->error().code(),
                                 QStringLiteral("%1: %2").arg(node, m_job->error().message()));
            m_atEnd = true;
            return records;
        }
        const ScanProgress p = m_job->progress();
        m_done.scannedKeys += p.scannedKeys;
        m_done.locks += p.locks;
        m_done.unreadableKeys += p.unreadableKeys;
        for (auto [reason, n] : p.unreadReasons.asKeyValueRange())
            m_done.unreadReasons[QStringLiteral("%1: %2").arg(node, reason)] += n;
        m_done.dbSize = (m_done.dbSize < 0 ? 0 : m_done.dbSize) + std::max<qint64>(0, p.dbSize);
        m_done.pages += p.pages;
        if (m_node + 1 < m_map.masters().size())
            startNode(m_node + 1);
        else
            m_atEnd = true;
    }
    return records;
}

ScanProgress ClusterScanJob::progress() const
{
    ScanProgress p = m_done;
    const int nodes = std::max<int>(1, int(m_map.masters().size()));
    double fraction = m_node < 0 ? 0 : double(m_node) / nodes;
    if (m_job && !m_job->atEnd()) {
        const ScanProgress current = m_job->progress();
        p.scannedKeys += current.scannedKeys;
        p.locks += current.locks;
        p.unreadableKeys += current.unreadableKeys;
        for (auto [reason, n] : current.unreadReasons.asKeyValueRange())
            p.unreadReasons[QStringLiteral("%1: %2").arg(m_map.masters().at(m_node).endpoint(), reason)] += n;
        p.pages += current.pages;
        if (current.dbSize >= 0)
            p.dbSize = (p.dbSize < 0 ? 0 : p.dbSize) + current.dbSize;
        fraction += current.fraction / nodes;
    }
    p.fraction = m_atEnd ? 1.0 : fraction;
    p.elapsedMs = m_timer.elapsed();
    p.finished = m_atEnd && m_error.isNone();
    return p;
}

void ClusterScanJob::interrupt()
{
    m_interrupted = true;
    QMutexLocker lock(&m_mutex);
    if (m_connection)
        m_connection->interrupt();
    if (m_job)
        m_job->interrupt();
}
