// The Inspector's Export…: the rows the filters show, as CSV (LockTableModel::csv) or as the JSON document
// `lockscope-cli inspect --json` writes, saying what was not read (a partial scan, a server that went away).
#pragma once

#include "inspect/lockrecord.h"

#include <QList>
#include <QString>

class LockMonitor;
struct ServerInfo;

namespace LockTableExport {

// By the file's suffix (.json or else CSV). Empty when written, else why not.
QString write(const QString &path, const QList<LockRecord> &rows, const LockMonitor &monitor,
              const ServerInfo &server);

} // namespace LockTableExport
