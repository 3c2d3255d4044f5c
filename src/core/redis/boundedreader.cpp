// BoundedReader: hiredis' own reply builders, with the array one checking the count first.
#include "boundedreader.h"

#include <hiredis/hiredis.h>

namespace {

// The elements of the last refused array on this thread (a connection is used from one thread, and
// RedisReply::parse reads synchronously), 0 when none was refused since the last refusal().
thread_local qint64 t_refusedElements = 0;

const redisReplyObjectFunctions *defaults()
{
    static const redisReplyObjectFunctions *functions = [] {
        redisReader *probe = redisReaderCreate(); // points at hiredis' static default table
        const redisReplyObjectFunctions *fn = probe ? probe->fn : nullptr;
        if (probe)
            redisReaderFree(probe);
        return fn;
    }();
    return functions;
}

void *boundedCreateArray(const redisReadTask *task, int elements)
{
    if (elements < 0 || elements > BoundedReader::kMaxArrayElements) { // < 0: a count beyond int
        t_refusedElements = elements;
        return nullptr; // hiredis stops with an error instead of allocating
    }
    return defaults()->createArray(task, elements);
}

redisReplyObjectFunctions *bounded()
{
    static redisReplyObjectFunctions functions = [] {
        redisReplyObjectFunctions f = *defaults();
        f.createArray = boundedCreateArray;
        return f;
    }();
    return &functions;
}

} // namespace

namespace BoundedReader {

void install(redisReader *reader)
{
    if (reader && defaults())
        reader->fn = bounded();
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
