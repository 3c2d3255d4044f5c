// Writes a run's history as CSV (one event per line, names instead of indexes) for `simulate --events` and
// the GUI's export. Columns:
// variant,time_us,worker,process,lock,kind,phase,op,token,value,outcome,commands,votes,detail
// (votes: Redlock rounds and acquisitions, one character per server — 1 granted, 0 refused, x no answer.)
#pragma once

#include <QString>

class QIODevice;
class Simulation;

namespace HistoryCsv {
QByteArray header();
// Appends every event of `simulation` (finished or running) to `out`. Returns the number of rows written.
qint64 write(QIODevice &out, const Simulation &simulation, const QString &variant = QString());
} // namespace HistoryCsv
