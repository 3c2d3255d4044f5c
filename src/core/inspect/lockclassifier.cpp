// LockClassifier: the wire formats of ALGORITHMS.md, read back. Every branch says why it decided.
#include "lockclassifier.h"

#include "inspectformat.h"
#include "locknames.h"
#include "locks/redissonnames.h"
#include "redis/bytes.h"

#include <QDateTime>
#include <QHash>
#include <QJsonDocument>
#include <QJsonObject>

#include <cctype>

namespace LockClassifier {

namespace {

const QString kRedisson = QStringLiteral("Redisson");

using LockNames::isDigits;
using LockNames::isUuid;

// <uuid>:<thread id>, the owner field Redisson writes; `write` is set for the ":write" form.
bool parseRedissonOwner(const QByteArray &field, QByteArray *client, QByteArray *thread, bool *write)
{
    QByteArray body = field;
    *write = false;
    if (body.endsWith(":write")) {
        *write = true;
        body.chop(6);
    }
    const qsizetype colon = body.lastIndexOf(':');
    if (colon != 36 || !isUuid(body.left(36)) || !isDigits(body.mid(37)))
        return false;
    *client = body.left(36);
    *thread = body.mid(37);
    return true;
}

QString quoted(const QByteArray &bytes)
{
    return QStringLiteral("'%1'").arg(Bytes::display(bytes, 60));
}

QString typeWithSize(const ScannedKey &k)
{
    const QString type = QString::fromLatin1(k.type);
    if (k.size < 0)
        return QStringLiteral("a %1").arg(type);
    const char *unit = k.type == "list" || k.type == "stream" ? "entries" : "members";
    return QStringLiteral("a %1 of %2 %3").arg(type, InspectFormat::count(k.size), QLatin1String(unit));
}

LockRecord base(const ScannedKey &k)
{
    LockRecord r;
    r.key = k.key;
    r.type = k.type;
    r.pttlMs = k.pttlMs;
    r.readAtMs = k.readAtMs;
    r.value = k.value;
    r.valueLength = k.valueLength;
    r.fields = k.fields;
    r.fieldCount = k.fieldCount;
    r.size = k.size;
    return r;
}

LockRecord unknown(LockRecord r, const QString &why)
{
    r.kind = LockKind::Unknown;
    r.library = QStringLiteral("unknown");
    r.reason = why;
    return r;
}

// The Redisson companions read with the hash (or with an orphan queue): queue, deadlines, token, channels.
void addRedissonCompanions(const ScannedKey &k, LockRecord &r)
{
    const ScannedKey::Redisson &x = k.redisson;
    if (!x.read)
        return;
    QHash<QByteArray, qint64> deadlineOf;
    for (const auto &d : x.deadlines)
        deadlineOf.insert(d.first, d.second);
    if (x.queueLength > 0) {
        r.queueLength = x.queueLength;
        for (const QByteArray &id : x.queue)
            r.queue.append({id, deadlineOf.value(id, -1)});
        r.companions.append({RedissonNames::fairQueue(k.key), LockCompanion::Role::Queue, "list", -3,
                             x.queueLength == 1 ? QStringLiteral("1 waiter queued")
                                                : QStringLiteral("%1 waiters queued").arg(x.queueLength)});
    } else if (x.queueLength == 0) {
        r.queueLength = 0;
    }
    if (!x.deadlines.isEmpty())
        r.companions.append({RedissonNames::fairTimeouts(k.key), LockCompanion::Role::Deadlines, "zset", -3,
                             x.deadlines.size() == 1
                                 ? QStringLiteral("1 waiter deadline")
                                 : QStringLiteral("%1 waiter deadlines").arg(x.deadlines.size())});
    if (x.tokenPresent) {
        bool ok = false;
        const qint64 token = x.token.toLongLong(&ok);
        r.hasFencingToken = ok;
        r.fencingToken = ok ? token : 0;
        if (!ok)
            r.problems
                << QStringLiteral("the fencing token counter holds %1, not an integer").arg(quoted(x.token));
        r.companions.append({RedissonNames::tokenCounter(k.key), LockCompanion::Role::Token, "string", -3,
                             ok ? QStringLiteral("fencing token %1").arg(token)
                                : QStringLiteral("token %1 (not a number)").arg(quoted(x.token))});
    }
}

LockRecord classifyHash(const ScannedKey &k)
{
    LockRecord r = base(k);
    QByteArray mode;
    bool modePresent = false;
    QList<LockOwner> holders;
    QList<QByteArray> unexpected;
    bool anyWriter = false;
    for (const auto &[field, value] : k.fields) {
        if (field == "mode") {
            modePresent = true;
            mode = value;
            continue;
        }
        QByteArray client, thread;
        bool write = false;
        if (!parseRedissonOwner(field, &client, &thread, &write)) {
            unexpected << field;
            continue;
        }
        LockOwner o;
        o.id = field;
        o.client = QString::fromLatin1(client);
        o.thread = QString::fromLatin1(thread);
        bool ok = false;
        const qint64 count = value.toLongLong(&ok);
        o.count = ok ? count : -1;
        if (!ok || count < 1)
            r.problems << QStringLiteral("the hold count of %1 is %2, not a positive integer")
                              .arg(quoted(field), quoted(value));
        anyWriter |= write;
        o.mode = write ? QStringLiteral("write") : QString();
        holders << o;
    }

    if (holders.isEmpty() && !modePresent) {
        if (!k.lockNamed)
            return {};
        QStringList sample;
        for (const auto &f : k.fields.mid(0, 3))
            sample << quoted(f.first);
        return unknown(r,
                       QStringLiteral("a hash whose fields (%1) are not Redisson's <client uuid>:<thread id> "
                                      "→ hold count")
                           .arg(sample.join(QStringLiteral(", "))));
    }
    for (const QByteArray &field : unexpected.mid(0, 3))
        r.problems << QStringLiteral("unexpected field %1 next to the lock's owners").arg(quoted(field));
    if (unexpected.size() > 3)
        r.problems << QStringLiteral("%1 more unexpected fields").arg(unexpected.size() - 3);

    r.library = kRedisson;
    addRedissonCompanions(k, r);
    if (modePresent || anyWriter) {
        r.kind = LockKind::RedissonRw;
        r.rwMode = QString::fromUtf8(mode);
        r.subscribers = k.redisson.rwChannelSubscribers;
        r.reason
            = QStringLiteral("a hash with a 'mode' field and <client uuid>:<thread id> holders: Redisson's "
                             "read-write lock");
        if (!modePresent)
            r.problems << QStringLiteral("a ':write' holder but no 'mode' field");
        else if (mode != "read" && mode != "write")
            r.problems << QStringLiteral("mode is %1, neither 'read' nor 'write'").arg(quoted(mode));
        else if (mode == "write" && !anyWriter)
            r.problems << QStringLiteral("mode is 'write' but there is no ':write' holder");
        else if (mode == "read" && anyWriter)
            r.problems << QStringLiteral("mode is 'read' but a ':write' holder is still there");
        if (holders.isEmpty())
            r.problems << QStringLiteral("mode is set but nobody holds it");
        for (LockOwner &o : holders) {
            if (o.mode.isEmpty())
                o.mode = QStringLiteral("read");
            if (o.mode == QLatin1String("read") && o.count > 0) {
                const qint64 shown = std::min<qint64>(o.count, 10);
                for (qint64 hold = 1; hold <= shown; ++hold)
                    r.companions.append(
                        {RedissonNames::rwTimeoutPrefix(k.key, o.id) + ':' + QByteArray::number(hold),
                         LockCompanion::Role::ReadTimeout, "string", -3,
                         QStringLiteral("read hold %1 of thread %2").arg(hold).arg(o.thread)});
            }
        }
    } else {
        r.subscribers = k.redisson.lockChannelSubscribers;
        const bool queued = r.queueLength > 0 || !k.redisson.deadlines.isEmpty();
        if (queued) {
            r.kind = LockKind::RedissonFair;
            r.reason = QStringLiteral("a <client uuid>:<thread id> → count hash with a waiter queue "
                                      "(redisson_lock_queue) and deadlines: Redisson's fair lock");
        } else if (k.redisson.tokenPresent) {
            r.kind = LockKind::RedissonFenced;
            r.reason = QStringLiteral("a <client uuid>:<thread id> → count hash with a token counter "
                                      "(redisson_lock_token): Redisson's fenced lock");
        } else {
            r.kind = LockKind::RedissonReentrant;
            r.reason = QStringLiteral("a hash of <client uuid>:<thread id> → hold count: Redisson's RLock "
                                      "(a fair lock with nobody queued looks the same)");
        }
        if (holders.size() > 1)
            r.problems << QStringLiteral("%1 owners in one lock, but a Redisson lock has a single owner")
                              .arg(holders.size());
    }
    r.owners = holders;
    if (k.fieldCount > k.fields.size())
        r.reason += QStringLiteral(" (only %1 of its %2 fields were read)")
                        .arg(InspectFormat::count(k.fields.size()), InspectFormat::count(k.fieldCount));
    return r;
}

// redisson ≤ 2.2.3: {"o":"<uuid>-<tid>","c":n}
bool classifyLegacy(const ScannedKey &k, LockRecord &r)
{
    if (!k.value.startsWith('{'))
        return false;
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(k.value, &error);
    if (error.error != QJsonParseError::NoError || !doc.isObject())
        return false;
    const QJsonObject o = doc.object();
    if (!o.contains(QLatin1String("o")) || !o.contains(QLatin1String("c")))
        return false;
    r.kind = LockKind::RedissonLegacy;
    r.library = QStringLiteral("Redisson ≤ 2.2.3");
    r.reason = QStringLiteral("a JSON string {\"o\": owner, \"c\": count}: the lock format of Redisson 2.2.3 "
                              "and earlier");
    LockOwner owner;
    const QString ownerText = o.value(QLatin1String("o")).toString();
    owner.id = ownerText.toUtf8();
    const qsizetype dash = ownerText.lastIndexOf(u'-');
    if (dash > 0 && isDigits(ownerText.mid(dash + 1).toLatin1())) {
        owner.client = ownerText.left(dash);
        owner.thread = ownerText.mid(dash + 1);
    } else {
        r.problems << QStringLiteral("owner %1 is not <client uuid>-<thread id>").arg(quoted(owner.id));
    }
    const QJsonValue c = o.value(QLatin1String("c"));
    if (c.isDouble() && c.toDouble() >= 1 && c.toDouble() == double(qint64(c.toDouble()))) {
        owner.count = qint64(c.toDouble());
    } else {
        r.problems << QStringLiteral("count %1 is not a positive integer")
                          .arg(QString::fromUtf8(QJsonDocument(QJsonObject {{QStringLiteral("c"), c}})
                                                     .toJson(QJsonDocument::Compact)));
    }
    r.owners = {owner};
    return true;
}

LockRecord classifyString(const ScannedKey &k)
{
    LockRecord r = base(k);
    const QByteArray &v = k.value;
    const qint64 length = k.valueLength >= 0 ? k.valueLength : v.size();
    if (length == 0) {
        if (!k.lockNamed)
            return {};
        r = unknown(r, QStringLiteral("an empty string: no owner is recorded in it"));
        r.problems << QStringLiteral("the value is empty, so no holder can prove it owns the lock");
        return r;
    }
    if (length > kMaxTokenBytes) {
        if (!k.lockNamed)
            return {};
        return unknown(r,
                       QStringLiteral("a string of %1 bytes: too long for an owner token")
                           .arg(InspectFormat::count(length)));
    }
    if (classifyLegacy(k, r))
        return r;

    LockOwner owner;
    owner.id = v;
    if (isLowerHex32(v)) {
        Uuid1 u;
        if (!k.sameValueKeys.isEmpty()) {
            r.kind = LockKind::Redlock;
            r.library = QStringLiteral("node-redlock (probable)");
            r.reason = QStringLiteral("the same 32-hex value is on %1 keys: one multi-resource lock, as "
                                      "node-redlock writes it")
                           .arg(k.sameValueKeys.size() + 1);
        } else if (parseUuid1Hex(v, &u)) {
            r.kind = LockKind::RedisPy;
            r.library = QStringLiteral("redis-py (probable)");
            r.reason = QStringLiteral("32 hex digits forming a version-1 uuid: redis-py's Lock token "
                                      "uuid1().hex");
            owner.client = u.node == QLatin1String("random") ? QString() : u.node;
            owner.note
                = QStringLiteral("uuid1 made %1 UTC on %2")
                      .arg(QDateTime::fromMSecsSinceEpoch(u.epochMs, Qt::UTC)
                               .toString(QStringLiteral("yyyy-MM-dd HH:mm:ss.zzz")),
                           u.node == QLatin1String("random") ? QStringLiteral("a host with a random node id")
                                                             : QStringLiteral("host ") + u.node);
        } else {
            if (!k.lockNamed && k.pttlMs < 0)
                return {}; // node-redlock always sets a TTL; 32 hex without one is more likely a digest
            r.kind = LockKind::Redlock;
            r.library = QStringLiteral("node-redlock (probable)");
            r.reason
                = QStringLiteral("32 random hex digits, as node-redlock writes (other libraries use 32 hex "
                                 "tokens too)");
        }
        r.owners = {owner};
        return r;
    }

    r.kind = LockKind::Token;
    r.library = QStringLiteral("SET NX (custom)");
    const qsizetype colon = v.lastIndexOf(':');
    if (isUuid(v)) {
        if (!k.lockNamed)
            return {};
        r.reason = QStringLiteral("a UUID owner value, as tutorial and Jedis SET NX locks write");
    } else if (colon == 36 && isUuid(v.left(36)) && isDigits(v.mid(37))) {
        if (!k.lockNamed)
            return {};
        owner.client = QString::fromLatin1(v.left(36));
        owner.thread = QString::fromLatin1(v.mid(37));
        r.reason = QStringLiteral("a <uuid>:<thread id> owner value in a plain string (SET NX)");
    } else if (v == "lockValue") {
        r.reason = QStringLiteral("the literal 'lockValue' from tutorial code: every client writes the same "
                                  "value, so no holder can tell its lock from another's");
    } else {
        if (!k.lockNamed)
            return {};
        if (isDigits(v))
            r.reason = QStringLiteral("a number: a thread id or snowflake id used as the owner (SET NX)");
        else if (Bytes::isPrintableUtf8(v))
            r.reason = QStringLiteral("a string under a lock name with an owner value in no known library's "
                                      "format");
        else
            r.reason = QStringLiteral("binary bytes under a lock name (a serialized object as the owner?)");
    }
    r.owners = {owner};
    return r;
}

} // namespace

bool looksLikeRedissonHash(const QList<QPair<QByteArray, QByteArray>> &fields)
{
    for (const auto &f : fields) {
        QByteArray client, thread;
        bool write = false;
        if (f.first == "mode" || parseRedissonOwner(f.first, &client, &thread, &write))
            return true;
    }
    return false;
}

bool isLowerHex32(const QByteArray &value)
{
    if (value.size() != 32)
        return false;
    for (char c : value) {
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
            return false;
    }
    return true;
}

bool parseUuid1Hex(const QByteArray &hex, Uuid1 *out)
{
    if (!isLowerHex32(hex) || hex.at(12) != '1')
        return false;
    const char variant = hex.at(16);
    if (variant != '8' && variant != '9' && variant != 'a' && variant != 'b')
        return false;
    bool ok = false;
    const quint64 timeLow = hex.mid(0, 8).toULongLong(&ok, 16);
    const quint64 timeMid = hex.mid(8, 4).toULongLong(&ok, 16);
    const quint64 timeHigh = hex.mid(13, 3).toULongLong(&ok, 16);
    // 100 ns intervals since 1582-10-15; 0x01B21DD213814000 of them had passed at the Unix epoch.
    const quint64 ticks = (timeHigh << 48) | (timeMid << 32) | timeLow;
    constexpr quint64 kEpochTicks = 0x01B21DD213814000ULL;
    if (ticks < kEpochTicks)
        return false;
    const qint64 epochMs = qint64((ticks - kEpochTicks) / 10000);
    constexpr qint64 k2000 = 946684800000LL;
    constexpr qint64 k2100 = 4102444800000LL;
    if (epochMs < k2000 || epochMs > k2100)
        return false;
    if (out) {
        out->epochMs = epochMs;
        const QByteArray node = hex.mid(20, 12);
        // Python sets the multicast bit when it had to invent a random node id.
        if (node.left(2).toUInt(&ok, 16) & 1) {
            out->node = QStringLiteral("random");
        } else {
            QStringList octets;
            for (int i = 0; i < 12; i += 2)
                octets << QString::fromLatin1(node.mid(i, 2));
            out->node = octets.join(u':');
        }
    }
    return true;
}

// Without a lock name only distinctive data can make a lock. Most keys of a big keyspace fail here, before
// any record is built, which keeps a full scan cheap.
bool mayBeLock(const ScannedKey &k)
{
    if (k.lockNamed || !k.exists())
        return true;
    if (k.type == "hash")
        return looksLikeRedissonHash(k.fields);
    if (k.type == "string")
        return k.value.startsWith('{') || isLowerHex32(k.value) || k.value == "lockValue";
    return false;
}

LockRecord classify(const ScannedKey &k)
{
    if (!mayBeLock(k))
        return {};
    if (!k.exists()) {
        // An orphan fair-lock queue: the lock is gone, its waiters are still queued.
        const ScannedKey::Redisson &x = k.redisson;
        if (!x.read || (x.queueLength <= 0 && x.deadlines.isEmpty()))
            return {};
        LockRecord r = base(k);
        r.type = "none";
        r.kind = LockKind::RedissonFair;
        r.library = kRedisson;
        r.reason = QStringLiteral(
            "only the fair-lock queue (redisson_lock_queue) remains: the lock itself is gone");
        r.subscribers = x.lockChannelSubscribers;
        addRedissonCompanions(k, r);
        if (r.queueLength < 0)
            r.queueLength = 0;
        return r;
    }
    LockRecord r;
    if (k.type == "hash")
        r = classifyHash(k);
    else if (k.type == "string")
        r = classifyString(k);
    else if (k.lockNamed)
        r = unknown(
            base(k),
            QStringLiteral("%1: lock libraries keep locks in strings or hashes").arg(typeWithSize(k)));
    if (r.isLock() && !k.readErrors.isEmpty())
        r.reason += QStringLiteral(" (some reads failed: %1)").arg(k.readErrors.join(QStringLiteral("; ")));
    if (r.isLock() && !k.sameValueKeys.isEmpty()) {
        r.groupKeys = k.sameValueKeys;
        for (const QByteArray &other : k.sameValueKeys)
            r.companions.append({other, LockCompanion::Role::Resource, "string", -3,
                                 QStringLiteral("another resource of this lock (same value)")});
    }
    return r;
}

} // namespace LockClassifier
