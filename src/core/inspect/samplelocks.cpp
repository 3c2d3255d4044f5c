// SampleLocks: the commands are the effects of each library's acquire script, written out by hand.
#include "inspect/samplelocks.h"

#include "locks/redissonnames.h"

#include <QDateTime>
#include <QRandomGenerator>
#include <QUuid>

namespace SampleLocks {

namespace {

bool allOk(const QList<RedisResult> &results)
{
    for (const RedisResult &r : results) {
        if (!r.ok())
            return false;
    }
    return true;
}

QByteArray owner(const QByteArray &client, qint64 thread)
{
    return client + ':' + QByteArray::number(thread);
}

} // namespace

QByteArray redissonClientId()
{
    return QUuid::createUuid().toByteArray(QUuid::WithoutBraces);
}

QByteArray uuid1Hex()
{
    // 100 ns ticks since 1582-10-15, as uuid1 packs them: time_low, time_mid, version 1 + time_hi.
    const quint64 ticks = quint64(QDateTime::currentMSecsSinceEpoch()) * 10000ULL + 0x01B21DD213814000ULL
        + QRandomGenerator::global()->bounded(10000);
    const quint32 timeLow = quint32(ticks & 0xffffffffULL);
    const quint16 timeMid = quint16((ticks >> 32) & 0xffff);
    const quint16 timeHi = quint16(((ticks >> 48) & 0x0fff) | 0x1000);
    const quint16 clockSeq = quint16((QRandomGenerator::global()->bounded(0x4000)) | 0x8000);
    const quint64 node = (QRandomGenerator::global()->generate64() & 0xffffffffffffULL) | 0x010000000000ULL;
    return QStringLiteral("%1%2%3%4%5")
        .arg(timeLow, 8, 16, QLatin1Char('0'))
        .arg(timeMid, 4, 16, QLatin1Char('0'))
        .arg(timeHi, 4, 16, QLatin1Char('0'))
        .arg(clockSeq, 4, 16, QLatin1Char('0'))
        .arg(node, 12, 16, QLatin1Char('0'))
        .toLatin1();
}

QByteArray randomHex32()
{
    QByteArray bytes(16, Qt::Uninitialized);
    for (char &b : bytes)
        b = char(QRandomGenerator::global()->bounded(256));
    return bytes.toHex();
}

bool redissonLock(RedisConnection &c, const QByteArray &name, const QByteArray &client, qint64 thread,
                  qint64 leaseMs, int count)
{
    QList<RedisCommand> commands;
    for (int i = 0; i < count; ++i)
        commands.append({"HINCRBY", name, owner(client, thread), "1"});
    commands.append({"PEXPIRE", name, QByteArray::number(leaseMs)});
    return allOk(c.pipeline(commands));
}

qint64 redissonFencedLock(RedisConnection &c, const QByteArray &name, const QByteArray &client, qint64 thread,
                          qint64 leaseMs)
{
    const RedisResult token = c.command({"INCR", RedissonNames::tokenCounter(name)});
    if (!token.ok() || !redissonLock(c, name, client, thread, leaseMs))
        return -1;
    return token.reply.toInteger();
}

bool redissonFairWaiter(RedisConnection &c, const QByteArray &name, const QByteArray &waiter,
                        qint64 deadlineEpochMs)
{
    return allOk(c.pipeline(
        {{"RPUSH", RedissonNames::fairQueue(name), waiter},
         {"ZADD", RedissonNames::fairTimeouts(name), QByteArray::number(deadlineEpochMs), waiter}}));
}

bool redissonReadLock(RedisConnection &c, const QByteArray &name, const QByteArray &client, qint64 thread,
                      qint64 leaseMs)
{
    const QByteArray who = owner(client, thread);
    if (!c.command({"HSETNX", name, "mode", "read"}).ok())
        return false;
    const RedisResult hold = c.command({"HINCRBY", name, who, "1"});
    if (!hold.ok())
        return false;
    const QByteArray timeout
        = RedissonNames::rwTimeoutPrefix(name, who) + ':' + QByteArray::number(hold.reply.toInteger());
    return allOk(c.pipeline({{"SET", timeout, "1", "PX", QByteArray::number(leaseMs)},
                             {"PEXPIRE", name, QByteArray::number(leaseMs)}}));
}

bool redissonWriteLock(RedisConnection &c, const QByteArray &name, const QByteArray &client, qint64 thread,
                       qint64 leaseMs)
{
    return allOk(c.pipeline({{"HSET", name, "mode", "write"},
                             {"HSET", name, owner(client, thread) + ":write", "1"},
                             {"PEXPIRE", name, QByteArray::number(leaseMs)}}));
}

bool redissonLegacyLock(RedisConnection &c, const QByteArray &name, const QByteArray &client, qint64 thread,
                        int count, qint64 leaseMs)
{
    const QByteArray json = "{\"o\":\"" + client + '-' + QByteArray::number(thread)
        + "\",\"c\":" + QByteArray::number(count) + '}';
    return c.command({"SET", name, json, "PX", QByteArray::number(leaseMs)}).ok();
}

QByteArray redisPyLock(RedisConnection &c, const QByteArray &name, qint64 timeoutMs)
{
    const QByteArray token = uuid1Hex();
    RedisCommand set {"SET", name, token, "NX"};
    if (timeoutMs > 0)
        set << "PX" << QByteArray::number(timeoutMs);
    const RedisResult r = c.command(set);
    return r.ok() && r.reply.isStatus() ? token : QByteArray();
}

QByteArray redlock(RedisConnection &c, const QList<QByteArray> &resources, qint64 ttlMs)
{
    const QByteArray value = randomHex32();
    QList<RedisCommand> commands;
    for (const QByteArray &key : resources)
        commands.append({"SET", key, value, "NX", "PX", QByteArray::number(ttlMs)});
    return allOk(c.pipeline(commands)) ? value : QByteArray();
}

bool plainLock(RedisConnection &c, const QByteArray &name, const QByteArray &value, qint64 ttlMs)
{
    RedisCommand set {"SET", name, value, "NX"};
    if (ttlMs > 0)
        set << "PX" << QByteArray::number(ttlMs);
    return c.command(set).ok();
}

bool fill(RedisConnection &c, const QByteArray &prefix, int n)
{
    QList<RedisCommand> batch;
    for (int i = 0; i < n; ++i) {
        const QByteArray key = prefix + QByteArray::number(i);
        switch (i % 4) {
        case 0:
            batch.append({"SET", key, "value-" + QByteArray::number(i)});
            break;
        case 1:
            batch.append({"HSET", key, "name", "n", "size", QByteArray::number(i)});
            break;
        case 2:
            batch.append({"RPUSH", key, "a", "b"});
            break;
        default:
            batch.append({"SET", key, QByteArray::number(i), "PX", "600000"});
            break;
        }
        if (batch.size() == 1000 || i == n - 1) {
            if (!allOk(c.pipeline(batch)))
                return false;
            batch.clear();
        }
    }
    return true;
}

bool writeDemoSet(RedisConnection &c)
{
    const QByteArray app = redissonClientId();
    const QByteArray other = redissonClientId();
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    return redissonLock(c, "demo:order:1001", app, 57, 30000, 2)
        && redissonLock(c, "demo:order:1002", app, 58, 17000) // a watchdog lock nobody renews any more
        && redissonLock(c, "demo:inventory", app, 12, 30000)
        && redissonFairWaiter(c, "demo:inventory", other + ":31", now + 300000)
        && redissonFairWaiter(c, "demo:inventory", other + ":32", now + 305000)
        && redissonReadLock(c, "demo:report", app, 7, 30000)
        && redissonReadLock(c, "demo:report", other, 8, 30000)
        && redissonWriteLock(c, "demo:config", other, 3, 30000)
        && redissonFencedLock(c, "demo:ledger", app, 21, 30000) > 0
        && redissonLegacyLock(c, "demo:legacy", app, 4, 1, 600000)
        && !redisPyLock(c, "demo:py:nightly-job", -1).isEmpty() // redis-py's default: no TTL at all
        && !redisPyLock(c, "demo:py:cache-rebuild", 60000).isEmpty()
        && !redlock(c, {"demo:account:17", "demo:account:42", "demo:account:99"}, 30000).isEmpty()
        && plainLock(c, "demo:lock:stock", "lockValue", 10000)
        && plainLock(c, "demo:lock:payment", redissonClientId() + ":88", 3 * 3600 * 1000)
        && redissonFairWaiter(c, "demo:orphan", other + ":40", now + 120000) // a queue whose lock is gone
        && c.command({"HSET", "demo:lock:broken", app + ":5", "many"}).ok()
        && c.command({"RPUSH", "demo:lock:list", "not", "a", "lock"}).ok();
}

} // namespace SampleLocks
