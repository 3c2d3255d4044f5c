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

// Whether `word` (ASCII letters) is one of the name parts of `key`, ignoring case. Name parts are runs of
// letters, split at anything else and where a lower-case letter meets an upper-case one:
// "order:lock:42", "SendInvoiceLock" and "lock_v2" have the part "lock"; "blocklist", "clock:skew",
// "user:1001:lockout", "feature:unlock-premium" and "lockers" do not.
bool hasNamePart(const QByteArray &key, const QByteArray &word);
// True for an entry of a lock-name list that is a word (matched as a name part), false for a glob.
bool isNameWord(const QByteArray &entry);
// A lock-name list: words match name parts, globs match the whole key.
bool matchesLockName(const QList<QByteArray> &entries, const QByteArray &key);

// 8-4-4-4-12 hex digits with hyphens: a Redisson client id.
bool isUuid(const QByteArray &text);
// 1 to 20 decimal digits: a thread id, a hold number.
bool isDigits(const QByteArray &text);

} // namespace LockNames
