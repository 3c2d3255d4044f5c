// lock: acquire (with re-entries), hold, release one lock with the chosen algorithm, narrating each step and
// what Redis holds after it. Faults from the catalog can be switched on to watch a flaw happen.
#include "lockcommand.h"

#include "checkedoutput.h"
#include "cliio.h"
#include "cliserver.h"
#include "interruptwatcher.h"
#include "locks/lockcatalog.h"
#include "locks/redlock.h"
#include "redis/bytes.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTimer>

#include <atomic>
#include <limits>
#include <mutex>
#include <thread>

namespace {

const char *cmd = "lockscope-cli lock";

int usage(const QString &text)
{
    CliIo::err() << cmd << ": " << text << "\n" << Qt::flush;
    return CliIo::Usage;
}

// Prints steps as they happen (text), or collects them (JSON). Safe to call from the watchdog thread.
class StepLog
{
public:
    explicit StepLog(bool json)
        : m_json(json)
    {
        m_clock.start();
    }

    void step(const QString &kind, const QString &text, QJsonObject fields = {})
    {
        std::lock_guard lock(m_mutex);
        const double ms = double(m_clock.nsecsElapsed()) / 1e6;
        if (m_json) {
            fields.insert(QStringLiteral("t_ms"), qRound(ms * 1000) / 1000.0);
            fields.insert(QStringLiteral("step"), kind);
            fields.insert(QStringLiteral("text"), text);
            m_steps.append(fields);
            return;
        }
        CliIo::out() << QStringLiteral("+%1 ms  ").arg(ms, 10, 'f', 3) << kind.leftJustified(9) << " " << text
                     << "\n"
                     << Qt::flush;
    }
    void note(const QString &text)
    {
        std::lock_guard lock(m_mutex);
        if (!m_json)
            CliIo::out() << QString(16, u' ') << text << "\n" << Qt::flush;
    }
    QJsonArray steps() const
    {
        std::lock_guard lock(m_mutex);
        return m_steps;
    }

private:
    bool m_json;
    QElapsedTimer m_clock;
    mutable std::mutex m_mutex;
    QJsonArray m_steps;
};

// "HASH {a:1 = 2} PTTL 29998 ms", "STRING "tok" PTTL 412 ms", "(no key)" — what an observer sees in Redis.
QString describeKey(RedisConnection &observer, const QByteArray &key)
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

struct FaultSpec
{
    FaultHooks hooks;
    bool pause = false;
    QStringList names;
};

bool parseFaults(const QStringList &specs, FaultSpec *out, QString *error)
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

} // namespace

int runLockCommand(const QStringList &arguments)
{
    QCommandLineParser parser;
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
    if (!parser.parse(arguments))
        return usage(parser.errorText());
    if (parser.isSet(QStringLiteral("help"))) {
        CliIo::out() << parser.helpText() << Qt::flush;
        return CliIo::Ok;
    }
    ConnectionOptions connection;
    QString error;
    if (!ConnectionOptions::read(parser, &connection, &error))
        return usage(error);
    if (!parser.isSet(QStringLiteral("algorithm")))
        return usage(QStringLiteral("--algorithm is required; one of %1")
                         .arg(LockCatalog::ids().join(QStringLiteral(", "))));
    const QString id = parser.value(QStringLiteral("algorithm"));
    const LockAlgorithmInfo *info = LockCatalog::find(id);
    if (!info)
        return usage(QStringLiteral("unknown algorithm '%1'; known: %2")
                         .arg(id, LockCatalog::ids().join(QStringLiteral(", "))));

    LockOptions options = info->defaults;
    qint64 holdMs = 1000;
    qint64 reentry = 0;
    qint64 threadId = 1;
    qint64 servers = 3;
    if (!readInteger(parser, QStringLiteral("lease-ms"), 1, 24LL * 3600 * 1000, &options.leaseMs, &error)
        || !readInteger(parser, QStringLiteral("hold-ms"), 0, 3600 * 1000, &holdMs, &error)
        || !readInteger(parser, QStringLiteral("reentry"), 0, 100, &reentry, &error)
        || !readInteger(parser, QStringLiteral("thread-id"), 0, std::numeric_limits<qint64>::max(), &threadId,
                        &error)
        || !readInteger(parser, QStringLiteral("watchdog-period-ms"), 1, 3600 * 1000,
                        &options.watchdogPeriodMs, &error)
        || !readInteger(parser, QStringLiteral("retry-ms"), 0, 600000, &options.retryIntervalMs, &error)
        || !readInteger(parser, QStringLiteral("jitter-ms"), 0, 600000, &options.retryJitterMs, &error)
        || !readInteger(parser, QStringLiteral("acquire-timeout-ms"), -1, 3600 * 1000,
                        &options.acquireTimeoutMs, &error)
        || !readInteger(parser, QStringLiteral("servers"), 1, 9, &servers, &error))
        return usage(error);
    options.backoffMaxMs = qMax(options.backoffMaxMs, options.retryIntervalMs);
    if (parser.isSet(QStringLiteral("watchdog")) && parser.isSet(QStringLiteral("no-watchdog")))
        return usage(QStringLiteral("--watchdog and --no-watchdog contradict each other"));
    if (parser.isSet(QStringLiteral("watchdog")))
        options.watchdog = true;
    if (parser.isSet(QStringLiteral("no-watchdog")))
        options.watchdog = false;
    if (parser.isSet(QStringLiteral("wait"))) {
        const std::optional<WaitStrategy> w = LockOptions::waitFromName(parser.value(QStringLiteral("wait")));
        if (!w)
            return usage(QStringLiteral("--wait must be one of %1")
                             .arg(LockOptions::waitNames().join(QStringLiteral(", "))));
        options.wait = *w;
    }
    if (parser.isSet(QStringLiteral("mode"))) {
        const QString mode = parser.value(QStringLiteral("mode"));
        if (id != QLatin1String("redisson-rw"))
            return usage(QStringLiteral("--mode only applies to redisson-rw"));
        if (mode != QLatin1String("read") && mode != QLatin1String("write"))
            return usage(QStringLiteral("--mode must be read or write"));
        options.rwMode
            = mode == QLatin1String("read") ? LockOptions::RwMode::Read : LockOptions::RwMode::Write;
    }
    const QString problem = LockCatalog::check(*info, options);
    if (!problem.isEmpty())
        return usage(problem);
    FaultSpec faults;
    if (!parseFaults(parser.values(QStringLiteral("fault")), &faults, &error))
        return usage(error);
    const QByteArray name = parser.isSet(QStringLiteral("name"))
        ? parser.value(QStringLiteral("name")).toUtf8()
        : QByteArrayLiteral("lockscope:cli-demo");
    if (name.isEmpty())
        return usage(QStringLiteral("--name must not be empty"));
    const QStringList nodes = parser.values(QStringLiteral("node"));
    if (!info->multiServer && (!nodes.isEmpty() || parser.isSet(QStringLiteral("servers"))))
        return usage(QStringLiteral("--node and --servers are for redlock; %1 runs on one server").arg(id));
    if (!connection.sandbox && connection.settings.readOnly)
        return usage(
            QStringLiteral(
                "taking a lock writes to the server (SET, EVALSHA, SCRIPT LOAD...), and connections "
                "are read-only unless you say otherwise: add --read-write to allow writes to %1, "
                "or use --sandbox for a private server")
                .arg(nodes.isEmpty() ? connection.settings.endpoint() : nodes.join(QStringLiteral(", "))));

    // Servers: one (CliServer), or N for Redlock (sandboxes, or --node list).
    CliServer single;
    std::vector<std::unique_ptr<SandboxServer>> sandboxes;
    std::vector<std::unique_ptr<RedisConnection>> owned;
    LockServers lockServers;
    QList<ConnectionSettings> serverSettings;
    if (info->multiServer) {
        if (connection.sandbox) {
            for (int i = 0; i < servers; ++i) {
                SandboxServer::Options o;
                o.name = QStringLiteral("redlock-%1").arg(i + 1);
                sandboxes.push_back(std::make_unique<SandboxServer>(o));
                if (!sandboxes.back()->start()) {
                    CliIo::err() << cmd << ": cannot start sandbox server " << (i + 1) << ": "
                                 << sandboxes.back()->errorString() << "\n"
                                 << Qt::flush;
                    return CliIo::Failure;
                }
                serverSettings << sandboxes.back()->connectionSettings();
            }
        } else if (!nodes.isEmpty()) {
            for (const QString &node : nodes) {
                ConnectionSettings s = connection.settings;
                const qsizetype colon = node.lastIndexOf(u':');
                bool ok = colon > 0;
                const int port = ok ? node.mid(colon + 1).toInt(&ok) : 0;
                if (!ok || port < 1 || port > 65535)
                    return usage(QStringLiteral("--node expects HOST:PORT, got '%1'").arg(node));
                s.host = node.left(colon);
                s.port = port;
                s.socketPath.clear();
                serverSettings << s;
            }
        } else {
            return usage(
                QStringLiteral("redlock needs several independent servers: --sandbox --servers 3, or --node "
                               "HOST:PORT once per server (with --read-write)"));
        }
        for (const ConnectionSettings &s : serverSettings) {
            owned.push_back(std::make_unique<RedisConnection>(s));
            if (const RedisError e = owned.back()->open()) {
                CliIo::err() << cmd << ": " << e.message() << "\n" << Qt::flush;
                return CliIo::Failure;
            }
            lockServers << owned.back().get();
        }
    } else {
        if (!single.open(connection, &error)) {
            CliIo::err() << cmd << ": " << error << "\n" << Qt::flush;
            return CliIo::Failure;
        }
        lockServers << &single.connection();
        serverSettings << single.settings();
    }
    // Observers: separate read-only connections, so what they show is what any other client would see.
    std::vector<std::unique_ptr<RedisConnection>> observers;
    for (ConnectionSettings s : serverSettings) {
        s.readOnly = true;
        s.clientName = QStringLiteral("lockscope-observer");
        observers.push_back(std::make_unique<RedisConnection>(s));
        if (const RedisError e = observers.back()->open()) {
            CliIo::err() << cmd << ": " << e.message() << "\n" << Qt::flush;
            return CliIo::Failure;
        }
    }

    const bool json = parser.isSet(QStringLiteral("json"));
    StepLog log(json);
    LockClient::Options clientOptions;
    clientOptions.name = QStringLiteral("lockscope-cli");
    LockClient client(clientOptions);
    client.setFaultHooks(faults.hooks);
    std::unique_ptr<DistributedLock> lock = LockCatalog::create(id, client, name, threadId, options, &error);
    if (!lock)
        return usage(error);

    auto showState = [&]() {
        for (size_t i = 0; i < observers.size(); ++i) {
            const QString where = observers.size() > 1
                ? serverSettings.at(qsizetype(i)).endpoint() + QStringLiteral(": ")
                : QString();
            for (const QByteArray &key : lock->keys()) {
                const QString state = describeKey(*observers[i], key);
                if (state == QLatin1String("(no key)") && key != name)
                    continue; // companions appear only when they exist
                log.note(QStringLiteral("%1%2 → %3").arg(where, Bytes::display(key), state));
            }
        }
    };
    std::atomic<int> renewals = 0;
    client.watchdog().setObserver([&](const RenewalEvent &e) {
        ++renewals;
        log.step(QStringLiteral("renew"),
                 QStringLiteral("%1 %2 (lease %3 ms, %4 ms round trip)")
                     .arg(RenewalEvent::outcomeName(e.outcome), Bytes::display(e.key))
                     .arg(e.leaseMs)
                     .arg(double(e.endUs - e.startUs) / 1000.0, 0, 'f', 3),
                 {{QStringLiteral("outcome"), RenewalEvent::outcomeName(e.outcome)}});
    });

    QStringList where;
    for (const ConnectionSettings &s : serverSettings)
        where << s.endpoint();
    if (!json) {
        CliIo::out() << "algorithm  " << id << " — " << info->title << "\n"
                     << "server     " << where.join(QStringLiteral(", "))
                     << (connection.sandbox ? " (sandbox)" : "") << "\n"
                     << "lock       " << Bytes::display(name) << "   client " << client.id() << "   thread "
                     << threadId << "\n"
                     << "options    lease " << options.leaseMs << " ms, "
                     << (options.watchdog
                             ? QStringLiteral("watchdog every %1 ms").arg(options.effectiveWatchdogPeriodMs())
                             : QStringLiteral("no watchdog"))
                     << ", wait " << LockOptions::waitName(options.wait) << ", acquire timeout "
                     << options.acquireTimeoutMs << " ms"
                     << (faults.names.isEmpty() ? QString()
                                                : QStringLiteral(", faults: ") + faults.names.join(u' '))
                     << "\n"
                     << Qt::flush;
    }
    if (const RedisError e = lock->prepare(lockServers)) {
        CliIo::err() << cmd << ": " << e.message() << "\n" << Qt::flush;
        return CliIo::Failure;
    }

    auto acquireFields = [](const AcquireResult &r) {
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
    };
    auto voteNotes = [&](const QList<ServerVote> &votes) {
        for (const ServerVote &v : votes)
            log.note(QStringLiteral("%1 %2 (%3, %4 ms)")
                         .arg(v.server, v.granted ? QStringLiteral("granted") : QStringLiteral("no"),
                              v.error ? v.error.message() : v.reply.toDisplayString())
                         .arg(double(v.latencyUs) / 1000.0, 0, 'f', 3));
    };

    int exitCode = CliIo::Ok;
    const AcquireResult first = lock->acquire(lockServers);
    auto replyText = [](const RedisReply &reply, const QList<ServerVote> &votes) {
        return votes.isEmpty() ? QStringLiteral("  reply: ") + reply.toDisplayString() : QString();
    };
    log.step(QStringLiteral("acquire"), first.describe() + replyText(first.reply, first.votes),
             acquireFields(first));
    voteNotes(first.votes);
    if (!first.token.isEmpty())
        log.note(QStringLiteral("token %1%2")
                     .arg(Bytes::display(first.token),
                          first.fence >= 0 ? QStringLiteral("   fence %1").arg(first.fence) : QString()));
    showState();
    if (!first.acquired()) {
        if (first.outcome == AcquireResult::Outcome::Crashed)
            log.note(
                QStringLiteral("the worker 'crashed' before EXPIRE: the key has no TTL and blocks everyone%1")
                    .arg(connection.sandbox
                             ? QString()
                             : QStringLiteral(" (remove it with DEL %1)").arg(Bytes::display(name))));
        exitCode = first.outcome == AcquireResult::Outcome::Error ? CliIo::Failure : CliIo::ExpectFailed;
    } else {
        int holds = 1;
        for (int i = 0; i < reentry; ++i) {
            const AcquireResult again = lock->tryAcquire(lockServers);
            log.step(QStringLiteral("re-enter"), again.describe() + replyText(again.reply, again.votes),
                     acquireFields(again));
            if (again.acquired())
                ++holds;
            else if (!info->reentrant)
                log.note(QStringLiteral("not reentrant: the same thread is refused like anyone else"));
            showState();
        }
        if (faults.pause) {
            client.setPaused(true);
            log.step(QStringLiteral("pause"), QStringLiteral("process paused: the watchdog renews nothing"));
        }
        log.step(QStringLiteral("hold"), QStringLiteral("holding for %1 ms").arg(holdMs));
        InterruptWatcher interrupts;
        interrupts.stopWhenOutputLost(); // nobody reads the steps any more: release now
        bool interrupted = false;
        if (holdMs > 0) {
            QEventLoop loop;
            QObject::connect(&interrupts, &InterruptWatcher::interrupted, &loop, [&] {
                interrupted = true;
                loop.quit();
            });
            QTimer::singleShot(int(holdMs), &loop, &QEventLoop::quit);
            loop.exec();
        }
        if (interrupted)
            log.step(QStringLiteral("interrupt"),
                     interrupts.outputLost() ? QStringLiteral("nobody reads the output: releasing now")
                                             : QStringLiteral("interrupted: releasing now"));
        if (faults.pause) {
            client.setPaused(false);
            log.step(QStringLiteral("resume"), QStringLiteral("process resumed"));
        }
        showState();
        if (auto *redlock = dynamic_cast<Redlock *>(lock.get()))
            log.note(QStringLiteral("validity left on this client's clock: %1 ms")
                         .arg(redlock->validityRemainingMs()));
        for (int i = 0; i < holds; ++i) {
            const ReleaseResult r = lock->release(lockServers);
            QJsonObject fields {{QStringLiteral("outcome"), ReleaseResult::outcomeName(r.outcome)},
                                {QStringLiteral("hold_count"), r.holdCount},
                                {QStringLiteral("commands"), r.commands},
                                {QStringLiteral("reply"), r.reply.toDisplayString()}};
            if (r.error)
                fields.insert(QStringLiteral("error"), r.error.message());
            log.step(QStringLiteral("release"), r.describe() + replyText(r.reply, r.votes), fields);
            voteNotes(r.votes);
            showState();
            if (r.outcome == ReleaseResult::Outcome::Error)
                exitCode = CliIo::Failure;
            else if (!r.ok() && exitCode == CliIo::Ok)
                exitCode = CliIo::ExpectFailed;
            if (!r.ok())
                break;
        }
    }
    client.watchdog().setObserver({});
    if (json) {
        QJsonObject o {{QStringLiteral("algorithm"), id},
                       {QStringLiteral("name"), QString::fromUtf8(name)},
                       {QStringLiteral("servers"), QJsonArray::fromStringList(where)},
                       {QStringLiteral("client_id"), QString::fromUtf8(client.id())},
                       {QStringLiteral("thread_id"), double(threadId)},
                       {QStringLiteral("options"), options.toJson()},
                       {QStringLiteral("renewals"), renewals.load()},
                       {QStringLiteral("steps"), log.steps()},
                       {QStringLiteral("exit_code"), exitCode}};
        CliIo::stdoutDevice().beginDocument();
        CliIo::out() << QJsonDocument(o).toJson(QJsonDocument::Indented) << Qt::flush;
        CliIo::stdoutDevice().endDocument();
    }
    return exitCode;
}
