// Reading key names back: which lock a Redisson companion key belongs to (RedissonNames builds them the
// other way), and Redis glob matching for SCAN patterns.
#pragma once

#include <QByteArray>
#include <QList>

namespace LockNames {

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
