// LockJson: keys and owner values are exact (valid UTF-8 as is; otherwise readable escapes plus base64), and
// unknowns are null with their reason, never a default.
#include "lockjson.h"

#include "inspectclock.h"
#include "inspectformat.h"
#include "redis/bytes.h"

#include <QDateTime>
#include <QJsonArray>

namespace LockJson {

namespace {

bool isUtf8(const QByteArray &bytes)
{
    const QString text = QString::fromUtf8(bytes);
    return !text.contains(QChar::ReplacementCharacter) && text.toUtf8() == bytes;
}

QJsonValue orNull(qint64 value, qint64 unknownBelow = 0)
{
    return value < unknownBelow ? QJsonValue(QJsonValue::Null) : QJsonValue(value);
}

QJsonValue time(qint64 epochMs)
{
    return epochMs < 0
        ? QJsonValue(QJsonValue::Null)
        : QJsonValue(QDateTime::fromMSecsSinceEpoch(epochMs, Qt::UTC).toString(Qt::ISODateWithMs));
}

QString ruleName(RenewalPolicy::Rule rule)
{
    switch (rule) {
    case RenewalPolicy::Rule::None:
        return QStringLiteral("none");
    case RenewalPolicy::Rule::ElapsedFraction:
        return QStringLiteral("elapsed-fraction");
    case RenewalPolicy::Rule::RemainingFraction:
        return QStringLiteral("remaining-fraction");
    case RenewalPolicy::Rule::RemainingMs:
        return QStringLiteral("remaining-ms");
    case RenewalPolicy::Rule::Period:
        return QStringLiteral("period-ms");
    case RenewalPolicy::Rule::Unknown:
        break;
    }
    return QStringLiteral("unknown");
}

} // namespace

void putBytes(QJsonObject &o, const QString &name, const QByteArray &bytes)
{
    if (isUtf8(bytes)) {
        o.insert(name, QString::fromUtf8(bytes));
        return;
    }
    o.insert(name, Bytes::display(bytes, int(std::min<qsizetype>(bytes.size(), 1 << 30))));
    o.insert(name + QStringLiteral("_base64"), QString::fromLatin1(bytes.toBase64()));
}

QJsonObject lock(const LockRecord &r)
{
    QJsonArray owners;
    for (const LockOwner &o : r.owners) {
        QJsonObject owner;
        putBytes(owner, QStringLiteral("id"), o.id);
        bool numeric = false;
        const qint64 thread = o.thread.toLongLong(&numeric);
        owner.insert(QStringLiteral("client"),
                     o.client.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(o.client));
        owner.insert(QStringLiteral("thread"), numeric ? QJsonValue(thread) : QJsonValue(QJsonValue::Null));
        owner.insert(QStringLiteral("count"), orNull(o.count));
        if (!o.display.isEmpty())
            owner.insert(QStringLiteral("display"), o.display);
        if (!o.mode.isEmpty())
            owner.insert(QStringLiteral("mode"), o.mode);
        if (o.sinceEpochMs >= 0)
            owner.insert(QStringLiteral("since"), time(o.sinceEpochMs));
        if (o.untilEpochMs >= 0)
            owner.insert(QStringLiteral("until"), time(o.untilEpochMs));
        if (!o.note.isEmpty())
            owner.insert(QStringLiteral("note"), o.note);
        owners.append(owner);
    }
    QJsonArray companions;
    for (const LockCompanion &c : r.companions) {
        QJsonObject companion {
            {QStringLiteral("role"), LockCompanion::roleName(c.role)},
            {QStringLiteral("type"),
             c.type.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(QString::fromLatin1(c.type))},
            {QStringLiteral("pttl_ms"), c.pttlMs == -3 ? QJsonValue(QJsonValue::Null) : QJsonValue(c.pttlMs)},
            {QStringLiteral("summary"), c.summary},
        };
        putBytes(companion, QStringLiteral("key"), c.key);
        companions.append(companion);
    }
    QJsonArray diagnoses;
    for (const LockDiagnosis &d : r.diagnoses)
        diagnoses.append(QJsonObject {{QStringLiteral("code"), d.code},
                                      {QStringLiteral("text"), d.text},
                                      {QStringLiteral("evidence"), d.evidence}});
    QJsonObject unknown;
    for (const LockUnknown &u : r.unknowns)
        unknown.insert(u.field, u.reason);
    QJsonObject o {
        {QStringLiteral("kind"), LockKinds::name(r.kind)},
        {QStringLiteral("format"), r.format.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(r.format)},
        {QStringLiteral("library"), r.library},
        {QStringLiteral("certain"), r.certain},
        {QStringLiteral("reason"), r.reason},
        {QStringLiteral("type"), QString::fromLatin1(r.type)},
        {QStringLiteral("pttl_ms"),
         r.pttlMs == LockRecord::kPttlUnknown ? QJsonValue(QJsonValue::Null) : QJsonValue(r.pttlMs)},
        {QStringLiteral("owners"), owners},
        {QStringLiteral("waiters"), orNull(r.waiters())},
        {QStringLiteral("token"),
         r.hasFencingToken ? QJsonValue(r.fencingToken) : QJsonValue(QJsonValue::Null)},
        {QStringLiteral("companions"), companions},
        {QStringLiteral("diagnoses"), diagnoses},
        {QStringLiteral("unknown"), unknown},
        {QStringLiteral("incomplete"), r.isIncomplete()},
    };
    putBytes(o, QStringLiteral("key"), r.key);
    if (!r.field.isEmpty())
        putBytes(o, QStringLiteral("field"), r.field); // a lock kept as a field of the hash `key`
    if (!r.formatName.isEmpty())
        o.insert(QStringLiteral("format_name"), r.formatName);
    if (!r.formatNote.isEmpty())
        o.insert(QStringLiteral("note"), r.formatNote);
    if (!r.alsoLibraries.isEmpty())
        o.insert(QStringLiteral("also_possible"), QJsonArray::fromStringList(r.alsoLibraries));
    if (r.renewal.rule != RenewalPolicy::Rule::Unknown)
        o.insert(QStringLiteral("renewal"),
                 QJsonObject {{QStringLiteral("rule"), ruleName(r.renewal.rule)},
                              {QStringLiteral("value"), r.renewal.value},
                              {QStringLiteral("text"), r.renewal.shown()},
                              // The library's own rule, when a watch's observation replaced it in text.
                              {QStringLiteral("library_text"),
                               r.renewal.observed.isEmpty() ? QJsonValue(QJsonValue::Null)
                                                            : QJsonValue(r.renewal.text)}});
    if (r.kind == LockKind::Semaphore || r.kind == LockKind::ReadWrite) {
        o.insert(QStringLiteral("holders"), orNull(r.holderCount >= 0 ? r.holderCount : r.owners.size()));
        o.insert(QStringLiteral("permits_total"), orNull(r.permitsTotal));
    }
    if (!r.waitersBasis.isEmpty()) {
        // Classic and sharded subscribers apart, and how they were counted (which command, which nodes).
        o.insert(QStringLiteral("subscribers"),
                 QJsonObject {{QStringLiteral("classic"),
                               orNull(r.subscribers >= 0 && r.shardedSubscribers >= 0
                                          ? r.subscribers - r.shardedSubscribers
                                          : r.subscribers)},
                              {QStringLiteral("sharded"), orNull(r.shardedSubscribers)},
                              {QStringLiteral("basis"), r.waitersBasis}});
    }
    if (!r.rwMode.isEmpty())
        o.insert(QStringLiteral("mode"), r.rwMode);
    if (r.kind == LockKind::JobLock) {
        QJsonObject job {{QStringLiteral("queue"), r.job.queue},
                         {QStringLiteral("id"), r.job.id},
                         {QStringLiteral("found"),
                          r.job.jobKey.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(r.job.jobFound)},
                         {QStringLiteral("attempts"), orNull(r.job.attempts)},
                         {QStringLiteral("stalled_count"), orNull(r.job.stalledCount)},
                         {QStringLiteral("in_stalled_set"), r.job.markedStalled},
                         {QStringLiteral("if_the_lock_lapses"), r.job.reclaim}};
        if (!r.job.jobKey.isEmpty())
            putBytes(job, QStringLiteral("key"), r.job.jobKey);
        o.insert(QStringLiteral("job"), job);
    }
    if (r.isTruncated())
        o.insert(QStringLiteral("size"),
                 QJsonObject {{QStringLiteral("value_bytes"), orNull(r.valueLength)},
                              {QStringLiteral("fields"), orNull(r.fieldCount)},
                              {QStringLiteral("members"), orNull(r.size)}});
    if (!r.node.isEmpty()) { // a cluster's lock: where it lives
        o.insert(QStringLiteral("node"), r.node);
        o.insert(QStringLiteral("slot"), r.slot);
    }
    return o;
}

QJsonObject server(const ServerInfo &info)
{
    QJsonObject o {
        {QStringLiteral("version"), info.version},
        {QStringLiteral("mode"), info.mode},
        {QStringLiteral("role"), info.role.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(info.role)},
        {QStringLiteral("db"), info.db},
    };
    if (info.role == QLatin1String("replica")) {
        o.insert(QStringLiteral("master"),
                 info.master.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(info.master));
        o.insert(QStringLiteral("master_link"),
                 info.masterLink.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(info.masterLink));
    }
    if (info.loading)
        o.insert(QStringLiteral("loading"), true);
    return o;
}

QJsonObject unread(const ScanProgress &progress)
{
    QJsonObject reasons;
    for (auto [reason, n] : progress.unreadReasons.asKeyValueRange())
        reasons.insert(reason, n);
    return {{QStringLiteral("keys"), progress.unreadableKeys}, {QStringLiteral("reasons"), reasons}};
}

QStringList incompleteBecause(const QList<LockRecord> &records, const ScanProgress &progress,
                           const ServerInfo &info, const QStringList &missing)
{
    QStringList why;
    if (info.loading)
        why << QStringLiteral("the server is still loading its data set (LOADING)");
    for (auto [reason, n] : progress.unreadReasons.asKeyValueRange())
        why << QStringLiteral("%1 %2: %3")
                   .arg(InspectFormat::count(n),
                        n == 1 ? QStringLiteral("key was not read") : QStringLiteral("keys were not read"),
                        reason);
    why << missing;
    QMap<QString, int> refused; // field → locks whose value the server refused
    QMap<QString, QString> example;
    for (const LockRecord &r : records) {
        for (const LockUnknown &u : r.unknowns) {
            if (u.refused) {
                refused[u.field] += 1;
                example.insert(u.field, u.reason);
            }
        }
    }
    for (auto [field, n] : refused.asKeyValueRange())
        why << QStringLiteral("%1 unknown for %2 %3 (%4)")
                   .arg(field == QLatin1String("pttl_ms") ? QStringLiteral("the TTL") : field)
                   .arg(n)
                   .arg(n == 1 ? QStringLiteral("lock") : QStringLiteral("locks"), example.value(field));
    return why;
}

QJsonObject inspection(const QList<LockRecord> &records, const ScanProgress &progress, const ServerInfo &info,
                       const QStringList &incompleteBecause)
{
    QJsonArray locks;
    for (const LockRecord &r : records)
        locks.append(lock(r));
    return {
        {QStringLiteral("server"), server(info)},
        {QStringLiteral("scanned_keys"), progress.scannedKeys},
        {QStringLiteral("unread"), unread(progress)},
        {QStringLiteral("complete"), incompleteBecause.isEmpty()},
        {QStringLiteral("incomplete_because"), QJsonArray::fromStringList(incompleteBecause)},
        {QStringLiteral("locks"), locks},
    };
}

QJsonObject event(const LockEvent &e, const QByteArray &key, const LockRecord *record)
{
    QJsonObject o {
        {QStringLiteral("time"),
         QDateTime::fromMSecsSinceEpoch(InspectClock::wallFromMonotonic(e.atMs)).toString(Qt::ISODateWithMs)},
        {QStringLiteral("event"), LockEvent::typeName(e.type)},
        {QStringLiteral("detail"), e.detail},
    };
    putBytes(o, QStringLiteral("key"), key);
    o.insert(QStringLiteral("lock"), record ? QJsonValue(lock(*record)) : QJsonValue(QJsonValue::Null));
    return o;
}

} // namespace LockJson
