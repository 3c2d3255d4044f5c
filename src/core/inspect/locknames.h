// Key and channel names: Redisson's companions of a lock name (both directions) and Redis glob matching.
#pragma once

#include <QByteArray>
#include <QList>

namespace LockNames {

// Redisson puts the lock name in braces so companions share its cluster slot, unless it already has one.
QByteArray prefixName(const QByteArray &prefix, const QByteArray &lockName); // "prefix:{N}" or "prefix:N"
QByteArray suffixName(const QByteArray &lockName, const QByteArray &suffix); // "{N}:suffix" or "N:suffix"

QByteArray queueKey(const QByteArray &lockName); // redisson_lock_queue:{N}
QByteArray deadlinesKey(const QByteArray &lockName); // redisson_lock_timeout:{N}
QByteArray tokenKey(const QByteArray &lockName); // redisson_lock_token:{N}
QByteArray lockChannel(const QByteArray &lockName); // redisson_lock__channel:{N}
QByteArray rwChannel(const QByteArray &lockName); // redisson_rwlock:{N}
// {N}:<uuid>:<tid>:rwlock_timeout:<k>, one per read hold.
QByteArray readTimeoutKey(const QByteArray &lockName, const QByteArray &owner, qint64 hold);

enum class CompanionRole { None, Queue, Deadlines, Token, ReadTimeout, UnlockLatch };

struct Companion
{
    CompanionRole role = CompanionRole::None;
    QByteArray lockName; // the lock the companion belongs to
    QByteArray owner; // ReadTimeout: <uuid>:<tid>
};

// Whether `key` is one of Redisson's companion keys, and of which lock. For "prefix:{X}" the lock is
// taken to be X (a lock literally named "{X}" would write the same companion name; X is far more common).
Companion companionOf(const QByteArray &key);

// Redis glob matching (as SCAN MATCH does): * ? [abc] [^a] [a-z] and \ escapes; binary safe.
bool globMatch(const QByteArray &pattern, const QByteArray &text, bool caseInsensitive = false);
bool matchesAny(const QList<QByteArray> &patterns, const QByteArray &text);

// 8-4-4-4-12 hex digits with hyphens: a Redisson client id.
bool isUuid(const QByteArray &text);
// 1 to 20 decimal digits: a thread id, a hold number.
bool isDigits(const QByteArray &text);

} // namespace LockNames
