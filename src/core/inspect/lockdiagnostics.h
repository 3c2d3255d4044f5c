// What looks wrong with a lock, one sentence each: no-ttl, ttl-above-threshold, watchdog-stalled,
// orphan-queue, contended, malformed. Pure: the same record and context always give the same diagnoses.
#pragma once

#include "lockrecord.h"
#include "locks/redissonnames.h"

struct DiagnosticContext
{
    qint64 nowEpochMs = 0; // wall clock, for fair-lock deadlines (Redisson writes its clients' wall clocks)
    qint64 ttlThresholdMs = 10 * 60 * 1000; // ttl-above-threshold
    qint64 watchdogLeaseMs = RedissonNames::watchdogTimeoutMs; // Redisson's default lockWatchdogTimeout
    // From the key's history (LockHistory), when known: the lease its renewals restore and when the
    // last renewal happened. With them a stalled watchdog is told apart from a fixed lease.
    qint64 observedLeaseMs = -1;
    int renewalsSeen = 0;
    qint64 sinceLastRenewalMs = -1;
};

namespace LockDiagnostics {

// Replaces `record.diagnoses` with what applies now.
void diagnose(LockRecord &record, const DiagnosticContext &context);
// Every code, in the order they are listed, with a one-line explanation (for --help and tooltips).
QList<LockDiagnosis> catalog();

} // namespace LockDiagnostics
