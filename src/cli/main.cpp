// lockscope-cli: dispatches to one subcommand; each lives in its own file.
#include "algorithmscommand.h"
#include "cliio.h"
#include "clientscommand.h"
#include "explorecommand.h"
#include "inspectcommand.h"
#include "lockcommand.h"
#include "pingcommand.h"
#include "presetscommand.h"
#include "redis/redisconnection.h"
#include "sandboxcommand.h"
#include "servecommand.h"
#include "simulatecommand.h"
#include "version.h"

#include <QCoreApplication>

#include <csignal>
#include <functional>

namespace {

struct Subcommand
{
    const char *name;
    const char *summary;
    std::function<int(const QStringList &)> run;
};

const QList<Subcommand> &subcommands()
{
    static const QList<Subcommand> list {
        {"ping", "connect to a server and measure the round trip", runPingCommand},
        {"inspect", "find every lock: kind, owners, TTL, waiters, diagnoses (--watch: live)",
         runInspectCommand},
        {"serve", "follow servers' locks live and serve them as Prometheus metrics (/metrics)",
         runServeCommand},
        {"sandbox", "start a private redis-server and keep it until Ctrl-C", runSandboxCommand},
        {"algorithms", "list the lock algorithms (id, title, origin, flaw); one in full",
         runAlgorithmsCommand},
        {"lock", "run one lock algorithm against a server, step by step", runLockCommand},
        {"presets", "list the preset scenarios", runPresetsCommand},
        {"simulate", "run a contention scenario or a preset and check what it expects", runSimulateCommand},
        {"explore", "search fault schedules until a lock breaks; shrink, confirm and tell the failure",
         runExploreCommand},
        {"clients", "list the real lock libraries the simulator can drive (client adapters)",
         runClientsCommand},
    };
    return list;
}

QString versionText()
{
    return QStringLiteral("lockscope-cli %1 (Qt %2, hiredis %3, %4)")
        .arg(QStringLiteral(LOCKSCOPE_VERSION), QString::fromLatin1(qVersion()),
             RedisConnection::hiredisVersion(), RedisConnection::tlsLibraryVersion());
}

void printUsage(QTextStream &stream)
{
    stream << "Usage: lockscope-cli <command> [options]\n\n"
           << "Inspect and simulate Redis distributed locks from the terminal.\n\nCommands:\n";
    for (const Subcommand &c : subcommands())
        stream << "  " << QString::fromLatin1(c.name).leftJustified(12) << c.summary << "\n";
    stream
        << "\nRun 'lockscope-cli <command> --help' for the options of one command.\n"
        << "Connection options (every command): --host, --port, --socket, --user, --password-env VAR,\n"
        << "  --password-file FILE, --db, --sandbox (private server for this run), --read-write,\n"
        << "  --connect-timeout, --timeout,\n"
        << "  TLS: --tls, --cacert FILE, --cert FILE, --key FILE, --sni NAME, --insecure,\n"
        << "  SSH tunnel: --ssh [user@]bastion[:port], --ssh-identity FILE, --ssh-jump HOSTS, --ssh-config "
           "FILE.\n"
        << "Connections are read-only unless --read-write is given. Passwords come from an environment "
           "variable\n"
        << "  (--password-env VAR) or a file (--password-file FILE), never from the command line.\n"
        << "  See also: man lockscope-cli.\n"
        << "Exit codes: 0 success, 1 failure (connection, server, output), 2 bad arguments, 3 expectation "
           "not\n"
        << "  met (a --fail-on diagnosis found), 4 incomplete (the server would not show everything asked "
           "for).\n"
        << Qt::flush;
}

// A command whose standard output did not arrive whole failed, whatever it found: say so and exit 1.
int finishOutput(const QString &command, int exitCode)
{
    const QString problem = CliIo::stdoutProblem();
    if (problem.isEmpty())
        return exitCode;
    CliIo::err() << command << ": cannot write standard output: " << problem << "\n" << Qt::flush;
    return CliIo::Failure;
}

} // namespace

int main(int argc, char *argv[])
{
    // A closed pipe or a file-size limit must come back as a failed write (EPIPE, EFBIG) that is reported,
    // not as a signal that kills the process before it can say anything or stop its sandboxes.
    ::signal(SIGPIPE, SIG_IGN);
    ::signal(SIGXFSZ, SIG_IGN);
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("lockscope-cli"));
    QCoreApplication::setApplicationVersion(QStringLiteral(LOCKSCOPE_VERSION));
    QCoreApplication::setOrganizationName(QStringLiteral("LockScope"));

    const QStringList args = QCoreApplication::arguments();
    if (args.size() < 2) {
        printUsage(CliIo::err());
        return CliIo::Usage;
    }
    const QString first = args.at(1);
    if (first == QLatin1String("--version") || first == QLatin1String("-v")) {
        CliIo::out() << versionText() << "\n" << Qt::flush;
        return finishOutput(QStringLiteral("lockscope-cli"), CliIo::Ok);
    }
    if (first == QLatin1String("--help") || first == QLatin1String("-h") || first == QLatin1String("help")) {
        printUsage(CliIo::out());
        return finishOutput(QStringLiteral("lockscope-cli"), CliIo::Ok);
    }
    for (const Subcommand &c : subcommands()) {
        if (first == QLatin1String(c.name)) {
            QStringList rest = args.mid(2);
            rest.prepend(QStringLiteral("lockscope-cli ") + first);
            return finishOutput(rest.first(), c.run(rest));
        }
    }
    CliIo::err() << "lockscope-cli: unknown command '" << first << "'\n\n";
    printUsage(CliIo::err());
    return CliIo::Usage;
}
