// ClusterConnection: slot routing with MOVED/ASK, per the Redis Cluster specification's client section.
#include "clusterconnection.h"

#include "clusterslot.h"
#include "logging.h"

ClusterConnection::ClusterConnection(const ConnectionSettings &seed)
    : m_seed(seed)
{
    m_seed.cluster = false;
}

ClusterConnection::~ClusterConnection() = default;

ConnectionSettings ClusterConnection::nodeSettings(const ClusterSlotMap::Node &node) const
{
    ConnectionSettings s = m_seed;
    s.host = node.host;
    s.port = node.port;
    s.cluster = false;
    return s;
}

RedisConnection *ClusterConnection::connectionTo(const ClusterSlotMap::Node &node, RedisError *error)
{
    const QString key = node.endpoint();
    std::shared_ptr<RedisConnection> c;
    {
        QMutexLocker lock(&m_connectionsMutex);
        c = m_connections.value(key);
    }
    if (!c) {
        c = std::make_shared<RedisConnection>(nodeSettings(node));
        if (const RedisError e = c->open()) {
            *error = e;
            return nullptr;
        }
        QMutexLocker lock(&m_connectionsMutex);
        m_connections.insert(key, c);
    }
    *error = {};
    return c.get();
}

RedisError ClusterConnection::open()
{
    ClusterSlotMap::Node seed;
    seed.host = m_seed.host;
    seed.port = m_seed.port;
    RedisError error;
    RedisConnection *c = connectionTo(seed, &error);
    if (!c)
        return error;
    ClusterSlotMap map = ClusterSlotMap::fetch(*c, &error);
    if (error)
        return error;
    m_map = std::move(map);
    return {};
}

RedisError ClusterConnection::refresh()
{
    // The seed first, then the masters we know: any node can answer for the whole cluster.
    QList<ClusterSlotMap::Node> candidates;
    ClusterSlotMap::Node seed;
    seed.host = m_seed.host;
    seed.port = m_seed.port;
    candidates << seed;
    for (const ClusterSlotMap::Node &n : m_map.masters()) {
        if (!candidates.contains(n))
            candidates << n;
    }
    RedisError last;
    for (const ClusterSlotMap::Node &node : std::as_const(candidates)) {
        RedisError error;
        RedisConnection *c = connectionTo(node, &error);
        if (c) {
            ClusterSlotMap map = ClusterSlotMap::fetch(*c, &error);
            if (!error) {
                m_map = std::move(map);
                return {};
            }
        }
        last = error;
    }
    return last;
}

std::optional<QByteArray> ClusterConnection::keyOf(const RedisCommand &args)
{
    if (args.size() < 2)
        return std::nullopt;
    const QByteArray name = args.first().toUpper();
    static const QSet<QByteArray> keyless {
        "PING",      "ECHO",   "INFO",   "CLUSTER",  "TIME",     "DBSIZE",  "SCAN",      "CLIENT",
        "CONFIG",    "ROLE",   "SCRIPT", "FUNCTION", "COMMAND",  "PUBLISH", "SUBSCRIBE", "PSUBSCRIBE",
        "PUBSUB",    "AUTH",   "HELLO",  "SELECT",   "FLUSHALL", "FLUSHDB", "WAIT",      "READONLY",
        "READWRITE", "ASKING", "MEMORY", "LATENCY",  "SLOWLOG",  "ACL",     "DEBUG",     "OBJECT"};
    if (keyless.contains(name))
        return std::nullopt;
    if (name == "EVAL" || name == "EVALSHA" || name == "EVAL_RO" || name == "EVALSHA_RO" || name == "FCALL"
        || name == "FCALL_RO") {
        bool ok = false;
        const int numKeys = args.size() > 2 ? args.at(2).toInt(&ok) : 0;
        if (!ok || numKeys < 1 || args.size() < 4)
            return std::nullopt;
        return args.at(3);
    }
    return args.at(1);
}

std::optional<ClusterConnection::Redirect> ClusterConnection::parseRedirect(const QByteArray &text,
                                                                            const QString &fromHost)
{
    // "MOVED 3999 127.0.0.1:6381" or "ASK 3999 127.0.0.1:6381"; the host may be empty (":6381") when the
    // node does not know its own address: it is then the host we asked.
    const QList<QByteArray> parts = text.trimmed().split(' ');
    if (parts.size() != 3 || (parts[0] != "MOVED" && parts[0] != "ASK"))
        return std::nullopt;
    Redirect r;
    r.ask = parts[0] == "ASK";
    bool ok = false;
    r.slot = parts[1].toInt(&ok);
    const qsizetype colon = parts[2].lastIndexOf(':');
    if (!ok || colon < 0)
        return std::nullopt;
    r.node.host = QString::fromUtf8(parts[2].left(colon));
    if (r.node.host.startsWith(u'[') && r.node.host.endsWith(u']'))
        r.node.host = r.node.host.mid(1, r.node.host.size() - 2);
    if (r.node.host.isEmpty())
        r.node.host = fromHost;
    r.node.port = parts[2].mid(colon + 1).toInt(&ok);
    if (!ok || r.node.port < 1 || r.node.port > 65535)
        return std::nullopt;
    return r;
}

RedisResult ClusterConnection::commandOn(const ClusterSlotMap::Node &node, const RedisCommand &args)
{
    RedisError error;
    RedisConnection *c = connectionTo(node, &error);
    if (!c)
        return RedisResult::failure(error);
    return c->command(args);
}

RedisResult ClusterConnection::command(const RedisCommand &args)
{
    if (const std::optional<QByteArray> key = keyOf(args))
        return commandForKey(*key, args);
    if (m_map.isEmpty()) {
        if (const RedisError e = open())
            return RedisResult::failure(e);
    }
    return commandOn(m_map.masters().first(), args);
}

RedisResult ClusterConnection::commandForKey(const QByteArray &key, const RedisCommand &args)
{
    if (m_map.isEmpty()) {
        if (const RedisError e = open())
            return RedisResult::failure(e);
    }
    const int slot = ClusterSlot::of(key);
    const ClusterSlotMap::Node *owner = m_map.masterOf(slot);
    if (!owner) {
        if (const RedisError e = refresh())
            return RedisResult::failure(e);
        owner = m_map.masterOf(slot);
        if (!owner)
            return RedisResult::failure(
                {RedisError::Code::Server,
                 QStringLiteral("no master of the cluster serves slot %1 (the key %2)")
                     .arg(slot)
                     .arg(QString::fromUtf8(key.left(80)))});
    }
    ClusterSlotMap::Node target = *owner;
    bool asking = false;
    bool retriedAfterLoss = false;
    for (int hop = 0; hop <= kMaxRedirects; ++hop) {
        RedisError error;
        RedisConnection *c = connectionTo(target, &error);
        RedisResult result;
        if (!c) {
            result = RedisResult::failure(error);
        } else if (asking) {
            const QList<RedisResult> replies = c->pipeline({{"ASKING"}, args});
            result = replies.size() == 2 ? replies.at(1) : replies.value(0);
        } else {
            result = c->command(args);
        }
        asking = false;
        if (result.error.code() == RedisError::Code::Redirect) {
            const std::optional<Redirect> redirect = parseRedirect(result.reply.bytes(), target.host);
            if (!redirect)
                return result;
            qCDebug(lcRedis) << "cluster:" << result.reply.bytes() << "for slot" << slot;
            target = redirect->node;
            if (redirect->ask) {
                ++m_asked;
                asking = true; // a slot being migrated: this key only, this time only
            } else {
                ++m_moved;
                m_map.assign(redirect->slot, redirect->node);
                refresh(); // the whole map has probably changed; on failure the assignment above still holds
            }
            continue;
        }
        // A master that died or was failed over: read the map again (a replica may serve the slot now).
        if (result.error.breaksConnection() && result.error.code() != RedisError::Code::Interrupted
            && !retriedAfterLoss) {
            retriedAfterLoss = true;
            {
                QMutexLocker lock(&m_connectionsMutex);
                m_connections.remove(target.endpoint());
            }
            if (!refresh()) {
                if (const ClusterSlotMap::Node *now = m_map.masterOf(slot))
                    target = *now;
                continue;
            }
        }
        return result;
    }
    return RedisResult::failure({RedisError::Code::Redirect,
                                 QStringLiteral("the cluster redirected the key %1 more than %2 times (the "
                                                "slot map keeps changing; try again)")
                                     .arg(QString::fromUtf8(key.left(80)))
                                     .arg(kMaxRedirects)});
}

void ClusterConnection::interrupt()
{
    QMutexLocker lock(&m_connectionsMutex);
    for (const std::shared_ptr<RedisConnection> &c : std::as_const(m_connections))
        c->interrupt();
}
