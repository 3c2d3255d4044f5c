// The JSON form of inspector results, shared by `inspect --json` and `inspect --watch --json` (the shape is
// documented in docs/inspect-json.md). Keys and values come out exactly: a key that is valid UTF-8 is the
// JSON string of its bytes (only what JSON requires is escaped), and one that is not has a readable "key"
// with \xNN escapes plus "key_base64" with its exact bytes. Whatever could not be read is null, with the
// reason in the lock's "unknown" object.
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

} // namespace LockJson
