// Violation: names and JSON form.
#include "violation.h"

#include <QJsonArray>

QString Violation::typeName(Type type)
{
    switch (type) {
    case Type::Overlap:
        return QStringLiteral("overlap");
    case Type::StaleHolder:
        return QStringLiteral("stale-holder");
    case Type::ForeignRelease:
        return QStringLiteral("foreign-release");
    case Type::LostUpdate:
        return QStringLiteral("lost-update");
    case Type::FencingRejection:
        return QStringLiteral("fencing-rejection");
    }
    return {};
}

QJsonObject Violation::toJson() const
{
    QJsonArray workerList;
    for (int w : workers)
        workerList.append(w);
    return QJsonObject {{QStringLiteral("type"), typeName(type)},
                        {QStringLiteral("lock"), lock},
                        {QStringLiteral("workers"), workerList},
                        {QStringLiteral("start_us"), double(startUs)},
                        {QStringLiteral("end_us"), double(endUs)},
                        {QStringLiteral("open_ended"), openEnded},
                        {QStringLiteral("text"), text}};
}
