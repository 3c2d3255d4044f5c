// What a lock is, in the words users recognise (mutex, reentrant, fair, read-write, semaphore, job lock,
// synchronizer), independent of which library wrote it (that is LockRecord::library and ::format). Kinds
// have stable names, used in JSON and filters.
#pragma once

#include <QList>
#include <QMetaType>
#include <QString>

enum class LockKind {
    None, // not a lock
    Mutex, // one owner token, no hold count (SET NX locks of every library)
    Reentrant, // one owner with a hold count (Redisson RLock)
    Fair, // reentrant with a FIFO queue of waiters (Redisson fair lock)
    ReadWrite, // readers and/or one writer (Redisson RReadWriteLock, Symfony shared locks)
    Semaphore, // up to N holders, each listed (redis-semaphore, Symfony Semaphore, Redisson expirable)
    JobLock, // a queue job's lock held by the worker processing it (BullMQ, Bull, unique-job locks)
    Synchronizer, // a counter without holder identities (Redisson RSemaphore permits, RCountDownLatch)
    Named, // named like a lock (or matched the user's pattern) but its data has no lock's shape: no alarms
};

namespace LockKinds {

// "mutex", "job-lock", …; "none" for LockKind::None.
QString name(LockKind kind);
// For people: "mutex", "job lock", "named like a lock".
QString label(LockKind kind);
// Inverse of name(); false when the text names no kind.
bool fromName(const QString &text, LockKind *kind);
// Every kind a listed key can have (without None), in the order the GUI lists them.
QList<LockKind> all();
// One line for tooltips and the kind filter: what this kind is.
QString description(LockKind kind);
// Kinds that are locks with holders (everything but Synchronizer and Named): only these get alarms about
// being stuck.
bool hasHolders(LockKind kind);

} // namespace LockKinds

Q_DECLARE_METATYPE(LockKind)
