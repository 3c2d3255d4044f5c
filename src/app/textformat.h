// Small text helpers for the GUI: counts with the right English plural ("1 overlap", "3,000 overlaps"), since
// the app ships no translation that would resolve Qt's "%n item(s)" forms.
#pragma once

#include <QString>

namespace TextFormat {
QString count(qint64 n, const QString &one, const QString &many);
} // namespace TextFormat
