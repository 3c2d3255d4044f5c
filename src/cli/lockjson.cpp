// LockJson: keys and owner values are shown as LockScope shows bytes (UTF-8, else \xNN escapes).
#include "lockjson.h"

#include "inspect/inspectclock.h"
#include "redis/bytes.h"

#include <QDateTime>
#include <QJsonArray>

namespace LockJson {

namespace {

constexpr int kWholeValue = 1 << 20;

QJsonValue text(const QByteArray &bytes)
{
    return Bytes::display(bytes, kWholeValue);
}

QJsonValue orNull(qint64 value, qint64 unknownBelow = 0)
{
    return value < unknownBelow ? QJsonValue(QJsonValue::Null) : QJsonValue(value);
}

} // namespace

QJsonObject lock(const LockRecord &r)
{
    QJsonArray owners;
    for (const LockOwner &o : r.owners) {
        bool numeric = false;
        const qint64 thread = o.thread.toLongLong(&numeric);
        owners.append(QJsonObject {
            {QStringLiteral("id"), text(o.id)},
            {QStringLiteral("client"),
             o.client.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(o.client)},
            {QStringLiteral("thread"), numeric ? QJsonValue(thread) : QJsonValue(QJsonValue::Null)},
            {QStringLiteral("count"), orNull(o.count)},
        });
    }
    QJsonArray companions;
    for (const LockCompanion &c : r.companions) {
        companions.append(QJsonObject {
            {QStringLiteral("key"), text(c.key)},
            {QStringLiteral("role"), LockCompanion::roleName(c.role)},
            {QStringLiteral("type"), QString::fromLatin1(c.type)},
            {QStringLiteral("pttl_ms"), c.pttlMs == -3 ? QJsonValue(QJsonValue::Null) : QJsonValue(c.pttlMs)},
            {QStringLiteral("summary"), c.summary},
        });
    }
    QJsonArray diagnoses;
    for (const LockDiagnosis &d : r.diagnoses)
        diagnoses.append(QJsonObject {{QStringLiteral("code"), d.code}, {QStringLiteral("text"), d.text}});
    QJsonObject o {
        {QStringLiteral("key"), text(r.key)},
        {QStringLiteral("kind"), LockKinds::name(r.kind)},
        {QStringLiteral("library"), r.library},
        {QStringLiteral("type"), QString::fromLatin1(r.type)},
        {QStringLiteral("pttl_ms"), r.pttlMs},
        {QStringLiteral("owners"), owners},
        {QStringLiteral("waiters"), orNull(r.waiters())},
        {QStringLiteral("token"),
         r.hasFencingToken ? QJsonValue(r.fencingToken) : QJsonValue(QJsonValue::Null)},
        {QStringLiteral("companions"), companions},
        {QStringLiteral("diagnoses"), diagnoses},
    };
    if (!r.node.isEmpty()) { // a cluster's lock: where it lives
        o.insert(QStringLiteral("node"), r.node);
        o.insert(QStringLiteral("slot"), r.slot);
    }
    return o;
}

QJsonObject server(const ServerInfo &info)
{
    return {
        {QStringLiteral("version"), info.version},
        {QStringLiteral("mode"), info.mode},
        {QStringLiteral("db"), info.db},
    };
}

QJsonObject event(const LockEvent &e, const QByteArray &key, const LockRecord *record)
{
    QJsonObject o {
        {QStringLiteral("time"),
         QDateTime::fromMSecsSinceEpoch(InspectClock::wallFromMonotonic(e.atMs)).toString(Qt::ISODateWithMs)},
        {QStringLiteral("event"), LockEvent::typeName(e.type)},
        {QStringLiteral("key"), text(key)},
        {QStringLiteral("detail"), e.detail},
    };
    o.insert(QStringLiteral("lock"), record ? QJsonValue(lock(*record)) : QJsonValue(QJsonValue::Null));
    return o;
}

} // namespace LockJson
