// ClusterSubscribers: one PUBSUB NUMSUB per other master with every channel of the page, its counts added to
// the keys that were counted on a different node.
#include "clustersubscribers.h"

#include "redis/redisconnection.h"
#include "scanpacer.h"

#include <QElapsedTimer>

namespace ClusterSubscribers {

void addOtherMasters(QList<ScannedKey> &keys, const QList<ClusterSlotMap::Node> &masters,
                     const ConnectionTo &connectionTo, ScanPacer *pacer)
{
    if (masters.size() < 2)
        return;
    for (const ClusterSlotMap::Node &master : masters) {
        const QString endpoint = master.endpoint();
        QList<qsizetype> asked; // keys whose channels this master's NUMSUB counts
        RedisCommand numsub {"PUBSUB", "NUMSUB"};
        for (qsizetype i = 0; i < keys.size(); ++i) {
            const ScannedKey &k = keys.at(i);
            if (k.channelSubscribers.isEmpty() || k.channelsNodes.contains(endpoint))
                continue;
            asked << i;
            numsub += k.channels;
        }
        if (asked.isEmpty())
            continue;
        RedisError error;
        RedisConnection *c = connectionTo(master, &error);
        RedisResult r;
        if (c) {
            if (pacer && !pacer->beforeChunk(1)) {
                error = {RedisError::Code::Interrupted, QStringLiteral("Interrupted")};
            } else {
                QElapsedTimer roundTrip;
                roundTrip.start();
                r = c->command(numsub);
                if (pacer)
                    pacer->afterChunk(roundTrip.nsecsElapsed() / 1000);
                error = r.error;
            }
        }
        if (error || !r.reply.isArray()) {
            const QString why = QStringLiteral("classic subscribers on %1 not counted: %2")
                                    .arg(endpoint, error ? error.message() : r.reply.toDisplayString());
            for (qsizetype i : std::as_const(asked)) {
                QString &incomplete = keys[i].channelsIncomplete;
                incomplete = incomplete.isEmpty() ? why : incomplete + QStringLiteral("; ") + why;
            }
            continue;
        }
        // [channel, count, channel, count, …] in the order asked.
        const auto &flat = r.reply.elements();
        qsizetype at = 1;
        for (qsizetype i : std::as_const(asked)) {
            ScannedKey &k = keys[i];
            for (qsizetype ch = 0; ch < k.channels.size(); ++ch, at += 2) {
                if (at < flat.size() && ch < k.channelSubscribers.size())
                    k.channelSubscribers[ch] += std::max<qint64>(0, flat.at(at).toInteger());
            }
            k.channelsNodes << endpoint;
        }
    }
}

} // namespace ClusterSubscribers
