// The inspector's two clocks: a monotonic one for TTL countdowns and history order, and the wall clock for
// times shown to people and for fair-lock deadlines (which Redisson writes from its clients' wall clocks).
#pragma once

#include <QtGlobal>

namespace InspectClock {

// Milliseconds on a monotonic clock shared by every inspector object of this process.
qint64 monotonicMs();
// Milliseconds since the Unix epoch.
qint64 wallMs();
// The wall-clock time that corresponds to `monotonic` (for showing history times).
qint64 wallFromMonotonic(qint64 monotonic);

} // namespace InspectClock
