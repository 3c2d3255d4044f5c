// Classic pub/sub waiters on a Redis Cluster: a PUBLISH reaches every node, so a client waiting on a lock's
// channel may have subscribed on any master, and PUBSUB NUMSUB on one node counts only its own subscribers.
// Sharded subscribers (SSUBSCRIBE) are different: only the node owning the channel's slot has them, and the
// prober already counted them there.
#pragma once

#include "redis/clusterslotmap.h"
#include "redis/rediserror.h"
#include "scannedkey.h"

#include <QList>

#include <functional>

class RedisConnection;
class ScanPacer;

namespace ClusterSubscribers {

// An open connection to `node`, or nullptr with `error` set.
using ConnectionTo = std::function<RedisConnection *(const ClusterSlotMap::Node &node, RedisError *error)>;

// Adds each other master's PUBSUB NUMSUB of the keys' channels to their classic counts (one command per
// master for all of `keys`), and names the masters counted. A master that cannot be asked leaves the count a
// floor: ScannedKey::channelsIncomplete says which and why. Keys whose channels were not counted are left as
// they are. `pacer` (may be null) paces the commands as the scan's own.
void addOtherMasters(QList<ScannedKey> &keys, const QList<ClusterSlotMap::Node> &masters,
                     const ConnectionTo &connectionTo, ScanPacer *pacer);

} // namespace ClusterSubscribers
