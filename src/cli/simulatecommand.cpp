// simulate: scenario loading, the run with a progress bar, the report in text and JSON, events as CSV.
#include "simulatecommand.h"

#include "checkedoutput.h"
#include "cliio.h"
#include "commandlinestart.h"
#include "connectionoptions.h"
#include "interruptwatcher.h"
#include "outputfile.h"
#include "sim/historycsv.h"
#include "sim/presetlibrary.h"
#include "sim/scenarioparser.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QFile>
#include <QIODevice>
#include <QJsonDocument>

#include <cstdio>
#include <unistd.h>

namespace {

const QString kName = QStringLiteral("lockscope-cli simulate");

int usage(const QString &message)
{
    CliIo::err() << kName << ": " << message << "\n" << Qt::flush;
    return CliIo::Usage;
}

void addSimulateOptions(QCommandLineParser &parser)
{
    parser.setApplicationDescription(QStringLiteral(
        "Run a contention scenario (a JSON file, or --preset ID) on private sandbox servers (the default) "
        "or on a server you give with connection options and --read-write (a Redis Cluster with --cluster "
        "HOST:PORT: each lock goes to the master of its slot).\n"
        "Exit codes: 0 the scenario's expectations hold, 3 they do not, 2 bad scenario or arguments, "
        "1 the run failed."));
    parser.addHelpOption();
    ConnectionOptions::addTo(parser);
    parser.addPositionalArgument(QStringLiteral("scenario"), QStringLiteral("Scenario JSON file."),
                                 QStringLiteral("[SCENARIO.json]"));
    parser.addOptions({
        {QStringLiteral("preset"), QStringLiteral("Run a preset scenario (see 'lockscope-cli presets')."),
         QStringLiteral("id")},
        {QStringLiteral("json"),
         QStringLiteral("Write the report as JSON to FILE ('-' for standard output)."),
         QStringLiteral("FILE")},
        {QStringLiteral("events"), QStringLiteral("Write every recorded event as CSV to FILE."),
         QStringLiteral("FILE")},
        {QStringLiteral("seed"), QStringLiteral("Random seed (overrides the scenario's)."),
         QStringLiteral("N")},
        {QStringLiteral("duration"),
         QStringLiteral("Workload duration in seconds (overrides the scenario's)."), QStringLiteral("S")},
        {QStringLiteral("no-history"),
         QStringLiteral("Do not record the history (only to measure its cost: no checks).")},
    });
}

// The scenario: a file or a preset, never both. Empty when it is read, else why not.
QString readScenario(const QCommandLineParser &parser, Scenario *scenario)
{
    const QStringList files = parser.positionalArguments();
    const bool preset = parser.isSet(QStringLiteral("preset"));
    if (files.size() > 1 || (preset && !files.isEmpty()) || (!preset && files.isEmpty()))
        return QStringLiteral("give one scenario: a JSON file or --preset ID (see 'lockscope-cli presets')");
    if (preset) {
        const PresetLibrary::Preset *p = PresetLibrary::find(parser.value(QStringLiteral("preset")));
        if (!p)
            return QStringLiteral("no preset '%1'; the presets are: %2")
                .arg(parser.value(QStringLiteral("preset")), PresetLibrary::ids().join(QStringLiteral(", ")));
        *scenario = p->scenario;
        return {};
    }
    QFile file(files.first());
    if (!file.open(QIODevice::ReadOnly))
        return QStringLiteral("cannot read %1: %2").arg(files.first(), file.errorString());
    QStringList errors;
    if (!ScenarioParser().parse(file.readAll(), scenario, &errors)) {
        QString problem = files.first() + QStringLiteral(" is not a valid scenario:");
        for (const QString &e : errors)
            problem += QStringLiteral("\n  ") + e;
        return problem;
    }
    return {};
}

// Reads --seed, --duration and --no-history into `options`. Empty when they are good, else why not.
QString readRunOptions(const QCommandLineParser &parser, Simulation::Options *options)
{
    if (parser.isSet(QStringLiteral("seed"))) {
        bool ok = false;
        const qulonglong seed = parser.value(QStringLiteral("seed")).toULongLong(&ok);
        if (!ok)
            return QStringLiteral("--seed expects a whole number");
        options->seed = seed;
    }
    if (parser.isSet(QStringLiteral("duration"))) {
        bool ok = false;
        const double duration = parser.value(QStringLiteral("duration")).toDouble(&ok);
        if (!ok || duration < 0.1 || duration > 3600)
            return QStringLiteral("--duration expects seconds from 0.1 to 3600");
        options->durationS = duration;
    }
    options->recordHistory = !parser.isSet(QStringLiteral("no-history"));
    return {};
}

void progressBar(QTextStream &progress, int run, int runs, const QString &variant,
                 const Simulation &simulation)
{
    const double fraction = simulation.progress();
    const int width = 30;
    const int filled = int(fraction * width);
    const EventHistory *history = simulation.history();
    QString label = simulation.scenario().id;
    if (!variant.isEmpty())
        label += QStringLiteral(" [%1 %2/%3]").arg(variant).arg(run + 1).arg(runs);
    const QString line = QStringLiteral("\r%1 [%2%3] %4% %5 s, %6 events ")
                             .arg(label)
                             .arg(QString(filled, u'#'), QString(width - filled, u'.'))
                             .arg(int(fraction * 100), 3)
                             .arg(double(simulation.elapsedUs()) / 1e6, 0, 'f', 1)
                             .arg(history ? history->size() : 0);
    progress << line << Qt::flush;
}

} // namespace

SimulateArguments SimulateArguments::parse(const QStringList &arguments)
{
    SimulateArguments out;
    QCommandLineParser parser;
    addSimulateOptions(parser);
    if (!CommandLineStart::parse(parser, arguments, &out.helpText, &out.error))
        return out;
    ConnectionOptions connection;
    if (!ConnectionOptions::read(parser, &connection, &out.error))
        return out;
    if (connection.settings.sentinel.enabled() && connection.settings.sentinel.masterName.isEmpty()) {
        out.error = QStringLiteral("--sentinel needs --master NAME for a simulation (lockscope-cli inspect "
                                   "--sentinel … lists the names)");
        return out;
    }
    out.error = readScenario(parser, &out.scenario);
    if (!out.error.isEmpty())
        return out;
    if (connection.serverGiven)
        out.options.server = connection.settings;
    out.error = readRunOptions(parser, &out.options);
    if (parser.isSet(QStringLiteral("events")))
        out.eventsPath = parser.value(QStringLiteral("events"));
    out.jsonPath = parser.value(QStringLiteral("json"));
    return out;
}

SimulationRunner::Outcome SimulateCommand::run(const SimulateArguments &args, QIODevice *events,
                                               QTextStream *progress)
{
    InterruptWatcher interrupts;
    std::atomic_bool stop = false;
    const auto onProgress = [&](int run, int runs, const QString &variant, const Simulation &simulation) {
        QCoreApplication::processEvents(); // lets Ctrl-C reach the watcher
        if (interrupts.wasInterrupted())
            stop = true;
        if (progress)
            progressBar(*progress, run, runs, variant, simulation);
    };
    const auto finished = [&](const QString &variant, const Simulation &simulation) {
        if (events)
            HistoryCsv::write(*events, simulation, variant);
    };
    SimulationRunner::Outcome outcome
        = SimulationRunner::run(args.scenario, args.options, &stop, onProgress, finished);
    if (progress)
        *progress << "\r" << QString(100, u' ') << "\r" << Qt::flush;
    return outcome;
}

QByteArray SimulateCommand::jsonReport(const SimulationRunner::Outcome &outcome)
{
    return QJsonDocument(outcome.toJson()).toJson(QJsonDocument::Indented);
}

void SimulateCommand::print(QTextStream &out, const SimulationRunner::Outcome &outcome, bool json)
{
    if (json)
        out << jsonReport(outcome) << Qt::flush;
    else
        out << outcome.summaryText() << Qt::flush;
}

int runSimulateCommand(const QStringList &arguments)
{
    const SimulateArguments args = SimulateArguments::parse(arguments);
    if (const std::optional<int> exitCode = CommandLineStart::earlyExit(kName, args.helpText, args.error))
        return *exitCode;
    // Every output path is opened before the run: a path that cannot be written is found now, not after it.
    std::unique_ptr<OutputFile> events;
    if (args.eventsPath) {
        events = std::make_unique<OutputFile>(*args.eventsPath);
        if (!events->open())
            return usage(events->errorText());
        events->device()->write(HistoryCsv::header());
    }
    const bool jsonToStdout = args.jsonPath == QLatin1String("-");
    std::unique_ptr<OutputFile> report;
    if (!args.jsonPath.isEmpty() && !jsonToStdout) {
        report = std::make_unique<OutputFile>(args.jsonPath);
        if (!report->open())
            return usage(report->errorText());
    }

    const bool progressToTerminal = ::isatty(STDERR_FILENO) == 1;
    const SimulationRunner::Outcome outcome = SimulateCommand::run(
        args, events ? events->device() : nullptr, progressToTerminal ? &CliIo::err() : nullptr);
    if (jsonToStdout)
        CliIo::stdoutDevice().beginDocument();
    SimulateCommand::print(CliIo::out(), outcome, jsonToStdout);
    if (jsonToStdout)
        CliIo::stdoutDevice().endDocument();
    // The files are complete now (an interrupted run's too: they hold what ran). A file that could not be
    // written whole is not left behind, and the run fails whatever its checks said.
    int exitCode = CliIo::Ok;
    for (OutputFile *file : {report.get(), events.get()}) {
        if (!file)
            continue;
        if (file == report.get())
            file->write(SimulateCommand::jsonReport(outcome));
        if (!file->commit()) {
            CliIo::err() << kName << ": " << file->errorText() << "\n" << Qt::flush;
            exitCode = CliIo::Failure;
        }
    }
    if (!outcome.ok()) {
        CliIo::err() << kName << ": " << outcome.error << "\n" << Qt::flush;
        return CliIo::Failure;
    }
    if (outcome.interrupted) {
        CliIo::err() << kName << ": interrupted\n" << Qt::flush;
        return CliIo::Failure;
    }
    if (exitCode != CliIo::Ok)
        return exitCode;
    return outcome.passed() ? CliIo::Ok : CliIo::ExpectFailed;
}
