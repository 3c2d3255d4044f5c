// TextFormat: counts.
#include "textformat.h"

#include <QLocale>

namespace TextFormat {
QString count(qint64 n, const QString &one, const QString &many)
{
    return QStringLiteral("%1 %2").arg(QLocale(QLocale::English).toString(n), n == 1 ? one : many);
}
} // namespace TextFormat
