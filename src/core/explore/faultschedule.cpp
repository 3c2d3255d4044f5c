// FaultSchedule: names, descriptions and the JSON of the report's minimal.faults[].
#include "faultschedule.h"

namespace {

const QStringList &typeNames()
{
    static const QStringList names {QStringLiteral("pause"),   QStringLiteral("crash"),
                                    QStringLiteral("delay"),   QStringLiteral("drop"),
                                    QStringLiteral("cut"),     QStringLiteral("restart"),
                                    QStringLiteral("failover"), QStringLiteral("clock-jump")};
    return names;
}

QString seconds(double ms)
{
    return QString::number(ms / 1000.0, 'f', 3) + QStringLiteral(" s");
}

QString millis(double ms)
{
    return ms >= 1000 ? QString::number(ms / 1000.0, 'f', 2) + QStringLiteral(" s")
                      : QString::number(qRound(ms)) + QStringLiteral(" ms");
}

} // namespace

QString ScheduledFault::typeName(Type type)
{
    return typeNames().value(int(type));
}

bool ScheduledFault::typeFromName(const QString &name, Type *type)
{
    const qsizetype i = typeNames().indexOf(name);
    if (i < 0)
        return false;
    *type = Type(i);
    return true;
}

QStringList ScheduledFault::allTypeNames()
{
    return typeNames();
}

QString ScheduledFault::pointName(Point point)
{
    switch (point) {
    case Point::AtTime:
        return QStringLiteral("at-time");
    case Point::InsideAcquire:
        return QStringLiteral("inside-acquire");
    case Point::InsideRelease:
        return QStringLiteral("inside-release");
    }
    return QString();
}

QString ScheduledFault::describe(const QStringList &actors) const
{
    const QString who = actors.value(target, QStringLiteral("P%1").arg(target + 1));
    const QString after = atMs > 0 ? QStringLiteral(" after ") + seconds(atMs) : QString();
    const QString when = point == Point::AtTime ? QStringLiteral("at ") + seconds(atMs)
        : point == Point::InsideAcquire ? QStringLiteral("in its first acquire%1, between SETNX and EXPIRE").arg(after)
                                        : QStringLiteral("in its first release%1, between GET and DEL").arg(after);
    switch (type) {
    case Type::Pause:
        return QStringLiteral("%1 pauses for %2 %3").arg(who, millis(durationMs), when);
    case Type::Crash:
        return QStringLiteral("%1 crashes %2").arg(who, when);
    case Type::Delay:
        return QStringLiteral("%1's network adds %2 to every command from %3 on")
            .arg(who, millis(durationMs), seconds(atMs));
    case Type::Drop:
        return QStringLiteral("%1's connections are reset %2").arg(who, when);
    case Type::Cut:
        return QStringLiteral("%1 is cut off from the servers for %2 %3").arg(who, millis(durationMs), when);
    case Type::Restart:
        return QStringLiteral("server %1 restarts without persistence %2").arg(target).arg(when);
    case Type::Failover:
        return QStringLiteral("server %1 fails over %2 to a replica that stopped receiving %3 earlier")
            .arg(target)
            .arg(when, millis(durationMs));
    case Type::ClockJump:
        return QStringLiteral("%1's clock is %2 ahead from the start").arg(who, millis(durationMs));
    }
    return QString();
}

QJsonObject ScheduledFault::toJson(const QStringList &actors) const
{
    QJsonObject o {{QStringLiteral("type"), typeName(type)}, {QStringLiteral("at_ms"), qRound(atMs * 10) / 10.0}};
    if (hitsServer())
        o.insert(QStringLiteral("server"), target);
    else
        o.insert(QStringLiteral("process"), actors.value(target));
    if (hasLength())
        o.insert(QStringLiteral("duration_ms"), qRound(durationMs * 10) / 10.0);
    if (point != Point::AtTime)
        o.insert(QStringLiteral("point"), pointName(point));
    o.insert(QStringLiteral("text"), describe(actors));
    return o;
}

QStringList FaultSchedule::actorNames(int workers)
{
    QStringList names;
    for (int w = 0; w < workers; ++w)
        names << (w < 26 ? QString(QChar(u'A' + w)) : QStringLiteral("W%1").arg(w + 1));
    return names;
}

QString FaultSchedule::describe() const
{
    QStringList parts;
    const QStringList actors = actorNames(workers);
    for (const ScheduledFault &f : faults)
        parts << f.describe(actors);
    return parts.isEmpty() ? QStringLiteral("no fault") : parts.join(QStringLiteral("; "));
}

QJsonArray FaultSchedule::faultsJson() const
{
    QJsonArray list;
    const QStringList actors = actorNames(workers);
    for (const ScheduledFault &f : faults)
        list.append(f.toJson(actors));
    return list;
}

QString FaultSchedule::key() const
{
    QString k = QString::number(workers);
    for (const ScheduledFault &f : faults)
        k += QStringLiteral("|%1,%2,%3,%4,%5")
                 .arg(int(f.type))
                 .arg(f.target)
                 .arg(f.atMs, 0, 'f', 1)
                 .arg(f.durationMs, 0, 'f', 1)
                 .arg(int(f.point));
    return k;
}
