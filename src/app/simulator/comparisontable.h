// The side-by-side comparison as the Simulator shows it: an HTML table for the Report tab, and the few
// words and the colour each variant's tab carries. Colours follow what happened to the data (red lost or
// two holders, green safe), never whether the scenario's expectations were met.
#pragma once

#include "common/timelinepalette.h"
#include "sim/runcomparison.h"

#include <QColor>

class QTabBar;
#include <QString>

namespace ComparisonTable {

QString html(const QList<RunComparison::Row> &rows, const TimelinePalette &palette);
// "data lost", "data safe (fenced)", "two holders", …: short enough for a tab.
QString shortVerdict(const RunComparison::Row &row);
QColor verdictColor(RunComparison::Verdict verdict, const TimelinePalette &palette);
// Tab `index` of `tabs` names `variant`, and, with its run's `report` (nullptr: not to be told yet), what
// happened to its data in that colour.
void labelTab(QTabBar *tabs, int index, const QString &variant, const RunReport *report);

} // namespace ComparisonTable
