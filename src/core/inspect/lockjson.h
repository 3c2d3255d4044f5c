// The JSON form of inspector results, shared by `inspect --json`, `inspect --watch --json` and the GUI's
// export (the shape is documented in docs/inspect-json.md). Keys and values come out exactly: a key that is
// valid UTF-8 is the JSON string of its bytes (only what JSON requires is escaped), and one that is not has a
// readable "key" with \xNN escapes plus "key_base64" with its exact bytes. Whatever could not be read is
// null, with the reason in the lock's "unknown" object.
#pragma once

#include "lockhistory.h"
#include "lockrecord.h"
#include "lockscanjob.h"
#include "redis/serverinfo.h"

#include <QJsonObject>

namespace LockJson {

// One lock (see docs/inspect-json.md).
QJsonObject lock(const LockRecord &record);
// {"version", "mode", "role", "db", …}
QJsonObject server(const ServerInfo &info);
// {"time", "event", "key", "detail", "lock"} for one history event (watch mode, one object per line).
QJsonObject event(const LockEvent &event, const QByteArray &key, const LockRecord *record);
// Adds `name` (and `name`_base64 when the bytes are not UTF-8) to `o`.
void putBytes(QJsonObject &o, const QString &name, const QByteArray &bytes);
// {"keys": n, "reasons": {reason: n}} for keys the scan could not read.
QJsonObject unread(const ScanProgress &progress);
// Why an inspection is not the whole truth, one sentence each (empty when it is): the server loading, keys
// not read, `missing` cluster nodes and slots, values the server refused.
QStringList incompleteBecause(const QList<LockRecord> &records, const ScanProgress &progress,
                              const ServerInfo &info, const QStringList &missing);
// The whole inspection, as `inspect --json` prints it and the GUI exports it: {"server", "scanned_keys",
// "unread", "complete", "incomplete_because", "locks"}.
QJsonObject inspection(const QList<LockRecord> &records, const ScanProgress &progress, const ServerInfo &info,
                       const QStringList &incompleteBecause);

} // namespace LockJson
