// LockReport: values shown with Bytes::display (binary-safe); JSON numbers as doubles past 2^31.
#include "lockreport.h"

#include "redis/bytes.h"
#include "redis/redisconnection.h"

#include <QTextStream>

void LockReport::printHeader(QTextStream &out, const LockArguments &args, const QStringList &servers,
                             const QByteArray &clientId)
{
    const LockOptions &options = args.options;
    out << "algorithm  " << args.algorithmId << " — " << args.algorithm->title << "\n"
        << "server     " << servers.join(QStringLiteral(", "))
        << (args.connection.sandbox ? " (sandbox)" : "") << "\n"
        << "lock       " << Bytes::display(args.name) << "   client " << clientId << "   thread "
        << args.threadId << "\n"
        << "options    lease " << options.leaseMs << " ms, "
        << (options.watchdog ? QStringLiteral("watchdog every %1 ms").arg(options.effectiveWatchdogPeriodMs())
                             : QStringLiteral("no watchdog"))
        << ", wait " << LockOptions::waitName(options.wait) << ", acquire timeout "
        << options.acquireTimeoutMs << " ms"
        << (args.faults.names.isEmpty() ? QString()
                                        : QStringLiteral(", faults: ") + args.faults.names.join(u' '))
        << "\n"
        << Qt::flush;
}

QString LockReport::describeKey(RedisConnection &observer, const QByteArray &key)
{
    const QList<RedisResult> head = observer.pipeline({{"TYPE", key}, {"PTTL", key}});
    if (!head.at(0).ok())
        return QStringLiteral("(cannot read: %1)").arg(head.at(0).error.message());
    const QByteArray type = head.at(0).reply.bytes();
    if (type == "none")
        return QStringLiteral("(no key)");
    const qint64 pttl = head.at(1).reply.toInteger();
    const QString ttl = pttl == -1 ? QStringLiteral("no TTL") : QStringLiteral("PTTL %1 ms").arg(pttl);
    QString value;
    if (type == "string") {
        value = QStringLiteral("\"%1\"").arg(Bytes::display(observer.command({"GET", key}).reply.bytes()));
    } else if (type == "hash") {
        const RedisReply all = observer.command({"HGETALL", key}).reply;
        QStringList fields;
        for (qsizetype i = 0; i + 1 < all.size(); i += 2)
            fields << Bytes::display(all.at(i).bytes()) + QStringLiteral(" = ")
                    + Bytes::display(all.at(i + 1).bytes());
        value = u'{' + fields.join(QStringLiteral(", ")) + u'}';
    } else if (type == "list") {
        const RedisReply all = observer.command({"LRANGE", key, "0", "-1"}).reply;
        QStringList items;
        for (const RedisReply &e : all.elements())
            items << Bytes::display(e.bytes());
        value = u'[' + items.join(QStringLiteral(", ")) + u']';
    } else if (type == "zset") {
        const RedisReply all = observer.command({"ZRANGE", key, "0", "-1", "WITHSCORES"}).reply;
        QStringList items;
        for (qsizetype i = 0; i + 1 < all.size(); i += 2)
            items << Bytes::display(all.at(i).bytes()) + u'@' + QString::fromUtf8(all.at(i + 1).bytes());
        value = u'{' + items.join(QStringLiteral(", ")) + u'}';
    }
    return QStringLiteral("%1 %2 %3").arg(QString::fromLatin1(type).toUpper(), value, ttl);
}

QString LockReport::replyText(const RedisReply &reply, const QList<ServerVote> &votes)
{
    return votes.isEmpty() ? QStringLiteral("  reply: ") + reply.toDisplayString() : QString();
}

QString LockReport::voteText(const ServerVote &v)
{
    return QStringLiteral("%1 %2 (%3, %4 ms)")
        .arg(v.server, v.granted ? QStringLiteral("granted") : QStringLiteral("no"),
             v.error ? v.error.message() : v.reply.toDisplayString())
        .arg(double(v.latencyUs) / 1000.0, 0, 'f', 3);
}

QJsonObject LockReport::acquireFields(const AcquireResult &r)
{
    QJsonObject o {{QStringLiteral("outcome"), AcquireResult::outcomeName(r.outcome)},
                   {QStringLiteral("commands"), r.commands},
                   {QStringLiteral("attempts"), r.attempts},
                   {QStringLiteral("reply"), r.reply.toDisplayString()},
                   {QStringLiteral("hold_count"), r.holdCount}};
    if (!r.token.isEmpty())
        o.insert(QStringLiteral("token"), QString::fromUtf8(r.token));
    if (r.fence >= 0)
        o.insert(QStringLiteral("fence"), double(r.fence));
    if (r.ttlMs != LockTtl::Unknown)
        o.insert(QStringLiteral("ttl_ms"), double(r.ttlMs));
    if (r.validityMs >= 0 || !r.votes.isEmpty())
        o.insert(QStringLiteral("validity_ms"), double(r.validityMs));
    if (!r.votes.isEmpty()) {
        QJsonArray votes;
        for (const ServerVote &v : r.votes)
            votes.append(QJsonObject {
                {QStringLiteral("server"), v.server},
                {QStringLiteral("granted"), v.granted},
                {QStringLiteral("reply"), v.error ? v.error.message() : v.reply.toDisplayString()},
                {QStringLiteral("latency_us"), double(v.latencyUs)}});
        o.insert(QStringLiteral("servers"), votes);
    }
    if (r.error)
        o.insert(QStringLiteral("error"), r.error.message());
    return o;
}

QJsonObject LockReport::releaseFields(const ReleaseResult &r)
{
    QJsonObject fields {{QStringLiteral("outcome"), ReleaseResult::outcomeName(r.outcome)},
                        {QStringLiteral("hold_count"), r.holdCount},
                        {QStringLiteral("commands"), r.commands},
                        {QStringLiteral("reply"), r.reply.toDisplayString()}};
    if (r.error)
        fields.insert(QStringLiteral("error"), r.error.message());
    return fields;
}

QJsonObject LockReport::document(const LockArguments &args, const QStringList &servers,
                                 const QByteArray &clientId, int renewals, const QJsonArray &steps,
                                 int exitCode)
{
    return QJsonObject {{QStringLiteral("algorithm"), args.algorithmId},
                        {QStringLiteral("name"), QString::fromUtf8(args.name)},
                        {QStringLiteral("servers"), QJsonArray::fromStringList(servers)},
                        {QStringLiteral("client_id"), QString::fromUtf8(clientId)},
                        {QStringLiteral("thread_id"), double(args.threadId)},
                        {QStringLiteral("options"), args.options.toJson()},
                        {QStringLiteral("renewals"), renewals},
                        {QStringLiteral("steps"), steps},
                        {QStringLiteral("exit_code"), exitCode}};
}
