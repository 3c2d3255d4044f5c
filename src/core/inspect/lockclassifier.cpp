// LockClassifier: a format match turned into a record. Every branch says why it decided, and anything the
// scan could not read becomes an unknown with its reason, never a default.
#include "lockclassifier.h"

#include "inspectformat.h"
#include "locknames.h"
#include "ownerevidence.h"
#include "redis/bytes.h"

#include <QDateTime>
#include <QJsonDocument>
#include <QJsonObject>

#include <cmath>

namespace LockClassifier {

namespace {

// generic.json's formats name no library ("unknown library", "unknown library (possible lease)").
bool namesNoLibrary(const LockFormat &f)
{
    return f.library.startsWith(QLatin1String("unknown"));
}

QString quoted(const QByteArray &bytes)
{
    return QStringLiteral("'%1'").arg(Bytes::display(bytes, 60));
}

QString typeWithSize(const ScannedKey &k)
{
    const QString type = QString::fromLatin1(k.type);
    if (k.type == "string")
        return k.valueLength > 0 ? QStringLiteral("a string of %1 bytes (%2)")
                                       .arg(InspectFormat::count(k.valueLength), quoted(k.value.left(40)))
                                 : QStringLiteral("an empty string");
    qint64 n = k.size;
    if (k.type == "hash")
        n = k.fieldCount >= 0 ? k.fieldCount : k.fields.size();
    if (n < 0)
        return QStringLiteral("a %1").arg(type);
    const char *unit = k.type == "list" || k.type == "stream" ? "entries"
        : k.type == "hash"                                    ? "fields"
                                                              : "members";
    return QStringLiteral("a %1 of %2 %3").arg(type, InspectFormat::count(n), QLatin1String(unit));
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
    r.members = k.members;
    r.size = k.size;
    r.nameSaysLock = k.lockNamed || k.explicitPattern;
    if (!k.pttlError.isEmpty()) {
        r.pttlMs = LockRecord::kPttlUnknown;
        r.setUnknown(QStringLiteral("pttl_ms"), k.pttlError);
    }
    for (const QString &e : k.readErrors)
        r.setUnknown(QStringLiteral("data"), e);
    return r;
}

qint64 epochMs(double value, LockFormat::Time time)
{
    // "+inf" (RQ's score for a job without a timeout) and NaN are no time.
    if (!std::isfinite(value))
        return -1;
    switch (time) {
    case LockFormat::Time::ExpiresMs:
    case LockFormat::Time::AcquiredMs:
        return qint64(value);
    case LockFormat::Time::ExpiresS:
    case LockFormat::Time::AcquiredS:
        return qint64(std::llround(value * 1000.0));
    case LockFormat::Time::None:
        break;
    }
    return -1;
}

void setTime(LockOwner &o, double value, LockFormat::Time time)
{
    const qint64 ms = epochMs(value, time);
    if (time == LockFormat::Time::ExpiresMs || time == LockFormat::Time::ExpiresS)
        o.untilEpochMs = ms;
    else if (time != LockFormat::Time::None)
        o.sinceEpochMs = ms;
}

// Named groups of one holder's own pattern match, on top of the key's.
QHash<QString, QByteArray> holderGroups(const QRegularExpression &re, const QByteArray &text,
                                        const QHash<QString, QByteArray> &keyGroups)
{
    QHash<QString, QByteArray> g = keyGroups;
    const QRegularExpressionMatch m = re.match(QString::fromUtf8(text));
    for (const QString &name : re.namedCaptureGroups()) {
        if (!name.isEmpty() && m.hasCaptured(name))
            g.insert(name, m.captured(name).toUtf8());
    }
    g.insert(QStringLiteral("holder"), text);
    return g;
}

void fillOwner(LockOwner &o, const LockFormat &f, const QHash<QString, QByteArray> &g)
{
    o.display = QString::fromUtf8(f.ownerDisplay.expand(g));
    o.client = QString::fromUtf8(f.ownerClient.expand(g));
    o.thread = QString::fromUtf8(f.ownerThread.expand(g));
}

// redis-py's uuid1 token: when and where it was made.
void decodeUuid1(LockOwner &o)
{
    Uuid1 u;
    if (!parseUuid1Hex(o.id, &u))
        return;
    o.client = u.node == QLatin1String("random") ? QString() : u.node;
    if (o.display.isEmpty())
        o.display = QString::fromLatin1(o.id.left(12)) + QStringLiteral("… (uuid1)");
    o.sinceEpochMs = u.epochMs;
    o.note = QStringLiteral("token made %1 UTC on %2")
                 .arg(QDateTime::fromMSecsSinceEpoch(u.epochMs, Qt::UTC)
                          .toString(QStringLiteral("yyyy-MM-dd HH:mm:ss.zzz")),
                      u.node == QLatin1String("random") ? QStringLiteral("a host with a random node id")
                                                        : QStringLiteral("host ") + u.node);
}

// Redisson ≤ 2.2.3: {"o":"<uuid>-<tid>","c":n}
void decodeJsonOwner(LockRecord &r, LockOwner &o)
{
    const QJsonObject json = QJsonDocument::fromJson(o.id).object();
    const QString ownerText = json.value(QLatin1String("o")).toString();
    const qsizetype dash = ownerText.lastIndexOf(u'-');
    if (dash > 0 && LockNames::isDigits(ownerText.mid(dash + 1).toLatin1())) {
        o.client = ownerText.left(dash);
        o.thread = ownerText.mid(dash + 1);
    } else {
        r.problems
            << QStringLiteral("owner %1 is not <client uuid>-<thread id>").arg(quoted(ownerText.toUtf8()));
    }
    const QJsonValue c = json.value(QLatin1String("c"));
    if (c.isDouble() && c.toDouble() >= 1 && c.toDouble() == double(qint64(c.toDouble())))
        o.count = qint64(c.toDouble());
    else
        r.problems << QStringLiteral("count %1 is not a positive integer")
                          .arg(QString::fromUtf8(QJsonDocument(QJsonObject {{QStringLiteral("c"), c}})
                                                     .toJson(QJsonDocument::Compact)));
}

void readOwners(LockRecord &r, const LockFormat &f, const ScannedKey &k, const QHash<QString, QByteArray> &g)
{
    switch (f.shape) {
    case LockFormat::Shape::Token: {
        LockOwner o;
        o.id = k.value;
        fillOwner(o, f, g);
        // Raw random bytes are shown as hex, the way their libraries print them.
        if (o.display.isEmpty() && OwnerEvidence::isRandomBytes(k.value))
            o.display = QString::fromLatin1(k.value.toHex());
        // Shown, since it is all there is, but said to be no evidence: a word may name a holder or be a flag.
        if (f.valueIs == QLatin1String("no-owner"))
            o.note = OwnerEvidence::isOwnerLike(k.value)
                ? QStringLiteral("looks like an owner id, but no format reads it as one")
                : QStringLiteral("a word, not evidence of a holder: it may name one, or be a flag");
        if (f.decode == QLatin1String("uuid1"))
            decodeUuid1(o);
        else if (f.decode == QLatin1String("json-owner"))
            decodeJsonOwner(r, o);
        r.owners = {o};
        break;
    }
    case LockFormat::Shape::Flag:
        r.setUnknown(QStringLiteral("owners"),
                     QStringLiteral("%1 stores no owner, only the marker %2").arg(f.library, quoted(k.value)),
                     false);
        break;
    case LockFormat::Shape::Counter:
        r.setUnknown(
            QStringLiteral("owners"),
            QStringLiteral("%1 records no holder: the value %2 is a count").arg(f.name, quoted(k.value)),
            false);
        break;
    case LockFormat::Shape::OwnerHash: {
        QList<QByteArray> unexpected;
        bool anyWriter = false;
        for (const auto &[field, value] : k.fields) {
            if (!f.modeField.isEmpty() && field == f.modeField) {
                r.rwMode = QString::fromUtf8(value);
                continue;
            }
            QByteArray name = field;
            const bool writer = !f.writeSuffix.isEmpty() && name.endsWith(f.writeSuffix);
            if (writer)
                name.chop(f.writeSuffix.size());
            if (!f.field.match(QString::fromUtf8(name)).hasMatch()
                || (f.ownerInValue && !f.value.match(QString::fromUtf8(value)).hasMatch())) {
                if (f.ignoredFields.pattern().isEmpty()
                    || !f.ignoredFields.match(QString::fromUtf8(field)).hasMatch())
                    unexpected << field;
                continue;
            }
            if (f.ownerInValue) {
                // Redisson's FasterMultiLock: <entry> → <owner>, with <entry>:<owner>:lock_count beside it.
                LockOwner o;
                o.id = value;
                fillOwner(o, f, holderGroups(f.value, value, g));
                o.count = 1;
                for (const auto &[other, count] : k.fields) {
                    if (other == field + ':' + value + ":lock_count")
                        o.count = count.toLongLong();
                }
                r.owners << o;
                continue;
            }
            LockOwner o;
            o.id = field;
            fillOwner(o, f, holderGroups(f.field, name, g));
            bool ok = false;
            const qint64 count = value.toLongLong(&ok);
            o.count = ok ? count : -1;
            if (!ok || count < 1)
                r.problems << QStringLiteral("the hold count of %1 is %2, not a positive integer")
                                  .arg(quoted(field), quoted(value));
            if (!f.modeField.isEmpty())
                o.mode = writer ? QStringLiteral("write") : QStringLiteral("read");
            anyWriter |= writer;
            r.owners << o;
        }
        for (const QByteArray &field : unexpected.mid(0, 3))
            r.problems << QStringLiteral("unexpected field %1 next to the lock's owners").arg(quoted(field));
        if (unexpected.size() > 3)
            r.problems << QStringLiteral("%1 more unexpected fields").arg(unexpected.size() - 3);
        if (!f.modeField.isEmpty()) {
            const QByteArray mode = r.rwMode.toUtf8();
            if (mode.isEmpty() && anyWriter)
                r.problems
                    << QStringLiteral("a writer but no '%1' field").arg(QString::fromUtf8(f.modeField));
            else if (!mode.isEmpty() && mode != "read" && mode != "write")
                r.problems << QStringLiteral("mode is %1, neither 'read' nor 'write'").arg(quoted(mode));
            else if (mode == "write" && !anyWriter)
                r.problems << QStringLiteral("mode is 'write' but there is no writer");
            else if (mode == "read" && anyWriter)
                r.problems << QStringLiteral("mode is 'read' but a writer is still there");
            if (r.owners.isEmpty())
                r.problems << QStringLiteral("mode is set but nobody holds it");
        } else if (r.kind != LockKind::Semaphore && !f.ownerInValue && r.owners.size() > 1) {
            // (FasterMultiLock's entries are one lock per value: several owners there are normal.)
            r.problems << QStringLiteral("%1 owners in one lock, but a %2 has a single owner")
                              .arg(r.owners.size())
                              .arg(f.name);
        }
        r.holderCount = k.fieldCount >= 0 ? k.fieldCount - (r.rwMode.isEmpty() ? 0 : 1) : -1;
        break;
    }
    case LockFormat::Shape::HolderHash:
        for (const auto &[field, value] : k.fields) {
            LockOwner o;
            o.id = field;
            fillOwner(o, f, holderGroups(f.field, field, g));
            bool ok = false;
            const double t = value.toDouble(&ok);
            if (ok)
                setTime(o, t, f.time);
            r.owners << o;
        }
        r.holderCount = k.fieldCount;
        break;
    case LockFormat::Shape::HolderZset:
        for (const auto &[member, score] : k.members) {
            if (!f.writeMember.isEmpty() && member == f.writeMember) {
                r.rwMode = QStringLiteral("write");
                continue;
            }
            LockOwner o;
            o.id = member;
            fillOwner(o, f, holderGroups(f.member, member, g));
            if (f.time == LockFormat::Time::None)
                o.count = qint64(score); // the score is the holder's weight: the permits it takes
            else
                setTime(o, score, f.time);
            r.owners << o;
        }
        if (!f.writeMember.isEmpty()) {
            if (r.rwMode.isEmpty())
                r.rwMode = QStringLiteral("read");
            for (LockOwner &o : r.owners)
                o.mode = r.rwMode;
        }
        r.holderCount = k.size >= 0 ? k.size - (r.rwMode == QLatin1String("write") ? 1 : 0) : -1;
        break;
    }
}

void addCompanions(LockRecord &r, const LockFormat &f, const ScannedKey &k)
{
    for (const LockFormat::Companion &spec : f.companions) {
        const ScannedKey::Companion *c = k.companion(spec.role);
        if (!c)
            continue;
        if (c->wrongType) {
            r.problems << QStringLiteral("its %1 %2 is not a %3")
                              .arg(spec.role, quoted(c->key), QString::fromLatin1(c->read));
            continue;
        }
        if (!c->error.isEmpty()) {
            r.setUnknown(spec.role,
                         QStringLiteral("%1 %2: %3").arg(spec.role, Bytes::display(c->key, 80), c->error));
            continue;
        }
        if (!c->present || (c->read != "string" && c->read != "exists" && c->size == 0))
            continue;
        QString summary = spec.summary;
        const qint64 n = c->size >= 0 ? c->size : c->items.size();
        summary.replace(QLatin1String("${count}"), QString::number(n));
        summary.replace(QLatin1String("${value}"), Bytes::display(c->items.value(0), 40));
        if (summary.isEmpty())
            summary = spec.role;
        LockCompanion::Role role = LockCompanion::Role::Resource;
        if (spec.role == QLatin1String("queue"))
            role = LockCompanion::Role::Queue;
        else if (spec.role == QLatin1String("deadlines"))
            role = LockCompanion::Role::Deadlines;
        else if (spec.role == QLatin1String("token"))
            role = LockCompanion::Role::Token;
        r.companions.append({c->key, role, c->read == "exists" ? QByteArray() : c->read, -3, summary});
        if (spec.kindWhenPresent != LockKind::None)
            r.kind = spec.kindWhenPresent;
        if (!spec.nameWhenPresent.isEmpty())
            r.formatName = spec.nameWhenPresent;
        if (!spec.idWhenPresent.isEmpty())
            r.format = spec.idWhenPresent;
    }
    // What Redisson's companions mean: the fair queue with each waiter's deadline, the fencing token.
    const ScannedKey::Companion *queue = k.companion(QStringLiteral("queue"));
    const ScannedKey::Companion *deadlines = k.companion(QStringLiteral("deadlines"));
    if (queue && queue->error.isEmpty() && queue->size >= 0) {
        r.queueLength = queue->size;
        QHash<QByteArray, qint64> deadlineOf;
        if (deadlines)
            for (qsizetype i = 0; i < deadlines->items.size() && i < deadlines->scores.size(); ++i)
                deadlineOf.insert(deadlines->items.at(i), qint64(deadlines->scores.at(i)));
        for (const QByteArray &id : queue->items)
            r.queue.append({id, deadlineOf.value(id, -1)});
    }
    const ScannedKey::Companion *token = k.companion(QStringLiteral("token"));
    if (token && token->present && token->error.isEmpty()) {
        bool ok = false;
        const qint64 value = token->items.value(0).toLongLong(&ok);
        r.hasFencingToken = ok;
        r.fencingToken = ok ? value : 0;
        if (!ok)
            r.problems << QStringLiteral("the fencing token counter holds %1, not an integer")
                              .arg(quoted(token->items.value(0)));
    }
    // The lock's TTL from a companion when its own key has none (Symfony's {R}:weight loses its TTL after a
    // refused acquire; {R}:time keeps the real one).
    for (const LockFormat::Companion &spec : f.companions) {
        const ScannedKey::Companion *c = k.companion(spec.role);
        if (spec.lockTtl && c && c->pttlMs >= 0 && r.pttlMs == -1) {
            r.pttlMs = c->pttlMs;
            r.reason += QStringLiteral("; its TTL is that of %1 (its own key has none)").arg(quoted(c->key));
        }
    }
    // A zset companion with times: each holder's expiry or start (Symfony's {R}:time next to {R}:weight).
    for (const LockFormat::Companion &spec : f.companions) {
        const ScannedKey::Companion *c = k.companion(spec.role);
        if (spec.time == LockFormat::Time::None || !c || !c->present || c->read != "zset")
            continue;
        for (LockOwner &o : r.owners) {
            const qsizetype i = c->items.indexOf(o.id);
            if (i >= 0 && i < c->scores.size())
                setTime(o, c->scores.at(i), spec.time);
        }
    }
    const ScannedKey::Companion *weights = k.companion(QStringLiteral("weights"));
    if (weights && weights->present && weights->error.isEmpty()) {
        // Symfony's semaphore: each holder's weight is the permits it takes.
        for (LockOwner &o : r.owners) {
            const qsizetype i = weights->items.indexOf(o.id);
            if (i >= 0 && i < weights->scores.size())
                o.count = qint64(weights->scores.at(i));
        }
    }
}

void addWaiters(LockRecord &r, const LockFormat &f, const ScannedKey &k)
{
    if (f.channels.isEmpty()) {
        if (r.queueLength < 0)
            r.setUnknown(QStringLiteral("waiters"),
                         namesNoLibrary(f)
                             ? QStringLiteral("no known library: waiters, if any, leave no trace in Redis "
                                              "unless they queue there")
                             : QStringLiteral("%1's waiters poll; they leave no trace in Redis").arg(f.library),
                         false);
        return;
    }
    if (!k.channelsError.isEmpty()) {
        r.setUnknown(QStringLiteral("waiters"), k.channelsError);
        return;
    }
    if (k.channelSubscribers.isEmpty())
        return;
    auto sum = [](const QList<qint64> &counts) {
        qint64 total = 0;
        for (qint64 n : counts)
            total += std::max<qint64>(0, n);
        return total;
    };
    const qint64 classic = sum(k.channelSubscribers);
    const bool shardedCounted = !k.channelShardSubscribers.isEmpty();
    const qint64 sharded = sum(k.channelShardSubscribers);
    r.subscribers = classic + sharded;
    r.shardedSubscribers = shardedCounted ? sharded : (k.shardedPubSubAbsent ? 0 : -1);
    r.shardedPubSub = !k.shardedPubSubAbsent;

    const QString on = k.channelsNode.isEmpty() ? QString() : QStringLiteral(" on ") + k.channelsNode;
    const QString classicWhere = k.channelsNodes.size() > 1
        ? QStringLiteral("PUBSUB NUMSUB summed over %1 masters").arg(k.channelsNodes.size())
        : QStringLiteral("PUBSUB NUMSUB") + on;
    QStringList basis {QStringLiteral("%1 classic (%2)").arg(classic).arg(classicWhere)};
    if (shardedCounted)
        basis.prepend(QStringLiteral("%1 sharded (PUBSUB SHARDNUMSUB%2%3)")
                          .arg(sharded)
                          .arg(on,
                               k.channelsNodes.size() > 1 ? QStringLiteral(", which owns the channel's slot")
                                                          : QString()));
    else if (k.shardedPubSubAbsent)
        basis << QStringLiteral("the server has no sharded pub/sub (Redis < 7)");
    r.waitersBasis = basis.join(QStringLiteral(" + "));

    // What could not be counted makes the total a floor, said so.
    QStringList floors;
    if (!k.shardChannelsError.isEmpty())
        floors << k.shardChannelsError;
    if (!k.channelsIncomplete.isEmpty())
        floors << k.channelsIncomplete;
    if (!floors.isEmpty())
        r.setUnknown(QStringLiteral("waiters"),
                     QStringLiteral("at least %1 (%2): %3")
                         .arg(r.subscribers)
                         .arg(r.waitersBasis, floors.join(QStringLiteral("; "))));
}

void addJob(LockRecord &r, const LockFormat &f, const ScannedKey &k, const QHash<QString, QByteArray> &g)
{
    if (!f.hasJob)
        return;
    JobInfo &j = r.job;
    j.queue = QString::fromUtf8(f.job.queue.expand(g));
    j.id = QString::fromUtf8(f.job.id.expand(g));
    j.jobKey = f.job.key.expand(g);
    j.reclaim = f.job.reclaim;
    if (!k.job.read)
        return;
    if (!k.job.error.isEmpty()) {
        r.setUnknown(QStringLiteral("job"), k.job.error);
        return;
    }
    j.jobFound = k.job.exists;
    for (qsizetype i = 0; i < f.job.attemptsFields.size() && i < k.job.fields.size(); ++i) {
        bool ok = false;
        const qint64 n = k.job.fields.at(i).toLongLong(&ok);
        if (ok) {
            j.attempts = n;
            break;
        }
    }
    if (!f.job.stalledCountField.isEmpty() && k.job.fields.size() > f.job.attemptsFields.size()) {
        bool ok = false;
        const qint64 n = k.job.fields.at(f.job.attemptsFields.size()).toLongLong(&ok);
        j.stalledCount = ok ? n : (k.job.exists ? 0 : -1);
    }
    j.markedStalled = k.job.markedStalled;
}

QString evidence(const LockFormat &f, bool keyMatched, const ScannedKey &k)
{
    QString what;
    if (f.needsSharedValue)
        what = QStringLiteral("%1 other key(s) hold the same random token with the same TTL (%2): one "
                              "holder's lock on several resources")
                   .arg(k.sameValueKeys.size())
                   .arg(Bytes::display(k.sameValueKeys.value(0), 60)
                        + (k.sameValueKeys.size() > 1 ? QStringLiteral(", …") : QString()));
    else if (keyMatched && !f.keyIdentifies && !f.dataIdentifies)
        what = QStringLiteral("its name and its data fit %1, but other code can write the same name and data "
                              "(nothing only %2 writes is there)")
                   .arg(f.name, f.library);
    else if (keyMatched)
        what = QStringLiteral("its name and its data fit %1").arg(f.name);
    else if (f.needsLockName)
        what = QStringLiteral("named like a lock, with %1").arg(f.name);
    else if (f.valueIs == QLatin1String("random-id") && namesNoLibrary(f) && k.lockNamed)
        // A lock-named key reaches this format only when no lock format took it (issue 41: "lock:…" was
        // told its name said nothing): the reason says what the name does say.
        what = QStringLiteral("named like a lock; its value, a random id, and its TTL say lease");
    else if (f.valueIs == QLatin1String("random-id") && namesNoLibrary(f))
        what = QStringLiteral("no word in its name says lock or anything else; only its value, a random id, "
                              "and its TTL say lease");
    else if (f.shape == LockFormat::Shape::HolderZset && namesNoLibrary(f)
             && (f.time == LockFormat::Time::ExpiresS || f.time == LockFormat::Time::ExpiresMs))
        // A possible lease set (issue 41): what the scores are, and what else looks the same.
        what = QStringLiteral("%1only its data says lease: every member looks like a job or holder id and "
                              "is scored with a deadline in Unix %2 within a day of now, at least one still "
                              "ahead, as a task queue's lease set keeps them (RQ's started-job registry); a "
                              "delayed-job queue's run-at times look the same, so nothing is alarmed on")
                   .arg(k.lockNamed ? QStringLiteral("named like a lock; ") : QString(),
                        f.time == LockFormat::Time::ExpiresS ? QStringLiteral("seconds")
                                                             : QStringLiteral("milliseconds"));
    else if (f.dataIdentifies)
        what = QStringLiteral("its data fits %1").arg(f.name);
    else
        what = QStringLiteral(
                   "its data has the shape %1 writes (any library writing such values looks the same)")
                   .arg(f.name);
    // A generic format's owner is described by what the value is, not by what the format expects.
    const bool judgedOwner
        = f.valueIs == QLatin1String("owner-like") || f.valueIs == QLatin1String("random-id");
    QString token
        = judgedOwner && k.type == "string" ? OwnerEvidence::describeRandomToken(k.value) : QString();
    if (token.isEmpty() && judgedOwner && LockNames::isUuid(k.value))
        token = QStringLiteral("a uuid (%1)")
                    .arg(k.value.at(14) == '4' ? QStringLiteral("version 4: random")
                                               : QStringLiteral("version %1").arg(QChar(k.value.at(14))));
    // A value under a lock name that no owner format reads may still look like an owner id (letters and
    // digits: "leader: 27fd2e…", "worker 7"): it is not called a word then, only not a token any format
    // knows.
    const bool ownerLikeValue = f.valueIs == QLatin1String("no-owner") && OwnerEvidence::isOwnerLike(k.value);
    if (!token.isEmpty())
        what += QStringLiteral("; the owner is %1").arg(token);
    else if (!f.ownerMeaning.isEmpty() && !ownerLikeValue)
        what += QStringLiteral("; the owner is %1").arg(f.ownerMeaning);
    if (ownerLikeValue)
        what += QStringLiteral(
                    "; its value %1 mixes letters and digits as owner ids do, but no format reads it "
                    "as one, so it is shown as the owner it seems to be and nothing is alarmed on")
                    .arg(quoted(k.value));
    else if (f.valueIs == QLatin1String("no-owner"))
        what += QStringLiteral("; its value %1 is a word, no evidence of a holder, so nothing is alarmed on")
                    .arg(quoted(k.value));
    if (k.explicitPattern && !keyMatched && !f.dataIdentifies)
        what += QStringLiteral("; found by your pattern");
    return what;
}

// A key listed for its name (or the user's pattern) whose data has no lock's shape: shown, never alarmed on.
LockRecord named(const ScannedKey &k)
{
    LockRecord r = base(k);
    r.kind = LockKind::Named;
    r.library = QStringLiteral("unknown");
    const QString why = k.explicitPattern && !k.lockNamed ? QStringLiteral("found by your pattern")
                                                          : QStringLiteral("named like a lock");
    QString number;
    if (k.type == "string" && k.valueLength > 0 && OwnerEvidence::isSmallInteger(k.value))
        number = QStringLiteral("its value, a number (%1), is a counter (a rate limit's count, a fencing "
                                "token) or a flag, not an owner")
                     .arg(Bytes::display(k.value, 20));
    else if (k.type == "string" && k.valueLength > 0 && OwnerEvidence::isDecimalNumber(k.value))
        // go-redis/redis_rate's GCRA keeps a theoretical arrival time (313335151.34025902 s since 2017).
        number = QStringLiteral("its value, a decimal number (%1), is a rate limiter's state (a GCRA "
                                "theoretical arrival time, a window's start), a score or a measurement, not "
                                "an owner")
                     .arg(Bytes::display(k.value, 24));
    r.reason = number.isEmpty()
        ? QStringLiteral("%1, but %2 fits no lock format: no owner can be read from it, so nothing is "
                         "alarmed on")
              .arg(why, typeWithSize(k))
        : QStringLiteral("%1, but %2: it fits no lock format, so nothing is alarmed on").arg(why, number);
    return r;
}

} // namespace

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

bool parseUuid1Hex(const QByteArray &hex, Uuid1 *out, qint64 nowMs)
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
    if (nowMs < 0)
        nowMs = QDateTime::currentMSecsSinceEpoch();
    constexpr qint64 kDayMs = 24LL * 3600 * 1000;
    constexpr qint64 kTenYearsMs = 3653 * kDayMs;
    if (epochMs < nowMs - kTenYearsMs || epochMs > nowMs + kDayMs)
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

bool mayBeLock(const ScannedKey &k, const FormatCatalog &catalog)
{
    if (k.lockNamed || k.explicitPattern || !k.exists())
        return true;
    return bool(catalog.match(k));
}

LockRecord classify(const ScannedKey &k, const FormatCatalog &catalog,
                    const FormatCatalog::Match *precomputed)
{
    if (!k.exists()) {
        // An orphan fair-lock queue: the lock is gone, its waiters are still queued.
        const ScannedKey::Companion *queue = k.companion(QStringLiteral("queue"));
        const ScannedKey::Companion *deadlines = k.companion(QStringLiteral("deadlines"));
        const bool waiting = (queue && queue->size > 0) || (deadlines && deadlines->size > 0);
        const LockFormat *f = catalog.find(k.plannedFormat);
        if (!waiting || !f)
            return {};
        LockRecord r = base(k);
        r.type = "none";
        r.kind = LockKind::Fair;
        r.format = f->id;
        r.formatName = f->name;
        r.library = f->library;
        r.certain = true;
        r.pttlMs = -2;
        r.reason = QStringLiteral("only the fair-lock queue remains: the lock itself is gone");
        addCompanions(r, *f, k);
        r.kind = LockKind::Fair;
        addWaiters(r, *f, k);
        if (r.queueLength < 0)
            r.queueLength = 0;
        return r;
    }
    FormatCatalog::Match m = precomputed ? *precomputed : catalog.match(k);
    // The prober planned with this match before it read the job; a job found gone may disown it (a
    // hand-written <app>:<resource>:<id>:lock holding a uuid has Bull's job-lock name and value).
    if (m && FormatCatalog::jobDisowns(*m.format, k))
        m = catalog.match(k);
    QString disowned;
    if (m && m.disowned) {
        const QByteArray job = m.disowned->job.key.expand(m.disownedGroups);
        disowned = QStringLiteral("; it is named and shaped like a %1, but its job %2 does not exist")
                       .arg(m.disowned->name, QString::fromUtf8(job));
        if (!m.alsoLibraries.contains(m.disowned->library))
            m.alsoLibraries << m.disowned->library;
    }
    if (!m) {
        if (k.lockNamed || k.explicitPattern)
            return named(k);
        return {};
    }
    const LockFormat &f = *m.format;
    LockRecord r = base(k);
    r.kind = f.kind;
    r.format = f.id;
    r.formatName = f.name;
    r.certain = (m.keyMatched && f.keyIdentifies) || f.dataIdentifies;
    // A format that knows the key's name says lock by the name, whether or not the name is the library's own.
    r.nameSaysLock = r.nameSaysLock || m.keyMatched;
    // A generic format (any lock-named key, or generic.json's "unknown library") claims no library, so there
    // is nothing to call probable.
    const bool claimsNoLibrary = f.needsLockName || namesNoLibrary(f);
    r.library = r.certain || claimsNoLibrary ? f.library : f.library + QStringLiteral(" (probable)");
    r.alsoLibraries = m.alsoLibraries + f.also;
    r.alsoLibraries.removeDuplicates();
    r.alsoLibraries.removeAll(f.library);
    r.renewal = f.renewal;
    r.ttlPolicy = f.ttl == LockFormat::Ttl::Always ? QStringLiteral("always")
        : f.ttl == LockFormat::Ttl::Never          ? QStringLiteral("never")
                                                   : QStringLiteral("optional");
    r.reason = evidence(f, m.keyMatched, k) + disowned;
    // A note on a default shows only where the reading fits it: "sets no TTL by default" never on a key
    // that has one.
    const bool noteFits = f.noteWhen.isEmpty() || (f.noteWhen == QLatin1String("no-ttl") && k.pttlMs == -1)
        || (f.noteWhen == QLatin1String("ttl") && k.pttlMs >= 0);
    r.formatNote = noteFits ? f.note : QString();
    r.holderEvidence = f.valueIs != QLatin1String("no-owner");
    readOwners(r, f, k, m.groups);
    addCompanions(r, f, k);
    addWaiters(r, f, k);
    addJob(r, f, k, m.groups);
    if (f.kind == LockKind::Semaphore && r.permitsTotal < 0)
        r.setUnknown(
            QStringLiteral("permits_total"),
            QStringLiteral("%1 does not store the limit in Redis (it is set by the clients)").arg(f.library),
            false);
    if (k.fieldCount > k.fields.size() && k.fields.size() > 0)
        r.reason += QStringLiteral(" (only %1 of its %2 fields were read)")
                        .arg(InspectFormat::count(k.fields.size()), InspectFormat::count(k.fieldCount));
    if (k.size > k.members.size() && !k.members.isEmpty())
        r.reason += QStringLiteral(" (only %1 of its %2 members were read)")
                        .arg(InspectFormat::count(k.members.size()), InspectFormat::count(k.size));
    if (!k.sameValueKeys.isEmpty()) {
        r.groupKeys = k.sameValueKeys;
        for (const QByteArray &other : k.sameValueKeys)
            r.companions.append({other, LockCompanion::Role::Resource, "string", -3,
                                 QStringLiteral("another resource of this lock (same value)")});
    }
    if (!f.lockKey.isEmpty()) {
        // Listed under the lock's own name (the semaphore api-slots, not its {api-slots}:timeout); the
        // scanned key is one of its parts, and the one a refresh reads again.
        r.companions.prepend(
            {k.key, LockCompanion::Role::Resource, k.type, k.pttlMs, QStringLiteral("holders")});
        r.probeKey = k.key;
        r.key = f.lockKey.expand(m.groups);
        for (const ScannedKey::Companion &c : k.companions) {
            if (c.key == r.key && c.present)
                r.type = c.read;
        }
    }
    return r;
}

} // namespace LockClassifier
