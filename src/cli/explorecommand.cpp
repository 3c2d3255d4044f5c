// explore: the command line, the progress line, the summary, the report and the story files.
#include "explorecommand.h"

#include "cliio.h"
#include "commandlinestart.h"
#include "connectionoptions.h"
#include "interruptwatcher.h"
#include "locks/customlockscripts.h"
#include "outputfile.h"
#include "sim/scenarioparser.h"
#include "sim/scenariowriter.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QFile>
#include <QJsonDocument>
#include <QMutex>

#include <atomic>
#include <thread>
#include <unistd.h>

namespace {

const QString kName = QStringLiteral("lockscope-cli explore");

void addExploreOptions(QCommandLineParser &parser)
{
    parser.setApplicationDescription(QStringLiteral(
        "Search fault schedules until a lock breaks: pauses, crashes, delays, dropped or cut connections, "
        "server restarts and failovers, aimed at the moments that matter (right after an acquire, before a "
        "renewal, between two commands of one acquire or release). A violation is shrunk to its smallest "
        "schedule, rerun to confirm it, and written as a story that 'lockscope-cli simulate' replays. No "
        "violation is reported as 'none in N schedules', never as safe.\n"
        "What to break: --algorithm ID, --client NAME, --lua DIR (your own lock), or a SCENARIO.json's "
        "algorithm and servers.\n"
        "Runs on private sandbox servers unless you give one with connection options and --read-write.\n"
        "'lockscope-cli explore merge A.json B.json…' joins the reports of --shard runs.\n"
        "Exit codes: 3 a violation found and confirmed, 0 none found, 2 bad arguments, 1 the run failed."));
    parser.addHelpOption();
    ConnectionOptions::addTo(parser);
    parser.addPositionalArgument(QStringLiteral("scenario"),
                                 QStringLiteral("A scenario whose algorithm, client and servers to explore."),
                                 QStringLiteral("[SCENARIO.json]"));
    parser.addOptions({
        {QStringLiteral("algorithm"), QStringLiteral("A catalog algorithm (see 'lockscope-cli algorithms')."),
         QStringLiteral("ID")},
        {QStringLiteral("client"), QStringLiteral("A real library through its adapter (see 'lockscope-cli clients')."),
         QStringLiteral("NAME")},
        {QStringLiteral("lua"),
         QStringLiteral("Your own lock: DIR holds acquire.lua, release.lua, optionally renew.lua and lock.json. "
                        "Runs only on sandboxes. ") + CustomLockScripts::conventionText().replace(u'\n', u' '),
         QStringLiteral("DIR")},
        {QStringLiteral("faults"),
         QStringLiteral("Comma-separated: pause, crash, delay, drop, cut, restart, failover, clock-jump "
                        "(default: every fault the target can meet)."),
         QStringLiteral("LIST")},
        {QStringLiteral("properties"),
         QStringLiteral("What counts as broken: lost-update, overlap, foreign-release, stuck-lock (default: all)."),
         QStringLiteral("LIST")},
        {QStringLiteral("workers"), QStringLiteral("Contending workers (default 3)."), QStringLiteral("N")},
        {QStringLiteral("lease"), QStringLiteral("Lease in ms; the whole workload scales with it (default 500)."),
         QStringLiteral("MS")},
        {QStringLiteral("watchdog"), QStringLiteral("Renew the lease while it is held.")},
        {QStringLiteral("no-watchdog"), QStringLiteral("Do not renew the lease.")},
        {QStringLiteral("budget"), QStringLiteral("Seconds of search (default 60)."), QStringLiteral("S")},
        {QStringLiteral("schedules"), QStringLiteral("Stop the search after N schedules."), QStringLiteral("N")},
        {QStringLiteral("seed"), QStringLiteral("Seed of the search (default 1)."), QStringLiteral("N")},
        {QStringLiteral("shard"), QStringLiteral("Run the I-th of N disjoint parts of the search (0-based)."),
         QStringLiteral("I/N")},
        {QStringLiteral("parallel"), QStringLiteral("Schedules run at once (default 4)."), QStringLiteral("N")},
        {QStringLiteral("max-pause"), QStringLiteral("Longest pause or cut in ms (default 3 × lease)."),
         QStringLiteral("MS")},
        {QStringLiteral("max-delay"), QStringLiteral("Longest network delay per command in ms (default the lease)."),
         QStringLiteral("MS")},
        {QStringLiteral("confirm"), QStringLiteral("Reruns of the minimal schedule (default 5)."), QStringLiteral("N")},
        {QStringLiteral("boundary-runs"), QStringLiteral("Tries just below the boundary (default 10)."),
         QStringLiteral("N")},
        {QStringLiteral("random"), QStringLiteral("Plain random search (faults at uniform times and lengths), "
                                                  "the baseline the guided search is measured against.")},
        {QStringLiteral("no-shrink"), QStringLiteral("Report the first failing schedule as found.")},
        {QStringLiteral("first-sighting"),
         QStringLiteral("Stop at the first violation seen, neither shrunk nor confirmed (for benchmarks).")},
        {QStringLiteral("json"), QStringLiteral("Write the report as JSON to FILE ('-': standard output)."),
         QStringLiteral("FILE")},
        {QStringLiteral("story"), QStringLiteral("Write the shrunk failure as a story scenario to FILE."),
         QStringLiteral("FILE")},
        {QStringLiteral("quiet"), QStringLiteral("No progress on standard error.")},
    });
}

bool readCount(const QCommandLineParser &parser, const QString &name, qint64 min, qint64 max, qint64 *out,
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

ExploreArguments ExploreArguments::parse(const QStringList &arguments)
{
    ExploreArguments out;
    if (arguments.size() > 1 && arguments.at(1) == QLatin1String("merge")) {
        out.merge = true;
        QCommandLineParser parser;
        parser.setApplicationDescription(QStringLiteral("Join the --json reports of 'explore --shard I/N' runs: the "
                                                        "smallest confirmed failure wins; schedules add up."));
        parser.addHelpOption();
        parser.addPositionalArgument(QStringLiteral("reports"), QStringLiteral("Shard reports."), QStringLiteral("A.json B.json…"));
        parser.addOption({QStringLiteral("json"), QStringLiteral("Write the merged report to FILE ('-': standard output)."),
                          QStringLiteral("FILE")});
        QStringList rest = arguments;
        rest.removeAt(1);
        if (!CommandLineStart::parse(parser, rest, &out.helpText, &out.error))
            return out;
        out.mergeFiles = parser.positionalArguments();
        out.jsonPath = parser.value(QStringLiteral("json"));
        if (out.mergeFiles.isEmpty())
            out.error = QStringLiteral("merge: give the shards' JSON reports");
        return out;
    }
    QCommandLineParser parser;
    addExploreOptions(parser);
    if (!CommandLineStart::parse(parser, arguments, &out.helpText, &out.error))
        return out;
    Explorer::Options &o = out.options;
    ExploreTarget::Options &t = o.target;
    const QStringList files = parser.positionalArguments();
    const int targets = int(parser.isSet(QStringLiteral("algorithm"))) + int(parser.isSet(QStringLiteral("client")))
        + int(parser.isSet(QStringLiteral("lua"))) + int(!files.isEmpty());
    if (targets != 1 || files.size() > 1) {
        out.error = QStringLiteral("give one thing to break: --algorithm ID, --client NAME, --lua DIR or one "
                                   "SCENARIO.json");
        return out;
    }
    t.algorithm = parser.value(QStringLiteral("algorithm"));
    t.client = parser.value(QStringLiteral("client"));
    if (parser.isSet(QStringLiteral("lua"))) {
        CustomLockScripts::Problem problem;
        t.lua = CustomLockScripts::fromDirectory(parser.value(QStringLiteral("lua")), &problem);
        if (!t.lua) {
            out.error = QStringLiteral("--lua %1: %2").arg(parser.value(QStringLiteral("lua")), problem.text());
            return out;
        }
    }
    if (!files.isEmpty()) {
        QFile file(files.first());
        if (!file.open(QIODevice::ReadOnly)) {
            out.error = QStringLiteral("cannot read %1: %2").arg(files.first(), file.errorString());
            return out;
        }
        Scenario scenario;
        QStringList errors;
        if (!ScenarioParser().parse(file.readAll(), &scenario, &errors)) {
            out.error = files.first() + QStringLiteral(" is not a valid scenario:\n  ") + errors.join(QStringLiteral("\n  "));
            return out;
        }
        t.scenario = scenario;
    }
    qint64 v = 0;
    QString &e = out.error;
    if (parser.isSet(QStringLiteral("watchdog")) && parser.isSet(QStringLiteral("no-watchdog"))) {
        e = QStringLiteral("give --watchdog or --no-watchdog, not both");
        return out;
    }
    if (parser.isSet(QStringLiteral("watchdog")))
        t.watchdog = true;
    if (parser.isSet(QStringLiteral("no-watchdog")))
        t.watchdog = false;
    v = t.workers;
    if (!readCount(parser, QStringLiteral("workers"), 2, 8, &v, &e))
        return out;
    t.workers = int(v);
    v = t.leaseMs;
    if (!readCount(parser, QStringLiteral("lease"), 20, 600000, &v, &e))
        return out;
    t.leaseMs = int(v);
    v = 60;
    if (!readCount(parser, QStringLiteral("budget"), 1, 86400, &v, &e))
        return out;
    o.budgetS = double(v);
    if (!readCount(parser, QStringLiteral("schedules"), 1, 100000000, &o.maxSchedules, &e))
        return out;
    if (parser.isSet(QStringLiteral("schedules")) && !parser.isSet(QStringLiteral("budget")))
        o.budgetS = 86400; // a count without a budget: the count decides
    v = 1;
    if (!readCount(parser, QStringLiteral("seed"), 0, std::numeric_limits<qint64>::max(), &v, &e))
        return out;
    o.seed = quint64(v);
    v = o.parallel;
    if (!readCount(parser, QStringLiteral("parallel"), 1, 32, &v, &e))
        return out;
    o.parallel = int(v);
    v = o.confirmRuns;
    if (!readCount(parser, QStringLiteral("confirm"), 1, 100, &v, &e))
        return out;
    o.confirmRuns = int(v);
    v = o.boundaryRuns;
    if (!readCount(parser, QStringLiteral("boundary-runs"), 0, 1000, &v, &e))
        return out;
    o.boundaryRuns = int(v);
    v = 0;
    if (!readCount(parser, QStringLiteral("max-pause"), 1, 3600000, &v, &e))
        return out;
    o.maxPauseMs = double(v);
    v = 0;
    if (!readCount(parser, QStringLiteral("max-delay"), 1, 600000, &v, &e))
        return out;
    o.maxDelayMs = double(v);
    if (parser.isSet(QStringLiteral("shard"))) {
        const QStringList parts = parser.value(QStringLiteral("shard")).split(u'/');
        bool okI = false, okN = false;
        const int i = parts.value(0).toInt(&okI);
        const int n = parts.value(1).toInt(&okN);
        if (parts.size() != 2 || !okI || !okN || n < 1 || n > 100000 || i < 0 || i >= n) {
            e = QStringLiteral("--shard expects I/N with 0 ≤ I < N, e.g. 0/4 (got '%1')").arg(parser.value(QStringLiteral("shard")));
            return out;
        }
        o.shardIndex = i;
        o.shardCount = n;
    }
    if (parser.isSet(QStringLiteral("faults"))) {
        for (const QString &name : parser.value(QStringLiteral("faults")).split(u',', Qt::SkipEmptyParts)) {
            ScheduledFault::Type type;
            if (!ScheduledFault::typeFromName(name.trimmed(), &type)) {
                e = QStringLiteral("--faults: '%1' is not a fault; use %2")
                        .arg(name.trimmed(), ScheduledFault::allTypeNames().join(QStringLiteral(", ")));
                return out;
            }
            if (!o.faults.contains(type))
                o.faults << type;
        }
    }
    if (parser.isSet(QStringLiteral("properties"))) {
        for (const QString &name : parser.value(QStringLiteral("properties")).split(u',', Qt::SkipEmptyParts)) {
            ScheduleVerdict::Property p;
            if (!ScheduleVerdict::propertyFromName(name.trimmed(), &p)) {
                e = QStringLiteral("--properties: '%1' is not a property; use lost-update, overlap, foreign-release, "
                                   "stuck-lock")
                        .arg(name.trimmed());
                return out;
            }
            if (!o.properties.contains(p))
                o.properties << p;
        }
        std::sort(o.properties.begin(), o.properties.end());
    }
    o.mode = parser.isSet(QStringLiteral("random")) ? ScheduleGenerator::Mode::Random : ScheduleGenerator::Mode::Guided;
    o.shrink = !parser.isSet(QStringLiteral("no-shrink"));
    o.firstOnly = parser.isSet(QStringLiteral("first-sighting"));
    out.quiet = parser.isSet(QStringLiteral("quiet"));
    out.jsonPath = parser.value(QStringLiteral("json"));
    out.storyPath = parser.value(QStringLiteral("story"));

    ConnectionOptions connection;
    if (!ConnectionOptions::read(parser, &connection, &e))
        return out;
    if (connection.serverGiven) {
        if (t.lua || (t.scenario && t.scenario->algorithm.lua)) {
            e = QStringLiteral("your own Lua may loop forever or write anywhere: it runs only on private sandboxes. "
                               "Leave out the connection options.");
            return out;
        }
        if (connection.settings.readOnly) {
            e = QStringLiteral("explore writes lock keys and a counter to %1 and injects faults there; the connection "
                               "is read-only. Give --read-write to allow it (on a server nobody else uses), or "
                               "leave out the connection options to explore on private sandboxes.")
                    .arg(connection.settings.endpoint());
            return out;
        }
        if (connection.settings.cluster || connection.settings.sentinel.enabled()) {
            e = QStringLiteral("explore runs on a single server or on sandboxes; a cluster or a Sentinel group "
                               "cannot be given");
            return out;
        }
        o.server = connection.settings;
    }
    o.commandLine = QStringLiteral("lockscope-cli explore ") + arguments.mid(1).join(u' ');
    return out;
}

namespace {

int mergeReports(const ExploreArguments &args)
{
    QList<QJsonObject> reports;
    for (const QString &path : args.mergeFiles) {
        QFile file(path);
        if (!file.open(QIODevice::ReadOnly)) {
            CliIo::err() << kName << " merge: cannot read " << path << ": " << file.errorString() << "\n" << Qt::flush;
            return CliIo::Usage;
        }
        QJsonParseError pe;
        const QJsonDocument doc = QJsonDocument::fromJson(file.readAll(), &pe);
        if (!doc.isObject()) {
            CliIo::err() << kName << " merge: " << path << " is not JSON: " << pe.errorString() << "\n" << Qt::flush;
            return CliIo::Usage;
        }
        reports << doc.object();
    }
    QJsonObject merged;
    QString error;
    if (!ExploreResult::merge(reports, &merged, &error)) {
        CliIo::err() << kName << " merge: " << error << "\n" << Qt::flush;
        return CliIo::Usage;
    }
    const QByteArray json = QJsonDocument(merged).toJson(QJsonDocument::Indented);
    if (args.jsonPath == QLatin1String("-")) {
        CliIo::out() << json << Qt::flush;
    } else {
        CliIo::out() << ExploreResult::summaryOf(merged) << Qt::flush;
        if (!args.jsonPath.isEmpty()) {
            OutputFile file(args.jsonPath);
            if (!file.open() || (file.write(json), !file.commit())) {
                CliIo::err() << kName << " merge: " << file.errorText() << "\n" << Qt::flush;
                return CliIo::Failure;
            }
        }
    }
    return merged.value(QStringLiteral("found")).toBool() ? CliIo::ExpectFailed : CliIo::Ok;
}

} // namespace

int runExploreCommand(const QStringList &arguments)
{
    const ExploreArguments args = ExploreArguments::parse(arguments);
    if (const std::optional<int> exitCode = CommandLineStart::earlyExit(kName, args.helpText, args.error))
        return *exitCode;
    if (args.merge)
        return mergeReports(args);
    // Output paths are opened first: one that cannot be written is found before the search, not after it.
    const bool jsonToStdout = args.jsonPath == QLatin1String("-");
    std::unique_ptr<OutputFile> report, storyFile;
    if (!args.jsonPath.isEmpty() && !jsonToStdout) {
        report = std::make_unique<OutputFile>(args.jsonPath);
        if (!report->open()) {
            CliIo::err() << kName << ": " << report->errorText() << "\n" << Qt::flush;
            return CliIo::Usage;
        }
    }
    if (!args.storyPath.isEmpty()) {
        storyFile = std::make_unique<OutputFile>(args.storyPath);
        if (!storyFile->open()) {
            CliIo::err() << kName << ": " << storyFile->errorText() << "\n" << Qt::flush;
            return CliIo::Usage;
        }
    }
    Explorer explorer(args.options);
    QString error;
    bool badOptions = false;
    if (!explorer.prepare(&error, &badOptions)) {
        CliIo::err() << kName << ": " << error << "\n" << Qt::flush;
        return badOptions ? CliIo::Usage : CliIo::Failure;
    }

    // The search runs on a thread of its own; this one watches for Ctrl-C and draws the progress line.
    InterruptWatcher interrupts;
    std::atomic_bool stop = false;
    std::atomic_bool done = false;
    QMutex progressMutex;
    Explorer::Progress last;
    bool fresh = false;
    ExploreResult result;
    std::thread search([&] {
        result = explorer.run(
            [&](const Explorer::Progress &p) {
                QMutexLocker lock(&progressMutex);
                last = p;
                fresh = true;
            },
            [&] { return stop.load(); });
        done = true;
    });
    const bool toTerminal = !args.quiet && ::isatty(STDERR_FILENO) == 1;
    while (!done) {
        QCoreApplication::processEvents(QEventLoop::AllEvents, 100);
        if (interrupts.wasInterrupted())
            stop = true;
        QMutexLocker lock(&progressMutex);
        if (toTerminal && fresh) {
            fresh = false;
            CliIo::err() << QStringLiteral("\r\033[K%1: %2 schedules, %3/min, %4 s · %5")
                                .arg(last.phase)
                                .arg(last.schedules)
                                .arg(qRound(last.perMinute))
                                .arg(last.seconds, 0, 'f', 0)
                                .arg(last.best.left(70))
                         << Qt::flush;
        }
        lock.unlock();
        std::this_thread::sleep_for(std::chrono::milliseconds(50)); // the progress line's rhythm
    }
    search.join();
    if (toTerminal)
        CliIo::err() << "\r\033[K" << Qt::flush;

    const QJsonObject json = result.toJson();
    const QByteArray jsonText = QJsonDocument(json).toJson(QJsonDocument::Indented);
    if (jsonToStdout)
        CliIo::out() << jsonText << Qt::flush;
    else
        CliIo::out() << ExploreResult::summaryOf(json) << Qt::flush;
    int exitCode = result.found ? CliIo::ExpectFailed : CliIo::Ok;
    if (result.stoppedBecause == QLatin1String("failed")) {
        CliIo::err() << kName << ": " << result.sentence << "\n" << Qt::flush;
        exitCode = CliIo::Failure;
    }
    if (report) {
        report->write(jsonText);
        if (!report->commit()) {
            CliIo::err() << kName << ": " << report->errorText() << "\n" << Qt::flush;
            exitCode = CliIo::Failure;
        }
    }
    if (storyFile) {
        if (const std::optional<Scenario> story = explorer.story()) {
            storyFile->write(QJsonDocument(ScenarioWriter::toJson(*story)).toJson(QJsonDocument::Indented));
            if (!storyFile->commit()) {
                CliIo::err() << kName << ": " << storyFile->errorText() << "\n" << Qt::flush;
                exitCode = CliIo::Failure;
            }
        } else {
            storyFile.reset(); // nothing is left at that path
            CliIo::err() << kName << ": no violation was found, so no story was written to " << args.storyPath << "\n"
                         << Qt::flush;
        }
    }
    if (result.stoppedBecause == QLatin1String("interrupted")) {
        CliIo::err() << kName << ": interrupted\n" << Qt::flush;
        if (!result.found)
            exitCode = CliIo::Failure;
    }
    return exitCode;
}
