// SandboxSentinelGroup: start-up order, readiness (sentinels discover replicas and each other through the
// master's INFO and hello messages), and a forced failover.
#include "sandboxsentinelgroup.h"

#include "logging.h"
#include "redisconnection.h"
#include "sentinelresolver.h"

#include <QDeadlineTimer>
#include <QThread>

SandboxSentinelGroup::SandboxSentinelGroup()
    : SandboxSentinelGroup(Options())
{
}

SandboxSentinelGroup::SandboxSentinelGroup(const Options &options)
    : m_options(options)
{
}

SandboxSentinelGroup::~SandboxSentinelGroup() = default; // each SandboxServer kills its process

static RedisResult ask(const ConnectionSettings &settings, const RedisCommand &args)
{
    RedisConnection c(settings);
    if (const RedisError e = c.open())
        return RedisResult::failure(e);
    return c.command(args);
}

// The value of `field` in a flat field/value list (SENTINEL MASTER / REPLICAS entries).
static QByteArray field(const RedisReply &entry, const QByteArray &name)
{
    for (qsizetype i = 0; i + 1 < entry.size(); i += 2) {
        if (entry.at(i).bytes() == name)
            return entry.at(i + 1).bytes();
    }
    return {};
}

bool SandboxSentinelGroup::start()
{
    if (m_options.replicas < 0 || m_options.replicas > 4 || m_options.sentinels < 1 || m_options.sentinels > 7
        || m_options.quorum < 1 || m_options.quorum > m_options.sentinels || m_options.masterName.isEmpty()
        || m_options.masterName.contains(u' ')) {
        m_error
            = QStringLiteral("a sandbox Sentinel group has 0 to 4 replicas, 1 to 7 sentinels, a quorum of at "
                             "most the sentinels and a master name without spaces");
        return false;
    }
    SandboxServer::Options masterOptions;
    masterOptions.name = QStringLiteral("sentinel-master");
    // Redis 7 waits 5 s for more replicas before a diskless full sync: start syncing at once. Every data
    // node may become the master after a failover, so each gets it.
    masterOptions.configLines << QStringLiteral("repl-diskless-sync-delay 0") << m_options.nodeConfigLines;
    auto master = std::make_shared<SandboxServer>(masterOptions);
    if (!master->start()) {
        m_error = QStringLiteral("master: %1").arg(master->errorString());
        return false;
    }
    m_nodes << master;
    for (int i = 0; i < m_options.replicas; ++i) {
        SandboxServer::Options o;
        o.name = QStringLiteral("sentinel-replica%1").arg(i);
        o.configLines << QStringLiteral("replicaof 127.0.0.1 %1").arg(master->port())
                      << QStringLiteral("repl-diskless-sync-delay 0") << m_options.nodeConfigLines;
        auto replica = std::make_shared<SandboxServer>(o);
        if (!replica->start()) {
            m_error = QStringLiteral("replica %1: %2").arg(i).arg(replica->errorString());
            return false;
        }
        m_nodes << replica;
    }
    for (int i = 0; i < m_options.sentinels; ++i) {
        SandboxServer::Options o;
        o.name = QStringLiteral("sentinel%1").arg(i);
        o.sentinel = true;
        const QString &name = m_options.masterName;
        o.configLines
            << QStringLiteral("sentinel monitor %1 127.0.0.1 %2 %3")
                   .arg(name)
                   .arg(master->port())
                   .arg(m_options.quorum)
            << QStringLiteral("sentinel down-after-milliseconds %1 %2").arg(name).arg(m_options.downAfterMs)
            << QStringLiteral("sentinel failover-timeout %1 %2").arg(name).arg(m_options.failoverTimeoutMs)
            << QStringLiteral("sentinel parallel-syncs %1 1").arg(name);
        auto sentinel = std::make_shared<SandboxServer>(o);
        if (!sentinel->start()) {
            m_error = QStringLiteral("sentinel %1: %2").arg(i).arg(sentinel->errorString());
            return false;
        }
        m_sentinels << sentinel;
    }
    return waitUntilReady();
}

bool SandboxSentinelGroup::waitUntilReady()
{
    QDeadlineTimer deadline(m_options.readyTimeoutMs);
    QString last;
    const QByteArray name = m_options.masterName.toUtf8();
    while (!deadline.hasExpired()) {
        bool ready = true;
        for (const std::shared_ptr<SandboxServer> &sentinel : std::as_const(m_sentinels)) {
            const ConnectionSettings s = sentinel->connectionSettings();
            const RedisResult masterInfo = ask(s, {"SENTINEL", "MASTER", name});
            const RedisResult replicas = ask(s, {"SENTINEL", "REPLICAS", name});
            if (!masterInfo.ok() || !replicas.ok()) {
                last = masterInfo.ok() ? replicas.error.message() : masterInfo.error.message();
                ready = false;
                break;
            }
            int goodReplicas = 0;
            for (const RedisReply &r : replicas.reply.elements()) {
                if (field(r, "flags") == "slave" && field(r, "master-link-status") == "ok")
                    ++goodReplicas;
            }
            const int otherSentinels = field(masterInfo.reply, "num-other-sentinels").toInt();
            if (field(masterInfo.reply, "flags") != "master" || goodReplicas < m_options.replicas
                || otherSentinels < m_options.sentinels - 1) {
                last = QStringLiteral("sentinel on %1 sees %2 of %3 replicas and %4 of %5 other sentinels")
                           .arg(s.endpoint())
                           .arg(goodReplicas)
                           .arg(m_options.replicas)
                           .arg(otherSentinels)
                           .arg(m_options.sentinels - 1);
                ready = false;
                break;
            }
        }
        if (ready) {
            qCDebug(lcSandbox) << "sentinel group" << m_options.masterName << "ready";
            return true;
        }
        QThread::msleep(50); // sentinels discover each other on their own schedule; no event to wait on
    }
    m_error = QStringLiteral("the sandbox Sentinel group did not become ready within %1 ms (%2)")
                  .arg(m_options.readyTimeoutMs)
                  .arg(last);
    return false;
}

QStringList SandboxSentinelGroup::sentinelAddresses() const
{
    QStringList out;
    for (const std::shared_ptr<SandboxServer> &s : m_sentinels)
        out << QStringLiteral("%1:%2").arg(s->host()).arg(s->port());
    return out;
}

ConnectionSettings SandboxSentinelGroup::settings() const
{
    ConnectionSettings s = m_nodes.isEmpty() ? ConnectionSettings() : m_nodes.first()->connectionSettings();
    s.sentinel.nodes = sentinelAddresses();
    s.sentinel.masterName = m_options.masterName;
    return s;
}

int SandboxSentinelGroup::currentMaster() const
{
    QString host;
    int port = 0;
    if (SentinelResolver::resolve(settings(), &host, &port))
        return -1;
    for (int i = 0; i < m_nodes.size(); ++i) {
        if (m_nodes[i]->port() == port)
            return i;
    }
    return -1;
}

bool SandboxSentinelGroup::failover(QString *error, int timeoutMs)
{
    const int before = currentMaster();
    if (before < 0 || m_sentinels.isEmpty()) {
        *error = QStringLiteral("the sentinels do not know the current master");
        return false;
    }
    QDeadlineTimer deadline(timeoutMs);
    const ConnectionSettings sentinel = m_sentinels.first()->connectionSettings();
    // "INPROG" or "NOGOODSLAVE" while the previous failover or a replica's sync has not finished: retry.
    RedisResult r;
    while (!deadline.hasExpired()) {
        r = ask(sentinel, {"SENTINEL", "FAILOVER", m_options.masterName.toUtf8()});
        if (r.ok())
            break;
        const int now = currentMaster();
        if (now >= 0 && now != before) {
            r = RedisResult(); // the sentinels failed over by themselves (INPROG until they finished)
            break;
        }
        QThread::msleep(100); // waiting for the sentinel to accept a failover; no event to wait on
    }
    if (!r.ok()) {
        *error = QStringLiteral("SENTINEL FAILOVER %1: %2").arg(m_options.masterName, r.error.message());
        return false;
    }
    while (!deadline.hasExpired()) {
        const int now = currentMaster();
        if (now >= 0 && now != before) {
            ConnectionSettings s = m_nodes[now]->connectionSettings();
            const RedisResult role = ask(s, {"ROLE"});
            if (role.ok() && role.reply.size() > 0 && role.reply.at(0).bytes() == "master") {
                qCDebug(lcSandbox) << "sentinel group" << m_options.masterName << "failed over to"
                                   << s.endpoint();
                return true;
            }
        }
        QThread::msleep(50); // the promotion takes a few hundred ms; no event to wait on
    }
    *error = QStringLiteral("the failover of %1 did not finish within %2 ms")
                 .arg(m_options.masterName)
                 .arg(timeoutMs);
    return false;
}
