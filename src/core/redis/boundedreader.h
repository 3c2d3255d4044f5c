// Caps what a reply can make hiredis allocate before its bytes have even arrived. hiredis 0.14 allocates an
// array's element table as soon as it reads "*<count>\r\n", so a broken or hostile server (or anyone on a
// plain connection's path) sending "*2000000000" would cost LockScope 16 GB and ~15 s of page faults.
#pragma once

#include <QString>

struct redisReader;

namespace BoundedReader {

// Far above any reply LockScope asks for (SCAN pages, bounded HSCAN/LRANGE, COMMAND, CLUSTER SLOTS), far
// below what hurts: 4 Mi elements are 32 MB of pointers.
constexpr int kMaxArrayElements = 1 << 22;

// Makes `reader` refuse bigger arrays: reading stops with an error, which refusal() then explains.
void install(redisReader *reader);

// Why the reader of this thread stopped, when it was for an over-large array; empty otherwise. Clears the
// record, so call it once per error.
QString refusal();

} // namespace BoundedReader
