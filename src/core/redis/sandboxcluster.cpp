// SandboxCluster: the manual way of building a cluster (CLUSTER ADDSLOTSRANGE, CLUSTER MEET, CLUSTER
// REPLICATE), so it needs redis-server only, not redis-cli.
#include "sandboxcluster.h"

#include "clusterslot.h"
#include "logging.h"
#include "redisconnection.h"

#include <QDeadlineTimer>
#include <QThread>

SandboxCluster::SandboxCluster()
    : SandboxCluster(Options())
{
}

SandboxCluster::SandboxCluster(const Options &options)
    : m_options(options)
{
}

SandboxCluster::~SandboxCluster() = default; // each SandboxServer kills its process

// One command to one node on a fresh connection (set-up is rare; no need to keep connections).
static RedisResult ask(const SandboxServer &node, const RedisCommand &args)
{
    RedisConnection c(node.connectionSettings());
    if (const RedisError e = c.open())
        return RedisResult::failure(e);
    return c.command(args);
}

static SandboxServer::Options nodeOptions(const SandboxCluster::Options &options, const QString &name)
{
    SandboxServer::Options o;
    o.name = name;
    o.clusterBus = true;
    o.configLines << QStringLiteral("cluster-enabled yes") << QStringLiteral("cluster-config-file nodes.conf")
                  << QStringLiteral("cluster-node-timeout %1").arg(options.nodeTimeoutMs)
                  << QStringLiteral("cluster-require-full-coverage no")
                  << QStringLiteral("cluster-allow-replica-migration no")
                  // Redis 7 waits 5 s for more replicas before a diskless full sync: start syncing at once.
                  << QStringLiteral("repl-diskless-sync-delay 0")
                  // CLUSTER SLOTS lists a replica once its replication offset moved; on an empty master only
                  // the replication ping moves it, every 10 s by default.
                  << QStringLiteral("repl-ping-replica-period 1") << options.configLines;
    return o;
}

bool SandboxCluster::start()
{
    if (m_options.masters < 1 || m_options.masters > 16 || m_options.replicasPerMaster < 0
        || m_options.replicasPerMaster > 4) {
        m_error = QStringLiteral("a sandbox cluster has 1 to 16 masters and 0 to 4 replicas each");
        return false;
    }
    m_masters.clear();
    m_replicas.clear();
    QList<SandboxServer *> all;
    for (int i = 0; i < m_options.masters; ++i) {
        auto master
            = std::make_shared<SandboxServer>(nodeOptions(m_options, QStringLiteral("cluster-m%1").arg(i)));
        if (!master->start()) {
            m_error = QStringLiteral("cluster master %1: %2").arg(i).arg(master->errorString());
            return false;
        }
        m_masters << master;
        all << master.get();
        QList<std::shared_ptr<SandboxServer>> replicas;
        for (int r = 0; r < m_options.replicasPerMaster; ++r) {
            auto replica = std::make_shared<SandboxServer>(
                nodeOptions(m_options, QStringLiteral("cluster-m%1r%2").arg(i).arg(r)));
            if (!replica->start()) {
                m_error
                    = QStringLiteral("cluster replica %1/%2: %3").arg(i).arg(r).arg(replica->errorString());
                return false;
            }
            replicas << replica;
            all << replica.get();
        }
        m_replicas << replicas;
    }

    // Slots split evenly, as redis-cli --cluster create does.
    for (int i = 0; i < m_options.masters; ++i) {
        const int first = ClusterSlot::kSlots * i / m_options.masters;
        const int last = ClusterSlot::kSlots * (i + 1) / m_options.masters - 1;
        const RedisResult r = ask(
            *m_masters[i], {"CLUSTER", "ADDSLOTSRANGE", QByteArray::number(first), QByteArray::number(last)});
        if (!r.ok()) {
            m_error = QStringLiteral("CLUSTER ADDSLOTSRANGE on master %1: %2").arg(i).arg(r.error.message());
            return false;
        }
    }
    const SandboxServer &first = *m_masters.first();
    for (SandboxServer *node : std::as_const(all)) {
        if (node == &first)
            continue;
        const RedisResult r
            = ask(*node, {"CLUSTER", "MEET", first.host().toUtf8(), QByteArray::number(first.port())});
        if (!r.ok()) {
            m_error = QStringLiteral("CLUSTER MEET from %1: %2").arg(node->name(), r.error.message());
            return false;
        }
    }
    // Replicas follow their master once they know it (the gossip brings its node id within a moment).
    for (int i = 0; i < m_options.masters; ++i) {
        const QByteArray masterId = ask(*m_masters[i], {"CLUSTER", "MYID"}).reply.bytes();
        for (const std::shared_ptr<SandboxServer> &replica : std::as_const(m_replicas[i])) {
            QDeadlineTimer deadline(m_options.readyTimeoutMs);
            RedisResult r;
            do {
                r = ask(*replica, {"CLUSTER", "REPLICATE", masterId});
                if (r.ok())
                    break;
                QThread::msleep(50); // waiting for gossip to introduce the master; no event to wait on
            } while (!deadline.hasExpired());
            if (!r.ok()) {
                m_error
                    = QStringLiteral("CLUSTER REPLICATE on %1: %2").arg(replica->name(), r.error.message());
                return false;
            }
        }
    }
    return waitUntilReady();
}

bool SandboxCluster::waitUntilReady()
{
    QDeadlineTimer deadline(m_options.readyTimeoutMs);
    QString last;
    while (!deadline.hasExpired()) {
        bool ready = true;
        for (const std::shared_ptr<SandboxServer> &master : std::as_const(m_masters)) {
            RedisConnection c(master->connectionSettings());
            c.open();
            const RedisResult info = c.command({"CLUSTER", "INFO"});
            RedisError error;
            const ClusterSlotMap map = ClusterSlotMap::fetch(c, &error);
            if (!info.ok() || !info.reply.bytes().contains("cluster_state:ok") || error
                || map.masters().size() != m_masters.size() || !map.coversAllSlots()) {
                last
                    = info.ok() ? QStringLiteral("%1 not ready yet").arg(c.endpoint()) : info.error.message();
                ready = false;
                break;
            }
            for (int i = 0; i < m_masters.size() && ready; ++i) {
                ClusterSlotMap::Node node;
                node.host = m_masters[i]->host();
                node.port = m_masters[i]->port();
                ready = map.replicasOf(node).size() == m_replicas[i].size();
            }
            if (!ready)
                break;
        }
        if (ready) {
            qCDebug(lcSandbox) << "cluster of" << m_masters.size() << "masters ready";
            return true;
        }
        QThread::msleep(50); // gossip converges on its own schedule; no event to wait on
    }
    m_error = QStringLiteral("the sandbox cluster did not become ready within %1 ms (%2)")
                  .arg(m_options.readyTimeoutMs)
                  .arg(last);
    return false;
}

void SandboxCluster::stop()
{
    for (const QList<std::shared_ptr<SandboxServer>> &replicas : std::as_const(m_replicas)) {
        for (const std::shared_ptr<SandboxServer> &r : replicas)
            r->kill();
    }
    for (const std::shared_ptr<SandboxServer> &m : std::as_const(m_masters))
        m->kill();
}

QList<SandboxServer *> SandboxCluster::replicasOf(int i) const
{
    QList<SandboxServer *> out;
    for (const std::shared_ptr<SandboxServer> &r : m_replicas.value(i))
        out << r.get();
    return out;
}

ConnectionSettings SandboxCluster::seedSettings() const
{
    ConnectionSettings s
        = m_masters.isEmpty() ? ConnectionSettings() : m_masters.first()->connectionSettings();
    s.cluster = true;
    return s;
}

ClusterSlotMap SandboxCluster::slotMap(RedisError *error) const
{
    if (m_masters.isEmpty()) {
        *error = {RedisError::Code::NotConnected, QStringLiteral("the sandbox cluster is not started")};
        return {};
    }
    RedisConnection c(m_masters.first()->connectionSettings());
    if ((*error = c.open()))
        return {};
    return ClusterSlotMap::fetch(c, error);
}
