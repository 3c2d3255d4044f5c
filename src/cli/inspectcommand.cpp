// inspect: read the command line (InspectArguments), scan once (InspectScan), print a table or one JSON
// object (InspectReport); --watch then follows the locks live; --fail-on turns diagnoses into exit code 3 for
// scripts and checks.
#include "inspectcommand.h"

#include "checkedoutput.h"
#include "cliio.h"
#include "cliserver.h"
#include "inspectarguments.h"
#include "inspectreport.h"
#include "inspectscan.h"
#include "inspectwatch.h"
#include "interruptwatcher.h"

#include <QCoreApplication>
#include <QJsonDocument>

namespace {

const QString kName = QStringLiteral("lockscope-cli inspect");

int usage(const QString &message)
{
    CliIo::err() << kName << ": " << message << "\n" << Qt::flush;
    return CliIo::Usage;
}

void printFindings(const InspectArguments &args, const InspectFindings &found)
{
    if (args.json && !args.watch) {
        CliIo::stdoutDevice().beginDocument();
        CliIo::out() << QJsonDocument(InspectReport::json(found)).toJson(QJsonDocument::Indented)
                     << Qt::flush;
        CliIo::stdoutDevice().endDocument();
    } else if (args.json) {
        InspectReport::printFoundLines(CliIo::out(), found);
    } else {
        CliIo::stdoutDevice().beginDocument();
        InspectReport::printTable(CliIo::out(), found);
        CliIo::stdoutDevice().endDocument();
    }
}

// --watch: prints what happens to the locks until interrupted. False when standard output was lost.
bool watch(const InspectArguments &args, const CliServer &server, const InspectFindings &found)
{
    if (!args.json)
        CliIo::out() << "\nWatching (Ctrl-C to stop)…\n" << Qt::flush;
    // On a cluster every master is watched: each publishes only its own keys' changes.
    ConnectionSettings watched = server.settings();
    watched.cluster = found.cluster;
    InspectWatch watch(watched, args.scan, args.json, args.intervalMs);
    InterruptWatcher interrupts;
    // Nobody reads what --watch prints any more: stop, and with it every request to the server.
    interrupts.stopWhenOutputLost();
    interrupts.quitEventLoopWhenInterrupted();
    if (CliIo::stdoutProblem().isEmpty()) {
        watch.start(found.records);
        QCoreApplication::exec();
    }
    if (interrupts.outputLost())
        return false;
    if (!args.json)
        CliIo::out() << "\nStopped after " << watch.eventsPrinted()
                     << (watch.eventsPrinted() == 1 ? " event.\n" : " events.\n") << Qt::flush;
    return true;
}

} // namespace

int runInspectCommand(const QStringList &arguments)
{
    const InspectArguments args = InspectArguments::parse(arguments);
    if (!args.helpText.isEmpty()) {
        CliIo::out() << args.helpText << Qt::flush;
        return CliIo::Ok;
    }
    for (const QString &e : args.skippedFormats)
        CliIo::err() << kName << ": warning: a format file was skipped: " << e << "\n" << Qt::flush;
    if (!args.error.isEmpty())
        return usage(args.error);

    CliServer server;
    QString error;
    if (!server.open(args.connection, &error)) {
        CliIo::err() << kName << ": " << error << "\n" << Qt::flush;
        return CliIo::Failure;
    }
    const bool progressToTerminal = !args.json && CliIo::stdoutIsTerminal();
    const std::optional<InspectFindings> found
        = InspectScan::run(server, args.scan, progressToTerminal ? &CliIo::err() : nullptr, &error);
    if (!found) {
        CliIo::err() << kName << ": " << error << "\n" << Qt::flush;
        return CliIo::Failure;
    }
    printFindings(args, *found);
    if (!found->incomplete.isEmpty() && !args.json)
        CliIo::err() << kName << ": incomplete: " << found->incomplete.join(QStringLiteral("; ")) << "\n"
                     << Qt::flush;
    if (args.watch && !watch(args, server, *found))
        return CliIo::Failure; // main() names the reason
    return InspectReport::exitCode(*found, args.failOn);
}
