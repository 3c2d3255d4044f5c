// simulate: scenario loading, the run with a progress bar, the report in text and JSON, events as CSV.
#include "simulatecommand.h"

#include "checkedoutput.h"
#include "cliio.h"
#include "connectionoptions.h"
#include "interruptwatcher.h"
#include "outputfile.h"
#include "sim/historycsv.h"
#include "sim/presetlibrary.h"
#include "sim/scenarioparser.h"
#include "sim/simulationrunner.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QFile>
#include <QIODevice>
#include <QJsonDocument>

#include <cstdio>
#include <unistd.h>

namespace {

void progressBar(int run, int runs, const QString &variant, const Simulation &simulation)
{
    if (::isatty(STDERR_FILENO) != 1)
        return;
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
    CliIo::err() << line << Qt::flush;
}

} // namespace

int runSimulateCommand(const QStringList &arguments)
{
    QCommandLineParser parser;
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
    if (!parser.parse(arguments)) {
        CliIo::err() << "lockscope-cli simulate: " << parser.errorText() << "\n" << Qt::flush;
        return CliIo::Usage;
    }
    if (parser.isSet(QStringLiteral("help"))) {
        CliIo::out() << parser.helpText() << Qt::flush;
        return CliIo::Ok;
    }
    const auto usage = [](const QString &message) {
        CliIo::err() << "lockscope-cli simulate: " << message << "\n" << Qt::flush;
        return int(CliIo::Usage);
    };
    ConnectionOptions connection;
    QString error;
    if (!ConnectionOptions::read(parser, &connection, &error))
        return usage(error);
    if (connection.settings.sentinel.enabled() && connection.settings.sentinel.masterName.isEmpty())
        return usage(QStringLiteral("--sentinel needs --master NAME for a simulation (lockscope-cli inspect "
                                    "--sentinel … lists the names)"));

    // The scenario: a file or a preset, never both.
    const QStringList files = parser.positionalArguments();
    const bool preset = parser.isSet(QStringLiteral("preset"));
    if (files.size() > 1 || (preset && !files.isEmpty()) || (!preset && files.isEmpty()))
        return usage(
            QStringLiteral("give one scenario: a JSON file or --preset ID (see 'lockscope-cli presets')"));
    Scenario scenario;
    if (preset) {
        const PresetLibrary::Preset *p = PresetLibrary::find(parser.value(QStringLiteral("preset")));
        if (!p)
            return usage(QStringLiteral("no preset '%1'; the presets are: %2")
                             .arg(parser.value(QStringLiteral("preset")),
                                  PresetLibrary::ids().join(QStringLiteral(", "))));
        scenario = p->scenario;
    } else {
        QFile file(files.first());
        if (!file.open(QIODevice::ReadOnly))
            return usage(QStringLiteral("cannot read %1: %2").arg(files.first(), file.errorString()));
        QStringList errors;
        if (!ScenarioParser().parse(file.readAll(), &scenario, &errors)) {
            CliIo::err() << "lockscope-cli simulate: " << files.first() << " is not a valid scenario:\n";
            for (const QString &e : errors)
                CliIo::err() << "  " << e << "\n";
            CliIo::err() << Qt::flush;
            return CliIo::Usage;
        }
    }

    Simulation::Options options;
    if (connection.serverGiven)
        options.server = connection.settings;
    if (parser.isSet(QStringLiteral("seed"))) {
        bool ok = false;
        const qulonglong seed = parser.value(QStringLiteral("seed")).toULongLong(&ok);
        if (!ok)
            return usage(QStringLiteral("--seed expects a whole number"));
        options.seed = seed;
    }
    if (parser.isSet(QStringLiteral("duration"))) {
        bool ok = false;
        const double duration = parser.value(QStringLiteral("duration")).toDouble(&ok);
        if (!ok || duration < 0.1 || duration > 3600)
            return usage(QStringLiteral("--duration expects seconds from 0.1 to 3600"));
        options.durationS = duration;
    }
    options.recordHistory = !parser.isSet(QStringLiteral("no-history"));

    // Every output path is opened before the run: a path that cannot be written is found now, not after it.
    std::unique_ptr<OutputFile> events;
    if (parser.isSet(QStringLiteral("events"))) {
        events = std::make_unique<OutputFile>(parser.value(QStringLiteral("events")));
        if (!events->open())
            return usage(events->errorText());
        events->device()->write(HistoryCsv::header());
    }
    const QString jsonPath = parser.value(QStringLiteral("json"));
    const bool jsonToStdout = jsonPath == QLatin1String("-");
    std::unique_ptr<OutputFile> report;
    if (!jsonPath.isEmpty() && !jsonToStdout) {
        report = std::make_unique<OutputFile>(jsonPath);
        if (!report->open())
            return usage(report->errorText());
    }

    InterruptWatcher interrupts;
    std::atomic_bool stop = false;
    const auto progress = [&](int run, int runs, const QString &variant, const Simulation &simulation) {
        QCoreApplication::processEvents(); // lets Ctrl-C reach the watcher
        if (interrupts.wasInterrupted())
            stop = true;
        progressBar(run, runs, variant, simulation);
    };
    const auto finished = [&](const QString &variant, const Simulation &simulation) {
        if (events)
            HistoryCsv::write(*events->device(), simulation, variant);
    };
    const SimulationRunner::Outcome outcome
        = SimulationRunner::run(scenario, options, &stop, progress, finished);
    if (::isatty(STDERR_FILENO) == 1)
        CliIo::err() << "\r" << QString(100, u' ') << "\r" << Qt::flush;

    const QByteArray json = QJsonDocument(outcome.toJson()).toJson(QJsonDocument::Indented);
    if (jsonToStdout) {
        CliIo::stdoutDevice().beginDocument();
        CliIo::out() << json << Qt::flush;
        CliIo::stdoutDevice().endDocument();
    } else {
        CliIo::out() << outcome.summaryText() << Qt::flush;
    }
    // The files are complete now (an interrupted run's too: they hold what ran). A file that could not be
    // written whole is not left behind, and the run fails whatever its checks said.
    int exitCode = CliIo::Ok;
    for (OutputFile *file : {report.get(), events.get()}) {
        if (!file)
            continue;
        if (file == report.get())
            file->write(json);
        if (!file->commit()) {
            CliIo::err() << "lockscope-cli simulate: " << file->errorText() << "\n" << Qt::flush;
            exitCode = CliIo::Failure;
        }
    }
    if (!outcome.ok()) {
        CliIo::err() << "lockscope-cli simulate: " << outcome.error << "\n" << Qt::flush;
        return CliIo::Failure;
    }
    if (outcome.interrupted) {
        CliIo::err() << "lockscope-cli simulate: interrupted\n" << Qt::flush;
        return CliIo::Failure;
    }
    if (exitCode != CliIo::Ok)
        return exitCode;
    return outcome.passed() ? CliIo::Ok : CliIo::ExpectFailed;
}
