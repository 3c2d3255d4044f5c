// The JSON form of inspector results, shared by `inspect --json` and `inspect --watch --json`.
#pragma once

#include "inspect/lockhistory.h"
#include "inspect/lockrecord.h"
#include "redis/serverinfo.h"

#include <QJsonObject>

namespace LockJson {

// {"key", "kind", "library", "type", "pttl_ms", "owners": [{"id", "client", "thread", "count"}], "waiters",
//  "token", "companions": [{"key", "role", "type", "pttl_ms", "summary"}], "diagnoses": [{"code", "text"}]}
QJsonObject lock(const LockRecord &record);
// {"version", "mode", "db"}
QJsonObject server(const ServerInfo &info);
// {"time", "event", "key", "detail", "lock"} for one history event (watch mode, one object per line).
QJsonObject event(const LockEvent &event, const QByteArray &key, const LockRecord *record);

} // namespace LockJson
