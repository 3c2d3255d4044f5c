// serve: read the command line or config file (ServeArguments), follow each target with a MonitoredTarget,
// render their metrics on each scrape (LockMetrics) behind a bounded HTTP server (MetricsServer), and log what
// happens to the targets on standard error (the journal, under systemd) until SIGTERM or Ctrl-C. A target
// that cannot be reached at start is no reason to stop: it reports up 0 until it can be read.
#include "servecommand.h"

#include "cliio.h"
#include "commandlinestart.h"
#include "inspect/inspectclock.h"
#include "inspect/inspectformat.h"
#include "interruptwatcher.h"
#include "metrics/monitoredtarget.h"
#include "metricsserver.h"
#include "redis/sandboxserver.h"
#include "servearguments.h"
#include "webconfig.h"

#include <QCoreApplication>
#include <QFile>

#include <memory>
#include <termios.h>
#include <unistd.h>

namespace {

const QString kName = QStringLiteral("lockscope-cli serve");

void logLine(const QString &line)
{
    CliIo::err() << InspectFormat::clockTime(InspectClock::wallMs()) << "  " << line << "\n" << Qt::flush;
}

// --hash-password: the password from standard input (not echoed on a terminal), its bcrypt hash on stdout.
int hashPassword()
{
    const bool terminal = ::isatty(STDIN_FILENO);
    termios saved {};
    if (terminal) {
        CliIo::err() << "Password: " << Qt::flush;
        ::tcgetattr(STDIN_FILENO, &saved);
        termios quiet = saved;
        quiet.c_lflag &= ~tcflag_t(ECHO);
        ::tcsetattr(STDIN_FILENO, TCSANOW, &quiet);
    }
    QFile in;
    const bool opened = in.open(stdin, QIODevice::ReadOnly);
    QByteArray password = opened ? in.readLine(4096) : QByteArray();
    if (terminal) {
        ::tcsetattr(STDIN_FILENO, TCSANOW, &saved);
        CliIo::err() << "\n" << Qt::flush;
    }
    while (password.endsWith('\n') || password.endsWith('\r'))
        password.chop(1);
    if (password.isEmpty()) {
        CliIo::err() << kName << ": --hash-password: no password on standard input\n" << Qt::flush;
        return CliIo::Usage;
    }
    QString error;
    const QByteArray hash = WebConfig::hashBcrypt(password, &error);
    password.fill('\0');
    if (hash.isEmpty()) {
        CliIo::err() << kName << ": " << error << "\n" << Qt::flush;
        return CliIo::Failure;
    }
    CliIo::out() << hash << "\n" << Qt::flush;
    return CliIo::Ok;
}

// What a target needs before it is followed: its keychain password, its sandbox. False with `error` set.
bool prepare(ServeTarget &t, std::vector<std::unique_ptr<SandboxServer>> *sandboxes, QString *error)
{
    if (!ConnectionOptions::resolveProfilePassword(&t.connection, error)) {
        *error = QStringLiteral("target '%1': %2").arg(t.name, *error);
        return false;
    }
    if (t.connection.sandbox) {
        auto sandbox = std::make_unique<SandboxServer>();
        if (!sandbox->start()) {
            *error = QStringLiteral("Cannot start the sandbox server: %1").arg(sandbox->errorString());
            return false;
        }
        t.connection.settings.host = sandbox->connectionSettings().host;
        t.connection.settings.port = sandbox->connectionSettings().port;
        logLine(QStringLiteral("target '%1': a sandbox redis-server on %2")
                    .arg(t.name, t.connection.settings.endpoint()));
        sandboxes->push_back(std::move(sandbox));
    }
    if (const QString warning = ConnectionOptions::securityWarning(t.connection.settings); !warning.isEmpty())
        logLine(warning);
    return true;
}

} // namespace

int runServeCommand(const QStringList &arguments)
{
    ServeArguments args = ServeArguments::parse(arguments);
    if (const std::optional<int> exit = CommandLineStart::earlyExit(kName, args.helpText, args.error))
        return *exit;
    if (args.hashPassword)
        return hashPassword();
    for (const QString &w : std::as_const(args.warnings))
        CliIo::err() << kName << ": " << w << "\n" << Qt::flush;

    std::optional<WebConfig> web;
    QString error;
    if (!args.webConfigFile.isEmpty()) {
        web = WebConfig::load(args.webConfigFile, &error);
        if (!web) {
            CliIo::err() << kName << ": " << error << "\n" << Qt::flush;
            return CliIo::Failure;
        }
    }
    std::vector<std::unique_ptr<SandboxServer>> sandboxes;
    for (ServeTarget &t : args.targets) {
        if (!prepare(t, &sandboxes, &error)) {
            CliIo::err() << kName << ": " << error << "\n" << Qt::flush;
            return CliIo::Failure;
        }
    }

    // The heartbeat notices a dead or frozen server within about a second plus a command timeout, even on a
    // server without locks: `up` must not wait for the next poll or rescan.
    LockMonitor::Timing timing;
    timing.heartbeatMs = 1000;
    // An exporter runs for months: on a large keyspace its rescans take at most a tenth of the time
    // (a server of 1,000,000 keys is scanned for 10 s every 100 s, not every 30 s; bench_serve).
    timing.rescanShare = 0.1;
    std::vector<std::unique_ptr<MonitoredTarget>> targets;
    QList<const MonitoredTarget *> view;
    for (const ServeTarget &t : std::as_const(args.targets)) {
        targets.push_back(std::make_unique<MonitoredTarget>(t.name, t.connection.settings, t.scan, timing));
        QObject::connect(targets.back().get(), &MonitoredTarget::note, logLine);
        targets.back()->setMaxCommandsPerSecond(args.maxCommandsPerSecond);
        view << targets.back().get();
    }
    const LockMetrics::Options options {args.maxLockSeries};
    // The snapshot is taken between two readings of the monitors; its text (most of a scrape's time: about
    // 0.6 s for 30,000 lock series) is written on another thread while polling goes on.
    MetricsServer server(
        web ? &*web : nullptr,
        MetricsServer::Prepare([&view, options](OpenMetricsWriter::Format format) {
            const LockMetrics::Snapshot snapshot = LockMetrics::snapshot(view, options);
            return std::function<QByteArray()>(
                [snapshot, format] { return LockMetrics::write(snapshot, format); });
        }),
        args.httpLimits);
    QObject::connect(&server, &MetricsServer::note, logLine);
    if (!server.listenOn(args.listen, &error)) {
        CliIo::err() << kName << ": " << error << "\n" << Qt::flush;
        return CliIo::Failure;
    }
    QStringList names;
    for (const ServeTarget &t : std::as_const(args.targets))
        names << QStringLiteral("%1 (%2)").arg(t.name, t.connection.settings.describe());
    logLine(QStringLiteral("serving %1/metrics%2 for %3")
                .arg(server.url(), web && web->authRequired() ? QStringLiteral(" (basic auth)") : QString(),
                     names.join(QStringLiteral(", "))));
    InterruptWatcher interrupts;
    interrupts.quitEventLoopWhenInterrupted();
    for (const auto &t : targets)
        t->start();
    QCoreApplication::exec();
    for (const auto &t : targets)
        t->stop();
    logLine(QStringLiteral("stopped after %1 scrapes").arg(server.scrapes()));
    return CliIo::Ok;
}
