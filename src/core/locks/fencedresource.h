// A storage service that checks fencing tokens (Kleppmann): a Redis HASH with the value and the highest
// token it has seen, from a write or a holder's read; a write carrying a lower token is refused, atomically
// (fenced_write.lua). The
// simulator's fenced store and the fenced lock's tests use it; with a lock that has no tokens the same
// late write would land (a lost update).
#pragma once

#include "lockio.h"

#include "redis/redisconnection.h"

#include <QByteArray>

class FencedResource
{
public:
    struct WriteResult
    {
        bool accepted = false;
        qint64 highest = -1; // accepted: our token; refused: the newer token that wrote before
        RedisReply reply;
        RedisError error;
        int commands = 0;
        bool ok() const { return error.isNone(); }
    };
    struct State
    {
        QByteArray value;
        qint64 fence = -1; // -1: never written
        RedisError error;
    };

    explicit FencedResource(const QByteArray &key)
        : m_key(key)
    {
    }

    const QByteArray &key() const { return m_key; }
    WriteResult write(RedisConnection &connection, qint64 fence, const QByteArray &value) const;
    WriteResult write(RedisConnection &connection, LockIo &io, qint64 fence, const QByteArray &value) const;
    State read(RedisConnection &connection) const;
    // A holder's read (fenced_read.lua): the store remembers `fence`, so a later write with an older token is
    // refused even when it comes before this holder's own write.
    State readAs(RedisConnection &connection, qint64 fence) const;

private:
    QByteArray m_key;
};
