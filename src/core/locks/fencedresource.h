// A storage service that checks fencing tokens (Kleppmann): a Redis HASH with the value and the highest
// token that ever wrote it; a write carrying a lower token is refused, atomically (fenced_write.lua). The
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

private:
    QByteArray m_key;
};
