// One inspection of a server, the `inspect` command's work without its printing: SCAN pages with pipelined
// probes (read-only), every master of a cluster, the locks sorted most alarming first, and why the result is
// not the whole truth when it is not.
#pragma once

#include "inspect/lockrecord.h"
#include "inspect/lockscanjob.h"
#include "redis/serverinfo.h"

#include <QStringList>

#include <optional>

class CliServer;
class QTextStream;

// What one inspection found.
struct InspectFindings
{
    ServerInfo info;
    QList<LockRecord> records; // most alarming first, then by key
    ScanProgress progress;
    bool cluster = false; // every master was scanned
    QStringList nodes; // the cluster's masters ("host:port"); empty for a single server
    QStringList incomplete; // why this is not everything there is, a sentence each; empty when it is
};

namespace InspectScan {

// Scans the server `server` is connected to. `progress`, when given, receives a "scanning…" line kept up to
// date with carriage returns (for a terminal) and erased at the end. Empty with `error` set (a sentence) when
// the server cannot be inspected.
std::optional<InspectFindings> run(CliServer &server, const ScanOptions &options, QTextStream *progress,
                                   QString *error);

} // namespace InspectScan
