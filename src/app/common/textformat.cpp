// TextFormat: counts, run times and durations.
#include "textformat.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include <QLocale>

namespace TextFormat {
QString count(qint64 n, const QString &one, const QString &many)
{
    return QStringLiteral("%1 %2").arg(QLocale(QLocale::English).toString(n), n == 1 ? one : many);
}

QString runTime(qint64 us, qint64 stepUs)
{
    if (stepUs <= 0)
        stepUs = 1000;
    const int decimals = std::clamp(int(std::ceil(-std::log10(double(stepUs) / 1e6) - 1e-9)), 0, 6);
    return QString::number(double(us) / 1e6, 'f', decimals) + QStringLiteral(" s");
}

QString duration(qint64 us)
{
    if (std::llabs(us) >= 10000000)
        return QString::number(double(us) / 1e6, 'f', 1) + QStringLiteral(" s");
    if (std::llabs(us) >= 1000000)
        return QString::number(double(us) / 1e6, 'f', 2) + QStringLiteral(" s");
    if (std::llabs(us) >= 10000)
        return QString::number(double(us) / 1e3, 'f', 0) + QStringLiteral(" ms");
    if (std::llabs(us) >= 1000)
        return QString::number(double(us) / 1e3, 'f', 1) + QStringLiteral(" ms");
    return QString::number(us) + QStringLiteral(" µs");
}

} // namespace TextFormat
