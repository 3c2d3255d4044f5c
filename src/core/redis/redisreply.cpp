// RedisReply: constructors, RESP parsing (through the reader LockScope gives hiredis) and rendering.
#include "redisreply.h"

#include "boundedreader.h"
#include "bytes.h"

#include <hiredis/hiredis.h>

#include <memory>

RedisReply RedisReply::integer(qint64 value)
{
    RedisReply r;
    r.m_type = Type::Integer;
    r.m_integer = value;
    return r;
}

RedisReply RedisReply::string(const QByteArray &bytes)
{
    RedisReply r;
    r.m_type = Type::String;
    r.m_bytes = bytes;
    return r;
}

RedisReply RedisReply::status(const QByteArray &text)
{
    RedisReply r;
    r.m_type = Type::Status;
    r.m_bytes = text;
    return r;
}

RedisReply RedisReply::error(const QByteArray &text)
{
    RedisReply r;
    r.m_type = Type::Error;
    r.m_bytes = text;
    return r;
}

RedisReply RedisReply::array(const QList<RedisReply> &elements)
{
    RedisReply r;
    r.m_type = Type::Array;
    r.m_elements = elements;
    return r;
}

bool RedisReply::parse(const QByteArray &resp, RedisReply *out, QString *error)
{
    std::unique_ptr<redisReader, decltype(&redisReaderFree)> reader(redisReaderCreate(), &redisReaderFree);
    if (!reader) {
        if (error)
            *error = QStringLiteral("out of memory");
        return false;
    }
    BoundedReader::install(reader.get());
    void *raw = nullptr;
    if (redisReaderFeed(reader.get(), resp.constData(), size_t(resp.size())) != REDIS_OK
        || redisReaderGetReply(reader.get(), &raw) != REDIS_OK) {
        const QString refused = BoundedReader::refusal();
        if (error)
            *error = QStringLiteral("malformed reply: %1")
                         .arg(refused.isEmpty() ? QString::fromLatin1(reader->errstr) : refused);
        return false;
    }
    if (!raw) {
        if (error)
            *error = QStringLiteral("incomplete reply: the bytes end before the reply does");
        return false;
    }
    if (out)
        *out = BoundedReader::take(raw);
    else
        BoundedReader::discard(raw);
    return true;
}

bool RedisReply::operator==(const RedisReply &other) const
{
    return m_type == other.m_type && m_integer == other.m_integer && m_bytes == other.m_bytes
        && m_elements == other.m_elements;
}

qint64 RedisReply::toInteger(bool *ok) const
{
    if (m_type == Type::Integer) {
        if (ok)
            *ok = true;
        return m_integer;
    }
    if (m_type == Type::String || m_type == Type::Status)
        return m_bytes.toLongLong(ok);
    if (ok)
        *ok = false;
    return 0;
}

QString RedisReply::typeName(Type type)
{
    switch (type) {
    case Type::Nil:
        return QStringLiteral("nil");
    case Type::Integer:
        return QStringLiteral("integer");
    case Type::String:
        return QStringLiteral("string");
    case Type::Status:
        return QStringLiteral("status");
    case Type::Error:
        return QStringLiteral("error");
    case Type::Array:
        return QStringLiteral("array");
    }
    return QStringLiteral("?");
}

QString RedisReply::toDisplayString(int maxBytes) const
{
    switch (m_type) {
    case Type::Nil:
        return QStringLiteral("(nil)");
    case Type::Integer:
        return QStringLiteral("(integer) %1").arg(m_integer);
    case Type::String:
        return u'"' + Bytes::display(m_bytes, maxBytes) + u'"';
    case Type::Status:
        return Bytes::display(m_bytes, maxBytes);
    case Type::Error:
        return QStringLiteral("(error) ") + Bytes::display(m_bytes, maxBytes);
    case Type::Array: {
        if (m_elements.isEmpty())
            return QStringLiteral("(empty array)");
        QStringList parts;
        for (const RedisReply &e : m_elements)
            parts << e.toDisplayString(maxBytes);
        return u'[' + parts.join(QStringLiteral(", ")) + u']';
    }
    }
    return {};
}
