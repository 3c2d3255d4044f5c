// Writes locks exactly as the libraries store them (Redisson 3.x and 2.x, redis-py, node-redlock, plain
// SET NX tutorials), with raw commands: the sandbox's sample locks, the benchmark's keyspace, and the tests'
// data, without needing any of those libraries.
#pragma once

#include "redis/redisconnection.h"

#include <QByteArray>
#include <QList>

namespace SampleLocks {

// A Redisson client id: a random version-4 uuid, 36 characters, lower case.
QByteArray redissonClientId();
// redis-py's token: uuid1().hex — 32 hex digits, version digit 1, made now on a random node.
QByteArray uuid1Hex();
// node-redlock's value: 16 random bytes as 32 hex digits.
QByteArray randomHex32();

// Redisson RLock acquire (HINCRBY <uuid>:<tid>, PEXPIRE lease), `count` times (reentrancy).
bool redissonLock(RedisConnection &c, const QByteArray &name, const QByteArray &client, qint64 thread,
                  qint64 leaseMs, int count = 1);
// RFencedLock: INCR redisson_lock_token:{N}, then the lock. Returns the token, -1 on failure.
qint64 redissonFencedLock(RedisConnection &c, const QByteArray &name, const QByteArray &client, qint64 thread,
                          qint64 leaseMs);
// A fair-lock waiter: RPUSH redisson_lock_queue:{N}, ZADD redisson_lock_timeout:{N} deadline.
bool redissonFairWaiter(RedisConnection &c, const QByteArray &name, const QByteArray &waiter,
                        qint64 deadlineEpochMs);
// RReadWriteLock read hold: mode read, HINCRBY owner → k, SET {N}:<owner>:rwlock_timeout:k 1 PX lease.
bool redissonReadLock(RedisConnection &c, const QByteArray &name, const QByteArray &client, qint64 thread,
                      qint64 leaseMs);
// RReadWriteLock write hold: mode write, <owner>:write → 1.
bool redissonWriteLock(RedisConnection &c, const QByteArray &name, const QByteArray &client, qint64 thread,
                       qint64 leaseMs);
// Redisson ≤ 2.2.3: SET N {"o":"<uuid>-<tid>","c":n} PX lease.
bool redissonLegacyLock(RedisConnection &c, const QByteArray &name, const QByteArray &client, qint64 thread,
                        int count, qint64 leaseMs);
// redis-py Lock: SET N <uuid1 hex> NX [PX timeout] (timeout ≤ 0: none, redis-py's default). Returns the
// token.
QByteArray redisPyLock(RedisConnection &c, const QByteArray &name, qint64 timeoutMs);
// node-redlock: the same random value on every resource, SET NX PX. Returns the value.
QByteArray redlock(RedisConnection &c, const QList<QByteArray> &resources, qint64 ttlMs);
// A plain SET NX PX lock with any value (uuid, thread id, "lockValue"); ttl ≤ 0: none.
bool plainLock(RedisConnection &c, const QByteArray &name, const QByteArray &value, qint64 ttlMs);

// `n` filler keys "<prefix><i>" of mixed types, pipelined.
bool fill(RedisConnection &c, const QByteArray &prefix, int n);

// A small set of every kind, some healthy and some stuck, under "demo:…" names: what the sandbox offers
// to show the inspector at work.
bool writeDemoSet(RedisConnection &c);

} // namespace SampleLocks
