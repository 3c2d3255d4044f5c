// KeyProber: the two rounds, and the care needed when keys change between them.
#include "keyprober.h"

#include "inspectclock.h"
#include "locknames.h"
#include "redis/redisconnection.h"

namespace {

enum class Read {
    ValuePrefix,
    ValueLength,
    HashLength,
    HashScan,
    QueueLength,
    Queue,
    Deadlines,
    Token,
    Channels,
    Size
};

struct PendingRead
{
    qsizetype target;
    Read read;
};

QByteArray sizeCommand(const QByteArray &type)
{
    if (type == "list")
        return "LLEN";
    if (type == "set")
        return "SCARD";
    if (type == "zset")
        return "ZCARD";
    if (type == "stream")
        return "XLEN";
    return {};
}

// The first transport error in `results`, if any: it fails the whole probe.
RedisError firstBrokenError(const QList<RedisResult> &results)
{
    for (const RedisResult &r : results) {
        if (r.error.breaksConnection() || r.error.code() == RedisError::Code::ReadOnlyRefused
            || r.error.code() == RedisError::Code::NotConnected
            || r.error.code() == RedisError::Code::BadArgument)
            return r.error;
    }
    return {};
}

QString readError(const RedisResult &r)
{
    if (r.error.code() == RedisError::Code::WrongType)
        return QStringLiteral("the key changed type while it was read");
    return r.error.message();
}

} // namespace

KeyProber::KeyProber(const ScanOptions &options)
    : m_options(options)
{
}

bool KeyProber::probe(RedisConnection &connection, const QList<ProbeTarget> &targets, QList<ScannedKey> *out,
                      RedisError *error)
{
    out->clear();
    if (targets.isEmpty())
        return true;

    // Round 1: TYPE and PTTL of every key.
    QList<RedisCommand> first;
    first.reserve(targets.size() * 2);
    for (const ProbeTarget &t : targets) {
        first.append({QByteArrayLiteral("TYPE"), t.key});
        first.append({QByteArrayLiteral("PTTL"), t.key});
    }
    const qint64 sentAt = InspectClock::monotonicMs();
    const QList<RedisResult> types = connection.pipeline(first);
    const qint64 readAt = (sentAt + InspectClock::monotonicMs()) / 2;
    if (const RedisError e = firstBrokenError(types)) {
        *error = e;
        return false;
    }

    QList<ScannedKey> keys;
    keys.reserve(targets.size());
    for (qsizetype i = 0; i < targets.size(); ++i) {
        const ProbeTarget &t = targets.at(i);
        ScannedKey k;
        k.key = t.key;
        k.lockNamed = t.lockNamed;
        k.readAtMs = readAt;
        const RedisResult &type = types.at(2 * i);
        const RedisResult &pttl = types.at(2 * i + 1);
        if (!type.ok()) {
            if (type.error.code() == RedisError::Code::NoPermission)
                ++m_unreadable;
            k.readErrors << type.error.message();
        } else {
            k.type = type.reply.bytes();
            k.pttlMs = pttl.ok() ? pttl.reply.toInteger() : -2;
        }
        keys.append(k);
    }

    if (m_betweenRounds)
        m_betweenRounds();

    // Round 2: the detail reads, bounded whatever the key holds.
    QList<RedisCommand> second;
    QList<PendingRead> plan;
    const QByteArray valueEnd = QByteArray::number(m_options.maxValueBytes - 1);
    const QByteArray fieldCount = QByteArray::number(m_options.maxHashFields);
    const QByteArray queueEnd = QByteArray::number(m_options.maxQueue - 1);
    const auto add = [&](qsizetype target, Read read, RedisCommand command) {
        second.append(std::move(command));
        plan.append({target, read});
    };
    const auto addRedisson = [&](qsizetype i, const QByteArray &lock) {
        const QByteArray queue = LockNames::queueKey(lock);
        add(i, Read::QueueLength, {"LLEN", queue});
        add(i, Read::Queue, {"LRANGE", queue, "0", queueEnd});
        add(i, Read::Deadlines, {"ZRANGE", LockNames::deadlinesKey(lock), "0", queueEnd, "WITHSCORES"});
        add(i, Read::Token, {"GET", LockNames::tokenKey(lock)});
        add(i, Read::Channels,
            {"PUBSUB", "NUMSUB", LockNames::lockChannel(lock), LockNames::rwChannel(lock)});
    };
    for (qsizetype i = 0; i < keys.size(); ++i) {
        const ScannedKey &k = keys.at(i);
        const ProbeTarget &t = targets.at(i);
        if (t.purpose == ProbeTarget::Purpose::Companion || k.type.isEmpty())
            continue;
        if (k.type == "string") {
            add(i, Read::ValuePrefix, {"GETRANGE", k.key, "0", valueEnd});
            add(i, Read::ValueLength, {"STRLEN", k.key});
        } else if (k.type == "hash") {
            add(i, Read::HashLength, {"HLEN", k.key});
            add(i, Read::HashScan, {"HSCAN", k.key, "0", "COUNT", fieldCount});
            addRedisson(i, k.key);
        } else if (k.type == "none") {
            if (t.purpose == ProbeTarget::Purpose::LockViaQueue)
                addRedisson(i, k.key);
        } else if (t.lockNamed) {
            const QByteArray command = sizeCommand(k.type);
            if (!command.isEmpty())
                add(i, Read::Size, {command, k.key});
        }
    }
    const QList<RedisResult> details = connection.pipeline(second);
    if (const RedisError e = firstBrokenError(details)) {
        *error = e;
        return false;
    }

    QList<qsizetype> emptyStrings; // zero length: empty, or deleted between the rounds?
    for (qsizetype n = 0; n < plan.size(); ++n) {
        const PendingRead &p = plan.at(n);
        const RedisResult &r = details.at(n);
        ScannedKey &k = keys[p.target];
        const bool companionRead = p.read == Read::QueueLength || p.read == Read::Queue
            || p.read == Read::Deadlines || p.read == Read::Token || p.read == Read::Channels;
        if (!r.ok()) {
            // A companion of another type is not this key's problem; anything else is worth saying.
            if (!companionRead)
                k.readErrors << readError(r);
            continue;
        }
        const RedisReply &reply = r.reply;
        switch (p.read) {
        case Read::ValuePrefix:
            k.value = reply.bytes();
            break;
        case Read::ValueLength:
            k.valueLength = reply.toInteger();
            if (k.valueLength == 0)
                emptyStrings << p.target;
            break;
        case Read::HashLength:
            k.fieldCount = reply.toInteger();
            if (k.fieldCount == 0)
                k.type = "none"; // Redis deletes empty hashes: it went away between the rounds
            break;
        case Read::HashScan:
            if (reply.size() == 2) {
                const auto &flat = reply.at(1).elements();
                for (qsizetype f = 0; f + 1 < flat.size() && k.fields.size() < m_options.maxHashFields;
                     f += 2)
                    k.fields.append({flat.at(f).bytes(), flat.at(f + 1).bytes()});
            }
            break;
        case Read::QueueLength:
            k.redisson.read = true;
            k.redisson.queueLength = reply.toInteger();
            break;
        case Read::Queue:
            for (const RedisReply &e : reply.elements())
                k.redisson.queue.append(e.bytes());
            break;
        case Read::Deadlines: {
            const auto &flat = reply.elements();
            for (qsizetype f = 0; f + 1 < flat.size(); f += 2) {
                bool ok = false;
                const double score = flat.at(f + 1).bytes().toDouble(&ok);
                k.redisson.deadlines.append({flat.at(f).bytes(), ok ? qint64(score) : -1});
            }
            break;
        }
        case Read::Token:
            if (reply.isString()) {
                k.redisson.tokenPresent = true;
                k.redisson.token = reply.bytes();
            }
            break;
        case Read::Channels:
            if (reply.size() == 4) {
                k.redisson.lockChannelSubscribers = reply.at(1).toInteger();
                k.redisson.rwChannelSubscribers = reply.at(3).toInteger();
            }
            break;
        case Read::Size:
            k.size = reply.toInteger();
            if (k.size == 0)
                k.type = "none";
            break;
        }
    }

    // Rare: a zero-length string is either really empty or was deleted between the rounds. One EXISTS
    // each tells them apart, so an expiring lock is not reported as an empty (malformed) one.
    if (!emptyStrings.isEmpty()) {
        QList<RedisCommand> exists;
        for (qsizetype i : emptyStrings)
            exists.append({"EXISTS", keys.at(i).key});
        const QList<RedisResult> replies = connection.pipeline(exists);
        if (const RedisError e = firstBrokenError(replies)) {
            *error = e;
            return false;
        }
        for (qsizetype n = 0; n < emptyStrings.size(); ++n) {
            if (replies.at(n).ok() && replies.at(n).reply.toInteger() == 0)
                keys[emptyStrings.at(n)].type = "none";
        }
    }
    *out = std::move(keys);
    return true;
}
