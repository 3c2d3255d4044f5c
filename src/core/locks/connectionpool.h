// A small blocking connection pool, as seed 001 configures Jedis's (max total 100, max idle 20, max wait
// 3000 ms, test on borrow): the simulator's "shared pool of P connections" instead of one connection per
// worker. Thread-safe. A borrowed connection comes back to the pool when its Lease goes out of scope.
//
// Borrow per attempt (tryAcquire), not around a waiting acquire(): a worker that sleeps in acquire() keeps
// its connection, and with fewer connections than waiting workers the holder may find none left to release
// with — the pool starvation Jedis users meet.
#pragma once

#include "redis/connectionsettings.h"
#include "redis/fibercondition.h"
#include "redis/redisconnection.h"

#include <condition_variable>
#include <memory>
#include <mutex>
#include <vector>

class ConnectionPool
{
public:
    struct Options
    {
        int maxTotal = 100; // connections open at most (borrowed + idle)
        int maxIdle = 20; // idle connections kept; more are closed when returned
        int maxWaitMs = 3000; // how long borrow() waits for a free connection
        bool testOnBorrow = true; // PING before handing out; a dead connection is reopened
    };

    // A borrowed connection; returns it to the pool when destroyed. Movable.
    class Lease
    {
    public:
        Lease() = default;
        ~Lease();
        Lease(Lease &&other) noexcept;
        Lease &operator=(Lease &&other) noexcept;
        Lease(const Lease &) = delete;
        Lease &operator=(const Lease &) = delete;

        bool isValid() const { return m_connection != nullptr; }
        RedisConnection &operator*() const { return *m_connection; }
        RedisConnection *operator->() const { return m_connection.get(); }
        RedisConnection *get() const { return m_connection.get(); }
        void giveBack();

    private:
        friend class ConnectionPool;
        Lease(ConnectionPool *pool, std::unique_ptr<RedisConnection> connection);
        ConnectionPool *m_pool = nullptr;
        std::unique_ptr<RedisConnection> m_connection;
    };

    ConnectionPool(const ConnectionSettings &settings, const Options &options);
    explicit ConnectionPool(const ConnectionSettings &settings);
    ~ConnectionPool(); // every Lease must be gone by now

    // Waits up to maxWaitMs for a connection; an invalid Lease and `error` when none came or none opens.
    Lease borrow(RedisError *error = nullptr);

    const Options &options() const { return m_options; }
    int total() const; // open connections, borrowed or idle
    int idle() const;
    int borrowed() const;
    quint64 waits() const; // borrows that had to wait for a connection

private:
    void giveBack(std::unique_ptr<RedisConnection> connection);

    ConnectionSettings m_settings;
    Options m_options;
    mutable std::mutex m_mutex;
    FiberCondition m_returned;
    std::vector<std::unique_ptr<RedisConnection>> m_idle;
    int m_total = 0;
    quint64 m_waits = 0;
};
