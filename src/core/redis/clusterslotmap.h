// Which master of a Redis Cluster serves each of the 16384 slots (and its replicas), as CLUSTER SLOTS says.
// A plain value: ClusterConnection keeps one and corrects it on MOVED; the inspector walks its masters.
#pragma once

#include "rediserror.h"

#include <QByteArray>
#include <QList>
#include <QString>

#include <vector>

class RedisConnection;
class RedisReply;

class ClusterSlotMap
{
public:
    struct Node
    {
        QString host;
        int port = 0;
        QByteArray id; // the node id (40 hex characters); empty when the server did not say
        QString endpoint() const; // "127.0.0.1:7000"
        bool operator==(const Node &other) const { return host == other.host && port == other.port; }
    };

    struct Range
    {
        int first = 0;
        int last = 0;
        Node master;
        QList<Node> replicas;
    };

    // Reads a CLUSTER SLOTS reply. An empty host in it means "the node you asked": `askedHost`.
    static ClusterSlotMap parse(const RedisReply &reply, const QString &askedHost, QString *error);
    // Asks `connection` (any node of the cluster). Errors are the server's or a malformed reply.
    static ClusterSlotMap fetch(RedisConnection &connection, RedisError *error);

    bool isEmpty() const { return m_masters.isEmpty(); }
    // True when every slot has a master (the cluster can serve every key).
    bool coversAllSlots() const;
    const QList<Range> &ranges() const { return m_ranges; }
    // Each master once, ordered by the first slot it serves. Replicas are never in this list.
    const QList<Node> &masters() const { return m_masters; }
    QList<Node> replicasOf(const Node &master) const;
    // The master serving `slot`, or nullptr when no node serves it.
    const Node *masterOf(int slot) const;
    const Node *masterOfKey(const QByteArray &key) const;
    // Slots served by `master`, as CLUSTER SLOTS ranges.
    QList<QPair<int, int>> slotsOf(const Node &master) const;
    // A MOVED reply says `slot` is now served by `master`: remember it until the next full refresh.
    void assign(int slot, const Node &master);

private:
    int indexOf(const Node &master);

    QList<Range> m_ranges;
    QList<Node> m_masters;
    std::vector<qint16> m_owner; // slot → index in m_masters, -1 when unserved
};
