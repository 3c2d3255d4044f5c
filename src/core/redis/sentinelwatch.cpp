// SentinelWatch: SUBSCRIBE +switch-master on the first sentinel that answers, with a short read timeout so
// the thread notices when it must stop; a registry shares one watch per master.
#include "sentinelwatch.h"

#include "logging.h"
#include "redisconnection.h"
#include "sentinelresolver.h"

#include <QHash>

std::shared_ptr<SentinelWatch> SentinelWatch::acquire(const ConnectionSettings &settings)
{
    static QMutex mutex;
    static QHash<QString, std::weak_ptr<SentinelWatch>> watches;
    const QString key = settings.sentinel.nodes.join(u',') + u'|' + settings.sentinel.masterName;
    QMutexLocker lock(&mutex);
    if (std::shared_ptr<SentinelWatch> existing = watches.value(key).lock())
        return existing;
    auto watch = std::make_shared<SentinelWatch>(settings);
    watches.insert(key, watch);
    return watch;
}

SentinelWatch::SentinelWatch(const ConnectionSettings &settings)
    : m_settings(settings)
{
    m_thread = std::thread([this] { run(); });
}

SentinelWatch::~SentinelWatch()
{
    m_stop = true;
    {
        QMutexLocker lock(&m_connectionMutex);
        if (m_connection)
            m_connection->interrupt();
    }
    m_wake.notify_all();
    m_thread.join();
}

bool SentinelWatch::sleepUnlessStopped(int ms)
{
    std::unique_lock lock(m_waitMutex);
    return !m_wake.wait_for(lock, std::chrono::milliseconds(ms), [this] { return m_stop.load(); });
}

void SentinelWatch::run()
{
    const QByteArray name = m_settings.sentinel.masterName.toUtf8();
    bool subscribedBefore = false;
    int next = 0;
    while (!m_stop) {
        const QString node = m_settings.sentinel.nodes.value(
            next++ % std::max<qsizetype>(1, m_settings.sentinel.nodes.size()));
        ConnectionSettings s = SentinelResolver::sentinelSettings(m_settings, node);
        s.clientName = QStringLiteral("lockscope-sentinel-watch");
        RedisConnection connection(s);
        connection.setAutoReconnect(false);
        {
            QMutexLocker lock(&m_connectionMutex);
            m_connection = &connection;
        }
        if (!m_stop && !connection.open() && !connection.append({"SUBSCRIBE", "+switch-master"})
            && connection.readReply().ok()) {
            if (subscribedBefore)
                ++m_switches; // a switch may have happened while we were not listening
            subscribedBefore = true;
            m_listening = true;
            while (!m_stop) {
                const RedisResult r = connection.readReply(300);
                if (r.error.code() == RedisError::Code::Timeout)
                    continue;
                if (!r.ok())
                    break;
                // ["message", "+switch-master", "<name> <old ip> <old port> <new ip> <new port>"]
                if (r.reply.size() == 3 && r.reply.at(2).bytes().split(' ').value(0) == name) {
                    qCInfo(lcRedis) << "sentinel:" << r.reply.at(2).bytes();
                    ++m_switches;
                }
            }
            m_listening = false;
        }
        {
            QMutexLocker lock(&m_connectionMutex);
            m_connection = nullptr;
        }
        if (!m_stop)
            sleepUnlessStopped(500); // the sentinel went away: try the next one shortly
    }
}
