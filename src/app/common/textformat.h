// Small text helpers for the GUI: counts with the right English plural ("1 overlap", "3,000 overlaps"), since
// the app ships no translation that would resolve Qt's "%n item(s)" forms; a run's times and durations as
// the timeline, the event log, the cards and the step views all write them.
#pragma once

#include <QString>

namespace TextFormat {
QString count(qint64 n, const QString &one, const QString &many);
// A moment of a run, in seconds with as many decimals as `stepUs` needs ("2.40 s" for a 10 ms step).
QString runTime(qint64 us, qint64 stepUs = 0);
// A duration in its natural unit ("850 µs", "3.2 ms", "12 ms", "1.25 s", "12.5 s").
QString duration(qint64 us);
} // namespace TextFormat
