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
    , m_shared(std::make_shared<Shared>())
{
    qRegisterMetaType<ServerInfo>();
    qRegisterMetaType<RedisError>();
    m_thread.setObjectName(QStringLiteral("RedisSession"));
    m_worker = new QObject;
    m_worker->moveToThread(&m_thread);
    connect(&m_thread, &QThread::finished, m_worker, &QObject::deleteLater);
    m_thread.start();
}

RedisSession::~RedisSession()
{
    {
        QMutexLocker lock(&m_shared->mutex);
        if (m_shared->connection)
            m_shared->connection->interrupt(); // do not wait out a command timeout on exit
    }
    m_thread.quit();
    m_thread.wait();
}

void RedisSession::post(std::function<void(Shared &)> job)
{
    std::shared_ptr<Shared> shared = m_shared;
    QMetaObject::invokeMethod(
        m_worker, [shared, job = std::move(job)] { job(*shared); }, Qt::QueuedConnection);
}

void RedisSession::open(const ConnectionSettings &settings)
{
    const quint64 generation = ++m_generation;
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
        QMetaObject::invokeMethod(
            this,
            [this, generation, error, info, settings] {
                if (generation != m_generation)
                    return; // a newer open() superseded this one
                m_busy = false;
                if (error) {
                    emit failed(error);
                    return;
                }
                m_settings = settings;
                m_open = true;
                m_info = info;
                emit opened(info);
            },
            Qt::QueuedConnection);
    });
}

void RedisSession::close()
{
    ++m_generation;
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
    const quint64 generation = m_generation;
    post([this, generation](Shared &shared) {
        RedisError error;
        ServerInfo info;
        if (!shared.connection)
            error = {RedisError::Code::NotConnected, QStringLiteral("not connected")};
        else
            info = ServerInfo::fetch(*shared.connection, &error); // reconnects by itself after a drop
        QMetaObject::invokeMethod(
            this,
            [this, generation, error, info] {
                if (generation != m_generation)
                    return;
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
            },
            Qt::QueuedConnection);
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
