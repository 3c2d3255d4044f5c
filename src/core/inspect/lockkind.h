// The kinds of lock the inspector recognises, with their stable names (used in JSON and filters).
#pragma once

#include <QList>
#include <QMetaType>
#include <QString>

enum class LockKind {
    None, // not a lock
    RedissonReentrant,
    RedissonFair,
    RedissonRw,
    RedissonFenced,
    RedissonLegacy,
    RedisPy,
    Redlock,
    Token,
    Unknown,
};

namespace LockKinds {

// "redisson-reentrant", "redis-py", …; "none" for LockKind::None.
QString name(LockKind kind);
// Inverse of name(); false when the text names no kind.
bool fromName(const QString &text, LockKind *kind);
// Every kind a lock can have (without None), in the order the GUI lists them.
QList<LockKind> all();
// One line for tooltips and the kind filter: how this kind is recognised.
QString description(LockKind kind);
// True for the Redisson hash kinds, whose owners renew with a watchdog and wait on a pub/sub channel.
bool isRedissonHash(LockKind kind);

} // namespace LockKinds

Q_DECLARE_METATYPE(LockKind)
