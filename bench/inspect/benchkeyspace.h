// The benchmarks' keyspace: lock keys in the formats the inspector knows, among filler keys of every type,
// written to a sandbox with pipelined raw commands. Shared by bench_inspect and bench_scanimpact so both
// measure the same data.
#pragma once

#include "redis/redisconnection.h"

struct Keyspace
{
    qint64 keys = 0;
    qint64 lockKeys = 0; // keys that hold a lock (a multi-resource lock counts each of its keys)
    qint64 locks = 0; // locks the inspector should list
};

namespace BenchKeyspace {

// `lockKeys` lock keys of mixed kinds plus fillers, `total` keys in all. False (with a message on stderr)
// when the server refused a write.
bool build(RedisConnection &c, qint64 total, qint64 lockKeys, Keyspace *out);

} // namespace BenchKeyspace
