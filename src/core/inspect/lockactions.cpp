// LockActions: scripts return 1 (done), 0 (nothing there any more) or -1 (changed since the snapshot:
// refused). They are written one statement per line and sent as-is, so what the dialog shows is what runs.
#include "lockactions.h"

#include "inspectformat.h"
#include "keyspacewatcher.h"
#include "locknames.h"
#include "locks/redissonnames.h"
#include "redis/bytes.h"

#include <algorithm>
#include <cctype>

namespace {

// Checks that every key in KEYS[1..n] still holds ARGV[1] (string locks; a multi-resource lock has
// several keys). Deleted/extended keys are the ones still holding it.
const char *kStringCheck = "local held = {}\n"
                           "for i, k in ipairs(KEYS) do\n"
                           "  local v = redis.call('get', k)\n"
                           "  if v and v ~= ARGV[1] then return -1 end\n"
                           "  if v then held[#held + 1] = k end\n"
                           "end\n"
                           "if #held == 0 then return 0 end\n";

// Checks that hash KEYS[1] still has exactly ARGV[2] fields, with the field/value pairs ARGV[3..].
const char *kHashCheck = "if redis.call('exists', KEYS[1]) == 0 then return 0 end\n"
                         "if redis.call('hlen', KEYS[1]) ~= tonumber(ARGV[2]) then return -1 end\n"
                         "for i = 3, #ARGV, 2 do\n"
                         "  if redis.call('hget', KEYS[1], ARGV[i]) ~= ARGV[i + 1] then return -1 end\n"
                         "end\n";

// Checks that zset KEYS[1] still has exactly ARGV[2] members, with the member/score pairs ARGV[3..].
const char *kZsetCheck = "if redis.call('exists', KEYS[1]) == 0 then return 0 end\n"
                         "if redis.call('zcard', KEYS[1]) ~= tonumber(ARGV[2]) then return -1 end\n"
                         "for i = 3, #ARGV, 2 do\n"
                         "  local s = redis.call('zscore', KEYS[1], ARGV[i])\n"
                         "  if not s or tonumber(s) ~= tonumber(ARGV[i + 1]) then return -1 end\n"
                         "end\n";

// A lock kept as field ARGV[1] of the shared hash KEYS[1]: it goes only if it still holds ARGV[2]; the hash
// and its other fields (huey's task results, other locks) stay.
const char *kFieldDelete = "local v = redis.call('hget', KEYS[1], ARGV[1])\n"
                           "if not v then return 0 end\n"
                           "if v ~= ARGV[2] then return -1 end\n"
                           "redis.call('hdel', KEYS[1], ARGV[1])\n"
                           "return 1\n";

QString whyNotExact(const LockRecord &r)
{
    if (!r.exists())
        return QStringLiteral("The lock is gone.");
    if (r.isTruncated())
        return QStringLiteral(
            "Only part of this key was read, so there is no exact snapshot to compare against.");
    if (r.type != "string" && r.type != "hash" && r.type != "zset")
        return QStringLiteral("This is a %1, not a lock format LockScope writes to.")
            .arg(QString::fromLatin1(r.type));
    return {};
}

bool isRedissonHash(const LockRecord &r)
{
    return r.type == "hash" && r.library == QLatin1String("Redisson");
}

// The EVAL and the sentence describing its check, for either lock shape.
struct Check
{
    QByteArray script;
    QList<QByteArray> keys;
    QList<QByteArray> args;
    QString description;
};

Check snapshotCheck(const LockRecord &r)
{
    Check c;
    if (r.type == "string") {
        c.script = kStringCheck;
        c.keys = r.memberKeys();
        c.args = {r.value};
        c.description = r.groupKeys.isEmpty()
            ? QStringLiteral("checks that %1 still holds %2")
                  .arg(Bytes::display(r.key), Bytes::display(r.value, 80))
            : QStringLiteral("checks that each of its %1 keys holds %2 or is gone")
                  .arg(r.memberKeys().size())
                  .arg(Bytes::display(r.value, 80));
        return c;
    }
    if (r.type == "zset") {
        c.script = kZsetCheck;
        c.keys = {r.key};
        c.args = {QByteArray(), QByteArray::number(r.members.size())};
        for (const auto &[member, score] : r.members)
            c.args << member << QByteArray::number(score, 'g', 17);
        c.description = QStringLiteral("checks that %1 still has exactly these %2 holders")
                            .arg(Bytes::display(r.key))
                            .arg(r.members.size());
        return c;
    }
    c.script = kHashCheck;
    c.keys = {r.key};
    c.args = {QByteArray(), QByteArray::number(r.fields.size())};
    for (const auto &[field, value] : r.fields)
        c.args << field << value;
    c.description = r.fields.size() == 1
        ? QStringLiteral("checks that %1 still has exactly this one field and value")
              .arg(Bytes::display(r.key))
        : QStringLiteral("checks that %1 still has exactly these %2 fields and values")
              .arg(Bytes::display(r.key))
              .arg(r.fields.size());
    return c;
}

RedisCommand eval(const QByteArray &script, const QList<QByteArray> &keys, const QList<QByteArray> &args)
{
    RedisCommand command {"EVAL", script, QByteArray::number(keys.size())};
    command += keys;
    command += args;
    return command;
}

} // namespace

QString LockAction::commandText() const
{
    return LockActions::render(command);
}

namespace LockActions {

QString quote(const QByteArray &argument)
{
    QString out = QStringLiteral("\"");
    for (char ch : argument) {
        const auto u = static_cast<unsigned char>(ch);
        switch (ch) {
        case '"':
            out += QStringLiteral("\\\"");
            break;
        case '\\':
            out += QStringLiteral("\\\\");
            break;
        case '\n':
            out += QStringLiteral("\\n");
            break;
        case '\r':
            out += QStringLiteral("\\r");
            break;
        case '\t':
            out += QStringLiteral("\\t");
            break;
        default:
            if (u < 0x20 || u >= 0x7f)
                out += QStringLiteral("\\x%1").arg(uint(u), 2, 16, QLatin1Char('0'));
            else
                out += QLatin1Char(ch);
        }
    }
    // Non-ASCII UTF-8 stays escaped byte by byte: redis-cli reads \xNN back into the same bytes.
    return out + QLatin1Char('"');
}

QString render(const RedisCommand &command)
{
    QStringList parts;
    for (qsizetype i = 0; i < command.size(); ++i) {
        const QByteArray &a = command.at(i);
        bool plain = !a.isEmpty() && i == 0;
        if (i > 0) {
            plain = !a.isEmpty();
            for (char ch : a) {
                if (!(std::isalnum(static_cast<unsigned char>(ch)) || ch == '-' || ch == '_' || ch == ':'
                      || ch == '.')) {
                    plain = false;
                    break;
                }
            }
        }
        parts << (plain ? QString::fromLatin1(a) : quote(a));
    }
    return parts.join(u' ');
}

namespace {

LockAction forceUnlockField(const LockRecord &r)
{
    LockAction a;
    a.type = LockAction::Type::ForceUnlock;
    a.key = r.key;
    a.field = r.field;
    a.title = QStringLiteral("Force unlock %1 › %2").arg(Bytes::display(r.key, 60), Bytes::display(r.field, 60));
    if (!r.exists())
        a.unavailable = QStringLiteral("The lock is gone.");
    else if (r.valueLength > r.value.size())
        a.unavailable = QStringLiteral(
            "Only part of this field's value was read, so there is no exact snapshot to compare against.");
    if (!a.isAvailable())
        return a;
    a.command = eval(kFieldDelete, {r.key}, {r.field, r.value});
    a.explanation
        = QStringLiteral("It checks that the field %1 of the hash %2 still holds %3; if anything changed since "
                         "you looked, it deletes nothing. Then it deletes that one field (HDEL): the hash and "
                         "its other fields stay. Waiting clients of %4 retry on their own, so they notice on "
                         "their next attempt. The holder is not told: if it is still alive it will believe it "
                         "holds the lock until it releases it.")
              .arg(Bytes::display(r.field, 80), Bytes::display(r.key, 80), Bytes::display(r.value, 80),
                   r.library.isEmpty() ? QStringLiteral("this library") : r.library);
    return a;
}

} // namespace

LockAction forceUnlock(const LockRecord &r)
{
    if (!r.field.isEmpty())
        return forceUnlockField(r);
    LockAction a;
    a.type = LockAction::Type::ForceUnlock;
    a.key = r.key;
    a.title = QStringLiteral("Force unlock %1").arg(Bytes::display(r.key, 80));
    a.unavailable = whyNotExact(r);
    if (!a.isAvailable())
        return a;
    Check c = snapshotCheck(r);
    QByteArray script = c.script;
    QStringList steps {QStringLiteral("It %1; if anything changed since you looked, it deletes nothing.")
                           .arg(c.description)};
    if (r.type == "string") {
        script += "redis.call('del', unpack(held))\n";
        steps << QStringLiteral("Then it deletes %1.")
                     .arg(r.groupKeys.isEmpty() ? QStringLiteral("the key")
                                                : QStringLiteral("every key still holding it"));
    } else {
        script += "redis.call('del', KEYS[1])\n";
        steps << QStringLiteral("Then it deletes the %1.").arg(QString::fromLatin1(r.type));
    }
    if (isRedissonHash(r)) {
        // Redisson waiters sleep until a message on the lock's channel; without one they wait out the PTTL.
        QByteArray channel = RedissonNames::lockChannel(r.key);
        QByteArray message = RedissonNames::unlockMessage;
        if (r.kind == LockKind::ReadWrite) {
            channel = RedissonNames::rwChannel(r.key);
            message = RedissonNames::readUnlockMessage; // "wake every waiter", as a write unlock does
        } else if (r.kind == LockKind::Fair && !r.queue.isEmpty()) {
            channel = RedissonNames::fairWaiterChannel(r.key, r.queue.first().id); // only the head is told
        }
        c.keys << channel;
        c.args[0] = message;
        // Waiters are woken the way they wait: sharded subscribers (Redisson >= 3.22 on a Redis >= 7 cluster)
        // hear only SPUBLISH, classic ones only PUBLISH. On a cluster with sharded pub/sub, Redisson waits
        // sharded, so SPUBLISH goes out even when nobody was seen waiting; PUBLISH whenever a classic waiter
        // was seen or could not be ruled out.
        const qint64 sharded = std::max<qint64>(0, r.shardedSubscribers);
        const qint64 classic = r.subscribers >= 0 ? r.subscribers - sharded : -1;
        const bool shardedWake = r.shardedPubSub && (sharded > 0 || !r.node.isEmpty());
        const bool classicWake = classic != 0 || !shardedWake;
        QStringList how;
        if (shardedWake) {
            script += "redis.call('spublish', KEYS[2], ARGV[1])\n";
            how << QStringLiteral("SPUBLISH (sharded subscribers)");
        }
        if (classicWake) {
            script += "redis.call('publish', KEYS[2], ARGV[1])\n";
            how << QStringLiteral("PUBLISH (classic subscribers)");
        }
        steps << QStringLiteral("Then it publishes \"%1\" on %2 with %3, as Redisson's own unlock does, so "
                                "waiters wake now instead of after their timeout.")
                     .arg(QString::fromLatin1(message), Bytes::display(channel),
                          how.join(QStringLiteral(" and ")));
        if (r.hasFencingToken)
            steps << QStringLiteral("The token counter %1 is kept: fencing tokens must only ever grow.")
                         .arg(Bytes::display(RedissonNames::tokenCounter(r.key)));
    } else {
        steps << QStringLiteral("Waiting clients of %1 poll, so they notice on their next attempt.")
                     .arg(r.library.isEmpty() || r.library == QLatin1String("unknown")
                              ? QStringLiteral("this library")
                              : r.library);
    }
    script += "return 1\n";
    steps << QStringLiteral("The holder is not told: if it is still alive it will believe it holds the lock "
                            "until it next renews or releases.");
    a.command = eval(script, c.keys, c.args);
    a.explanation = steps.join(u' ');
    return a;
}

LockAction extendTtl(const LockRecord &r, qint64 ttlMs)
{
    LockAction a;
    a.type = LockAction::Type::ExtendTtl;
    a.key = r.key;
    a.title = QStringLiteral("Set the TTL of %1 to %2")
                  .arg(Bytes::display(r.key, 80), InspectFormat::duration(ttlMs));
    a.unavailable = whyNotExact(r);
    if (ttlMs <= 0)
        a.unavailable = QStringLiteral("The new TTL must be positive.");
    // A TTL on the key would expire the whole shared hash, every other field with it.
    if (!r.field.isEmpty())
        a.unavailable = QStringLiteral("This lock is one field of a shared hash: a TTL on the key would expire "
                                       "every other field too, so LockScope sets none.");
    if (!a.isAvailable())
        return a;
    Check c = snapshotCheck(r);
    QByteArray script = c.script;
    c.args[0] = r.type == "string" ? r.value : QByteArray::number(ttlMs);
    if (r.type == "zset") {
        c.args[0] = QByteArray::number(ttlMs);
        script += "redis.call('pexpire', KEYS[1], ARGV[1])\n";
    } else if (r.type == "string") {
        c.args << QByteArray::number(ttlMs);
        script += "for i, k in ipairs(held) do redis.call('pexpire', k, ARGV[2]) end\n";
    } else {
        script += "redis.call('pexpire', KEYS[1], ARGV[1])\n";
    }
    script += "return 1\n";
    a.command = eval(script, c.keys, c.args);
    a.explanation
        = QStringLiteral("It %1; if anything changed since you looked, it changes nothing. Then it "
                         "sets the TTL to %2 (PEXPIRE). A holder that renews will set its own lease "
                         "again at its next renewal.")
              .arg(c.description, InspectFormat::duration(ttlMs));
    return a;
}

LockAction removeOrphanQueue(const LockRecord &r)
{
    LockAction a;
    a.type = LockAction::Type::RemoveOrphanQueue;
    a.key = r.key;
    a.title = QStringLiteral("Remove the orphan queue of %1").arg(Bytes::display(r.key, 80));
    if (!r.hasDiagnosis(QStringLiteral("orphan-queue"))) {
        a.unavailable = QStringLiteral("Its queue is not orphaned.");
        return a;
    }
    if (r.queue.size() < r.queueLength) {
        a.unavailable = QStringLiteral("Only part of the queue was read, so there is no exact snapshot.");
        return a;
    }
    const QList<QByteArray> keys {r.key, RedissonNames::fairQueue(r.key), RedissonNames::fairTimeouts(r.key)};
    QList<QByteArray> args {QByteArray::number(r.queue.size())};
    for (const FairWaiter &w : r.queue)
        args << w.id;
    QByteArray script;
    if (!r.exists())
        script += "if redis.call('exists', KEYS[1]) == 1 then return -1 end\n";
    script
        += "if redis.call('exists', KEYS[2]) == 0 and redis.call('exists', KEYS[3]) == 0 then return 0 end\n"
           "local q = redis.call('lrange', KEYS[2], 0, -1)\n"
           "if #q ~= tonumber(ARGV[1]) then return -1 end\n"
           "for i = 1, #q do if q[i] ~= ARGV[i + 1] then return -1 end end\n"
           "redis.call('del', KEYS[2], KEYS[3])\n"
           "return 1\n";
    a.command = eval(script, keys, args);
    a.explanation
        = QStringLiteral("It checks that %1the queue still holds exactly the %2 waiters shown; if "
                         "anything changed, it deletes nothing. Then it deletes the queue %3 and the "
                         "deadlines %4. Waiters still alive re-queue themselves on their next attempt.")
              .arg(r.exists() ? QString() : QStringLiteral("the lock is still gone and "))
              .arg(r.queue.size())
              .arg(Bytes::display(keys.at(1)), Bytes::display(keys.at(2)));
    return a;
}

LockAction enableNotifications(const QString &currentFlags)
{
    LockAction a;
    a.type = LockAction::Type::EnableNotifications;
    a.title = QStringLiteral("Turn on keyspace notifications");
    const QString flags = KeyspaceWatcher::flagsWithInspectorNeeds(currentFlags);
    a.command = {"CONFIG", "SET", "notify-keyspace-events", flags.toLatin1()};
    a.explanation
        = QStringLiteral("It changes the server's notify-keyspace-events from \"%1\" to \"%2\", so the "
                         "inspector sees locks taken, renewed, released and expired as they happen. "
                         "Every client that subscribes gets these events, and publishing them costs "
                         "the server some CPU on busy keyspaces. The change is not saved to redis.conf.")
              .arg(currentFlags, flags);
    return a;
}

LockActionOutcome interpret(const LockAction &action, const RedisResult &result)
{
    if (!result.ok())
        return {false, QStringLiteral("%1 failed: %2").arg(action.title, result.error.message())};
    if (action.type == LockAction::Type::EnableNotifications)
        return {true, QStringLiteral("Keyspace notifications are on.")};
    const qint64 code = result.reply.toInteger();
    if (code == 1)
        return {true, QStringLiteral("%1: done.").arg(action.title)};
    if (code == 0)
        return {false,
                QStringLiteral("%1: nothing to do — it was already gone (released or expired).")
                    .arg(action.title)};
    return {false,
            QStringLiteral("%1: refused — the lock changed since you looked (another owner, count or queue). "
                           "Nothing was changed; look again and retry if it is still stuck.")
                .arg(action.title)};
}

} // namespace LockActions
