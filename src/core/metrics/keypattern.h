// A key's pattern: its name with the parts that differ from one lock to the next (numbers, ids, uuids,
// hashes) folded into `*`, so `orders:42:lock` and `orders:43:lock` are one pattern. Exported metrics are
// counted per pattern, which keeps their number bounded whatever the keys.
#pragma once

#include <QByteArray>
#include <QString>

namespace KeyPattern {

// The longest pattern kept, in characters; longer ones are cut and end with "…".
constexpr int kMaxLength = 120;

// "orders:42:lock" → "orders:*:lock"; "lock:3f2a9c0e-1b2c-4d5e-8f90-a1b2c3d4e5f6" → "lock:*";
// "job:a94a8fe5ccb19ba61c4c0873d391e987982fbbd3" → "job:*"; "worker7" → "worker*". Non-UTF-8 bytes are
// shown as Bytes::display() shows them.
QString fold(const QByteArray &key);

} // namespace KeyPattern
