// InspectFormat: one wording for durations so the table, the details pane and the CLI agree.
#include "inspectformat.h"

#include <QDateTime>
#include <QLocale>

namespace InspectFormat {

QString duration(qint64 ms)
{
    if (ms < 0)
        ms = 0;
    if (ms < 1000)
        return QStringLiteral("%1 ms").arg(ms);
    if (ms < 60'000)
        return QStringLiteral("%1 s").arg(double(ms) / 1000.0, 0, 'f', 1);
    const qint64 s = ms / 1000;
    if (s < 3600)
        return QStringLiteral("%1 min %2 s").arg(s / 60).arg(s % 60, 2, 10, QLatin1Char('0'));
    if (s < 86400)
        return QStringLiteral("%1 h %2 min").arg(s / 3600).arg((s % 3600) / 60, 2, 10, QLatin1Char('0'));
    return QStringLiteral("%1 d %2 h").arg(s / 86400).arg((s % 86400) / 3600);
}

QString ttl(qint64 pttlMs)
{
    if (pttlMs == -1)
        return QStringLiteral("no TTL");
    if (pttlMs <= -3)
        return QStringLiteral("unknown"); // the server would not say: never shown as "gone"
    if (pttlMs < -1)
        return QStringLiteral("gone");
    return duration(pttlMs);
}

QString clockTime(qint64 epochMs)
{
    const QDateTime t = QDateTime::fromMSecsSinceEpoch(epochMs);
    if (t.date() == QDate::currentDate())
        return t.toString(QStringLiteral("HH:mm:ss.zzz"));
    return t.toString(QStringLiteral("yyyy-MM-dd HH:mm:ss.zzz"));
}

QString count(qint64 n)
{
    return QLocale(QLocale::English).toString(n);
}

} // namespace InspectFormat
