// HashFieldLocks: huey's task locks (fields of `huey.results.<name>`, checked against huey 3.5.4's
// storage.py and api.py) and fields named like locks in a hash that holds other data too.
#include "hashfieldlocks.h"

#include "locknames.h"

#include <QRegularExpression>

namespace HashFieldLocks {

namespace {

const QByteArray kHueyResults = QByteArrayLiteral("huey.results.");

// A number is a setting or a count ("lock_timeout" = 30), not a holder's mark.
bool isNumber(const QByteArray &value)
{
    bool ok = false;
    value.trimmed().toDouble(&ok);
    return ok;
}

bool isHueyLockField(const QByteArray &field, const QByteArray &name)
{
    // TaskLock._key = '%s.lock.%s' % (huey.name, lock name)
    const QByteArray prefix = name + ".lock.";
    return field.size() > prefix.size() && field.startsWith(prefix);
}

bool isNamedLockField(const QByteArray &field, const QByteArray &value, const QList<QByteArray> &lockNames)
{
    return LockNames::matchesLockName(lockNames, field) && !isNumber(value);
}

// The field's lock TTL: the field's own (HPTTL, Redis 7.4+) and the hash's, whichever ends first. -1 when
// neither has one, -3 when one of them could not be read (`why` says which), -2 when the field went away.
qint64 fieldTtl(const ScannedKey &hash, const QByteArray &field, QString *why)
{
    qint64 own = -3;
    if (hash.fieldTtlsAbsent) {
        own = -1; // the server predates field TTLs: none can be set
    } else if (const auto it = hash.fieldPttls.constFind(field); it != hash.fieldPttls.constEnd()) {
        own = *it;
    } else {
        *why = hash.fieldPttlError.isEmpty() ? QStringLiteral("the field's TTL (HPTTL) was not read")
                                             : hash.fieldPttlError;
    }
    if (own == -2)
        return -2;
    if (hash.pttlMs == -3 && why->isEmpty())
        *why = hash.pttlError.isEmpty() ? QStringLiteral("the hash's TTL (PTTL) was not read") : hash.pttlError;
    if (own >= 0 && hash.pttlMs >= 0)
        return std::min(own, hash.pttlMs);
    if (own >= 0 && hash.pttlMs == -1)
        return own;
    if (hash.pttlMs >= 0 && own == -1)
        return hash.pttlMs;
    if (own == -1 && hash.pttlMs == -1)
        return -1;
    return -3;
}

// The bound on what was read, said on every record of a hash read only in part.
void notePartial(LockRecord &r, const ScannedKey &hash)
{
    if (hash.fieldCount < 0 || hash.fieldCount <= hash.fields.size())
        return;
    r.setUnknown(QStringLiteral("fields"),
                 QStringLiteral("the hash has %1 fields and the first %2 were read (one HSCAN page, the "
                                "per-hash bound): lock fields among the other %3 are not listed")
                     .arg(hash.fieldCount)
                     .arg(hash.fields.size())
                     .arg(hash.fieldCount - hash.fields.size()),
                 false);
}

LockRecord base(const ScannedKey &hash, const QByteArray &field, const QByteArray &value)
{
    LockRecord r;
    r.key = hash.key;
    r.field = field;
    r.type = hash.type;
    r.value = value;
    r.valueLength = value.size();
    r.readAtMs = hash.readAtMs;
    r.nameSaysLock = true;
    QString why;
    r.pttlMs = fieldTtl(hash, field, &why);
    if (r.pttlMs == -3)
        r.setUnknown(QStringLiteral("pttl_ms"), why);
    notePartial(r, hash);
    return r;
}

LockRecord hueyLock(const ScannedKey &hash, const QByteArray &name, const QByteArray &field,
                    const QByteArray &value)
{
    LockRecord r = base(hash, field, value);
    const QString instance = QString::fromUtf8(name);
    const QString lock = QString::fromUtf8(field.mid(name.size() + 6));
    r.kind = LockKind::Mutex;
    r.format = QStringLiteral("huey-task-lock");
    r.formatName = QStringLiteral("huey task lock");
    r.library = QStringLiteral("huey (instance %1)").arg(instance);
    r.certain = true;
    r.holderEvidence = true; // the naming is huey's own: the library is known, so a lock without TTL is stuck
    r.reason = QStringLiteral("the hash is huey's results hash (huey.results.<name>, name %1) and the field is "
                              "huey's lock_task naming (<name>.lock.<lock>): the task lock \"%2\"")
                   .arg(instance, lock);
    r.ttlPolicy = QStringLiteral("optional"); // lock_task(ttl=None): HEXPIRE only when a ttl is given
    r.renewal.rule = RenewalPolicy::Rule::None;
    r.renewal.text = QStringLiteral("huey never renews a task lock: it holds until the task or the with block "
                                    "that took it ends (HDEL)");
    // TaskLock.acquire: put_if_empty(key, '1'): the pickle of the string '1', whoever holds it.
    r.setUnknown(QStringLiteral("owners"),
                 QStringLiteral("huey's lock value is a fixed marker (the pickle of '1'): it names no worker, "
                                "host or task"),
                 false);
    r.formatNote = QStringLiteral(
        "huey deletes the field when the task or the `with huey.lock_task(...)` block that took it ends; a "
        "worker killed inside (SIGKILL, OOM, a lost host) leaves it for good, and every later run of the task "
        "fails with TaskLockedException. A TTL exists only with lock_task(ttl=...) on Redis 7.4+ (HEXPIRE). "
        "huey offers huey.flush_locks(*names) and the consumer's -f/--flush-locks at start (with "
        "-L/--extra-locks a,b for more names): huey 3.5.4 deletes the locks that process has constructed "
        "(Huey._locks: every decorated task's lock at import, a context manager's only once it ran in that "
        "process) and the names given; a lock taken only in another process's context manager is not reached "
        "unless named. Releasing it here deletes this one field, never the shared hash.");
    return r;
}

LockRecord namedField(const ScannedKey &hash, const QByteArray &field, const QByteArray &value)
{
    LockRecord r = base(hash, field, value);
    r.kind = LockKind::Named;
    r.library = QStringLiteral("unknown library (a lock field in a shared hash?)");
    r.holderEvidence = false;
    r.reason = QStringLiteral("the field's name says lock and the hash holds other data too: possibly a lock "
                              "kept as a field; nothing in its value names a holder");
    return r;
}

} // namespace

QByteArray hueyName(const QByteArray &key)
{
    if (!key.startsWith(kHueyResults) || key.size() == kHueyResults.size())
        return {};
    const QByteArray name = key.mid(kHueyResults.size());
    // RedisStorage.clean_name keeps [A-Za-z0-9_] only.
    static const QRegularExpression clean(QStringLiteral("^[A-Za-z0-9_]+$"));
    return clean.match(QString::fromLatin1(name)).hasMatch() ? name : QByteArray();
}

QList<QByteArray> lockFields(const ScannedKey &hash, const QList<QByteArray> &lockNames)
{
    QList<QByteArray> out;
    if (hash.type != "hash" || hash.fields.isEmpty())
        return out;
    const QByteArray huey = hueyName(hash.key);
    if (!huey.isEmpty()) {
        for (const auto &[field, value] : hash.fields) {
            if (isHueyLockField(field, huey))
                out << field;
        }
        return out;
    }
    bool otherData = false;
    for (const auto &[field, value] : hash.fields) {
        if (isNamedLockField(field, value, lockNames))
            out << field;
        else
            otherData = true;
    }
    if (!otherData)
        out.clear(); // a hash of lock-named fields only is a lock's own hash or a registry, read as a key
    return out;
}

QList<LockRecord> records(const ScannedKey &hash, const QList<QByteArray> &lockNames)
{
    QList<LockRecord> out;
    const QList<QByteArray> fields = lockFields(hash, lockNames);
    const QByteArray huey = hueyName(hash.key);
    for (const auto &[field, value] : hash.fields) {
        if (!fields.contains(field))
            continue;
        LockRecord r = huey.isEmpty() ? namedField(hash, field, value) : hueyLock(hash, huey, field, value);
        if (r.pttlMs != -2)
            out << r;
    }
    if (out.isEmpty() && !huey.isEmpty() && hash.fieldCount > hash.fields.size()) {
        // huey's results hash may hold locks among the fields not read: say so rather than show it clean.
        LockRecord r;
        r.key = hash.key;
        r.type = hash.type;
        r.kind = LockKind::Named;
        r.library = QStringLiteral("huey (instance %1)").arg(QString::fromUtf8(huey));
        r.holderEvidence = false;
        r.fieldCount = hash.fieldCount;
        r.readAtMs = hash.readAtMs;
        r.pttlMs = hash.pttlMs;
        r.reason = QStringLiteral("huey's results hash, where huey keeps its task locks as fields; none among "
                                  "the fields read");
        notePartial(r, hash);
        out << r;
    }
    return out;
}

} // namespace HashFieldLocks
