// LockArguments: the options, their help text, and every check of their values in the order the user meets
// them.
#include "lockarguments.h"

#include "commandlinestart.h"

#include <QCommandLineParser>

#include <chrono>
#include <limits>
#include <thread>

namespace {

bool parseFaults(const QStringList &specs, LockFaults *out, QString *error)
{
    for (const QString &spec : specs) {
        const QString name = spec.section(u'=', 0, 0);
        const QString value = spec.section(u'=', 1);
        bool ok = true;
        const int ms = value.isEmpty() ? 0 : value.toInt(&ok);
        if (!ok || ms < 0 || ms > 600000) {
            *error = QStringLiteral("--fault %1: the delay must be a whole number of milliseconds").arg(spec);
            return false;
        }
        auto sleepMs = [](int ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); };
        if (name == QLatin1String("crash-after-setnx")) {
            out->hooks.crashAfterSetnx = [](qint64, const QByteArray &) { return true; };
        } else if (name == QLatin1String("get-del-delay")) {
            out->hooks.betweenGetAndDel = [sleepMs, ms](qint64, const QByteArray &) { sleepMs(ms); };
        } else if (name == QLatin1String("send-delay")) {
            out->hooks.beforeSend = [sleepMs, ms](qint64, const RedisCommand &) { sleepMs(ms); };
        } else if (name == QLatin1String("receive-delay")) {
            out->hooks.afterReceive = [sleepMs, ms](qint64, const RedisResult &) { sleepMs(ms); };
        } else if (name == QLatin1String("skip-renewals")) {
            out->hooks.allowRenewal = [](qint64, const QByteArray &) { return false; };
        } else if (name == QLatin1String("drop-messages")) {
            out->hooks.deliverMessage = [](const QByteArray &, const QByteArray &) { return false; };
        } else if (name == QLatin1String("pause")) {
            out->pause = true;
        } else {
            *error = QStringLiteral(
                         "unknown --fault '%1'; known: crash-after-setnx, get-del-delay=MS, send-delay=MS, "
                         "receive-delay=MS, skip-renewals, drop-messages, pause")
                         .arg(spec);
            return false;
        }
        out->names << spec;
    }
    return true;
}

bool readInteger(const QCommandLineParser &parser, const QString &name, qint64 min, qint64 max, qint64 *out,
                 QString *error)
{
    if (!parser.isSet(name))
        return true;
    bool ok = false;
    const qint64 v = parser.value(name).toLongLong(&ok);
    if (!ok || v < min || v > max) {
        *error = QStringLiteral("--%1 expects a whole number from %2 to %3").arg(name).arg(min).arg(max);
        return false;
    }
    *out = v;
    return true;
}

void addLockOptions(QCommandLineParser &parser)
{
    parser.setApplicationDescription(
        QStringLiteral("Run one lock algorithm for real: acquire (and re-enter), hold, release, printing "
                       "every step and what "
                       "Redis holds after it. The lock writes to the server, so a given server needs "
                       "--read-write; --sandbox "
                       "uses a private one (Redlock: --sandbox --servers N starts N private masters)."));
    parser.addHelpOption();
    ConnectionOptions::addTo(parser);
    parser.addOptions({
        {QStringLiteral("algorithm"), QStringLiteral("Catalog id (see 'lockscope-cli algorithms')."),
         QStringLiteral("id")},
        {QStringLiteral("name"), QStringLiteral("Lock name (default lockscope:cli-demo)."),
         QStringLiteral("name")},
        {QStringLiteral("lease-ms"),
         QStringLiteral("Lease, or the watchdog timeout (default: the algorithm's)."), QStringLiteral("ms")},
        {QStringLiteral("hold-ms"), QStringLiteral("How long to hold the lock (default 1000)."),
         QStringLiteral("ms")},
        {QStringLiteral("reentry"),
         QStringLiteral("Acquire this many more times before holding (default 0)."), QStringLiteral("n")},
        {QStringLiteral("thread-id"), QStringLiteral("Thread id in the owner string (default 1)."),
         QStringLiteral("n")},
        {QStringLiteral("watchdog"), QStringLiteral("Renew the lease while held.")},
        {QStringLiteral("no-watchdog"), QStringLiteral("Do not renew: the lease is fixed.")},
        {QStringLiteral("watchdog-period-ms"), QStringLiteral("Renewal period (default lease/3)."),
         QStringLiteral("ms")},
        {QStringLiteral("wait"), QStringLiteral("busy-spin, fixed, jitter, backoff or pubsub."),
         QStringLiteral("strategy")},
        {QStringLiteral("retry-ms"), QStringLiteral("Retry interval."), QStringLiteral("ms")},
        {QStringLiteral("jitter-ms"), QStringLiteral("Retry jitter (±)."), QStringLiteral("ms")},
        {QStringLiteral("acquire-timeout-ms"), QStringLiteral("Give up after this long (0: one attempt)."),
         QStringLiteral("ms")},
        {QStringLiteral("mode"), QStringLiteral("redisson-rw: read or write (default write)."),
         QStringLiteral("side")},
        {QStringLiteral("servers"),
         QStringLiteral("redlock with --sandbox: number of private masters (default 3)."),
         QStringLiteral("n")},
        {QStringLiteral("node"), QStringLiteral("redlock: one independent server, HOST:PORT (repeat it)."),
         QStringLiteral("host:port")},
        {QStringLiteral("fault"),
         QStringLiteral(
             "Make a flaw happen: crash-after-setnx, get-del-delay=MS, send-delay=MS, receive-delay=MS, "
             "skip-renewals, drop-messages, pause (the watchdog stops while holding). Repeatable."),
         QStringLiteral("fault")},
        {QStringLiteral("json"), QStringLiteral("Print the steps as JSON at the end.")},
    });
}

// Redlock without --sandbox: the --node list, one server each, with the connection options' other settings.
QString readNodes(const QStringList &nodes, const ConnectionSettings &base, QList<ConnectionSettings> *out)
{
    if (nodes.isEmpty())
        return QStringLiteral("redlock needs several independent servers: --sandbox --servers 3, or --node "
                              "HOST:PORT once per server (with --read-write)");
    for (const QString &node : nodes) {
        ConnectionSettings s = base;
        const qsizetype colon = node.lastIndexOf(u':');
        bool ok = colon > 0;
        const int port = ok ? node.mid(colon + 1).toInt(&ok) : 0;
        if (!ok || port < 1 || port > 65535)
            return QStringLiteral("--node expects HOST:PORT, got '%1'").arg(node);
        s.host = node.left(colon);
        s.port = port;
        s.socketPath.clear();
        *out << s;
    }
    return {};
}

// Everything after the connection options. Empty when the arguments are good, else why not.
QString readLockOptions(const QCommandLineParser &parser, LockArguments *out)
{
    QString error;
    if (!parser.isSet(QStringLiteral("algorithm")))
        return QStringLiteral("--algorithm is required; one of %1")
            .arg(LockCatalog::ids().join(QStringLiteral(", ")));
    const QString id = parser.value(QStringLiteral("algorithm"));
    const LockAlgorithmInfo *info = LockCatalog::find(id);
    if (!info)
        return QStringLiteral("unknown algorithm '%1'; known: %2")
            .arg(id, LockCatalog::ids().join(QStringLiteral(", ")));
    out->algorithmId = id;
    out->algorithm = info;

    LockOptions &options = out->options;
    options = info->defaults;
    if (!readInteger(parser, QStringLiteral("lease-ms"), 1, 24LL * 3600 * 1000, &options.leaseMs, &error)
        || !readInteger(parser, QStringLiteral("hold-ms"), 0, 3600 * 1000, &out->holdMs, &error)
        || !readInteger(parser, QStringLiteral("reentry"), 0, 100, &out->reentry, &error)
        || !readInteger(parser, QStringLiteral("thread-id"), 0, std::numeric_limits<qint64>::max(),
                        &out->threadId, &error)
        || !readInteger(parser, QStringLiteral("watchdog-period-ms"), 1, 3600 * 1000,
                        &options.watchdogPeriodMs, &error)
        || !readInteger(parser, QStringLiteral("retry-ms"), 0, 600000, &options.retryIntervalMs, &error)
        || !readInteger(parser, QStringLiteral("jitter-ms"), 0, 600000, &options.retryJitterMs, &error)
        || !readInteger(parser, QStringLiteral("acquire-timeout-ms"), -1, 3600 * 1000,
                        &options.acquireTimeoutMs, &error)
        || !readInteger(parser, QStringLiteral("servers"), 1, 9, &out->sandboxServers, &error))
        return error;
    options.backoffMaxMs = qMax(options.backoffMaxMs, options.retryIntervalMs);
    if (parser.isSet(QStringLiteral("watchdog")) && parser.isSet(QStringLiteral("no-watchdog")))
        return QStringLiteral("--watchdog and --no-watchdog contradict each other");
    if (parser.isSet(QStringLiteral("watchdog")))
        options.watchdog = true;
    if (parser.isSet(QStringLiteral("no-watchdog")))
        options.watchdog = false;
    if (parser.isSet(QStringLiteral("wait"))) {
        const std::optional<WaitStrategy> w = LockOptions::waitFromName(parser.value(QStringLiteral("wait")));
        if (!w)
            return QStringLiteral("--wait must be one of %1")
                .arg(LockOptions::waitNames().join(QStringLiteral(", ")));
        options.wait = *w;
    }
    if (parser.isSet(QStringLiteral("mode"))) {
        const QString mode = parser.value(QStringLiteral("mode"));
        if (id != QLatin1String("redisson-rw"))
            return QStringLiteral("--mode only applies to redisson-rw");
        if (mode != QLatin1String("read") && mode != QLatin1String("write"))
            return QStringLiteral("--mode must be read or write");
        options.rwMode
            = mode == QLatin1String("read") ? LockOptions::RwMode::Read : LockOptions::RwMode::Write;
    }
    if (const QString problem = LockCatalog::check(*info, options); !problem.isEmpty())
        return problem;
    if (!parseFaults(parser.values(QStringLiteral("fault")), &out->faults, &error))
        return error;
    out->name = parser.isSet(QStringLiteral("name")) ? parser.value(QStringLiteral("name")).toUtf8()
                                                     : QByteArrayLiteral("lockscope:cli-demo");
    if (out->name.isEmpty())
        return QStringLiteral("--name must not be empty");
    const QStringList nodes = parser.values(QStringLiteral("node"));
    const ConnectionOptions &connection = out->connection;
    if (!info->multiServer && (!nodes.isEmpty() || parser.isSet(QStringLiteral("servers"))))
        return QStringLiteral("--node and --servers are for redlock; %1 runs on one server").arg(id);
    if (!connection.sandbox && connection.settings.readOnly)
        return QStringLiteral("taking a lock writes to the server (SET, EVALSHA, SCRIPT LOAD...), and "
                              "connections are read-only unless you say otherwise: add --read-write to allow "
                              "writes to %1, or use --sandbox for a private server")
            .arg(nodes.isEmpty() ? connection.settings.endpoint() : nodes.join(QStringLiteral(", ")));
    if (info->multiServer && !connection.sandbox)
        return readNodes(nodes, connection.settings, &out->nodes);
    return {};
}

} // namespace

LockArguments LockArguments::parse(const QStringList &arguments)
{
    LockArguments out;
    QCommandLineParser parser;
    addLockOptions(parser);
    if (!CommandLineStart::parse(parser, arguments, &out.helpText, &out.error))
        return out;
    if (!ConnectionOptions::read(parser, &out.connection, &out.error))
        return out;
    out.json = parser.isSet(QStringLiteral("json"));
    out.error = readLockOptions(parser, &out);
    return out;
}
