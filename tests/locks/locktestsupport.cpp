// Lock test helpers.
#include "locktestsupport.h"

#include "locks/lockcatalog.h"

#include <QElapsedTimer>
#include <QRegularExpression>

namespace LockTest {

Worker openWorker(const QList<SandboxServer *> &servers, QString *error)
{
    Worker w;
    for (SandboxServer *s : servers) {
        w.connections.push_back(std::make_unique<RedisConnection>(s->connectionSettings()));
        if (const RedisError e = w.connections.back()->open()) {
            *error = e.message();
            return {};
        }
        w.servers << w.connections.back().get();
    }
    return w;
}

Listener::Listener(const ConnectionSettings &settings)
    : m_connection(settings)
{
}

bool Listener::subscribe(const QList<QByteArray> &channels)
{
    if (!m_connection.isOpen() && m_connection.open())
        return false;
    if (m_connection.append(RedisCommand {"SUBSCRIBE"} + channels))
        return false;
    for (qsizetype i = 0; i < channels.size(); ++i) {
        const RedisResult r = m_connection.readReply(3000);
        if (!r.ok() || r.reply.size() < 1 || r.reply.at(0).bytes() != "subscribe")
            return false;
    }
    return true;
}

bool Listener::psubscribe(const QByteArray &pattern)
{
    if (!m_connection.isOpen() && m_connection.open())
        return false;
    if (m_connection.append({"PSUBSCRIBE", pattern}))
        return false;
    const RedisResult r = m_connection.readReply(3000);
    return r.ok() && r.reply.size() >= 1 && r.reply.at(0).bytes() == "psubscribe";
}

std::optional<Message> Listener::next(int timeoutMs)
{
    QElapsedTimer timer;
    timer.start();
    while (timer.elapsed() <= timeoutMs) {
        const RedisResult r = m_connection.readReply(int(qMax<qint64>(1, timeoutMs - timer.elapsed())));
        if (!r.ok())
            return std::nullopt;
        const QByteArray kind = r.reply.size() > 0 ? r.reply.at(0).bytes() : QByteArray();
        if (kind == "message" && r.reply.size() == 3)
            return Message {r.reply.at(1).bytes(), r.reply.at(2).bytes()};
        if (kind == "pmessage" && r.reply.size() == 4)
            return Message {r.reply.at(2).bytes(), r.reply.at(3).bytes()};
    }
    return std::nullopt;
}

QList<Message> Listener::drain(int quietMs)
{
    QList<Message> all;
    while (const std::optional<Message> m = next(quietMs))
        all << *m;
    return all;
}

qint64 pttl(RedisConnection &c, const QByteArray &key)
{
    return c.command({"PTTL", key}).reply.toInteger();
}

bool exists(RedisConnection &c, const QByteArray &key)
{
    return c.command({"EXISTS", key}).reply.toInteger() == 1;
}

QMap<QByteArray, QByteArray> hgetall(RedisConnection &c, const QByteArray &key)
{
    QMap<QByteArray, QByteArray> map;
    const RedisReply all = c.command({"HGETALL", key}).reply;
    for (qsizetype i = 0; i + 1 < all.size(); i += 2)
        map.insert(all.at(i).bytes(), all.at(i + 1).bytes());
    return map;
}

QByteArray get(RedisConnection &c, const QByteArray &key)
{
    return c.command({"GET", key}).reply.bytes();
}

qint64 subscribers(RedisConnection &c, const QByteArray &channel)
{
    const RedisReply r = c.command({"PUBSUB", "NUMSUB", channel}).reply;
    return r.size() == 2 ? r.at(1).toInteger() : -1;
}

LockOptions quickOptions(const QString &id, qint64 leaseMs)
{
    const LockAlgorithmInfo *info = LockCatalog::find(id);
    LockOptions o = info ? info->defaults : LockOptions {};
    o.leaseMs = leaseMs;
    o.watchdog = false;
    o.acquireTimeoutMs = 0;
    if (o.wait == WaitStrategy::BusySpin)
        o.wait = WaitStrategy::FixedInterval;
    o.retryIntervalMs = 10;
    o.retryJitterMs = 0;
    return o;
}

bool isRedissonOwner(const QByteArray &field)
{
    static const QRegularExpression pattern(
        QStringLiteral("^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}:[0-9]+$"));
    return pattern.match(QString::fromLatin1(field)).hasMatch();
}

} // namespace LockTest
