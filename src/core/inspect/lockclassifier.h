// Decides what a scanned key is: which kind of lock, which library wrote it and why, who holds it, and what
// could not be read. It interprets the format catalog (FormatCatalog); only what a pattern cannot say is
// code here (decoding redis-py's uuid1 token, Redisson's 2.x JSON owner, a fair lock's orphan queue). A pure
// function of the scanned data and the catalog, so it is tested without a server and can be fuzzed.
#pragma once

#include "formatcatalog.h"
#include "lockrecord.h"
#include "scannedkey.h"

namespace LockClassifier {

// The lock `key` holds, a "named like a lock" record when only its name (or the user's pattern) says lock,
// or a record with kind None when it is not a lock. Diagnoses are not filled in (see LockDiagnostics);
// `problems` lists what is malformed.
// `match`: the catalog's match of `key` when the caller has it already (a full scan matches every key once).
LockRecord classify(const ScannedKey &key, const FormatCatalog &catalog,
                    const FormatCatalog::Match *match = nullptr);

// False when `key` cannot be listed whatever else is read: not named like a lock, not asked for, and its
// data fits no format. Callers use it to skip work early (most keys of a big keyspace).
bool mayBeLock(const ScannedKey &key, const FormatCatalog &catalog);

// Facts a redis-py token (uuid1 hex) carries: when it was made and on which host.
struct Uuid1
{
    qint64 epochMs = 0;
    QString node; // "52:54:00:12:34:56", or "random" when the host used a random node id
};
// True when `hex` (32 lower-case hex digits) is an RFC 4122 version-1 uuid made within the ten years before
// `nowMs` (ms since the epoch; -1: this machine's clock), or up to a day after it (clocks disagree). A random
// 32-hex token (node-redlock's) has the version and variant 1 time in 64; the window keeps it from passing
// for redis-py's but about 1 time in 23,000 (it spans ten of the 3,650 years a uuid1 time can name).
bool parseUuid1Hex(const QByteArray &hex, Uuid1 *out = nullptr, qint64 nowMs = -1);
bool isLowerHex32(const QByteArray &value);

} // namespace LockClassifier
