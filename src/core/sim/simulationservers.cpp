// SimulationServers: sandbox topology and the server faults.
#include "simulationservers.h"

#include "redis/redisconnection.h"
#include "redis/sentinelwatch.h"

#include <QDeadlineTimer>
#include <QElapsedTimer>
#include <QThread>

SimulationServers::~SimulationServers()
{
    stopAll();
}

bool SimulationServers::start(const Options &options, QString *error)
{
    stopAll();
    m_given = options.given;
    if (m_given)
        return true;
    if (options.cluster) {
        SandboxCluster::Options co;
        if (options.keyspaceEvents)
            co.configLines << QStringLiteral("notify-keyspace-events KEA");
        auto cluster = std::make_unique<SandboxCluster>(co);
        if (!cluster->start()) {
            *error = QStringLiteral("sandbox cluster: %1").arg(cluster->errorString());
            return false;
        }
        QMutexLocker lock(&m_mutex);
        m_cluster = std::move(cluster);
        return true;
    }
    if (options.sentinel)
        return startSentinelGroup(options, error);
    for (int i = 0; i < options.masters; ++i) {
        auto slot = std::make_shared<Slot>();
        SandboxServer::Options so;
        so.name = QStringLiteral("sim-master%1").arg(i);
        if (options.keyspaceEvents)
            so.configLines << QStringLiteral("notify-keyspace-events KEA");
        // Redis 7 waits 5 s for more replicas before a diskless full sync; ours has exactly one.
        if (options.replicas > 0)
            so.configLines << QStringLiteral("repl-diskless-sync-delay 0");
        slot->ownMaster = std::make_unique<SandboxServer>(so);
        slot->master = slot->ownMaster.get();
        if (!slot->master->start()) {
            *error = QStringLiteral("server %1: %2").arg(i).arg(slot->master->errorString());
            return false;
        }
        if (options.replicas > 0) {
            SandboxServer::Options ro = so;
            ro.name = QStringLiteral("sim-replica%1").arg(i);
            ro.configLines << QStringLiteral("replicaof 127.0.0.1 %1").arg(slot->master->port());
            slot->ownReplica = std::make_unique<SandboxServer>(ro);
            slot->replica = slot->ownReplica.get();
            if (!slot->replica->start()) {
                *error = QStringLiteral("replica of server %1: %2").arg(i).arg(slot->replica->errorString());
                return false;
            }
            if (!waitForReplicaSync(*slot->replica, error))
                return false;
        }
        QMutexLocker lock(&m_mutex);
        m_slots.append(slot);
    }
    return true;
}

bool SimulationServers::startSentinelGroup(const Options &options, QString *error)
{
    SandboxSentinelGroup::Options go;
    go.masterName = QStringLiteral("lockscope-sim");
    go.replicas = std::max(1, options.replicas);
    if (options.keyspaceEvents)
        go.nodeConfigLines << QStringLiteral("notify-keyspace-events KEA");
    auto slot = std::make_shared<Slot>();
    slot->sentinels = std::make_unique<SandboxSentinelGroup>(go);
    if (!slot->sentinels->start()) {
        *error = QStringLiteral("sandbox Sentinel group: %1").arg(slot->sentinels->errorString());
        return false;
    }
    slot->master = &slot->sentinels->node(0);
    slot->replica = &slot->sentinels->node(1);
    QMutexLocker lock(&m_mutex);
    m_slots.append(slot);
    return true;
}

bool SimulationServers::waitForReplicaSync(SandboxServer &replica, QString *error)
{
    ConnectionSettings s = replica.connectionSettings();
    s.readOnly = true;
    RedisConnection c(s);
    QDeadlineTimer deadline(10000);
    while (!deadline.hasExpired()) {
        const bool open = c.isOpen() || !c.open();
        const RedisResult r = open ? c.command({"INFO", "replication"}) : RedisResult();
        if (r.ok() && r.reply.bytes().contains("master_link_status:up"))
            return true;
        QThread::msleep(20); // replication handshake has no event to wait on
    }
    *error = QStringLiteral("the replica on port %1 did not sync with its master within 10 s")
                 .arg(replica.port());
    return false;
}

void SimulationServers::stopAll()
{
    if (m_failoverThread.joinable())
        m_failoverThread.join(); // bounded by its own timeout
    QList<std::shared_ptr<Slot>> doomed;
    std::unique_ptr<SandboxCluster> cluster;
    {
        QMutexLocker lock(&m_mutex);
        doomed.swap(m_slots);
        cluster.swap(m_cluster);
        m_failoverResult.reset();
    }
    doomed.clear(); // sandboxes are killed by their destructors
    cluster.reset();
}

int SimulationServers::count() const
{
    QMutexLocker lock(&m_mutex);
    return m_given || m_cluster ? 1 : int(m_slots.size());
}

ConnectionSettings SimulationServers::settings(int server) const
{
    QMutexLocker lock(&m_mutex);
    if (m_given)
        return *m_given;
    if (m_cluster)
        return m_cluster->seedSettings();
    const auto &slot = m_slots.at(server);
    ConnectionSettings s = slot->sentinels
        ? slot->sentinels->settings()
        : (slot->promoted ? slot->replica : slot->master)->connectionSettings();
    s.readOnly = false;
    return s;
}

QString SimulationServers::describe() const
{
    if (m_given)
        return m_given->cluster ? QStringLiteral("cluster %1").arg(m_given->endpoint()) : m_given->endpoint();
    QStringList parts;
    if (m_cluster) {
        for (int i = 0; i < m_cluster->masterCount(); ++i)
            parts << m_cluster->master(i).connectionSettings().endpoint();
        return QStringLiteral("sandbox cluster %1").arg(parts.join(QStringLiteral(", ")));
    }
    if (isSentinel()) {
        QMutexLocker lock(&m_mutex);
        const SandboxSentinelGroup &group = *m_slots.first()->sentinels;
        return QStringLiteral("sandbox master '%1' behind sentinels %2")
            .arg(group.masterName(), group.sentinelAddresses().join(QStringLiteral(", ")));
    }
    for (int i = 0; i < count(); ++i)
        parts << settings(i).endpoint();
    return QStringLiteral("sandbox %1").arg(parts.join(QStringLiteral(", ")));
}

SandboxServer *SimulationServers::target(int server, bool replica, QString *error)
{
    QMutexLocker lock(&m_mutex);
    if (m_given) {
        *error = QStringLiteral("server faults need sandbox servers, never a server you gave");
        return nullptr;
    }
    if (m_cluster) {
        *error = QStringLiteral("server faults are not supported on a cluster");
        return nullptr;
    }
    if (server < 0 || server >= m_slots.size()) {
        *error = QStringLiteral("there is no server %1").arg(server);
        return nullptr;
    }
    const auto &slot = m_slots.at(server);
    if (replica) {
        if (!slot->replica || slot->promoted) {
            *error = QStringLiteral("server %1 has no replica").arg(server);
            return nullptr;
        }
        return slot->replica;
    }
    return slot->promoted ? slot->replica : slot->master;
}

bool SimulationServers::kill(int server, QString *what, QString *error)
{
    SandboxServer *s = target(server, false, error);
    if (!s)
        return false;
    s->kill();
    *what = QStringLiteral("server %1 (port %2) was killed").arg(server).arg(s->port());
    return true;
}

bool SimulationServers::crashForRestart(int server, QString *what, QString *error)
{
    SandboxServer *s = target(server, false, error);
    if (!s)
        return false;
    s->kill();
    *what = QStringLiteral("server %1 (port %2) crashed; it comes back without persistence")
                .arg(server)
                .arg(s->port());
    return true;
}

bool SimulationServers::startAgain(int server, QString *what, QString *error)
{
    SandboxServer *s = target(server, false, error);
    if (!s)
        return false;
    if (!s->start()) {
        *error = QStringLiteral("server %1 did not come back: %2").arg(server).arg(s->errorString());
        return false;
    }
    *what = QStringLiteral("server %1 (port %2) is back, with an empty dataset").arg(server).arg(s->port());
    return true;
}

bool SimulationServers::pause(int server, bool replica, QString *what, QString *error)
{
    SandboxServer *s = target(server, replica, error);
    if (!s)
        return false;
    if (!s->pause()) {
        *error = QStringLiteral("cannot pause server %1: it is not running").arg(server);
        return false;
    }
    *what = QStringLiteral("%1 of server %2 (port %3) is frozen (SIGSTOP)")
                .arg(replica ? QStringLiteral("the replica") : QStringLiteral("the master"))
                .arg(server)
                .arg(s->port());
    if (replica) {
        // A frozen replica's socket would still buffer what the master streams, and it would read it all on
        // resume. Lag means the write never left the master: the master drops the link (the replica
        // catches up with a resync when it runs again).
        ConnectionSettings m = settings(server);
        m.clientName = QStringLiteral("lockscope-sim-admin");
        RedisConnection admin(m);
        if (!admin.open() && admin.command({"CLIENT", "KILL", "TYPE", "replica"}).ok())
            *what += QStringLiteral("; the master stops replicating to it");
    }
    return true;
}

bool SimulationServers::resume(int server, bool replica, QString *what, QString *error)
{
    {
        QMutexLocker lock(&m_mutex);
        if (replica && !m_given && !m_cluster && server >= 0 && server < m_slots.size()
            && m_slots.at(server)->promoted) {
            *what = QStringLiteral("the replica of server %1 already runs: the failover woke and promoted it")
                        .arg(server);
            return true;
        }
    }
    SandboxServer *s = target(server, replica, error);
    if (!s)
        return false;
    s->resume();
    *what = QStringLiteral("%1 of server %2 runs again")
                .arg(replica ? QStringLiteral("the replica") : QStringLiteral("the master"))
                .arg(server);
    return true;
}

bool SimulationServers::failover(int server, QString *what, QString *error)
{
    std::shared_ptr<Slot> slot;
    {
        QMutexLocker lock(&m_mutex);
        if (m_given || m_cluster || server < 0 || server >= m_slots.size() || !m_slots.at(server)->replica
            || m_slots.at(server)->promoted) {
            *error = QStringLiteral("server %1 has no replica to fail over to").arg(server);
            return false;
        }
        slot = m_slots.at(server);
    }
    // The master dies first, so a frozen replica cannot catch up with it on the way.
    slot->master->kill();
    slot->replica->resume();
    if (slot->sentinels)
        return askSentinelsToFailOver(slot, server, what);
    ConnectionSettings s = slot->replica->connectionSettings();
    s.commandTimeoutMs = 5000;
    RedisConnection admin(s);
    RedisResult r;
    if (const RedisError e = admin.open())
        r.error = e;
    else
        r = admin.command({"REPLICAOF", "NO", "ONE"});
    if (!r.ok()) {
        *error = QStringLiteral("promoting the replica of server %1 failed: %2")
                     .arg(server)
                     .arg(r.error.message());
        return false;
    }
    {
        QMutexLocker lock(&m_mutex);
        slot->promoted = true;
    }
    ++m_generation;
    *what
        = QStringLiteral("server %1's master died; its replica (port %2) was promoted and clients follow it")
              .arg(server)
              .arg(slot->replica->port());
    return true;
}

bool SimulationServers::isSentinel() const
{
    QMutexLocker lock(&m_mutex);
    return !m_slots.isEmpty() && m_slots.first()->sentinels;
}

std::optional<std::pair<bool, QString>> SimulationServers::sentinelFailoverResult() const
{
    QMutexLocker lock(&m_mutex);
    return m_failoverResult;
}

bool SimulationServers::askSentinelsToFailOver(const std::shared_ptr<Slot> &slot, int server, QString *what)
{
    {
        QMutexLocker lock(&m_mutex);
        slot->promoted = true; // faults from now on aim at the replica, the master-to-be
        m_failoverResult.reset();
    }
    if (m_failoverThread.joinable())
        m_failoverThread.join();
    // The sentinels take a moment (they must see the replica answer again and promote it): the run goes on
    // meanwhile, and its clients find the new master through the sentinels, as any Sentinel client would.
    // The clients' shared +switch-master listener: the failover is over for the story when they heard it.
    std::shared_ptr<SentinelWatch> watch = SentinelWatch::acquire(slot->sentinels->settings());
    const quint64 switchesBefore = watch->switches();
    m_failoverThread = std::thread([this, slot, server, watch, switchesBefore] {
        QString error;
        QElapsedTimer took;
        took.start();
        bool ok = slot->sentinels->failover(&error, 15000);
        QDeadlineTimer heard(5000);
        while (ok && watch->switches() == switchesBefore && !heard.hasExpired())
            QThread::msleep(10); // the announcement travels over the sentinels' pub/sub; nothing to wait on
        if (ok && watch->switches() == switchesBefore) {
            ok = false;
            error = QStringLiteral("the sentinels promoted the replica, but no +switch-master reached the "
                                   "clients within 5 s");
        }
        const QString text = ok
            ? QStringLiteral("the sentinels promoted server %1's replica (port %2) after "
                             "%3 ms; clients follow their +switch-master")
                  .arg(server)
                  .arg(slot->replica->port())
                  .arg(took.elapsed())
            : QStringLiteral("Sentinel failover of server %1 failed: %2").arg(server).arg(error);
        QMutexLocker lock(&m_mutex);
        m_failoverResult = std::make_pair(ok, text);
    });
    *what
        = QStringLiteral("server %1's master (port %2) died; the sentinels are asked to promote its replica "
                         "(SENTINEL FAILOVER)")
              .arg(server)
              .arg(slot->master->port());
    return true;
}
