// The reply builders LockScope gives hiredis: they build RedisReply values in place while hiredis parses
// (no intermediate redisReply tree to copy and free: that was a third of a scan's client CPU), and they cap
// what a reply can make us allocate before its bytes have even arrived. hiredis 0.14 allocates an array's
// element table as soon as it reads "*<count>\r\n", so a broken or hostile server (or anyone on a plain
// connection's path) sending "*2000000000" would cost LockScope 16 GB and ~15 s of page faults.
#pragma once

#include "redisreply.h"

#include <QString>

struct redisReader;

namespace BoundedReader {

// Far above any reply LockScope asks for (SCAN pages, bounded HSCAN/LRANGE, COMMAND, CLUSTER SLOTS), far
// below what hurts: 4 Mi elements are 32 MB of pointers.
constexpr int kMaxArrayElements = 1 << 22;

// Makes `reader` build RedisReply objects and refuse bigger arrays: reading stops with an error, which
// refusal() then explains. Every reply the reader hands out must go to take() or discard().
void install(redisReader *reader);

// The reply a reader set up by install() handed out (as redisGetReply's `void *`), taken over and freed.
RedisReply take(void *object);
// Frees such a reply unread.
void discard(void *object);

// Why the reader of this thread stopped, when it was for an over-large array; empty otherwise. Clears the
// record, so call it once per error.
QString refusal();

} // namespace BoundedReader
