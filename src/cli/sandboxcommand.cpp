// sandbox: prints where the private server listens, then waits; the server dies with this process.
#include "sandboxcommand.h"

#include "cliio.h"
#include "inspect/samplelocks.h"
#include "interruptwatcher.h"
#include "redis/clusterconnection.h"
#include "redis/redisconnection.h"
#include "redis/sandboxcluster.h"
#include "redis/sandboxsentinelgroup.h"
#include "redis/sandboxserver.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDateTime>
#include <QTimer>

namespace {

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

} // namespace

int runSandboxCommand(const QStringList &arguments)
{
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
    if (!parser.parse(arguments)) {
        CliIo::err() << "lockscope-cli sandbox: " << parser.errorText() << "\n" << Qt::flush;
        return CliIo::Usage;
    }
    if (parser.isSet(QStringLiteral("help"))) {
        CliIo::out() << parser.helpText() << Qt::flush;
        return CliIo::Ok;
    }
    int seconds = 0;
    if (parser.isSet(QStringLiteral("seconds"))) {
        bool ok = false;
        seconds = parser.value(QStringLiteral("seconds")).toInt(&ok);
        if (!ok || seconds < 1) {
            CliIo::err() << "lockscope-cli sandbox: --seconds expects a whole number of seconds, 1 or more\n"
                         << Qt::flush;
            return CliIo::Usage;
        }
    }
    const bool cluster = parser.isSet(QStringLiteral("cluster"));
    const bool sentinel = parser.isSet(QStringLiteral("sentinel"));
    if (cluster && sentinel) {
        CliIo::err() << "lockscope-cli sandbox: give --cluster or --sentinel, not both\n" << Qt::flush;
        return CliIo::Usage;
    }
    if ((parser.isSet(QStringLiteral("replicas")) && !cluster && !sentinel)
        || (parser.isSet(QStringLiteral("master")) && !sentinel)) {
        CliIo::err() << "lockscope-cli sandbox: --replicas goes with --cluster or --sentinel, --master with "
                        "--sentinel\n"
                     << Qt::flush;
        return CliIo::Usage;
    }
    int replicas = cluster ? 0 : 1;
    if (parser.isSet(QStringLiteral("replicas"))) {
        bool ok = false;
        replicas = parser.value(QStringLiteral("replicas")).toInt(&ok);
        if (!ok || replicas < 0 || replicas > 4) {
            CliIo::err() << "lockscope-cli sandbox: --replicas expects a number from 0 to 4\n" << Qt::flush;
            return CliIo::Usage;
        }
    }
    const auto waitForTheEnd = [seconds] {
        InterruptWatcher interrupts;
        QObject::connect(&interrupts, &InterruptWatcher::interrupted, qApp, &QCoreApplication::quit);
        if (seconds)
            QTimer::singleShot(seconds * 1000, qApp, &QCoreApplication::quit);
        QCoreApplication::exec();
    };
    const QString stopping
        = seconds ? QStringLiteral("stopping in %1 s\n").arg(seconds) : QStringLiteral("Ctrl-C to stop\n");
    if (cluster) {
        SandboxCluster::Options clusterOptions;
        clusterOptions.replicasPerMaster = replicas;
        if (parser.isSet(QStringLiteral("notify-keyspace-events")))
            clusterOptions.configLines << QStringLiteral("notify-keyspace-events %1")
                                              .arg(parser.value(QStringLiteral("notify-keyspace-events")));
        SandboxCluster sandbox(clusterOptions);
        if (!sandbox.start()) {
            CliIo::err() << "lockscope-cli sandbox: " << sandbox.errorString() << "\n" << Qt::flush;
            return CliIo::Failure;
        }
        if (parser.isSet(QStringLiteral("sample-locks"))) {
            ClusterConnection connection(sandbox.seedSettings());
            if (const QString problem = writeClusterSamples(connection); !problem.isEmpty()) {
                CliIo::err() << "lockscope-cli sandbox: cannot write the sample locks: " << problem << "\n"
                             << Qt::flush;
                return CliIo::Failure;
            }
        }
        CliIo::out() << "sandbox Redis Cluster of " << sandbox.masterCount() << " masters:\n";
        for (int i = 0; i < sandbox.masterCount(); ++i) {
            CliIo::out() << "  master " << sandbox.master(i).host() << ":" << sandbox.master(i).port()
                         << " (pid " << sandbox.master(i).pid() << ")";
            for (SandboxServer *replica : sandbox.replicasOf(i))
                CliIo::out() << ", replica " << replica->port();
            CliIo::out() << "\n";
        }
        CliIo::out() << "try: lockscope-cli inspect --cluster 127.0.0.1:" << sandbox.master(0).port() << "\n"
                     << "     redis-cli -c -p " << sandbox.master(0).port() << " cluster info\n"
                     << stopping << Qt::flush;
        waitForTheEnd();
        return CliIo::Ok;
    }
    if (sentinel) {
        SandboxSentinelGroup::Options groupOptions;
        groupOptions.replicas = replicas;
        if (parser.isSet(QStringLiteral("master")))
            groupOptions.masterName = parser.value(QStringLiteral("master"));
        SandboxSentinelGroup group(groupOptions);
        if (!group.start()) {
            CliIo::err() << "lockscope-cli sandbox: " << group.errorString() << "\n" << Qt::flush;
            return CliIo::Failure;
        }
        if (parser.isSet(QStringLiteral("sample-locks"))) {
            RedisConnection connection(group.settings());
            if (const RedisError e = connection.open(); e || !SampleLocks::writeDemoSet(connection)) {
                CliIo::err() << "lockscope-cli sandbox: cannot write the sample locks: "
                             << (e ? e.message() : connection.lastError().message()) << "\n"
                             << Qt::flush;
                return CliIo::Failure;
            }
        }
        CliIo::out() << "sandbox Sentinel group '" << group.masterName() << "':\n"
                     << "  master " << group.node(0).host() << ":" << group.node(0).port() << " (pid "
                     << group.node(0).pid() << ")\n";
        for (int i = 1; i < group.nodeCount(); ++i)
            CliIo::out() << "  replica " << group.node(i).host() << ":" << group.node(i).port() << " (pid "
                         << group.node(i).pid() << ")\n";
        QString sentinels;
        for (const QString &address : group.sentinelAddresses())
            sentinels += QStringLiteral(" --sentinel ") + address;
        CliIo::out() << "  sentinels " << group.sentinelAddresses().join(QStringLiteral(", ")) << "\n"
                     << "try: lockscope-cli inspect" << sentinels << " --master " << group.masterName()
                     << "\n"
                     << "     redis-cli -p " << group.sentinel(0).port() << " sentinel failover "
                     << group.masterName() << "\n"
                     << stopping << Qt::flush;
        waitForTheEnd();
        return CliIo::Ok;
    }

    SandboxServer::Options options;
    if (parser.isSet(QStringLiteral("notify-keyspace-events")))
        options.configLines << QStringLiteral("notify-keyspace-events %1")
                                   .arg(parser.value(QStringLiteral("notify-keyspace-events")));
    SandboxServer server(options);
    if (!server.start()) {
        CliIo::err() << "lockscope-cli sandbox: " << server.errorString() << "\n" << Qt::flush;
        return CliIo::Failure;
    }
    if (parser.isSet(QStringLiteral("sample-locks"))) {
        RedisConnection connection(server.connectionSettings());
        if (const RedisError e = connection.open(); e || !SampleLocks::writeDemoSet(connection)) {
            CliIo::err() << "lockscope-cli sandbox: cannot write the sample locks: "
                         << (e ? e.message() : connection.lastError().message()) << "\n"
                         << Qt::flush;
            return CliIo::Failure;
        }
    }
    CliIo::out() << "sandbox redis-server listening on " << server.host() << ":" << server.port() << " (pid "
                 << server.pid() << ")\n"
                 << "try: redis-cli -p " << server.port() << " ping\n"
                 << stopping << Qt::flush;
    waitForTheEnd();
    server.stop();
    return CliIo::Ok;
}
