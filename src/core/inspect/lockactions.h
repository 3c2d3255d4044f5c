// The inspector's only writes, each built from the exact snapshot the user saw and sent as one atomic
// EVAL that first checks the lock is still exactly that (compare-and-set), else changes nothing.
#pragma once

#include "lockrecord.h"
#include "redis/redisresult.h"

#include <QList>
#include <QString>

using RedisCommand = QList<QByteArray>;

struct LockAction
{
    enum class Type { ForceUnlock, ExtendTtl, RemoveOrphanQueue, EnableNotifications };

    Type type = Type::ForceUnlock;
    QByteArray key; // the lock acted on
    QByteArray field; // a lock kept as one field of a shared hash: that field (only it is touched)
    QString title; // "Force unlock lock:order:1"
    QString explanation; // what it checks and what it changes, for the confirmation dialog
    RedisCommand command; // the one command sent
    QString unavailable; // empty when the action can be sent; else why not

    bool isAvailable() const { return unavailable.isEmpty(); }
    // The command exactly as sent, quoted the way redis-cli reads it.
    QString commandText() const;
};

struct LockActionOutcome
{
    bool done = false;
    QString message; // one sentence for the status bar or a message box
};

namespace LockActions {

// Deletes the lock if it still has exactly the owners (and counts) shown; wakes Redisson waiters. A lock kept
// as a field of a shared hash (huey's): HDEL of that field only, if it still holds the bytes shown.
LockAction forceUnlock(const LockRecord &snapshot);
// Sets the TTL to `ttlMs` if the lock still has exactly the owners shown.
LockAction extendTtl(const LockRecord &snapshot, qint64 ttlMs);
// Deletes a fair lock's queue and deadlines if the lock is still gone (or they are still all stale).
LockAction removeOrphanQueue(const LockRecord &snapshot);
// CONFIG SET notify-keyspace-events with what the live view needs added to `currentFlags`.
LockAction enableNotifications(const QString &currentFlags);

LockActionOutcome interpret(const LockAction &action, const RedisResult &result);

// Quotes one argument the way redis-cli reads it back ("…" with \xNN, \n, \" escapes).
QString quote(const QByteArray &argument);
QString render(const RedisCommand &command);

} // namespace LockActions
