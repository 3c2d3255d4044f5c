// LockKinds: names and descriptions of the lock kinds.
#include "lockkind.h"

namespace LockKinds {

QString name(LockKind kind)
{
    switch (kind) {
    case LockKind::None:
        return QStringLiteral("none");
    case LockKind::Mutex:
        return QStringLiteral("mutex");
    case LockKind::Reentrant:
        return QStringLiteral("reentrant");
    case LockKind::Fair:
        return QStringLiteral("fair");
    case LockKind::ReadWrite:
        return QStringLiteral("read-write");
    case LockKind::Semaphore:
        return QStringLiteral("semaphore");
    case LockKind::JobLock:
        return QStringLiteral("job-lock");
    case LockKind::Synchronizer:
        return QStringLiteral("synchronizer");
    case LockKind::Named:
        return QStringLiteral("named");
    }
    return QStringLiteral("named");
}

QString label(LockKind kind)
{
    switch (kind) {
    case LockKind::JobLock:
        return QStringLiteral("job lock");
    case LockKind::Named:
        return QStringLiteral("named like a lock");
    default:
        return name(kind);
    }
}

bool fromName(const QString &text, LockKind *kind)
{
    for (LockKind k : all()) {
        if (name(k) == text) {
            *kind = k;
            return true;
        }
    }
    return false;
}

QList<LockKind> all()
{
    return {LockKind::Mutex,     LockKind::Reentrant, LockKind::Fair,         LockKind::ReadWrite,
            LockKind::Semaphore, LockKind::JobLock,   LockKind::Synchronizer, LockKind::Named};
}

QString description(LockKind kind)
{
    switch (kind) {
    case LockKind::None:
        return QStringLiteral("not a lock");
    case LockKind::Mutex:
        return QStringLiteral("an exclusive lock: one owner token (SET NX locks of most libraries)");
    case LockKind::Reentrant:
        return QStringLiteral(
            "an exclusive lock its owner may take again: owner → hold count (Redisson RLock)");
    case LockKind::Fair:
        return QStringLiteral("a reentrant lock with a first-come-first-served queue of waiters");
    case LockKind::ReadWrite:
        return QStringLiteral("many readers or one writer");
    case LockKind::Semaphore:
        return QStringLiteral("up to N holders at once, each listed with when it took its permit");
    case LockKind::JobLock:
        return QStringLiteral(
            "a queue job's lock, held by the worker processing the job and renewed while it runs");
    case LockKind::Synchronizer:
        return QStringLiteral("a counter of permits or a count-down latch: no holder is recorded");
    case LockKind::Named:
        return QStringLiteral(
            "named like a lock (or matched your pattern), but its data has no lock's shape: "
            "shown, never alarmed on");
    }
    return {};
}

bool hasHolders(LockKind kind)
{
    return kind != LockKind::None && kind != LockKind::Synchronizer && kind != LockKind::Named;
}

} // namespace LockKinds
