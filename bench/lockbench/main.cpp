// lockscope-bench: runs one measurement of LockScope against a given Redis server and prints it as JSON, so
// bench/run can interleave it with the peers (redis-py, node redlock, redis-benchmark) on the same server.
//   uncontended --port P --algorithm ID [--workers 8] [--seconds 3] [--no-history]
//   contended   --port P --algorithm ID [--workers 8] [--seconds 3] [--cs-ms 1] [--think-ms 0]
//               (both: [--engine threads|events], the simulator's worker engine)
//   ping        --port P [--count 2000]
//   hotpath     --port P --algorithm ID --cycles N      (one thread, for callgrind instruction counts)
//   fleet       --port P [--engine events|threads] [--processes 50] [--workers 100] [--seconds 60] [--no-history]
//               (the fleet preset, its size and engine overridden: throughput, dropped events, peak memory
//               and threads)
#include "locks/lockcatalog.h"
#include "redis/redisconnection.h"
#include "sim/percentiles.h"
#include "sim/presetlibrary.h"
#include "sim/simulation.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QJsonDocument>
#include <QJsonObject>

#include <cstdio>

#include <sys/resource.h>

namespace {

Scenario::Retry::Strategy retryFor(WaitStrategy wait)
{
    switch (wait) {
    case WaitStrategy::BusySpin:
        return Scenario::Retry::Strategy::Spin;
    case WaitStrategy::FixedInterval:
        return Scenario::Retry::Strategy::Fixed;
    case WaitStrategy::Jitter:
        return Scenario::Retry::Strategy::Jitter;
    case WaitStrategy::ExponentialBackoff:
        return Scenario::Retry::Strategy::Backoff;
    case WaitStrategy::PubSub:
        return Scenario::Retry::Strategy::PubSub;
    }
    return Scenario::Retry::Strategy::Fixed;
}

// The algorithm as its users run it (the catalog's defaults), with a lease long enough not to matter.
Scenario scenarioFor(const LockAlgorithmInfo &info, int workers, double seconds)
{
    Scenario s;
    s.id = QStringLiteral("bench");
    s.title = QStringLiteral("benchmark");
    s.algorithm.id = info.id;
    s.algorithm.leaseMs = 10000;
    s.algorithm.watchdog = info.defaults.watchdog;
    s.algorithm.retry.strategy = retryFor(info.defaults.wait);
    s.algorithm.retry.intervalMs = int(info.defaults.retryIntervalMs);
    s.algorithm.retry.jitterMs = int(info.defaults.retryJitterMs);
    s.algorithm.acquireTimeoutMs = 30000;
    s.workload.processes = 1; // one client process with N threads, like the peers
    s.workload.threadsPerProcess = workers;
    s.workload.durationS = seconds;
    s.workload.keyPrefix = QStringLiteral("lockscope:bench:");
    s.workload.criticalSection.ms = 0;
    s.resource.counter = false;
    return s;
}

int fail(const QString &message)
{
    std::fprintf(stderr, "lockscope-bench: %s\n", qPrintable(message));
    return 1;
}

void print(const QJsonObject &o)
{
    std::printf("%s\n", QJsonDocument(o).toJson(QJsonDocument::Compact).constData());
}

int threadCount()
{
    return int(QDir(QStringLiteral("/proc/self/task")).entryList(QDir::Dirs | QDir::NoDotAndDotDot).size());
}

// The fleet preset at the given size, on the given engine: what a fleet costs this machine.
int runFleet(const QCommandLineParser &parser, const ConnectionSettings &server)
{
    const PresetLibrary::Preset *preset = PresetLibrary::find(QStringLiteral("fleet"));
    if (!preset)
        return fail(QStringLiteral("the fleet preset is missing"));
    Scenario s = preset->scenario;
    const QString engine = parser.value(QStringLiteral("engine")).isEmpty() ? QStringLiteral("events")
                                                                            : parser.value(QStringLiteral("engine"));
    if (engine != QLatin1String("events") && engine != QLatin1String("threads"))
        return fail(QStringLiteral("unknown --engine '%1'; use threads or events").arg(engine));
    s.workload.engine = engine == QLatin1String("events") ? Scenario::Workload::Engine::Events
                                                          : Scenario::Workload::Engine::Threads;
    s.workload.processes = parser.value(QStringLiteral("processes")).toInt();
    s.workload.threadsPerProcess = parser.isSet(QStringLiteral("workers")) ? parser.value(QStringLiteral("workers")).toInt()
                                                                          : 100;
    if (parser.isSet(QStringLiteral("seconds")))
        s.workload.durationS = parser.value(QStringLiteral("seconds")).toDouble();
    Simulation::Options options;
    options.server = server;
    options.recordHistory = !parser.isSet(QStringLiteral("no-history"));
    const int threadsBefore = threadCount();
    Simulation sim(s, options);
    sim.start();
    int threadsPeak = 0;
    while (!sim.waitFinished(200))
        threadsPeak = std::max(threadsPeak, threadCount() - threadsBefore);
    if (sim.state() != Simulation::State::Finished)
        return fail(sim.errorString());
    const RunReport r = sim.report();
    rusage usage {};
    getrusage(RUSAGE_SELF, &usage);
    const double duration = double(r.metrics.durationUs) / 1e6;
    QJsonObject out {{QStringLiteral("engine"), engine},
                     {QStringLiteral("workers"), s.workload.processes * s.workload.threadsPerProcess},
                     {QStringLiteral("processes"), s.workload.processes},
                     {QStringLiteral("seconds"), duration},
                     {QStringLiteral("history"), options.recordHistory},
                     {QStringLiteral("cycles_per_s"), duration > 0 ? double(r.countedCycles) / duration : 0.0},
                     // Counted by the workers, so also without the history: how much of the run's work one
                     // cycle took (the fleet's herd makes it vary).
                     {QStringLiteral("commands_per_cycle"),
                      r.countedCycles > 0 ? double(r.countedCommands) / double(r.countedCycles) : 0.0},
                     {QStringLiteral("violations"), r.safety.violations()},
                     {QStringLiteral("history_events"), double(sim.history() ? sim.history()->size() : 0)},
                     {QStringLiteral("history_dropped"), double(r.historyDropped)},
                     {QStringLiteral("peak_rss_mb"), double(usage.ru_maxrss) / 1024.0},
                     {QStringLiteral("threads_peak"), threadsPeak},
                     {QStringLiteral("cpu_s"), double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
                          + double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6}};
    if (options.recordHistory) {
        out.insert(QStringLiteral("acquire_p50_us"), double(r.metrics.acquireLatency.p50));
        out.insert(QStringLiteral("acquire_p99_us"), double(r.metrics.acquireLatency.p99));
        out.insert(QStringLiteral("fairness_jain"), r.metrics.fairnessJain);
        out.insert(QStringLiteral("commands_per_acquisition"), r.metrics.commandsPerAcquisition);
    }
    print(out);
    return 0;
}

} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parser.addPositionalArgument(QStringLiteral("mode"), QStringLiteral("uncontended | contended | ping | hotpath"));
    parser.addOptions({{QStringLiteral("port"), QStringLiteral("Redis port on 127.0.0.1."), QStringLiteral("port")},
                       {QStringLiteral("algorithm"), QStringLiteral("Lock algorithm id."), QStringLiteral("id")},
                       {QStringLiteral("workers"), QStringLiteral("Worker threads."), QStringLiteral("n"), QStringLiteral("8")},
                       {QStringLiteral("seconds"), QStringLiteral("Run time."), QStringLiteral("s"), QStringLiteral("3")},
                       {QStringLiteral("cs-ms"), QStringLiteral("Critical section (contended)."), QStringLiteral("ms"), QStringLiteral("1")},
                       {QStringLiteral("think-ms"), QStringLiteral("Pause after each release (contended): an unfair lock then passes to a waiter instead of going back to the worker that released it."), QStringLiteral("ms"), QStringLiteral("0")},
                       {QStringLiteral("count"), QStringLiteral("PINGs."), QStringLiteral("n"), QStringLiteral("2000")},
                       {QStringLiteral("cycles"), QStringLiteral("Lock/unlock cycles (hotpath)."), QStringLiteral("n"), QStringLiteral("1000")},
                       {QStringLiteral("engine"), QStringLiteral("Worker engine: threads or events (fleet: events)."), QStringLiteral("engine")},
                       {QStringLiteral("processes"), QStringLiteral("Simulated processes (fleet)."), QStringLiteral("n"), QStringLiteral("50")},
                       {QStringLiteral("no-history"), QStringLiteral("Do not record the history.")}});
    parser.process(app);
    const QString mode = parser.positionalArguments().value(0);
    ConnectionSettings server;
    server.port = parser.value(QStringLiteral("port")).toInt();
    server.readOnly = false;
    server.clientName = QStringLiteral("lockscope-bench");
    if (server.port <= 0)
        return fail(QStringLiteral("--port is required"));

    if (mode == QLatin1String("ping")) {
        RedisConnection c(server);
        if (const RedisError e = c.open())
            return fail(e.message());
        QList<qint64> samples;
        const int count = parser.value(QStringLiteral("count")).toInt();
        for (int i = 0; i < count; ++i) {
            QElapsedTimer t;
            t.start();
            if (!c.command({"PING"}).ok())
                return fail(QStringLiteral("PING failed"));
            samples << t.nsecsElapsed() / 1000;
        }
        const LatencyStats s = LatencyStats::of(samples);
        print({{QStringLiteral("ping_p50_us"), double(s.p50)}, {QStringLiteral("ping_p99_us"), double(s.p99)}});
        return 0;
    }

    if (mode == QLatin1String("fleet"))
        return runFleet(parser, server);

    const LockAlgorithmInfo *info = LockCatalog::find(parser.value(QStringLiteral("algorithm")));
    if (!info)
        return fail(QStringLiteral("unknown --algorithm; use one of %1").arg(LockCatalog::ids().join(QStringLiteral(", "))));
    const int workers = parser.value(QStringLiteral("workers")).toInt();
    const double seconds = parser.value(QStringLiteral("seconds")).toDouble();

    if (mode == QLatin1String("hotpath")) {
        // One thread, one connection, lock + unlock of its own lock: the client-side cost of one cycle.
        LockClient client;
        RedisConnection c(server);
        if (const RedisError e = c.open())
            return fail(e.message());
        LockOptions options = info->defaults;
        options.leaseMs = 10000;
        options.watchdog = false;
        auto lock = LockCatalog::create(info->id, client, "lockscope:bench:hot", 1, options);
        if (!lock)
            return fail(QStringLiteral("cannot make the lock"));
        lock->prepare(c);
        const int cycles = parser.value(QStringLiteral("cycles")).toInt();
        QElapsedTimer t;
        t.start();
        for (int i = 0; i < cycles; ++i) {
            if (!lock->tryAcquire(c).acquired() || !lock->release(c).ok())
                return fail(QStringLiteral("cycle %1 failed").arg(i));
        }
        print({{QStringLiteral("cycles"), cycles}, {QStringLiteral("seconds"), double(t.nsecsElapsed()) / 1e9}});
        return 0;
    }

    Scenario s = scenarioFor(*info, workers, seconds);
    if (mode == QLatin1String("uncontended")) {
        s.workload.locks = workers;
        s.workload.lockChoice = Scenario::Workload::LockChoice::Own;
    } else if (mode == QLatin1String("contended")) {
        s.workload.locks = 1;
        s.workload.criticalSection.ms = parser.value(QStringLiteral("cs-ms")).toDouble();
        s.workload.thinkMs = parser.value(QStringLiteral("think-ms")).toDouble();
    } else {
        return fail(QStringLiteral("unknown mode '%1'").arg(mode));
    }
    const QString engine = parser.value(QStringLiteral("engine")).isEmpty() ? QStringLiteral("threads")
                                                                            : parser.value(QStringLiteral("engine"));
    if (engine == QLatin1String("events"))
        s.workload.engine = Scenario::Workload::Engine::Events;
    else if (engine != QLatin1String("threads"))
        return fail(QStringLiteral("unknown --engine '%1'; use threads or events").arg(engine));
    Simulation::Options options;
    options.server = server;
    options.recordHistory = !parser.isSet(QStringLiteral("no-history"));
    Simulation sim(s, options);
    sim.start();
    sim.waitFinished();
    if (sim.state() != Simulation::State::Finished)
        return fail(sim.errorString());
    const RunReport r = sim.report();
    const double duration = double(r.metrics.durationUs) / 1e6;
    QJsonObject out{{QStringLiteral("algorithm"), info->id},
                    {QStringLiteral("engine"), engine},
                    {QStringLiteral("workers"), workers},
                    {QStringLiteral("seconds"), duration},
                    {QStringLiteral("cycles_per_s"), duration > 0 ? double(r.countedCycles) / duration : 0.0},
                    {QStringLiteral("violations"), r.safety.violations()}};
    if (options.recordHistory) {
        out.insert(QStringLiteral("handoff_p50_us"), double(r.metrics.handoffLatency.p50));
        out.insert(QStringLiteral("handoff_p99_us"), double(r.metrics.handoffLatency.p99));
        out.insert(QStringLiteral("handoffs"), double(r.metrics.handoffLatency.count));
        out.insert(QStringLiteral("fairness_jain"), r.metrics.fairnessJain);
        out.insert(QStringLiteral("commands_per_acquisition"), r.metrics.commandsPerAcquisition);
    }
    print(out);
    return 0;
}
