// Which of Redis Cluster's 16384 hash slots a key lives in: CRC16 (XMODEM) of the key, or of its hash tag.
#pragma once

#include <QByteArray>

namespace ClusterSlot {

constexpr int kSlots = 16384;

// CRC16-CCITT (XMODEM: polynomial 0x1021, initial value 0), the checksum Redis Cluster uses.
quint16 crc16(const QByteArray &bytes);
// The part of the key that is hashed: the text between the first '{' and the next '}' when it is not empty
// ("{user1000}.following" → "user1000"), else the whole key.
QByteArray hashTag(const QByteArray &key);
// The slot of `key`, 0..16383 (CLUSTER KEYSLOT).
int of(const QByteArray &key);

} // namespace ClusterSlot
