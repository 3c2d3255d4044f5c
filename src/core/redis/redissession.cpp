// RedisSession: a worker thread owning one RedisConnection; the GUI only posts jobs and receives results.
#include "redissession.h"

#include "redisconnection.h"

#include <QMetaObject>
#include <QMutex>
#include <QPointer>

// State touched by the worker thread. The mutex only guards `connection` for interrupt() from the GUI.
struct RedisSession::Shared
{
    QMutex mutex;
    std::unique_ptr<RedisConnection> connection;
};

RedisSession::RedisSession(QObject *parent)
    : QObject(parent)
    , m_worker(QStringLiteral("RedisSession"))
    , m_shared(std::make_shared<Shared>())
{
    qRegisterMetaType<ServerInfo>();
    qRegisterMetaType<RedisError>();
}

RedisSession::~RedisSession()
{
    {
        QMutexLocker lock(&m_shared->mutex);
        if (m_shared->connection)
            m_shared->connection->interrupt(); // do not wait out a command timeout on exit
    }
    m_worker.stop();
}

void RedisSession::post(std::function<void(Shared &)> job)
{
    m_worker.post([shared = m_shared, job = std::move(job)] { job(*shared); });
}

void RedisSession::open(const ConnectionSettings &settings)
{
    const quint64 generation = m_worker.nextGeneration();
    m_busy = true;
    // The current connection stays until the new one works: a Connect that fails keeps what worked (its
    // settings, info and open state change only on success).
    emit opening(settings.endpoint());
    post([this, settings, generation](Shared &shared) {
        auto connection = std::make_unique<RedisConnection>(settings);
        RedisError error = connection->open();
        ServerInfo info;
        if (!error)
            info = ServerInfo::fetch(*connection, &error);
        if (!error) {
            QMutexLocker lock(&shared.mutex);
            shared.connection = std::move(connection);
        }
        // Dropped when a newer open() or a close() came meanwhile.
        m_worker.deliver(this, generation, [this, error, info, settings] {
            m_busy = false;
            if (error) {
                emit failed(error);
                return;
            }
            m_settings = settings;
            m_open = true;
            m_info = info;
            emit opened(info);
        });
    });
}

void RedisSession::close()
{
    m_worker.nextGeneration();
    const bool wasOpen = m_open;
    m_open = false;
    m_busy = false;
    m_info = {};
    {
        QMutexLocker lock(&m_shared->mutex);
        if (m_shared->connection)
            m_shared->connection->interrupt();
    }
    post([](Shared &shared) {
        QMutexLocker lock(&shared.mutex);
        shared.connection.reset();
    });
    if (wasOpen)
        emit closed();
}

void RedisSession::refreshInfo()
{
    const quint64 generation = m_worker.generation();
    post([this, generation](Shared &shared) {
        RedisError error;
        ServerInfo info;
        if (!shared.connection)
            error = {RedisError::Code::NotConnected, QStringLiteral("not connected")};
        else
            info = ServerInfo::fetch(*shared.connection, &error); // reconnects by itself after a drop
        m_worker.deliver(this, generation, [this, error, info] {
            if (error) {
                if (m_open) {
                    m_open = false;
                    emit connectionLost(error);
                }
                return;
            }
            const bool regained = !m_open;
            m_open = true;
            m_info = info;
            if (regained)
                emit opened(info);
            emit infoChanged(info);
        });
    });
}

void RedisSession::run(const RedisCommand &args, QObject *context,
                       std::function<void(const RedisResult &)> done)
{
    QPointer<QObject> target(context);
    post([this, args, target, done = std::move(done)](Shared &shared) {
        RedisResult result = shared.connection
            ? shared.connection->command(args)
            : RedisResult::failure({RedisError::Code::NotConnected, QStringLiteral("not connected")});
        // Back through the session (alive until its thread is joined); `target` is checked on the GUI thread.
        QMetaObject::invokeMethod(
            this,
            [target, done, result] {
                if (target)
                    done(result);
            },
            Qt::QueuedConnection);
    });
}
