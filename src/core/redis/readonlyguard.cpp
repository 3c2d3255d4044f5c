// ReadOnlyGuard: an allow-list, not a deny-list, so a command Redis adds tomorrow is refused by default.
#include "readonlyguard.h"

#include <QHash>
#include <QSet>

namespace {

struct Rule
{
    // Empty: every form of the command reads. Otherwise only these sub-commands (upper case) are allowed.
    QSet<QByteArray> subcommands;
};

const QHash<QByteArray, Rule> &rules()
{
    static const QHash<QByteArray, Rule> table = [] {
        QHash<QByteArray, Rule> t;
        const char *plain[] = {
            // keys and values
            "GET",
            "MGET",
            "STRLEN",
            "GETRANGE",
            "SUBSTR",
            "EXISTS",
            "TYPE",
            "TTL",
            "PTTL",
            "EXPIRETIME",
            "PEXPIRETIME",
            "SCAN",
            "DBSIZE",
            "RANDOMKEY",
            "TOUCH",
            "LCS",
            // hashes
            "HGET",
            "HMGET",
            "HGETALL",
            "HLEN",
            "HKEYS",
            "HVALS",
            "HEXISTS",
            "HSTRLEN",
            "HSCAN",
            "HRANDFIELD",
            // hash-field TTLs (Redis 7.4+): a lock kept as a field expires by them (issue 39)
            "HTTL",
            "HPTTL",
            "HEXPIRETIME",
            "HPEXPIRETIME",
            // lists, sets, sorted sets, streams
            "LLEN",
            "LRANGE",
            "LINDEX",
            "LPOS",
            "SCARD",
            "SMEMBERS",
            "SISMEMBER",
            "SMISMEMBER",
            "SSCAN",
            "SRANDMEMBER",
            "SINTER",
            "SUNION",
            "SDIFF",
            "SINTERCARD",
            "ZCARD",
            "ZCOUNT",
            "ZLEXCOUNT",
            "ZRANGE",
            "ZRANGEBYSCORE",
            "ZRANGEBYLEX",
            "ZREVRANGE",
            "ZREVRANGEBYSCORE",
            "ZREVRANGEBYLEX",
            "ZRANK",
            "ZREVRANK",
            "ZSCORE",
            "ZMSCORE",
            "ZSCAN",
            "ZRANDMEMBER",
            "XLEN",
            "XRANGE",
            "XREVRANGE",
            "BITCOUNT",
            "GETBIT",
            "BITPOS",
            "PFCOUNT",
            // connection and server facts
            "PING",
            "ECHO",
            "AUTH",
            "HELLO",
            "SELECT",
            "QUIT",
            "RESET",
            "TIME",
            "INFO",
            "ROLE",
            "LASTSAVE",
            "READONLY",
            "READWRITE",
            "ASKING", // a cluster redirection: lets the next command read a slot being migrated
            "WAIT",
            // pub/sub listening (publishing is a write to other clients, so it is not here)
            "SUBSCRIBE",
            "UNSUBSCRIBE",
            "PSUBSCRIBE",
            "PUNSUBSCRIBE",
            "SSUBSCRIBE",
            "SUNSUBSCRIBE",
        };
        for (const char *name : plain)
            t.insert(QByteArray(name), Rule {});
        t.insert("CLIENT", Rule {{"SETNAME", "GETNAME", "ID", "INFO", "TRACKINGINFO", "GETREDIR", "HELP"}});
        t.insert("CONFIG", Rule {{"GET", "HELP"}});
        t.insert("COMMAND", Rule {{"COUNT", "DOCS", "GETKEYS", "GETKEYSANDFLAGS", "INFO", "LIST", "HELP"}});
        t.insert("CLUSTER",
                 Rule {{"SLOTS", "SHARDS", "NODES", "INFO", "KEYSLOT", "MYID", "MYSHARDID", "COUNTKEYSINSLOT",
                        "GETKEYSINSLOT", "REPLICAS", "SLAVES", "LINKS", "HELP"}});
        t.insert("SENTINEL",
                 Rule {{"MASTERS", "MASTER", "REPLICAS", "SLAVES", "SENTINELS", "GET-MASTER-ADDR-BY-NAME",
                        "MYID", "CKQUORUM", "INFO-CACHE", "HELP"}});
        t.insert("PUBSUB", Rule {{"CHANNELS", "NUMSUB", "NUMPAT", "SHARDCHANNELS", "SHARDNUMSUB", "HELP"}});
        t.insert("OBJECT", Rule {{"ENCODING", "FREQ", "IDLETIME", "REFCOUNT", "HELP"}});
        t.insert("MEMORY", Rule {{"USAGE", "STATS", "DOCTOR", "HELP"}});
        t.insert("SCRIPT", Rule {{"EXISTS", "HELP"}});
        t.insert("SLOWLOG", Rule {{"GET", "LEN", "HELP"}});
        t.insert("LATENCY", Rule {{"LATEST", "HISTORY", "DOCTOR", "GRAPH", "HISTOGRAM", "HELP"}});
        t.insert("ACL", Rule {{"WHOAMI", "CAT", "HELP"}});
        return t;
    }();
    return table;
}

// Upper-cases a command name into `buffer` and returns a view of it without allocating (the guard runs for
// every command of a read-only connection). Longer names than any Redis command get an empty view: refused.
QByteArray upperView(const QByteArray &bytes, char (&buffer)[48])
{
    if (bytes.size() >= qsizetype(sizeof buffer))
        return {};
    for (qsizetype i = 0; i < bytes.size(); ++i) {
        const char c = bytes.at(i);
        buffer[i] = c >= 'a' && c <= 'z' ? char(c - 'a' + 'A') : c;
    }
    return QByteArray::fromRawData(buffer, bytes.size());
}

} // namespace

bool ReadOnlyGuard::allows(const QList<QByteArray> &args, QString *reason)
{
    if (args.isEmpty()) {
        if (reason)
            *reason = QStringLiteral("empty command");
        return false;
    }
    char nameBuffer[48];
    const QByteArray name = upperView(args.first(), nameBuffer);
    const auto it = rules().constFind(name);
    if (it == rules().constEnd()) {
        if (reason)
            *reason = QStringLiteral("%1 is not a read-only command; this connection is read-only "
                                     "(reconnect with writes allowed to send it)")
                          .arg(QString::fromUtf8(args.first()).toUpper());
        return false;
    }
    if (it->subcommands.isEmpty())
        return true;
    char subBuffer[48];
    const QByteArray sub = args.size() > 1 ? upperView(args.at(1), subBuffer) : QByteArray();
    if (it->subcommands.contains(sub))
        return true;
    if (reason)
        *reason
            = QStringLiteral("%1 %2 is not a read-only command; this connection is read-only "
                             "(reconnect with writes allowed to send it)")
                  .arg(QString::fromUtf8(args.first()).toUpper(), QString::fromUtf8(args.value(1)).toUpper());
    return false;
}

bool ReadOnlyGuard::allowsAnyArguments(const QByteArray &name)
{
    char buffer[48];
    const auto it = rules().constFind(upperView(name, buffer));
    return it != rules().constEnd() && it->subcommands.isEmpty();
}

QStringList ReadOnlyGuard::allowList()
{
    QStringList out;
    for (auto it = rules().constBegin(); it != rules().constEnd(); ++it) {
        if (it->subcommands.isEmpty()) {
            out << QString::fromLatin1(it.key());
            continue;
        }
        for (const QByteArray &sub : it->subcommands)
            out << QString::fromLatin1(it.key() + '|' + sub);
    }
    out.sort();
    return out;
}
