// TextFormat: counts.
#include "textformat.h"

namespace TextFormat {
QString count(qint64 n, const QString &one, const QString &many)
{
    return QStringLiteral("%1 %2").arg(n).arg(n == 1 ? one : many);
}
} // namespace TextFormat
