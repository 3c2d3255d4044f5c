// sandbox: prints where the private server listens, then waits; the server dies with this process.
#include "sandboxcommand.h"

#include "cliio.h"
#include "commandlinestart.h"
#include "inspect/samplelocks.h"
#include "interruptwatcher.h"
#include "redis/clusterconnection.h"
#include "redis/redisconnection.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDateTime>
#include <QTimer>

namespace {

const QString kName = QStringLiteral("lockscope-cli sandbox");

// A few locks spread over the cluster's masters, written through the slot routing: Redisson locks (with a
// fair-lock queue in the lock's slot, by hash tag) and plain SET NX PX locks. Empty, or what failed.
QString writeClusterSamples(ClusterConnection &cluster)
{
    const QByteArray client = SampleLocks::redissonClientId();
    QList<RedisCommand> commands;
    for (int i = 0; i < 6; ++i) {
        const QByteArray name = "demo:order:" + QByteArray::number(i);
        commands << RedisCommand {"HSET", name, client + ":" + QByteArray::number(40 + i), "1"}
                 << RedisCommand {"PEXPIRE", name, "600000"};
        commands << RedisCommand {
            "SET",   "demo:lock:job:" + QByteArray::number(i), SampleLocks::randomHex32(), "NX", "PX",
            "600000"};
    }
    commands << RedisCommand {"RPUSH", "redisson_lock_queue:{demo:order:0}", client + ":77"}
             << RedisCommand {"ZADD", "redisson_lock_timeout:{demo:order:0}",
                              // Redisson's deadline: when the waiter gives up, epoch ms (here in 5 min)
                              QByteArray::number(QDateTime::currentMSecsSinceEpoch() + 300000),
                              client + ":77"};
    for (const RedisCommand &c : std::as_const(commands)) {
        const RedisResult r = cluster.command(c);
        if (!r.ok())
            return r.error.message();
    }
    return {};
}

// Writes the sample locks into the server `settings` lead to (a master, or the one a sentinel names). Empty,
// or what failed.
QString writeServerSamples(const ConnectionSettings &settings)
{
    RedisConnection connection(settings);
    if (const RedisError e = connection.open(); e || !SampleLocks::writeDemoSet(connection))
        return e ? e.message() : connection.lastError().message();
    return {};
}

// Blocks until Ctrl-C (or a termination signal), or until `seconds` have passed when it is not 0.
void waitForTheEnd(int seconds)
{
    InterruptWatcher interrupts;
    interrupts.quitEventLoopWhenInterrupted();
    if (seconds)
        QTimer::singleShot(seconds * 1000, qApp, &QCoreApplication::quit);
    QCoreApplication::exec();
}

void printCluster(QTextStream &out, SandboxCluster &sandbox)
{
    out << "sandbox Redis Cluster of " << sandbox.masterCount() << " masters:\n";
    for (int i = 0; i < sandbox.masterCount(); ++i) {
        out << "  master " << sandbox.master(i).host() << ":" << sandbox.master(i).port() << " (pid "
            << sandbox.master(i).pid() << ")";
        for (SandboxServer *replica : sandbox.replicasOf(i))
            out << ", replica " << replica->port();
        out << "\n";
    }
    out << "try: lockscope-cli inspect --cluster 127.0.0.1:" << sandbox.master(0).port() << "\n"
        << "     redis-cli -c -p " << sandbox.master(0).port() << " cluster info\n";
}

void printSentinelGroup(QTextStream &out, SandboxSentinelGroup &group)
{
    out << "sandbox Sentinel group '" << group.masterName() << "':\n"
        << "  master " << group.node(0).host() << ":" << group.node(0).port() << " (pid "
        << group.node(0).pid() << ")\n";
    for (int i = 1; i < group.nodeCount(); ++i)
        out << "  replica " << group.node(i).host() << ":" << group.node(i).port() << " (pid "
            << group.node(i).pid() << ")\n";
    QString sentinels;
    for (const QString &address : group.sentinelAddresses())
        sentinels += QStringLiteral(" --sentinel ") + address;
    out << "  sentinels " << group.sentinelAddresses().join(QStringLiteral(", ")) << "\n"
        << "try: lockscope-cli inspect" << sentinels << " --master " << group.masterName() << "\n"
        << "     redis-cli -p " << group.sentinel(0).port() << " sentinel failover " << group.masterName()
        << "\n";
}

void printServer(QTextStream &out, const SandboxServer &server)
{
    out << "sandbox redis-server listening on " << server.host() << ":" << server.port() << " (pid "
        << server.pid() << ")\n"
        << "try: redis-cli -p " << server.port() << " ping\n";
}

} // namespace

SandboxArguments SandboxArguments::parse(const QStringList &arguments)
{
    SandboxArguments out;
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Start a private redis-server on a free loopback port (persistence off) and keep it running "
        "until Ctrl-C. Useful to try LockScope or redis-cli without touching a real server."));
    parser.addHelpOption();
    parser.addOption(
        {QStringLiteral("seconds"), QStringLiteral("Stop after this many seconds."), QStringLiteral("s")});
    parser.addOption(
        {QStringLiteral("sample-locks"),
         QStringLiteral("Write a few locks of every kind the inspector knows (demo:*) into it.")});
    parser.addOption(
        {QStringLiteral("cluster"),
         QStringLiteral("Start a Redis Cluster of 3 masters instead (cluster-enabled redis-servers, "
                        "slots split evenly).")});
    parser.addOption(
        {QStringLiteral("replicas"),
         QStringLiteral("With --cluster: replicas per master (default 0). With --sentinel: replicas "
                        "of the master (default 1)."),
         QStringLiteral("n")});
    parser.addOption({QStringLiteral("sentinel"),
                      QStringLiteral("Start a master, its replica and 3 sentinels monitoring it instead.")});
    parser.addOption(
        {QStringLiteral("master"),
         QStringLiteral("With --sentinel: the name the sentinels monitor the master under (default "
                        "lockscope)."),
         QStringLiteral("NAME")});
    parser.addOption(
        {QStringLiteral("notify-keyspace-events"),
         QStringLiteral("Value for notify-keyspace-events (e.g. KEA), so key changes are published."),
         QStringLiteral("flags")});
    if (!CommandLineStart::parse(parser, arguments, &out.helpText, &out.error))
        return out;
    if (parser.isSet(QStringLiteral("seconds"))) {
        bool ok = false;
        out.seconds = parser.value(QStringLiteral("seconds")).toInt(&ok);
        if (!ok || out.seconds < 1) {
            out.error = QStringLiteral("--seconds expects a whole number of seconds, 1 or more");
            return out;
        }
    }
    const bool cluster = parser.isSet(QStringLiteral("cluster"));
    const bool sentinel = parser.isSet(QStringLiteral("sentinel"));
    if (cluster && sentinel) {
        out.error = QStringLiteral("give --cluster or --sentinel, not both");
        return out;
    }
    if ((parser.isSet(QStringLiteral("replicas")) && !cluster && !sentinel)
        || (parser.isSet(QStringLiteral("master")) && !sentinel)) {
        out.error = QStringLiteral("--replicas goes with --cluster or --sentinel, --master with --sentinel");
        return out;
    }
    out.topology = cluster ? Topology::Cluster : sentinel ? Topology::Sentinel : Topology::Server;
    out.replicas = cluster ? 0 : 1;
    if (parser.isSet(QStringLiteral("replicas"))) {
        bool ok = false;
        out.replicas = parser.value(QStringLiteral("replicas")).toInt(&ok);
        if (!ok || out.replicas < 0 || out.replicas > 4) {
            out.error = QStringLiteral("--replicas expects a number from 0 to 4");
            return out;
        }
    }
    if (parser.isSet(QStringLiteral("master")))
        out.masterName = parser.value(QStringLiteral("master"));
    if (parser.isSet(QStringLiteral("notify-keyspace-events")))
        out.notifyKeyspaceEvents = parser.value(QStringLiteral("notify-keyspace-events"));
    out.sampleLocks = parser.isSet(QStringLiteral("sample-locks"));
    return out;
}

std::optional<SandboxServers> SandboxCommand::run(const SandboxArguments &args, QString *error)
{
    SandboxServers servers;
    QString samplesProblem;
    switch (args.topology) {
    case SandboxArguments::Topology::Cluster: {
        SandboxCluster::Options options;
        options.replicasPerMaster = args.replicas;
        if (args.notifyKeyspaceEvents)
            options.configLines
                << QStringLiteral("notify-keyspace-events %1").arg(*args.notifyKeyspaceEvents);
        servers.cluster = std::make_unique<SandboxCluster>(options);
        if (!servers.cluster->start()) {
            *error = servers.cluster->errorString();
            return std::nullopt;
        }
        if (args.sampleLocks) {
            ClusterConnection connection(servers.cluster->seedSettings());
            samplesProblem = writeClusterSamples(connection);
        }
        break;
    }
    case SandboxArguments::Topology::Sentinel: {
        SandboxSentinelGroup::Options options;
        options.replicas = args.replicas;
        if (args.masterName)
            options.masterName = *args.masterName;
        servers.sentinels = std::make_unique<SandboxSentinelGroup>(options);
        if (!servers.sentinels->start()) {
            *error = servers.sentinels->errorString();
            return std::nullopt;
        }
        if (args.sampleLocks)
            samplesProblem = writeServerSamples(servers.sentinels->settings());
        break;
    }
    case SandboxArguments::Topology::Server: {
        SandboxServer::Options options;
        if (args.notifyKeyspaceEvents)
            options.configLines
                << QStringLiteral("notify-keyspace-events %1").arg(*args.notifyKeyspaceEvents);
        servers.server = std::make_unique<SandboxServer>(options);
        if (!servers.server->start()) {
            *error = servers.server->errorString();
            return std::nullopt;
        }
        if (args.sampleLocks)
            samplesProblem = writeServerSamples(servers.server->connectionSettings());
        break;
    }
    }
    if (!samplesProblem.isEmpty()) {
        *error = QStringLiteral("cannot write the sample locks: ") + samplesProblem;
        return std::nullopt;
    }
    return servers;
}

void SandboxCommand::print(QTextStream &out, SandboxServers &servers, int seconds)
{
    if (servers.cluster)
        printCluster(out, *servers.cluster);
    else if (servers.sentinels)
        printSentinelGroup(out, *servers.sentinels);
    else if (servers.server)
        printServer(out, *servers.server);
    out << (seconds ? QStringLiteral("stopping in %1 s\n").arg(seconds) : QStringLiteral("Ctrl-C to stop\n"))
        << Qt::flush;
}

int runSandboxCommand(const QStringList &arguments)
{
    const SandboxArguments args = SandboxArguments::parse(arguments);
    if (const std::optional<int> exitCode = CommandLineStart::earlyExit(kName, args.helpText, args.error))
        return *exitCode;
    QString error;
    std::optional<SandboxServers> servers = SandboxCommand::run(args, &error);
    if (!servers) {
        CliIo::err() << kName << ": " << error << "\n" << Qt::flush;
        return CliIo::Failure;
    }
    SandboxCommand::print(CliIo::out(), *servers, args.seconds);
    waitForTheEnd(args.seconds);
    if (servers->server)
        servers->server->stop(); // SIGTERM; a cluster or a group is killed when `servers` goes
    return CliIo::Ok;
}
