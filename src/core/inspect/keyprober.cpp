// KeyProber: round 1 (TYPE, and PTTL of keys named like locks) for every key, round 2 (GETRANGE / HSCAN / a
// size) for the candidates, and a round 3 only when a page needs it: the PTTL of keys whose value turned out
// lock-like, the companions of hashes that look like Redisson locks, and the rare keys whose first reads were
// ambiguous (an empty string: empty or deleted meanwhile? a string or
// hash that filled its bound: how big?). Each round is one pipelined write and one read of its replies.
#include "keyprober.h"

#include "inspectclock.h"
#include "lockclassifier.h"
#include "locknames.h"
#include "locks/redissonnames.h"
#include "redis/redisconnection.h"
#include "scanpacer.h"

#include <QElapsedTimer>

namespace {

enum class Read {
    Value,
    HashScan,
    Size,
    Exists,
    Length,
    FieldCount,
    QueueLength,
    Queue,
    Deadlines,
    Token,
    Channels,
    Ttl
};

struct Round
{
    QList<RedisCommand> commands;
    QList<QPair<qsizetype, Read>> plan; // target index and what each command reads

    void add(qsizetype target, Read read, RedisCommand command)
    {
        commands.append(std::move(command));
        plan.append({target, read});
    }
};

// TYPE replies are a handful of words: share one copy of each instead of one per key.
QByteArray internedType(const QByteArray &type)
{
    static const QByteArray known[] = {"string", "hash", "list", "set", "zset", "stream", "none"};
    for (const QByteArray &k : known) {
        if (k == type)
            return k;
    }
    return type;
}

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

// Every command of a chunk is written at once, then every reply read (RedisConnection::pipeline checks each
// command against the read-only guard before anything is sent).
bool KeyProber::runRound(RedisConnection &c, const QList<RedisCommand> &commands, QList<RedisResult> *results,
                         RedisError *error)
{
    results->clear();
    if (commands.isEmpty())
        return true;
    if (!c.isOpen()) {
        if (const RedisError e = c.open()) {
            *error = e;
            return false;
        }
    }
    const qsizetype chunk = m_pacer ? m_pacer->chunkCommands() : commands.size();
    results->reserve(commands.size());
    for (qsizetype from = 0; from < commands.size(); from += chunk) {
        const qsizetype n = std::min(chunk, commands.size() - from);
        if (m_pacer && !m_pacer->beforeChunk(int(n))) {
            *error = {RedisError::Code::Interrupted, QStringLiteral("Interrupted")};
            return false;
        }
        QElapsedTimer roundTrip;
        roundTrip.start();
        const QList<RedisResult> replies
            = n == commands.size() ? c.pipeline(commands) : c.pipeline(commands.mid(from, n));
        if (m_pacer)
            m_pacer->afterChunk(roundTrip.nsecsElapsed() / 1000);
        for (const RedisResult &r : replies) {
            const RedisError::Code code = r.error.code();
            if (r.error.breaksConnection() || code == RedisError::Code::NotConnected
                || code == RedisError::Code::ReadOnlyRefused || code == RedisError::Code::BadArgument) {
                *error = r.error;
                return false;
            }
        }
        results->append(replies);
    }
    return true;
}

bool KeyProber::probe(RedisConnection &connection, const QList<ProbeTarget> &targets, QList<ScannedKey> *out,
                      RedisError *error)
{
    out->clear();
    if (targets.isEmpty())
        return true;

    // Round 1: TYPE of every key, and PTTL of those that are locks by name or by purpose. The others (most
    // of a keyspace) get their PTTL in round 3 only if their value could be a lock: a scan of "all keys"
    // then costs the server one command per key that is not a lock instead of two.
    QList<RedisCommand> first;
    first.reserve(targets.size() * 2);
    QList<qsizetype> pttlReply(targets.size(), -1); // index of each target's PTTL reply, -1: deferred
    for (qsizetype i = 0; i < targets.size(); ++i) {
        const ProbeTarget &t = targets.at(i);
        first.append({QByteArrayLiteral("TYPE"), t.key});
        if (t.lockNamed || t.purpose != ProbeTarget::Purpose::Lock) {
            pttlReply[i] = first.size();
            first.append({QByteArrayLiteral("PTTL"), t.key});
        }
    }
    qint64 sentAt = InspectClock::monotonicMs();
    QList<RedisResult> replies;
    if (!runRound(connection, first, &replies, error))
        return false;
    qint64 readAt = (sentAt + InspectClock::monotonicMs()) / 2;

    QList<ScannedKey> keys;
    keys.reserve(targets.size());
    qsizetype reply = 0;
    for (qsizetype i = 0; i < targets.size(); ++i) {
        const ProbeTarget &t = targets.at(i);
        ScannedKey k;
        k.key = t.key;
        k.lockNamed = t.lockNamed;
        const RedisResult &type = replies.at(reply);
        reply += pttlReply.at(i) < 0 ? 1 : 2;
        if (!type.ok()) {
            if (type.error.code() == RedisError::Code::NoPermission)
                ++m_unreadable;
            k.readErrors << type.error.message();
        } else {
            k.type = internedType(type.reply.bytes());
            if (pttlReply.at(i) >= 0) {
                const RedisResult &pttl = replies.at(pttlReply.at(i));
                k.pttlMs = pttl.ok() ? pttl.reply.toInteger() : -2;
                k.readAtMs = readAt;
            }
        }
        keys.append(std::move(k));
    }

    if (m_betweenRounds)
        m_betweenRounds();

    // Round 2: one bounded read per candidate.
    Round second;
    const QByteArray valueEnd = QByteArray::number(m_options.maxValueBytes - 1);
    const QByteArray fieldCount = QByteArray::number(m_options.maxHashFields);
    QList<qsizetype> viaQueue; // lock names met through their queue, gone: only their companions matter
    for (qsizetype i = 0; i < keys.size(); ++i) {
        const ScannedKey &k = keys.at(i);
        const ProbeTarget &t = targets.at(i);
        if (t.purpose == ProbeTarget::Purpose::Companion || k.type.isEmpty())
            continue;
        if (k.type == "string") {
            second.add(i, Read::Value,
                       {QByteArrayLiteral("GETRANGE"), k.key, QByteArrayLiteral("0"), valueEnd});
        } else if (k.type == "hash") {
            second.add(i, Read::HashScan,
                       {QByteArrayLiteral("HSCAN"), k.key, QByteArrayLiteral("0"), QByteArrayLiteral("COUNT"),
                        fieldCount});
        } else if (k.type == "none") {
            if (t.purpose == ProbeTarget::Purpose::LockViaQueue)
                viaQueue.append(i);
        } else if (t.lockNamed) {
            const QByteArray command = sizeCommand(k.type);
            if (!command.isEmpty())
                second.add(i, Read::Size, {command, k.key});
        }
    }
    if (!runRound(connection, second.commands, &replies, error))
        return false;

    // Round 3, only for what round 2 left open.
    Round third;
    QList<qsizetype> redisson = viaQueue;
    for (qsizetype n = 0; n < second.plan.size(); ++n) {
        const auto [target, read] = second.plan.at(n);
        const RedisResult &r = replies.at(n);
        ScannedKey &k = keys[target];
        if (!r.ok()) {
            k.readErrors << readError(r);
            continue;
        }
        switch (read) {
        case Read::Value:
            k.value = r.reply.bytes();
            if (k.value.isEmpty()) {
                third.add(target, Read::Exists, {"EXISTS", k.key}); // empty, or deleted between the rounds?
            } else if (k.value.size() >= m_options.maxValueBytes) {
                third.add(target, Read::Length, {"STRLEN", k.key});
            } else {
                k.valueLength = k.value.size();
            }
            break;
        case Read::HashScan:
            if (r.reply.size() == 2) {
                const auto &flat = r.reply.at(1).elements();
                for (qsizetype f = 0; f + 1 < flat.size() && k.fields.size() < m_options.maxHashFields;
                     f += 2)
                    k.fields.append({flat.at(f).bytes(), flat.at(f + 1).bytes()});
                const bool complete = r.reply.at(0).bytes() == "0" && k.fields.size() * 2 == flat.size();
                if (k.fields.isEmpty() && complete)
                    k.type = "none"; // Redis deletes empty hashes: it went away between the rounds
                else if (complete)
                    k.fieldCount = k.fields.size();
                else
                    third.add(target, Read::FieldCount, {"HLEN", k.key}); // a big hash: how big
            }
            if (k.exists() && LockClassifier::looksLikeRedissonHash(k.fields))
                redisson.append(target);
            break;
        case Read::Size:
            k.size = r.reply.toInteger();
            if (k.size == 0)
                k.type = "none";
            break;
        default:
            break;
        }
    }
    // The deferred PTTLs: only for keys that may be locks (or companions) after all.
    for (qsizetype i = 0; i < keys.size(); ++i) {
        const ScannedKey &k = keys.at(i);
        if (pttlReply.at(i) >= 0 || !k.exists())
            continue;
        if (LockClassifier::mayBeLock(k)
            || LockNames::companionOf(k.key).role != LockNames::CompanionRole::None) {
            third.add(i, Read::Ttl, {QByteArrayLiteral("PTTL"), k.key});
        }
    }
    const QByteArray queueEnd = QByteArray::number(m_options.maxQueue - 1);
    RedisCommand channels {"PUBSUB", "NUMSUB"};
    for (qsizetype i : std::as_const(redisson)) {
        const QByteArray &lock = keys.at(i).key;
        const QByteArray queue = RedissonNames::fairQueue(lock);
        keys[i].redisson.read = true;
        third.add(i, Read::QueueLength, {"LLEN", queue});
        third.add(i, Read::Queue, {"LRANGE", queue, "0", queueEnd});
        third.add(i, Read::Deadlines,
                  {"ZRANGE", RedissonNames::fairTimeouts(lock), "0", queueEnd, "WITHSCORES"});
        third.add(i, Read::Token, {"GET", RedissonNames::tokenCounter(lock)});
        channels << RedissonNames::lockChannel(lock) << RedissonNames::rwChannel(lock);
    }
    if (!redisson.isEmpty())
        third.add(-1, Read::Channels, channels); // every channel of the page in one command
    sentAt = InspectClock::monotonicMs();
    if (!runRound(connection, third.commands, &replies, error))
        return false;
    readAt = (sentAt + InspectClock::monotonicMs()) / 2;

    for (qsizetype n = 0; n < third.plan.size(); ++n) {
        const auto [target, read] = third.plan.at(n);
        const RedisResult &r = replies.at(n);
        if (read == Read::Channels) {
            // [channel, count, channel, count, …] in the order asked: two per Redisson lock.
            const auto &flat = r.reply.elements();
            for (qsizetype j = 0; j < redisson.size() && 4 * j + 3 < flat.size(); ++j) {
                ScannedKey &k = keys[redisson.at(j)];
                k.redisson.lockChannelSubscribers = flat.at(4 * j + 1).toInteger();
                k.redisson.rwChannelSubscribers = flat.at(4 * j + 3).toInteger();
            }
            continue;
        }
        ScannedKey &k = keys[target];
        if (!r.ok()) {
            // A companion of another type is not this key's problem; its own reads are.
            if (read == Read::Exists || read == Read::Length || read == Read::FieldCount)
                k.readErrors << readError(r);
            continue;
        }
        switch (read) {
        case Read::Ttl:
            k.pttlMs = r.reply.toInteger();
            k.readAtMs = readAt;
            if (k.pttlMs == -2)
                k.type = "none"; // deleted since its value was read
            break;
        case Read::Exists:
            if (r.reply.toInteger() == 0)
                k.type = "none";
            else
                k.valueLength = 0;
            break;
        case Read::Length:
            k.valueLength = r.reply.toInteger();
            break;
        case Read::FieldCount:
            k.fieldCount = r.reply.toInteger();
            if (k.fieldCount == 0)
                k.type = "none";
            break;
        case Read::QueueLength:
            k.redisson.queueLength = r.reply.toInteger();
            break;
        case Read::Queue:
            for (const RedisReply &e : r.reply.elements())
                k.redisson.queue.append(e.bytes());
            break;
        case Read::Deadlines: {
            const auto &flat = r.reply.elements();
            for (qsizetype f = 0; f + 1 < flat.size(); f += 2) {
                bool ok = false;
                const double score = flat.at(f + 1).bytes().toDouble(&ok);
                k.redisson.deadlines.append({flat.at(f).bytes(), ok ? qint64(score) : -1});
            }
            break;
        }
        case Read::Token:
            if (r.reply.isString()) {
                k.redisson.tokenPresent = true;
                k.redisson.token = r.reply.bytes();
            }
            break;
        default:
            break;
        }
    }
    *out = std::move(keys);
    return true;
}
