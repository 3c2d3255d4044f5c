// sandbox: prints where the private server listens, then waits; the server dies with this process.
#include "sandboxcommand.h"

#include "cliio.h"
#include "inspect/samplelocks.h"
#include "interruptwatcher.h"
#include "redis/redisconnection.h"
#include "redis/sandboxserver.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QTimer>

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
                 << (seconds ? QStringLiteral("stopping in %1 s\n").arg(seconds)
                             : QStringLiteral("Ctrl-C to stop\n"))
                 << Qt::flush;
    InterruptWatcher interrupts;
    QObject::connect(&interrupts, &InterruptWatcher::interrupted, qApp, &QCoreApplication::quit);
    if (seconds)
        QTimer::singleShot(seconds * 1000, qApp, &QCoreApplication::quit);
    QCoreApplication::exec();
    server.stop();
    return CliIo::Ok;
}
