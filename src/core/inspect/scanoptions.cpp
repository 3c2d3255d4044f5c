// ScanOptions: defaults and the one rule that decides which keys count as named like a lock.
#include "scanoptions.h"

#include "locknames.h"

QList<QByteArray> ScanOptions::defaultLockNamePatterns()
{
    return {"*lock*", "*Lock*", "*LOCK*", "*mutex*", "*Mutex*", "*MUTEX*"};
}

bool ScanOptions::scansAllKeys() const
{
    return patterns.contains(QByteArrayLiteral("*"));
}

bool ScanOptions::isLockNamed(const QByteArray &key, const QByteArray &pattern) const
{
    if (pattern != "*")
        return true; // the user asked for exactly these keys
    return LockNames::matchesAny(lockNamePatterns, key);
}

bool ScanOptions::covers(const QByteArray &key, bool *lockNamed) const
{
    bool found = false;
    bool named = false;
    for (const QByteArray &p : patterns) {
        if (LockNames::globMatch(p, key)) {
            found = true;
            named = named || isLockNamed(key, p);
        }
    }
    if (lockNamed)
        *lockNamed = named;
    return found;
}

QString ScanOptions::validate() const
{
    if (patterns.isEmpty())
        return QStringLiteral("give at least one key pattern (\"*\" scans every key)");
    for (const QByteArray &p : patterns) {
        if (p.isEmpty())
            return QStringLiteral("an empty key pattern matches nothing; use \"*\" for every key");
    }
    if (count < 1 || count > 100000)
        return QStringLiteral("the SCAN count must be a whole number from 1 to 100000 (default 200)");
    if (probeConnections < 0 || probeConnections > 8)
        return QStringLiteral("probe connections must be from 0 to 8");
    if (maxValueBytes < 64 || maxHashFields < 1 || maxQueue < 1)
        return QStringLiteral("read bounds are too small");
    if (ttlThresholdMs < 0 || watchdogLeaseMs < 0)
        return QStringLiteral("thresholds cannot be negative");
    return {};
}
