// ClusterSlot: the key-to-slot function of the Redis Cluster specification.
#include "clusterslot.h"

#include <array>

namespace ClusterSlot {

namespace {

std::array<quint16, 256> makeTable()
{
    std::array<quint16, 256> table {};
    for (int i = 0; i < 256; ++i) {
        quint16 crc = quint16(i << 8);
        for (int bit = 0; bit < 8; ++bit)
            crc = (crc & 0x8000) ? quint16((crc << 1) ^ 0x1021) : quint16(crc << 1);
        table[size_t(i)] = crc;
    }
    return table;
}

} // namespace

quint16 crc16(const QByteArray &bytes)
{
    static const std::array<quint16, 256> table = makeTable();
    quint16 crc = 0;
    for (const char c : bytes)
        crc = quint16((crc << 8) ^ table[size_t(((crc >> 8) ^ quint8(c)) & 0xff)]);
    return crc;
}

QByteArray hashTag(const QByteArray &key)
{
    const qsizetype open = key.indexOf('{');
    if (open < 0)
        return key;
    const qsizetype close = key.indexOf('}', open + 1);
    if (close < 0 || close == open + 1)
        return key;
    return key.mid(open + 1, close - open - 1);
}

int of(const QByteArray &key)
{
    return crc16(hashTag(key)) & (kSlots - 1);
}

} // namespace ClusterSlot
