// KeyProber: round 1 (TYPE, and PTTL of keys named like locks) for every key, round 2 (GETRANGE / HSCAN /
// ZRANGE / a size) for the candidates, and a round 3 only when a page needs it: the PTTL of keys whose data
// turned out lock-like, what their format names (companions, channel subscribers, the job), and the rare keys
// whose first reads were ambiguous (an empty string: empty or deleted meanwhile? a value that filled its
// bound: how big?). Each round is pipelined, in the pacer's chunks.
#include "keyprober.h"

#include "hashfieldlocks.h"
#include "inspectclock.h"
#include "lockclassifier.h"
#include "locknames.h"
#include "ownerevidence.h"
#include "redis/redisconnection.h"
#include "scanpacer.h"

#include <QElapsedTimer>

namespace {

enum class Read {
    Value,
    HashScan,
    ZsetRange,
    Size,
    Exists,
    Length,
    FieldCount,
    MemberCount,
    Ttl,
    CompanionSize,
    CompanionItems,
    CompanionString,
    CompanionExists,
    CompanionTtl,
    Channels,
    ShardChannels,
    JobFields,
    JobExists,
    JobStalled,
    FieldTtls,
};

struct Planned
{
    qsizetype target = -1;
    Read read = Read::Value;
    qsizetype companion = -1; // index into the target's companions
};

struct Round
{
    QList<RedisCommand> commands;
    QList<Planned> plan;

    void add(qsizetype target, Read read, RedisCommand command, qsizetype companion = -1)
    {
        commands.append(std::move(command));
        plan.append({target, read, companion});
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

// Why a key could not be read, in words that group well in a count: "the ACL does not let this user read
// them (NOPERM)".
QString unreadReason(const RedisError &e)
{
    switch (e.code()) {
    case RedisError::Code::NoPermission:
        return e.message().contains(QLatin1String("'type' command"), Qt::CaseInsensitive)
            ? QStringLiteral("the server refused TYPE to this user (NOPERM): no key can be read")
            : QStringLiteral("outside the keys this user's ACL may read (NOPERM)");
    case RedisError::Code::Loading:
        return QStringLiteral("the server is loading its data set (LOADING)");
    default:
        break;
    }
    if (e.message().startsWith(QLatin1String("CLUSTERDOWN")))
        return QStringLiteral("the cluster is down (CLUSTERDOWN)");
    return e.message().left(120);
}

// A refusal that says nothing about the key but about the whole server for now (a reload, a restart, the
// cluster down): a key with such an answer to any of its reads is unread as a whole, not a lock with
// missing parts — its owners read as "none" would look like a new holder.
bool refusesEveryKey(const RedisError &e)
{
    if (e.code() == RedisError::Code::Loading)
        return true;
    const QString m = e.message();
    return m.startsWith(QLatin1String("CLUSTERDOWN")) || m.startsWith(QLatin1String("MASTERDOWN"))
        || m.startsWith(QLatin1String("BUSY"));
}

QList<double> scoresOf(const QList<RedisReply> &flat, QList<QByteArray> *members)
{
    QList<double> scores;
    for (qsizetype f = 0; f + 1 < flat.size(); f += 2) {
        members->append(flat.at(f).bytes());
        bool ok = false;
        const double score = flat.at(f + 1).bytes().toDouble(&ok);
        scores.append(ok ? score : -1);
    }
    return scores;
}

} // namespace

KeyProber::KeyProber(const ScanOptions &options)
    : m_options(options)
    , m_replicaOf(options.replicaOf)
{
}

qint64 KeyProber::unreadKeyCount() const
{
    qint64 n = 0;
    for (qint64 v : m_unread)
        n += v;
    return n;
}

QList<QPair<QByteArray, RedisError>> KeyProber::takeRedirected()
{
    return std::exchange(m_redirected, {});
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
        QList<RedisCommand> sent = n == commands.size() ? commands : commands.mid(from, n);
        if (m_asking) {
            QList<RedisCommand> asked;
            asked.reserve(2 * n);
            for (const RedisCommand &command : std::as_const(sent))
                asked << RedisCommand {QByteArrayLiteral("ASKING")} << command;
            sent = std::move(asked);
        }
        if (m_pacer && !m_pacer->beforeChunk(int(sent.size()))) {
            *error = {RedisError::Code::Interrupted, QStringLiteral("Interrupted")};
            return false;
        }
        QElapsedTimer roundTrip;
        roundTrip.start();
        QList<RedisResult> replies = c.pipeline(sent);
        if (m_pacer)
            m_pacer->afterChunk(roundTrip.nsecsElapsed() / 1000);
        if (m_asking) {
            QList<RedisResult> answers; // the commands' replies, without ASKING's
            answers.reserve(n);
            for (qsizetype i = 1; i < replies.size(); i += 2)
                answers.append(std::move(replies[i]));
            replies = std::move(answers);
        }
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
    const FormatCatalog &catalog = *m_options.formats;

    // Round 1: TYPE of every key, and PTTL of those that are locks by name or by purpose. The others (most
    // of a keyspace) get their PTTL in round 3 only if their data could be a lock: a scan of "all keys"
    // then costs the server one command per key that is not a lock instead of two.
    QList<RedisCommand> first;
    first.reserve(targets.size() * 2);
    QList<qsizetype> pttlReply(targets.size(), -1); // index of each target's PTTL reply, -1: deferred
    for (qsizetype i = 0; i < targets.size(); ++i) {
        const ProbeTarget &t = targets.at(i);
        first.append({QByteArrayLiteral("TYPE"), t.key});
        if (t.lockNamed || t.explicitPattern || t.purpose != ProbeTarget::Purpose::Lock) {
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
    QStringList refusedNow(targets.size()); // per key: why a later read was refused server-wide
    qsizetype reply = 0;
    for (qsizetype i = 0; i < targets.size(); ++i) {
        const ProbeTarget &t = targets.at(i);
        ScannedKey k;
        k.key = t.key;
        k.lockNamed = t.lockNamed;
        k.explicitPattern = t.explicitPattern;
        const RedisResult &type = replies.at(reply);
        reply += pttlReply.at(i) < 0 ? 1 : 2;
        if (!type.ok()) {
            if (type.error.code() == RedisError::Code::Redirect)
                m_redirected.append({t.key, type.error});
            else
                m_unread[unreadReason(type.error)] += 1;
            k.readErrors << type.error.message();
        } else {
            k.type = internedType(type.reply.bytes());
            // Seen now, whatever follows: a refused PTTL leaves the TTL unknown, not the moment of the reading
            // (a 0 here became an age as long as the machine's uptime).
            k.readAtMs = readAt;
            if (pttlReply.at(i) >= 0) {
                const RedisResult &pttl = replies.at(pttlReply.at(i));
                if (pttl.ok()) {
                    k.pttlMs = pttl.reply.toInteger();
                } else {
                    if (refusesEveryKey(pttl.error))
                        refusedNow[i] = unreadReason(pttl.error);
                    k.pttlMs = -3;
                    k.pttlError = QStringLiteral("PTTL refused: %1").arg(pttl.error.message());
                }
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
    const QByteArray itemsEnd = QByteArray::number(m_options.maxQueue - 1);
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
        } else if (k.type == "zset") {
            // Semaphores and Symfony's locks are zsets under any name: their first holders tell.
            second.add(i, Read::ZsetRange,
                       {QByteArrayLiteral("ZRANGE"), k.key, QByteArrayLiteral("0"), itemsEnd,
                        QByteArrayLiteral("WITHSCORES")});
        } else if (k.type == "none") {
            if (t.purpose == ProbeTarget::Purpose::LockViaQueue)
                viaQueue.append(i);
        } else if (t.lockNamed || t.explicitPattern) {
            const QByteArray command = sizeCommand(k.type);
            if (!command.isEmpty())
                second.add(i, Read::Size, {command, k.key});
        }
    }
    if (!runRound(connection, second.commands, &replies, error))
        return false;

    // Round 3, only for what round 2 left open.
    Round third;
    for (qsizetype n = 0; n < second.plan.size(); ++n) {
        const Planned p = second.plan.at(n);
        const RedisResult &r = replies.at(n);
        ScannedKey &k = keys[p.target];
        if (!r.ok()) {
            if (refusesEveryKey(r.error))
                refusedNow[p.target] = unreadReason(r.error);
            k.readErrors << readError(r);
            continue;
        }
        switch (p.read) {
        case Read::Value:
            k.value = r.reply.bytes();
            if (k.value.isEmpty())
                third.add(p.target, Read::Exists, {"EXISTS", k.key}); // empty, or deleted between the rounds?
            else if (k.value.size() >= m_options.maxValueBytes)
                third.add(p.target, Read::Length, {"STRLEN", k.key});
            else
                k.valueLength = k.value.size();
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
                    third.add(p.target, Read::FieldCount, {"HLEN", k.key}); // a big hash: how big
            }
            break;
        case Read::ZsetRange: {
            QList<QByteArray> members;
            const QList<double> scores = scoresOf(r.reply.elements(), &members);
            for (qsizetype m = 0; m < members.size(); ++m)
                k.members.append({members.at(m), scores.at(m)});
            if (k.members.isEmpty())
                k.type = "none";
            else if (k.members.size() < m_options.maxQueue)
                k.size = k.members.size();
            else
                third.add(p.target, Read::MemberCount, {"ZCARD", k.key}); // the exact count, not the sample's
            break;
        }
        case Read::Size:
            k.size = r.reply.toInteger();
            if (k.size == 0)
                k.type = "none";
            break;
        default:
            break;
        }
    }
    // The deferred PTTLs (only for keys that may be locks, or companions after all) and what each lock's
    // format names: its companions, its channels' subscribers, its job.
    RedisCommand channels {"PUBSUB", "NUMSUB"};
    QList<qsizetype> withChannels;
    const LockFormat *queueFormat = catalog.find(QStringLiteral("redisson-lock"));
    for (qsizetype i = 0; i < keys.size(); ++i) {
        ScannedKey &k = keys[i];
        const bool ttlUnread = pttlReply.at(i) < 0;
        const bool companionTarget = targets.at(i).purpose == ProbeTarget::Purpose::Companion;
        // One match per key. Its PTTL may not be read yet: match as if it had a TTL (formats that need one
        // decide again, after the read).
        FormatCatalog::Match m;
        if (k.exists() && !companionTarget) {
            const qint64 pttl = k.pttlMs;
            if (ttlUnread)
                k.pttlMs = 0;
            m = catalog.match(k);
            k.pttlMs = pttl;
            k.plannedMatch = m;
            k.matchPlanned = true;
            k.matchAssumedTtl = ttlUnread;
            k.plannedBasis = k.matchBasis();
        }
        // A hash keeping locks as fields (huey's results hash): the lock fields' own TTLs, and the hash's.
        QList<QByteArray> lockFields;
        if (k.type == "hash" && !m && !companionTarget)
            lockFields = HashFieldLocks::lockFields(k, m_options.lockNamePatterns);
        if (!lockFields.isEmpty()) {
            RedisCommand hpttl {"HPTTL", k.key, "FIELDS", QByteArray::number(lockFields.size())};
            hpttl += lockFields;
            third.add(i, Read::FieldTtls, hpttl);
        }
        if (ttlUnread && k.exists()
            && (m || k.lockNamed || !lockFields.isEmpty() || !HashFieldLocks::hueyName(k.key).isEmpty()
                || k.explicitPattern
                // A random token under any name may be one key of a lock on several resources: the
                // keys sharing it are one lock only if their TTLs agree (LockAssembler::pairSharedToken).
                || (k.type == "string" && OwnerEvidence::isRandomId(k.value))
                || LockNames::companionOf(k.key).role != LockNames::CompanionRole::None
                || catalog.companionOf(k.key)))
            third.add(i, Read::Ttl, {QByteArrayLiteral("PTTL"), k.key});
        const bool orphanCandidate = viaQueue.contains(i);
        if (companionTarget || (!k.exists() && !orphanCandidate))
            continue;
        const LockFormat *f = orphanCandidate ? queueFormat : m.format;
        if (!f)
            continue;
        QHash<QString, QByteArray> groups = m.groups;
        groups.insert(QStringLiteral("key"), k.key);
        k.plannedFormat = f->id;
        for (const LockFormat::Companion &spec : f->companions) {
            ScannedKey::Companion c;
            c.role = spec.role;
            c.key = spec.key.expand(groups);
            c.read = spec.read;
            const qsizetype ci = k.companions.size();
            k.companions.append(c);
            if (spec.read == "list") {
                third.add(i, Read::CompanionSize, {"LLEN", c.key}, ci);
                third.add(i, Read::CompanionItems, {"LRANGE", c.key, "0", itemsEnd}, ci);
            } else if (spec.read == "zset") {
                third.add(i, Read::CompanionSize, {"ZCARD", c.key}, ci);
                third.add(i, Read::CompanionItems, {"ZRANGE", c.key, "0", itemsEnd, "WITHSCORES"}, ci);
            } else if (spec.read == "string") {
                third.add(i, Read::CompanionString, {"GET", c.key}, ci);
            } else {
                third.add(i, Read::CompanionExists, {"EXISTS", c.key}, ci);
            }
            if (spec.lockTtl)
                third.add(i, Read::CompanionTtl, {"PTTL", c.key}, ci);
        }
        if (!f->channels.isEmpty()) {
            for (const FormatTemplate &t : f->channels)
                k.channels << t.expand(groups);
            if (!m_replicaOf.isEmpty()) {
                k.channelsError
                    = QStringLiteral("this server is a replica of %1: clients subscribe on the master, "
                                     "so its waiters cannot be counted here")
                          .arg(m_replicaOf);
            } else {
                channels << k.channels;
                withChannels << i;
            }
        }
        if (f->hasJob) {
            const QByteArray jobKey = f->job.key.expand(groups);
            k.job.read = true;
            RedisCommand fields {"HMGET", jobKey};
            fields << f->job.attemptsFields;
            if (!f->job.stalledCountField.isEmpty())
                fields << f->job.stalledCountField;
            if (fields.size() > 2)
                third.add(i, Read::JobFields, fields);
            third.add(i, Read::JobExists, {"EXISTS", jobKey});
            if (!f->job.stalledSet.isEmpty())
                third.add(i, Read::JobStalled,
                          {"SISMEMBER", f->job.stalledSet.expand(groups), f->job.id.expand(groups)});
        }
    }
    if (!withChannels.isEmpty()) {
        // Every channel of the page in one command of each kind: classic and sharded subscribers.
        RedisCommand shardChannels {"PUBSUB", "SHARDNUMSUB"};
        shardChannels += channels.mid(2);
        third.add(-1, Read::Channels, channels);
        third.add(-1, Read::ShardChannels, shardChannels);
    }
    const QString node = connection.settings().endpoint();
    sentAt = InspectClock::monotonicMs();
    if (!runRound(connection, third.commands, &replies, error))
        return false;
    readAt = (sentAt + InspectClock::monotonicMs()) / 2;

    for (qsizetype n = 0; n < third.plan.size(); ++n) {
        const Planned p = third.plan.at(n);
        const RedisResult &r = replies.at(n);
        if (p.read == Read::Channels) {
            if (!r.ok()) {
                // Typically an ACL without +@pubsub: the waiters are unknown, not 0.
                for (qsizetype i : std::as_const(withChannels))
                    keys[i].channelsError
                        = QStringLiteral("PUBSUB NUMSUB refused: %1").arg(r.error.message());
                continue;
            }
            // [channel, count, channel, count, …] in the order asked.
            const auto &flat = r.reply.elements();
            qsizetype at = 1;
            for (qsizetype i : std::as_const(withChannels)) {
                ScannedKey &k = keys[i];
                k.channelsNode = node;
                k.channelsNodes = {node};
                for (qsizetype c = 0; c < k.channels.size(); ++c, at += 2)
                    k.channelSubscribers << (at < flat.size() ? flat.at(at).toInteger() : -1);
            }
            continue;
        }
        if (p.read == Read::ShardChannels) {
            // A server before Redis 7 does not know the subcommand: nobody can wait that way there. Any other
            // refusal (an ACL) leaves the sharded waiters unknown.
            const bool absent = !r.ok() && r.error.message().contains(QLatin1String("nknown subcommand"));
            const auto &flat = r.reply.elements();
            qsizetype at = 1;
            for (qsizetype i : std::as_const(withChannels)) {
                ScannedKey &k = keys[i];
                k.shardedPubSubAbsent = absent;
                if (!r.ok() && !absent)
                    k.shardChannelsError
                        = QStringLiteral("PUBSUB SHARDNUMSUB refused: %1").arg(r.error.message());
                for (qsizetype c = 0; r.ok() && c < k.channels.size(); ++c, at += 2)
                    k.channelShardSubscribers << (at < flat.size() ? flat.at(at).toInteger() : -1);
            }
            continue;
        }
        ScannedKey &k = keys[p.target];
        ScannedKey::Companion *c = p.companion >= 0 ? &k.companions[p.companion] : nullptr;
        if (p.read == Read::FieldTtls) {
            // Before Redis 7.4 there is no HPTTL, and no field can have a TTL of its own.
            if (!r.ok() && r.error.message().contains(QLatin1String("nknown command")))
                k.fieldTtlsAbsent = true;
            else if (!r.ok())
                k.fieldPttlError = QStringLiteral("HPTTL refused: %1").arg(r.error.message());
            const QList<QByteArray> asked = third.commands.at(n).mid(4);
            const auto &ttls = r.reply.elements();
            for (qsizetype f = 0; r.ok() && f < asked.size() && f < ttls.size(); ++f)
                k.fieldPttls.insert(asked.at(f), ttls.at(f).toInteger());
            continue;
        }
        if (!r.ok()) {
            if (refusesEveryKey(r.error))
                refusedNow[p.target] = unreadReason(r.error);
            const QString e = readError(r);
            if (c && r.error.code() == RedisError::Code::WrongType)
                c->wrongType = true; // malformed data, not a refusal
            else if (c)
                c->error = e;
            else if (p.read == Read::Ttl)
                k.pttlError = QStringLiteral("PTTL refused: %1").arg(r.error.message()), k.pttlMs = -3;
            else if (p.read == Read::JobFields || p.read == Read::JobExists || p.read == Read::JobStalled)
                k.job.error = e;
            else
                k.readErrors << e;
            continue;
        }
        switch (p.read) {
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
        case Read::MemberCount:
            k.size = r.reply.toInteger();
            break;
        case Read::CompanionSize:
            c->size = r.reply.toInteger();
            c->present = c->size > 0;
            break;
        case Read::CompanionItems:
            if (c->read == "zset")
                c->scores = scoresOf(r.reply.elements(), &c->items);
            else
                for (const RedisReply &e : r.reply.elements())
                    c->items.append(e.bytes());
            break;
        case Read::CompanionString:
            c->present = r.reply.isString();
            if (c->present)
                c->items = {r.reply.bytes()};
            break;
        case Read::CompanionExists:
            c->present = r.reply.toInteger() > 0;
            break;
        case Read::CompanionTtl:
            c->pttlMs = r.reply.toInteger();
            break;
        case Read::JobFields:
            for (const RedisReply &e : r.reply.elements())
                k.job.fields.append(e.bytes());
            break;
        case Read::JobExists:
            k.job.exists = r.reply.toInteger() > 0;
            break;
        case Read::JobStalled:
            k.job.markedStalled = r.reply.toInteger() > 0;
            break;
        default:
            break;
        }
    }
    for (qsizetype i = 0; i < keys.size(); ++i) {
        if (refusedNow.at(i).isEmpty() || keys.at(i).type.isEmpty())
            continue;
        ScannedKey &k = keys[i];
        k.type.clear();
        k.readErrors.prepend(refusedNow.at(i));
        m_unread[refusedNow.at(i)] += 1;
    }
    *out = std::move(keys);
    return true;
}
