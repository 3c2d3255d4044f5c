// A Redis reply as a plain value: what the rest of LockScope uses instead of raw redisReply pointers.
#pragma once

#include <QByteArray>
#include <QList>
#include <QMetaType>
#include <QString>

class RedisReply
{
public:
    enum class Type { Nil, Integer, String, Status, Error, Array };

    RedisReply() = default; // a nil reply

    static RedisReply nil() { return {}; }
    static RedisReply integer(qint64 value);
    static RedisReply string(const QByteArray &bytes);
    static RedisReply status(const QByteArray &text);
    static RedisReply error(const QByteArray &text);
    static RedisReply array(const QList<RedisReply> &elements);

    // Parses one RESP2 reply from raw bytes (used by tests and fuzzers). Returns false
    // with `error` set when the bytes are malformed or do not hold a whole reply.
    static bool parse(const QByteArray &resp, RedisReply *out, QString *error = nullptr);

    Type type() const { return m_type; }
    bool isNil() const { return m_type == Type::Nil; }
    bool isInteger() const { return m_type == Type::Integer; }
    bool isString() const { return m_type == Type::String; }
    bool isStatus() const { return m_type == Type::Status; }
    bool isError() const { return m_type == Type::Error; }
    bool isArray() const { return m_type == Type::Array; }

    // The integer of an Integer reply, or a String/Status that holds a decimal integer.
    qint64 toInteger(bool *ok = nullptr) const;
    // Bytes of a String, Status or Error reply (empty otherwise).
    const QByteArray &bytes() const { return m_bytes; }
    const QList<RedisReply> &elements() const { return m_elements; }
    qsizetype size() const { return m_elements.size(); }
    const RedisReply &at(qsizetype i) const { return m_elements.at(i); }

    // redis-cli style rendering, for logs, error texts and the GUI's raw views.
    QString toDisplayString(int maxBytes = 200) const;
    static QString typeName(Type type);

    // Declared, not defaulted: a defaulted == would make Qt's metatype traits recurse into QList<RedisReply>.
    bool operator==(const RedisReply &other) const;

private:
    friend struct RedisReplyReader; // hiredis builds replies in place (boundedreader.cpp)

    Type m_type = Type::Nil;
    qint64 m_integer = 0;
    QByteArray m_bytes;
    QList<RedisReply> m_elements;
};

Q_DECLARE_METATYPE(RedisReply)
