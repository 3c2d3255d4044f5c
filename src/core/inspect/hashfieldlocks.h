// Locks that are not keys of their own but fields of a hash shared with other data (issue 39: huey's task
// locks in its results hash): which fields of a read hash are locks, and one lock record per such field.
#pragma once

#include "lockrecord.h"
#include "scannedkey.h"

#include <QByteArray>
#include <QList>

namespace HashFieldLocks {

// The fields of `hash` (as far as it was read) that are locks by evidence: huey's `<name>.lock.<lock>` in
// `huey.results.<name>`, or a field named like a lock (`lockNames`: the scan's lock-name words and globs) whose
// value is no number, in a hash that also holds fields that are not named so. Empty for any other hash.
QList<QByteArray> lockFields(const ScannedKey &hash, const QList<QByteArray> &lockNames);

// One record per lock field (`field` set, `value` the field's bytes), undiagnosed. A huey results hash read only
// in part gives, when none of the fields read is a lock, one "named like a lock" record saying the rest is
// unread: partial, not clean.
QList<LockRecord> records(const ScannedKey &hash, const QList<QByteArray> &lockNames);

// huey's instance name when `key` is huey's results hash (`huey.results.<name>`, RedisStorage.result_key), else
// empty.
QByteArray hueyName(const QByteArray &key);

} // namespace HashFieldLocks
