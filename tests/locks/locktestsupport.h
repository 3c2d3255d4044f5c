// Helpers shared by the lock tests: read-write connections to sandboxes, a raw pub/sub listener that
// records what is published, and short readers for keys.
#pragma once

#include "testsupport.h"

#include "locks/distributedlock.h"

#include <QByteArray>
#include <QList>
#include <QMap>
#include <QPair>

#include <memory>
#include <optional>
#include <vector>

namespace LockTest {

// A worker's connections: one per server (Redlock gets all of them).
struct Worker
{
    std::vector<std::unique_ptr<RedisConnection>> connections;
    LockServers servers;
    RedisConnection &first() { return *connections.front(); }
};
// Opens one read-write connection per server (empty Worker on failure, with `error`).
Worker openWorker(const QList<SandboxServer *> &servers, QString *error);

using Message = QPair<QByteArray, QByteArray>; // channel, payload

// A plain subscriber connection, as any other client (or a real Redisson) would have.
class Listener
{
public:
    explicit Listener(const ConnectionSettings &settings);
    // SUBSCRIBE / PSUBSCRIBE and wait for every confirmation.
    bool subscribe(const QList<QByteArray> &channels);
    bool psubscribe(const QByteArray &pattern);
    // The next message within `timeoutMs` (channel, payload), or nothing.
    std::optional<Message> next(int timeoutMs);
    // Every message that arrives until `quietMs` pass without one.
    QList<Message> drain(int quietMs);

private:
    RedisConnection m_connection;
};

qint64 pttl(RedisConnection &c, const QByteArray &key);
bool exists(RedisConnection &c, const QByteArray &key);
QMap<QByteArray, QByteArray> hgetall(RedisConnection &c, const QByteArray &key);
QByteArray get(RedisConnection &c, const QByteArray &key);
// PUBSUB NUMSUB <channel>
qint64 subscribers(RedisConnection &c, const QByteArray &channel);
// Options for tests: the algorithm's defaults with a short lease, no watchdog, one attempt.
LockOptions quickOptions(const QString &id, qint64 leaseMs);
// For QTRY_*, which evaluates its expression once more after it came true: tries to acquire on each call
// until it succeeds, then keeps answering true without a second acquisition.
class AcquireOnce
{
public:
    AcquireOnce(DistributedLock &lock, const LockServers &servers)
        : m_lock(lock)
        , m_servers(servers)
    {
    }
    bool operator()()
    {
        if (!m_done)
            m_done = m_lock.tryAcquire(m_servers).acquired();
        return m_done;
    }

private:
    DistributedLock &m_lock;
    LockServers m_servers;
    bool m_done = false;
};

// true when `id` is a lowercase version-4 UUID followed by ":<digits>".
bool isRedissonOwner(const QByteArray &field);

} // namespace LockTest
