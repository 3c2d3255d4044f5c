// What looks wrong with a lock, one sentence each, with the evidence it rests on: no-ttl,
// ttl-above-threshold, watchdog-stalled, orphan-queue, expired-holders, job-missing, contended, malformed.
// Nothing is judged from a value that could not be read, nothing is alarmed on for a key whose only claim to
// being a lock is the shape of its value, and a stall is judged against the lock's own renewal rhythm (what
// its library does, and what was seen), never a fixed fraction. Pure: the same record and context always
// give the same diagnoses.
#pragma once

#include "lockrecord.h"

struct DiagnosticContext
{
    qint64 nowEpochMs = 0; // wall clock, for deadlines and holder expiries the libraries write
    qint64 ttlThresholdMs = 10 * 60 * 1000; // ttl-above-threshold
    // From the key's history (LockHistory), when it was watched: the lease its renewals restore, how many
    // were seen, the mean interval between them, and how long ago the last one was.
    qint64 observedLeaseMs = -1;
    int renewalsSeen = 0;
    qint64 renewalIntervalMs = -1;
    qint64 renewalJitterMs = -1; // the largest deviation of an interval from that mean; -1 unknown
    qint64 sinceLastRenewalMs = -1;
    // How coarse the readings are (the poll interval, or a few ms with keyspace notifications): a renewal
    // can only be seen that late, so a stall is called only after that much more.
    qint64 readingGranularityMs = 1000;
};

namespace LockDiagnostics {

// Replaces `record.diagnoses` with what applies now.
void diagnose(LockRecord &record, const DiagnosticContext &context);
// Every code, in the order they are listed, with a one-line explanation (for --help and tooltips).
QList<LockDiagnosis> catalog();
// True when the record's identity is strong enough to alarm on: its format knows its name or its data is
// unmistakable, or its name (or the user's pattern) says lock. A value that merely looks like a token does
// not make a lock; only a steady renewal rhythm seen while watching does, and then only for a stall
// (diagnose).
bool mayAlarm(const LockRecord &record);
// When the next renewal is due at the latest, counted from the last one: the renewal period (from what was
// seen, else from the library's policy) plus a margin for timers and readings; -1 when unknown. A steady
// rhythm seen while watched (three renewals or more, each interval within a quarter of their mean) is the
// lease's own when its format knows no renewal rhythm (no known library, or one that does not renew on its
// own): its period plus a margin of at most three quarters of one.
bool steadyRhythm(const DiagnosticContext &context);
qint64 renewalDeadlineMs(const LockRecord &record, const DiagnosticContext &context);

} // namespace LockDiagnostics
