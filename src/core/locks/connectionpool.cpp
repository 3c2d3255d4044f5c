// ConnectionPool: borrow with a bounded wait, test on borrow, max idle on return.
#include "connectionpool.h"

#include <chrono>

ConnectionPool::Lease::Lease(ConnectionPool *pool, std::unique_ptr<RedisConnection> connection)
    : m_pool(pool)
    , m_connection(std::move(connection))
{
}

ConnectionPool::Lease::~Lease()
{
    giveBack();
}

ConnectionPool::Lease::Lease(Lease &&other) noexcept
    : m_pool(other.m_pool)
    , m_connection(std::move(other.m_connection))
{
    other.m_pool = nullptr;
}

ConnectionPool::Lease &ConnectionPool::Lease::operator=(Lease &&other) noexcept
{
    if (this != &other) {
        giveBack();
        m_pool = other.m_pool;
        m_connection = std::move(other.m_connection);
        other.m_pool = nullptr;
    }
    return *this;
}

void ConnectionPool::Lease::giveBack()
{
    if (m_pool && m_connection)
        m_pool->giveBack(std::move(m_connection));
    m_pool = nullptr;
}

ConnectionPool::ConnectionPool(const ConnectionSettings &settings, const Options &options)
    : m_settings(settings)
    , m_options(options)
{
    m_options.maxTotal = qMax(1, m_options.maxTotal);
    m_options.maxIdle = qMax(0, m_options.maxIdle);
}

ConnectionPool::ConnectionPool(const ConnectionSettings &settings)
    : ConnectionPool(settings, Options {})
{
}

ConnectionPool::~ConnectionPool() = default;

ConnectionPool::Lease ConnectionPool::borrow(RedisError *error)
{
    auto fail = [error](const RedisError &e) {
        if (error)
            *error = e;
        return Lease();
    };
    std::unique_ptr<RedisConnection> connection;
    {
        std::unique_lock lock(m_mutex);
        if (m_idle.empty() && m_total >= m_options.maxTotal) {
            ++m_waits;
            const bool came
                = m_returned.wait_for(lock, std::chrono::milliseconds(m_options.maxWaitMs),
                                      [this] { return !m_idle.empty() || m_total < m_options.maxTotal; });
            if (!came)
                return fail(
                    {RedisError::Code::Timeout,
                     QStringLiteral("no pooled connection to %1 came free within %2 ms (all %3 borrowed)")
                         .arg(m_settings.endpoint())
                         .arg(m_options.maxWaitMs)
                         .arg(m_options.maxTotal)});
        }
        if (!m_idle.empty()) {
            connection = std::move(m_idle.back());
            m_idle.pop_back();
        } else {
            ++m_total; // reserve the slot; opened below without holding the lock
        }
    }
    auto release = [this] {
        std::lock_guard lock(m_mutex);
        --m_total;
        m_returned.notify_one();
    };
    if (!connection) {
        connection = std::make_unique<RedisConnection>(m_settings);
        if (const RedisError e = connection->open()) {
            release();
            return fail(e);
        }
    } else if (m_options.testOnBorrow && !connection->command({"PING"}).ok()) {
        if (const RedisError e = connection->reconnect()) {
            release();
            return fail(e);
        }
    }
    return Lease(this, std::move(connection));
}

void ConnectionPool::giveBack(std::unique_ptr<RedisConnection> connection)
{
    std::lock_guard lock(m_mutex);
    if (int(m_idle.size()) < m_options.maxIdle && connection->isOpen()) {
        m_idle.push_back(std::move(connection));
    } else {
        --m_total; // closed as it goes out of scope
    }
    m_returned.notify_one();
}

int ConnectionPool::total() const
{
    std::lock_guard lock(m_mutex);
    return m_total;
}

int ConnectionPool::idle() const
{
    std::lock_guard lock(m_mutex);
    return int(m_idle.size());
}

int ConnectionPool::borrowed() const
{
    std::lock_guard lock(m_mutex);
    return m_total - int(m_idle.size());
}

quint64 ConnectionPool::waits() const
{
    std::lock_guard lock(m_mutex);
    return m_waits;
}
