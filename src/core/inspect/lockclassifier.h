// Decides what a scanned key is: which lock kind, which library probably wrote it and why, and who owns it.
// A pure function of the scanned data, so it is tested without a server and can be fuzzed.
#pragma once

#include "lockrecord.h"
#include "scannedkey.h"

namespace LockClassifier {

// The longest string value taken as an owner token; longer values under a lock name are "unknown".
constexpr int kMaxTokenBytes = 256;

// The lock `key` holds, or a record with kind None when it is not a lock. Diagnoses are not filled in
// (see LockDiagnostics); `problems` lists what is malformed.
LockRecord classify(const ScannedKey &key);

// Facts a redis-py token (uuid1 hex) carries: when it was made and on which host.
struct Uuid1
{
    qint64 epochMs = 0;
    QString node; // "52:54:00:12:34:56", or "random" when the host used a random node id
};
// False when `key` cannot be a lock whatever else is known: not named like one and holding no lock-shaped
// data. classify() returns kind None for these; callers use it to skip work early.
bool mayBeLock(const ScannedKey &key);
// True when `hex` (32 lower-case hex digits) is a plausible RFC 4122 version-1 uuid made after 2000.
bool parseUuid1Hex(const QByteArray &hex, Uuid1 *out = nullptr);
bool isLowerHex32(const QByteArray &value);
// True when a hash's fields could be a Redisson lock ('mode', or a <uuid>:<thread id>[:write] field), so its
// companions (queue, deadlines, token, channels) are worth reading.
bool looksLikeRedissonHash(const QList<QPair<QByteArray, QByteArray>> &fields);

} // namespace LockClassifier
