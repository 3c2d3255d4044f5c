// BoundedReader: hiredis reply builders that write RedisReply values in place. hiredis calls one builder per
// element, top-down, with the parent's object and the element's index; the parent array is sized when it is
// created, so each element is built right in its slot and only the top reply is ever allocated on its own.
#include "boundedreader.h"

#include <hiredis/hiredis.h>

namespace {

// The elements of the last refused array on this thread (a connection is used from one thread, and
// RedisReply::parse reads synchronously), 0 when none was refused since the last refusal().
thread_local qint64 t_refusedElements = 0;

} // namespace

// The one place that writes a RedisReply's fields directly (a friend of RedisReply).
struct RedisReplyReader
{
    // The object for `task`: its slot in the parent array, or a new top-level reply.
    static RedisReply *slot(const redisReadTask *task)
    {
        if (!task->parent)
            return new RedisReply;
        auto *parent = static_cast<RedisReply *>(task->parent->obj);
        return &parent->m_elements[task->idx];
    }

    static void *createString(const redisReadTask *task, char *str, size_t len)
    {
        RedisReply *r = slot(task);
        switch (task->type) {
        case REDIS_REPLY_ERROR:
            r->m_type = RedisReply::Type::Error;
            break;
        case REDIS_REPLY_STATUS:
            r->m_type = RedisReply::Type::Status;
            break;
        default:
            r->m_type = RedisReply::Type::String;
            break;
        }
        r->m_bytes = QByteArray(str, qsizetype(len));
        return r;
    }

    static void *createArray(const redisReadTask *task, int elements)
    {
        if (elements < 0 || elements > BoundedReader::kMaxArrayElements) { // < 0: a count beyond int
            t_refusedElements = elements;
            return nullptr; // hiredis stops with an error instead of allocating
        }
        RedisReply *r = slot(task);
        r->m_type = RedisReply::Type::Array;
        r->m_elements.resize(elements); // nil placeholders, filled in place by the elements' builders
        return r;
    }

    static void *createInteger(const redisReadTask *task, long long value)
    {
        RedisReply *r = slot(task);
        r->m_type = RedisReply::Type::Integer;
        r->m_integer = value;
        return r;
    }

    static void *createNil(const redisReadTask *task)
    {
        return slot(task); // a default RedisReply is nil
    }

    // hiredis frees only top-level objects (a reply it gives up on, or one left in a freed reader).
    static void freeObject(void *object) { delete static_cast<RedisReply *>(object); }
};

namespace {

redisReplyObjectFunctions *builders()
{
    static redisReplyObjectFunctions functions {RedisReplyReader::createString, RedisReplyReader::createArray,
                                                RedisReplyReader::createInteger, RedisReplyReader::createNil,
                                                RedisReplyReader::freeObject};
    return &functions;
}

} // namespace

namespace BoundedReader {

void install(redisReader *reader)
{
    if (reader)
        reader->fn = builders();
}

RedisReply take(void *object)
{
    auto *reply = static_cast<RedisReply *>(object);
    if (!reply)
        return {};
    RedisReply out = std::move(*reply);
    delete reply;
    return out;
}

void discard(void *object)
{
    RedisReplyReader::freeObject(object);
}

QString refusal()
{
    const qint64 elements = t_refusedElements;
    t_refusedElements = 0;
    if (elements == 0)
        return {};
    return QStringLiteral("the reply announced an array of %1 elements, more than the %2 LockScope reads "
                          "(a broken or hostile server)")
        .arg(elements)
        .arg(kMaxArrayElements);
}

} // namespace BoundedReader
