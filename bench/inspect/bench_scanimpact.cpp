// bench_scanimpact: how much looking hurts. A probe client (its own process, as another application would be)
// sends one GET every millisecond for the whole run; meanwhile the server is left idle, walked by
// `redis-cli --scan`, and scanned by the inspector with its default options, in alternating rounds on the
// same 1,000,000-key keyspace. Reports the probe's latency percentiles in each phase, their ratio to idle
// (target: the inspector's p99 within 2× of idle) and the inspector's time against redis-cli's (target
// ≤ 2×), with what each scan cost: the server's CPU time and commands (INFO) and the inspector's own CPU
// time. See docs/benchmarks.md.
#include "benchkeyspace.h"
#include "inspect/lockscanjob.h"
#include "redis/redisconnection.h"
#include "redis/sandboxserver.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QStandardPaths>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <thread>
#include <unistd.h>

namespace {

qint64 nowNs()
{
    timespec t {};
    clock_gettime(CLOCK_MONOTONIC, &t); // one clock for both processes
    return qint64(t.tv_sec) * 1'000'000'000 + t.tv_nsec;
}

// The probe process: GET of a filler key every `intervalUs`, until its stdin closes; then one line per
// sample on stdout: "<scheduled send ns> <sent ns> <reply ns>".
int runProbe(int port, int intervalUs)
{
    ConnectionSettings s;
    s.host = QStringLiteral("127.0.0.1");
    s.port = port;
    s.readOnly = true;
    RedisConnection c(s);
    if (const RedisError e = c.open()) {
        std::fprintf(stderr, "probe: %s\n", qPrintable(e.message()));
        return 1;
    }
    static std::atomic_bool stop = false; // outlives the detached stdin watcher
    std::thread watcher([&] {
        char buffer[64];
        while (::read(STDIN_FILENO, buffer, sizeof buffer) > 0) { }
        stop = true;
    });
    watcher.detach(); // ends with stdin; an early error return must not wait for it
    struct Sample
    {
        qint64 scheduled, sent, replied;
    };
    std::vector<Sample> samples;
    samples.reserve(1 << 20);
    qint64 next = nowNs();
    quint32 i = 0;
    while (!stop && samples.size() < (8u << 20)) {
        const qint64 now = nowNs();
        if (now < next) {
            const qint64 wait = next - now;
            timespec t {time_t(wait / 1'000'000'000), long(wait % 1'000'000'000)};
            nanosleep(&t, nullptr);
        }
        const qint64 sent = nowNs();
        // Filler keys user:<multiple of 10> are plain strings (BenchKeyspace writes every type).
        const RedisResult r = c.command({"GET", "user:" + QByteArray::number(((i++ * 7919u) % 90000u) * 10u)});
        const qint64 replied = nowNs();
        if (!r.ok()) {
            std::fprintf(stderr, "probe: %s\n", qPrintable(r.error.message()));
            return 1;
        }
        samples.push_back({next, sent, replied});
        next += qint64(intervalUs) * 1000;
        if (next < replied - 1'000'000'000)
            next = replied; // more than a second behind: the machine stalled; start afresh
    }
    for (const Sample &x : samples)
        std::printf("%lld %lld %lld\n", x.scheduled, x.sent, x.replied);
    return 0;
}

struct Phase
{
    QString name;
    qint64 startNs = 0, endNs = 0;
};

double percentile(std::vector<double> v, double p)
{
    if (v.empty())
        return 0;
    std::sort(v.begin(), v.end());
    const size_t i = std::min(v.size() - 1, size_t(p * double(v.size() - 1) + 0.5));
    return v[i];
}

// The server's CPU seconds (user + system) and commands processed so far, from INFO; the admin connection's
// own INFO calls add one command each, negligible next to a scan's million.
struct ServerWork
{
    double cpuS = 0;
    qint64 commands = 0;
};

ServerWork serverWork(RedisConnection &admin)
{
    ServerWork w;
    const RedisResult r = admin.command({"INFO", "all"});
    if (!r.ok())
        return w;
    for (const QByteArray &line : r.reply.bytes().split('\n')) {
        const QByteArray l = line.trimmed();
        if (l.startsWith("used_cpu_sys:") || l.startsWith("used_cpu_user:"))
            w.cpuS += l.mid(l.indexOf(':') + 1).toDouble();
        else if (l.startsWith("total_commands_processed:"))
            w.commands = l.mid(l.indexOf(':') + 1).toLongLong();
    }
    return w;
}

// CPU seconds this thread has used (the inspector scans on the calling thread).
double threadCpuS()
{
    timespec t {};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return double(t.tv_sec) + double(t.tv_nsec) / 1e9;
}

double median(QList<double> v)
{
    std::sort(v.begin(), v.end());
    return v.isEmpty() ? 0 : v.at(v.size() / 2);
}

} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parser.addOptions({
        {QStringLiteral("keys"), QStringLiteral("Keys in the keyspace (default 1000000)."),
         QStringLiteral("N")},
        {QStringLiteral("locks"), QStringLiteral("Lock keys among them (default a tenth)."),
         QStringLiteral("N")},
        {QStringLiteral("rounds"), QStringLiteral("Alternating rounds (default 3)."), QStringLiteral("N")},
        {QStringLiteral("idle"), QStringLiteral("Seconds of idle per round (default 5)."),
         QStringLiteral("S")},
        {QStringLiteral("max-ops"),
         QStringLiteral(
             "The inspector's budget in commands per second (default: the scanner's own default)."),
         QStringLiteral("N")},
        {QStringLiteral("share"), QStringLiteral("The scan's share of the server's time (default: ScanOptions')."),
         QStringLiteral("F")},
        {QStringLiteral("chunk"), QStringLiteral("Commands per pipelined chunk (default: ScanOptions')."),
         QStringLiteral("N")},
        {QStringLiteral("probes"), QStringLiteral("Extra probe connections (default: ScanOptions')."),
         QStringLiteral("N")},
        {QStringLiteral("count"), QStringLiteral("SCAN COUNT (default: ScanOptions')."), QStringLiteral("N")},
        {QStringLiteral("json"), QStringLiteral("End with one JSON line.")},
        {QStringLiteral("probe"), QStringLiteral("Internal: run as the probe client on PORT."),
         QStringLiteral("PORT")},
        {QStringLiteral("interval-us"), QStringLiteral("Probe interval (default 1000 µs)."),
         QStringLiteral("US")},
    });
    parser.addHelpOption();
    parser.process(app);
    const int intervalUs = parser.isSet(QStringLiteral("interval-us"))
        ? parser.value(QStringLiteral("interval-us")).toInt()
        : 1000;
    if (parser.isSet(QStringLiteral("probe")))
        return runProbe(parser.value(QStringLiteral("probe")).toInt(), intervalUs);

    const qint64 total = parser.isSet(QStringLiteral("keys"))
        ? parser.value(QStringLiteral("keys")).toLongLong()
        : 1'000'000;
    const qint64 lockKeys = parser.isSet(QStringLiteral("locks"))
        ? parser.value(QStringLiteral("locks")).toLongLong()
        : total / 10;
    const int rounds
        = parser.isSet(QStringLiteral("rounds")) ? parser.value(QStringLiteral("rounds")).toInt() : 3;
    const int idleS = parser.isSet(QStringLiteral("idle")) ? parser.value(QStringLiteral("idle")).toInt() : 5;
    const QString redisCli = QStandardPaths::findExecutable(QStringLiteral("redis-cli"));
    if (redisCli.isEmpty()) {
        std::fprintf(stderr, "redis-cli not found on PATH\n");
        return 2;
    }

    SandboxServer server;
    if (!server.start()) {
        std::fprintf(stderr, "%s\n", qPrintable(server.errorString()));
        return 2;
    }
    RedisConnection admin(server.connectionSettings());
    if (admin.open())
        return 2;
    Keyspace k;
    std::printf("building %lld keys with %lld lock keys…\n", total, lockKeys);
    std::fflush(stdout);
    if (!BenchKeyspace::build(admin, total, lockKeys, &k))
        return 2;

    QProcess probe;
    probe.start(QCoreApplication::applicationFilePath(),
                {"--probe", QString::number(server.port()), "--interval-us", QString::number(intervalUs)});
    if (!probe.waitForStarted()) {
        std::fprintf(stderr, "cannot start the probe: %s\n", qPrintable(probe.errorString()));
        return 2;
    }
    std::this_thread::sleep_for(std::chrono::seconds(1)); // the probe's connection is warm before idle starts

    ScanOptions options;
    if (parser.isSet(QStringLiteral("max-ops")))
        options.maxOpsPerSecond = parser.value(QStringLiteral("max-ops")).toInt();
    if (parser.isSet(QStringLiteral("share")))
        options.serverShare = parser.value(QStringLiteral("share")).toDouble();
    if (parser.isSet(QStringLiteral("chunk")))
        options.pipelineChunk = parser.value(QStringLiteral("chunk")).toInt();
    if (parser.isSet(QStringLiteral("probes")))
        options.probeConnections = parser.value(QStringLiteral("probes")).toInt();
    if (parser.isSet(QStringLiteral("count")))
        options.count = parser.value(QStringLiteral("count")).toInt();
    std::printf("inspector options: share %.2f, chunk %d, probe connections %d, SCAN COUNT %d, max ops %d\n",
                options.serverShare, options.pipelineChunk, options.probeConnections, options.count,
                options.maxOpsPerSecond);
    std::fflush(stdout);
    QList<Phase> phases;
    QList<double> cliTimes, scanTimes, cliServerCpu, scanServerCpu, scanClientCpu;
    qint64 cliCommands = 0, scanCommands = 0;
    qint64 locksFound = 0;
    for (int round = 0; round < rounds; ++round) {
        Phase idle {QStringLiteral("idle"), nowNs(), 0};
        std::this_thread::sleep_for(std::chrono::seconds(idleS));
        idle.endNs = nowNs();
        phases << idle;

        const ServerWork beforeCli = serverWork(admin);
        Phase cli {QStringLiteral("redis-cli --scan"), nowNs(), 0};
        QProcess scan;
        scan.setStandardOutputFile(QProcess::nullDevice());
        scan.start(redisCli, {"-p", QString::number(server.port()), "--scan"});
        scan.waitForFinished(-1);
        cli.endNs = nowNs();
        phases << cli;
        cliTimes << double(cli.endNs - cli.startNs) / 1e9;
        const ServerWork afterCli = serverWork(admin);
        cliServerCpu << afterCli.cpuS - beforeCli.cpuS;
        cliCommands = afterCli.commands - beforeCli.commands - 1;

        const ServerWork beforeScan = serverWork(admin);
        const double clientCpuBefore = threadCpuS();
        Phase inspector {QStringLiteral("inspector scan"), nowNs(), 0};
        RedisConnection c(server.connectionSettings());
        if (c.open())
            return 2;
        LockScanJob job(c, options);
        qint64 records = 0;
        while (!job.atEnd())
            records += job.nextPage().size();
        inspector.endNs = nowNs();
        if (job.error()) {
            std::fprintf(stderr, "scan failed: %s\n", qPrintable(job.error().message()));
            return 2;
        }
        locksFound = job.progress().locks;
        phases << inspector;
        scanTimes << double(inspector.endNs - inspector.startNs) / 1e9;
        scanClientCpu << threadCpuS() - clientCpuBefore;
        const ServerWork afterScan = serverWork(admin);
        scanServerCpu << afterScan.cpuS - beforeScan.cpuS;
        scanCommands = afterScan.commands - beforeScan.commands - 1;
        std::printf("round %d: redis-cli --scan %.2f s (server CPU %.2f s, %lld commands) · inspector %.2f s "
                    "(server CPU %.2f s, %lld commands, client CPU %.2f s) · %lld locks\n",
                    round + 1, cliTimes.last(), cliServerCpu.last(), cliCommands, scanTimes.last(),
                    scanServerCpu.last(), scanCommands, scanClientCpu.last(), locksFound);
        std::fflush(stdout);
    }
    probe.closeWriteChannel();
    probe.waitForFinished(-1);
    const QList<QByteArray> lines = probe.readAllStandardOutput().split('\n');
    if (probe.exitCode() != 0 || lines.size() < 100) {
        std::fprintf(stderr, "the probe failed (exit %d, %lld lines): %s\n", probe.exitCode(),
                     qint64(lines.size()), probe.readAllStandardError().constData());
        return 2;
    }

    QMap<QString, std::vector<double>> latencyUs, responseUs; // per phase name, over every round
    for (const QByteArray &line : lines) {
        const QList<QByteArray> f = line.split(' ');
        if (f.size() != 3)
            continue;
        const qint64 scheduled = f.at(0).toLongLong(), sent = f.at(1).toLongLong(),
                     replied = f.at(2).toLongLong();
        for (const Phase &p : phases) {
            if (sent >= p.startNs && sent < p.endNs) {
                latencyUs[p.name].push_back(double(replied - sent) / 1e3);
                responseUs[p.name].push_back(double(replied - scheduled) / 1e3);
                break;
            }
        }
    }
    const double idleP99 = percentile(latencyUs.value(QStringLiteral("idle")), 0.99);
    QJsonObject json;
    std::printf("\nprobe: one GET every %d µs from its own process; latency send→reply (response from the "
                "scheduled send, which counts waiting behind a slow reply too)\n",
                intervalUs);
    for (const QString &name :
         {QStringLiteral("idle"), QStringLiteral("redis-cli --scan"), QStringLiteral("inspector scan")}) {
        const auto &l = latencyUs[name];
        const auto &r = responseUs[name];
        const double p50 = percentile(l, 0.5), p99 = percentile(l, 0.99), p999 = percentile(l, 0.999);
        std::printf(
            "%-18s %7zu samples  p50 %6.0f µs  p99 %6.0f µs (%.2f× idle)  p99.9 %6.0f µs  max %6.0f µs  "
            "response p99 %6.0f µs\n",
            qPrintable(name), l.size(), p50, p99, idleP99 > 0 ? p99 / idleP99 : 0, p999, percentile(l, 1.0),
            percentile(r, 0.99));
        QJsonObject o {{QStringLiteral("samples"), qint64(l.size())},
                       {QStringLiteral("p50_us"), p50},
                       {QStringLiteral("p99_us"), p99},
                       {QStringLiteral("p999_us"), p999},
                       {QStringLiteral("p99_vs_idle"), idleP99 > 0 ? p99 / idleP99 : 0},
                       {QStringLiteral("response_p99_us"), percentile(r, 0.99)}};
        json.insert(QString(name).replace(u' ', u'_').replace(QLatin1String("--"), QString()), o);
    }
    const double inspectorP99 = percentile(latencyUs.value(QStringLiteral("inspector scan")), 0.99);
    const double timeRatio = median(scanTimes) / median(cliTimes);
    const double harm = idleP99 > 0 ? inspectorP99 / idleP99 : 0;
    std::printf("time               redis-cli --scan median %.2f s · inspector median %.2f s: %.2f× (target "
                "≤ 2×) %s\n",
                median(cliTimes), median(scanTimes), timeRatio, timeRatio <= 2.0 ? "OK" : "OVER");
    std::printf("harm               inspector p99 %.2f× idle (target ≤ 2×) %s\n", harm,
                harm <= 2.0 ? "OK" : "OVER");
    std::printf("locks found        %lld of %lld\n", locksFound, k.locks);
    double load[1] = {0};
    getloadavg(load, 1);
    std::printf("machine            load average %.2f at the end\n", load[0]);
    if (parser.isSet(QStringLiteral("json"))) {
        json.insert(QStringLiteral("keys"), k.keys);
        json.insert(QStringLiteral("time_ratio_vs_redis_cli_scan"), timeRatio);
        json.insert(QStringLiteral("p99_ratio_vs_idle"), harm);
        json.insert(QStringLiteral("redis_cli_scan_s"), median(cliTimes));
        json.insert(QStringLiteral("inspector_scan_s"), median(scanTimes));
        json.insert(QStringLiteral("rounds"), rounds);
        json.insert(QStringLiteral("redis_cli_server_cpu_s"), median(cliServerCpu));
        json.insert(QStringLiteral("inspector_server_cpu_s"), median(scanServerCpu));
        json.insert(QStringLiteral("inspector_client_cpu_s"), median(scanClientCpu));
        json.insert(QStringLiteral("redis_cli_commands"), cliCommands);
        json.insert(QStringLiteral("inspector_commands"), scanCommands);
        std::printf("%s\n", QJsonDocument(json).toJson(QJsonDocument::Compact).constData());
    }
    return timeRatio <= 2.0 && harm <= 2.0 ? 0 : 3;
}
