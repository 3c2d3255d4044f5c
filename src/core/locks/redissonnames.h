// The names Redisson 3.x gives to a lock's companions — keys and channels — built exactly as Redisson's
// prefixName/suffixName do, so LockScope's locks and a real Redisson client meet on the same keys. The
// inspector uses the same functions to recognise them.
//
// A companion puts the lock name N in braces so it lands in N's cluster slot: "prefix:{N}". When N already
// contains "{", Redisson writes "prefix:N" and relies on the user's own hash tag.
#pragma once

#include <QByteArray>

namespace RedissonNames {

QByteArray prefixName(const QByteArray &prefix, const QByteArray &name); // "prefix:{N}" or "prefix:N"
QByteArray suffixName(const QByteArray &name, const QByteArray &suffix); // "{N}:suffix" or "N:suffix"

// "<client uuid>:<thread id>"
QByteArray ownerField(const QByteArray &clientId, qint64 threadId);
// The writer's field of a read-write lock: "<client uuid>:<thread id>:write"
QByteArray writeField(const QByteArray &ownerField);

QByteArray lockChannel(const QByteArray &name); // redisson_lock__channel:{N}
QByteArray fairQueue(const QByteArray &name); // redisson_lock_queue:{N}
QByteArray fairTimeouts(const QByteArray &name); // redisson_lock_timeout:{N}
QByteArray fairWaiterChannel(const QByteArray &name, const QByteArray &ownerField); // ...channel:{N}:<owner>
QByteArray tokenCounter(const QByteArray &name); // redisson_lock_token:{N}
QByteArray unlockLatch(const QByteArray &name, const QByteArray &requestId); // redisson_unlock_latch:{N}:<id>
QByteArray rwChannel(const QByteArray &name); // redisson_rwlock:{N}
QByteArray rwTimeoutPrefix(const QByteArray &name,
                           const QByteArray &ownerField); // {N}:<owner>:rwlock_timeout
QByteArray rwKeyPrefix(const QByteArray &name); // {N} — what comes before ":<owner>:rwlock_timeout"

// Messages Redisson publishes on release.
constexpr const char *unlockMessage = "0"; // wakes one waiting thread per client
constexpr const char *readUnlockMessage = "1"; // wakes every waiting thread (write lock released)

// Redisson's defaults.
constexpr qint64 watchdogTimeoutMs = 30000;
constexpr qint64 fairWaitMs = 300000;

} // namespace RedissonNames
