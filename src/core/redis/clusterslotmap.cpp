// ClusterSlotMap: parsing CLUSTER SLOTS and answering slot → master.
#include "clusterslotmap.h"

#include "clusterslot.h"
#include "redisconnection.h"
#include "redisreply.h"

#include <algorithm>

QString ClusterSlotMap::Node::endpoint() const
{
    if (host.contains(u':'))
        return QStringLiteral("[%1]:%2").arg(host).arg(port);
    return QStringLiteral("%1:%2").arg(host).arg(port);
}

namespace {

bool parseNode(const RedisReply &entry, const QString &askedHost, ClusterSlotMap::Node *node)
{
    if (!entry.isArray() || entry.size() < 2 || !entry.at(0).isString())
        return false;
    bool ok = false;
    const qint64 port = entry.at(1).toInteger(&ok);
    if (!ok || port < 1 || port > 65535)
        return false;
    node->host = QString::fromUtf8(entry.at(0).bytes());
    // "" (Redis 7: unknown endpoint) or "?" mean the address we asked through.
    if (node->host.isEmpty() || node->host == QLatin1String("?"))
        node->host = askedHost;
    node->port = int(port);
    node->id = entry.size() > 2 && entry.at(2).isString() ? entry.at(2).bytes() : QByteArray();
    return true;
}

} // namespace

ClusterSlotMap ClusterSlotMap::parse(const RedisReply &reply, const QString &askedHost, QString *error)
{
    ClusterSlotMap map;
    map.m_owner.assign(ClusterSlot::kSlots, qint16(-1));
    if (!reply.isArray()) {
        *error = QStringLiteral("CLUSTER SLOTS did not answer with a list: %1").arg(reply.toDisplayString());
        return {};
    }
    for (const RedisReply &entry : reply.elements()) {
        Range range;
        bool okFirst = false, okLast = false;
        if (entry.isArray() && entry.size() >= 3) {
            range.first = int(entry.at(0).toInteger(&okFirst));
            range.last = int(entry.at(1).toInteger(&okLast));
        }
        if (!okFirst || !okLast || range.first < 0 || range.last >= ClusterSlot::kSlots
            || range.first > range.last || !parseNode(entry.at(2), askedHost, &range.master)) {
            *error = QStringLiteral("CLUSTER SLOTS answered an entry LockScope cannot read: %1")
                         .arg(entry.toDisplayString());
            return {};
        }
        for (qsizetype i = 3; i < entry.size(); ++i) {
            Node replica;
            if (parseNode(entry.at(i), askedHost, &replica))
                range.replicas << replica;
        }
        map.m_ranges << range;
    }
    std::sort(map.m_ranges.begin(), map.m_ranges.end(),
              [](const Range &a, const Range &b) { return a.first < b.first; });
    for (const Range &range : std::as_const(map.m_ranges)) {
        const qint16 index = qint16(map.indexOf(range.master));
        std::fill(map.m_owner.begin() + range.first, map.m_owner.begin() + range.last + 1, index);
    }
    return map;
}

ClusterSlotMap ClusterSlotMap::fetch(RedisConnection &connection, RedisError *error)
{
    const RedisResult r = connection.command({"CLUSTER", "SLOTS"});
    if (!r.ok()) {
        *error = r.error.code() == RedisError::Code::Server
                && r.error.message().contains(QLatin1String("cluster support disabled"))
            ? RedisError(
                RedisError::Code::Server,
                QStringLiteral("%1 is not a Redis Cluster node (cluster support disabled): connect to "
                               "it as a single server")
                    .arg(connection.endpoint()))
            : r.error;
        return {};
    }
    QString problem;
    ClusterSlotMap map = parse(r.reply, connection.settings().host, &problem);
    if (!problem.isEmpty()) {
        *error = {RedisError::Code::Protocol, problem};
        return {};
    }
    if (map.isEmpty()) {
        *error = {RedisError::Code::Server,
                  QStringLiteral("the cluster at %1 serves no slot yet (no master has slots assigned)")
                      .arg(connection.endpoint())};
        return {};
    }
    *error = {};
    return map;
}

int ClusterSlotMap::indexOf(const Node &master)
{
    const qsizetype i = m_masters.indexOf(master);
    if (i >= 0)
        return int(i);
    m_masters << master;
    return int(m_masters.size() - 1);
}

bool ClusterSlotMap::coversAllSlots() const
{
    return !m_owner.empty() && std::find(m_owner.begin(), m_owner.end(), qint16(-1)) == m_owner.end();
}

QList<ClusterSlotMap::Node> ClusterSlotMap::replicasOf(const Node &master) const
{
    QList<Node> out;
    for (const Range &range : m_ranges) {
        if (range.master == master) {
            for (const Node &replica : range.replicas) {
                if (!out.contains(replica))
                    out << replica;
            }
        }
    }
    return out;
}

const ClusterSlotMap::Node *ClusterSlotMap::masterOf(int slot) const
{
    if (slot < 0 || slot >= int(m_owner.size()) || m_owner[size_t(slot)] < 0)
        return nullptr;
    return &m_masters[m_owner[size_t(slot)]];
}

const ClusterSlotMap::Node *ClusterSlotMap::masterOfKey(const QByteArray &key) const
{
    return masterOf(ClusterSlot::of(key));
}

QList<QPair<int, int>> ClusterSlotMap::slotsOf(const Node &master) const
{
    QList<QPair<int, int>> out;
    const qsizetype index = m_masters.indexOf(master);
    if (index < 0)
        return out;
    int start = -1;
    for (int slot = 0; slot <= int(m_owner.size()); ++slot) {
        const bool mine = slot < int(m_owner.size()) && m_owner[size_t(slot)] == index;
        if (mine && start < 0)
            start = slot;
        if (!mine && start >= 0) {
            out << qMakePair(start, slot - 1);
            start = -1;
        }
    }
    return out;
}

void ClusterSlotMap::assign(int slot, const Node &master)
{
    if (slot < 0 || slot >= ClusterSlot::kSlots)
        return;
    if (m_owner.empty())
        m_owner.assign(ClusterSlot::kSlots, qint16(-1));
    m_owner[size_t(slot)] = qint16(indexOf(master));
}
