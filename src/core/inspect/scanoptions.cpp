// ScanOptions: defaults and the one rule that decides which keys count as named like a lock.
#include "scanoptions.h"

#include "locknames.h"

QList<QByteArray> ScanOptions::defaultLockNamePatterns()
{
    // Words, matched as whole name parts: "*lock*" listed blocklist:…, clock:skew:…, user:1001:lockout.
    // Leader elections and leases are locks by another name. ("sem" is left out: it names search-engine
    // marketing and semesters more often than semaphores.)
    return {"lock",     "locks",  "locked",     "locking",  "lck",       "redlock",   "mutex",
            "mutexes",  "mtx",    "semaphore",  "semaphores", "sema",    "leader",    "leaders",
            "leadership", "election", "elections", "elect",   "lease",     "leases"};
}

bool ScanOptions::scansAllKeys() const
{
    return patterns.contains(QByteArrayLiteral("*"));
}

bool ScanOptions::isLockNamed(const QByteArray &key) const
{
    return LockNames::matchesLockName(lockNamePatterns, key);
}

bool ScanOptions::covers(const QByteArray &key, bool *explicitPattern) const
{
    bool found = false;
    bool asked = false;
    for (const QByteArray &p : patterns) {
        if (LockNames::globMatch(p, key)) {
            found = true;
            asked = asked || p != "*"; // the user asked for exactly these keys
        }
    }
    if (explicitPattern)
        *explicitPattern = asked;
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
        return QStringLiteral("the SCAN count must be a whole number from 1 to 100000 (default %1)")
            .arg(kDefaultCount);
    if (probeConnections < 0 || probeConnections > 8)
        return QStringLiteral("probe connections must be from 0 to 8");
    if (maxValueBytes < 64 || maxHashFields < 1 || maxQueue < 1)
        return QStringLiteral("read bounds are too small");
    if (ttlThresholdMs < 0)
        return QStringLiteral("thresholds cannot be negative");
    return {};
}
