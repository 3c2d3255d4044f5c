// Wording shared by the GUI and the CLI: durations, TTLs and times as people read them.
#pragma once

#include <QString>

namespace InspectFormat {

// "850 ms", "12.0 s", "4 min 05 s", "2 h 05 min", "3 d 4 h".
QString duration(qint64 ms);
// duration() for a PTTL-like value: "no TTL" for -1, "gone" for -2, "unknown" for -3 (not read).
QString ttl(qint64 pttlMs);
// "14:03:07.250" (local time) for an epoch-ms time, with the date when it is not today.
QString clockTime(qint64 epochMs);
// 1234567 → "1,234,567"
QString count(qint64 n);

} // namespace InspectFormat
