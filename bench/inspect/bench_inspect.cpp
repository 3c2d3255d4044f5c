// bench_inspect: a 1,000,000-key keyspace with 100,000 locks of mixed kinds in a sandbox, then a full
// inspector scan + classification side by side with `redis-cli --scan` over the same keyspace, in one run.
// Reports the time ratio (target ≤ 2×), time to the first rows, memory, and how long the GUI thread was
// ever blocked while the threaded scanner fed the real table model. See docs/benchmarks.md.
#include "benchkeyspace.h"
#include "inspect/lockscanjob.h"
#include "inspect/lockscanner.h"
#include "inspect/samplelocks.h"
#include "inspector/lockfilterproxy.h"
#include "inspector/locktablemodel.h"
#include "redis/redisconnection.h"
#include "redis/sandboxserver.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QDateTime>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRandomGenerator>
#include <QStandardPaths>
#include <QTimer>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <sys/resource.h>
#include <unistd.h>

namespace {

qint64 procStatusKb(const char *field)
{
    QFile f(QStringLiteral("/proc/self/status"));
    if (!f.open(QIODevice::ReadOnly))
        return -1;
    for (const QByteArray &line : f.readAll().split('\n')) {
        if (line.startsWith(field))
            return line.mid(qstrlen(field)).trimmed().split(' ').first().toLongLong();
    }
    return -1;
}

// Resets the peak (VmHWM) so each phase reports its own peak (Linux ≥ 4.0).
void resetPeak()
{
    QFile f(QStringLiteral("/proc/self/clear_refs"));
    if (f.open(QIODevice::WriteOnly))
        f.write("5");
}

// CPU seconds used so far by this process (all threads) and by the server process.
double selfCpu()
{
    rusage u {};
    getrusage(RUSAGE_SELF, &u);
    return double(u.ru_utime.tv_sec + u.ru_stime.tv_sec)
        + double(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

double processCpu(qint64 pid)
{
    QFile f(QStringLiteral("/proc/%1/stat").arg(pid));
    if (!f.open(QIODevice::ReadOnly))
        return 0;
    const QByteArray line = f.readAll();
    const QList<QByteArray> fields = line.mid(line.lastIndexOf(')') + 2).split(' ');
    // utime and stime are fields 14 and 15 of stat; after the command name they are at 11 and 12.
    return double(fields.value(11).toLongLong() + fields.value(12).toLongLong())
        / double(sysconf(_SC_CLK_TCK));
}

qint64 g_serverPid = 0;

double threadCpuMs()
{
    timespec ts {};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) / 1e6;
}

struct ScanRun
{
    double cpuSeconds = 0; // client + server CPU for this run
    double serverCpuSeconds = 0; // the server's part of it
    double seconds = 0;
    double firstRowsMs = -1;
    qint64 locks = 0;
    qint64 scanned = 0;
};

int g_probeConnections = 2;

ScanRun inspectorScan(const ConnectionSettings &settings)
{
    ScanRun run;
    RedisConnection c(settings);
    if (c.open())
        return run;
    QList<LockRecord> all; // kept, as the GUI model keeps them
    const double server0 = processCpu(g_serverPid);
    const double cpu0 = selfCpu() + server0;
    QElapsedTimer t;
    t.start();
    ScanOptions options;
    options.probeConnections = g_probeConnections;
    LockScanJob job(c, options);
    while (!job.atEnd()) {
        const QList<LockRecord> page = job.nextPage();
        if (run.firstRowsMs < 0 && !page.isEmpty())
            run.firstRowsMs = double(t.nsecsElapsed()) / 1e6;
        all += page;
    }
    run.seconds = double(t.nsecsElapsed()) / 1e9;
    run.cpuSeconds = selfCpu() + processCpu(g_serverPid) - cpu0;
    run.serverCpuSeconds = processCpu(g_serverPid) - server0;
    run.locks = job.progress().locks;
    run.scanned = job.progress().scannedKeys;
    if (job.error())
        std::fprintf(stderr, "scan failed: %s\n", qPrintable(job.error().message()));
    return run;
}

ScanRun redisCliScan(const QString &redisCli, int port)
{
    ScanRun run;
    QProcess p;
    p.setStandardOutputFile(QStringLiteral("/dev/null"));
    const double server0 = processCpu(g_serverPid);
    rusage children0 {};
    getrusage(RUSAGE_CHILDREN, &children0);
    QElapsedTimer t;
    t.start();
    p.start(redisCli, {QStringLiteral("-p"), QString::number(port), QStringLiteral("--scan")});
    p.waitForFinished(-1);
    run.seconds = double(t.nsecsElapsed()) / 1e9;
    rusage children1 {};
    getrusage(RUSAGE_CHILDREN, &children1);
    const auto secs = [](const timeval &tv) { return double(tv.tv_sec) + double(tv.tv_usec) / 1e6; };
    run.serverCpuSeconds = processCpu(g_serverPid) - server0;
    run.cpuSeconds = secs(children1.ru_utime) - secs(children0.ru_utime) + secs(children1.ru_stime)
        - secs(children0.ru_stime) + run.serverCpuSeconds;
    return run;
}

// What people do by hand: list the keys, then ask each one's TTL (redis-cli reads the PTTL commands from
// stdin and sends them one after another).
ScanRun redisCliScanPttl(const QString &redisCli, int port)
{
    ScanRun run;
    const QString cli = redisCli + QStringLiteral(" -p ") + QString::number(port);
    const QString script
        = cli + QStringLiteral(" --scan | sed 's/.*/PTTL \"&\"/' | ") + cli + QStringLiteral(" > /dev/null");
    QProcess p;
    const double server0 = processCpu(g_serverPid);
    QElapsedTimer t;
    t.start();
    p.start(QStringLiteral("/bin/sh"), {QStringLiteral("-c"), script});
    p.waitForFinished(-1);
    run.seconds = double(t.nsecsElapsed()) / 1e9;
    run.serverCpuSeconds = processCpu(g_serverPid) - server0;
    return run;
}

// What the GUI does: LockScanner on its thread feeding LockTableModel behind the sorting proxy, while a 5 ms
// timer on the GUI thread measures the longest gap between its ticks.
struct GuiRun
{
    double seconds = 0;
    double firstRowsMs = -1;
    double maxStallMs = 0; // longest gap between 5 ms timer ticks (includes the OS descheduling the thread)
    double maxHandlerMs = 0; // longest time the GUI thread spent applying one page to the model
    double maxHandlerCpuMs = 0; // the same in CPU time of the GUI thread (without time the OS gave others)
    double totalHandlerMs = 0;
    int rows = 0;
};

GuiRun guiScan(const ConnectionSettings &settings)
{
    GuiRun run;
    LockTableModel model;
    LockFilterProxy proxy;
    proxy.setSourceModel(&model);
    proxy.sort(LockTableModel::ProblemsColumn, Qt::DescendingOrder);
    LockScanner scanner;
    scanner.setConnectionSettings(settings);
    QElapsedTimer t, gap;
    QTimer ticker;
    ticker.setInterval(5);
    QObject::connect(&ticker, &QTimer::timeout, [&] {
        run.maxStallMs = std::max(run.maxStallMs, double(gap.nsecsElapsed()) / 1e6);
        gap.restart();
    });
    QObject::connect(&scanner, &LockScanner::pageReady,
                     [&](const QList<LockRecord> &records, const ScanProgress &) {
                         if (run.firstRowsMs < 0 && !records.isEmpty())
                             run.firstRowsMs = double(t.nsecsElapsed()) / 1e6;
                         QElapsedTimer handler;
                         handler.start();
                         const double cpu0 = threadCpuMs();
                         model.upsert(records);
                         run.maxHandlerCpuMs = std::max(run.maxHandlerCpuMs, threadCpuMs() - cpu0);
                         run.maxHandlerMs = std::max(run.maxHandlerMs, double(handler.nsecsElapsed()) / 1e6);
                         run.totalHandlerMs += double(handler.nsecsElapsed()) / 1e6;
                     });
    QEventLoop loop;
    QObject::connect(&scanner, &LockScanner::scanFinished, &loop, &QEventLoop::quit);
    QObject::connect(&scanner, &LockScanner::scanFailed, &loop, &QEventLoop::quit);
    t.start();
    gap.start();
    ticker.start();
    scanner.start(ScanOptions {});
    loop.exec();
    ticker.stop();
    run.seconds = double(t.nsecsElapsed()) / 1e9;
    run.rows = model.rowCount();
    // The gap timer measures from each tick; subtract the timer's own 5 ms period.
    run.maxStallMs = std::max(0.0, run.maxStallMs - 5.0);
    return run;
}

double median(QList<double> v)
{
    std::sort(v.begin(), v.end());
    return v.isEmpty() ? 0 : v.at(v.size() / 2);
}

} // namespace

int main(int argc, char *argv[])
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Inspector scan benchmark (see docs/benchmarks.md)."));
    parser.addHelpOption();
    parser.addOption({QStringLiteral("keys"), QStringLiteral("Total keys (default 1000000)."),
                      QStringLiteral("n"), QStringLiteral("1000000")});
    parser.addOption({QStringLiteral("locks"), QStringLiteral("Lock keys among them (default 100000)."),
                      QStringLiteral("n"), QStringLiteral("100000")});
    parser.addOption({QStringLiteral("rounds"), QStringLiteral("Alternating rounds (default 3)."),
                      QStringLiteral("n"), QStringLiteral("3")});
    parser.addOption({QStringLiteral("probe-connections"),
                      QStringLiteral("Parallel probe connections of the inspector scan (default 2)."),
                      QStringLiteral("n"), QStringLiteral("2")});
    parser.addOption({QStringLiteral("skip-gui"), QStringLiteral("Skip the GUI-path measurement.")});
    parser.addOption({QStringLiteral("skip-pttl"),
                      QStringLiteral("Skip the `redis-cli --scan` + per-key PTTL peer (the slowest part).")});
    parser.addOption(
        {QStringLiteral("json"), QStringLiteral("End with one JSON line of the figures (for bench/run).")});
    parser.process(app);
    g_probeConnections = parser.value(QStringLiteral("probe-connections")).toInt();
    const qint64 total = parser.value(QStringLiteral("keys")).toLongLong();
    const qint64 lockKeys = parser.value(QStringLiteral("locks")).toLongLong();
    const int rounds = std::max(1, parser.value(QStringLiteral("rounds")).toInt());

    const QString redisCli = QStandardPaths::findExecutable(QStringLiteral("redis-cli"));
    if (redisCli.isEmpty()) {
        std::fprintf(stderr, "redis-cli not found on PATH\n");
        return 1;
    }
    SandboxServer server;
    if (!server.start()) {
        std::fprintf(stderr, "%s\n", qPrintable(server.errorString()));
        return 1;
    }
    RedisConnection admin(server.connectionSettings());
    if (admin.open())
        return 1;
    admin.setCommandTimeout(60000);
    std::printf("building %lld keys with %lld lock keys…\n", total, lockKeys);
    std::fflush(stdout);
    QElapsedTimer fill;
    fill.start();
    Keyspace k;
    if (!BenchKeyspace::build(admin, total, lockKeys, &k))
        return 1;
    const qint64 dbsize = admin.command({"DBSIZE"}).reply.toInteger();
    std::printf("built in %.1f s: DBSIZE %lld, %lld lock keys, %lld locks expected\n",
                double(fill.elapsed()) / 1000, dbsize, k.lockKeys, k.locks);

    ConnectionSettings reader = server.connectionSettings();
    reader.readOnly = true;
    QList<double> cliTimes, scanTimes, firstRows, cliCpu, scanCpu, cliServerCpu, scanServerCpu, pttlTimes;
    const bool withPttl = !parser.isSet(QStringLiteral("skip-pttl"));
    g_serverPid = server.pid();
    ScanRun last;
    const qint64 rssBefore = procStatusKb("VmRSS:");
    resetPeak();
    for (int round = 0; round < rounds; ++round) {
        const ScanRun cli = redisCliScan(redisCli, server.port());
        const ScanRun scan = inspectorScan(reader);
        if (withPttl) {
            pttlTimes << redisCliScanPttl(redisCli, server.port()).seconds;
            std::printf("round %d: redis-cli --scan + PTTL per key %.2f s\n", round + 1, pttlTimes.last());
        }
        cliTimes << cli.seconds;
        scanTimes << scan.seconds;
        firstRows << scan.firstRowsMs;
        last = scan;
        std::printf("round %d: redis-cli --scan %.2f s (cpu %.2f s) · inspector scan + classification %.2f s "
                    "(cpu %.2f s) "
                    "(%.2f×), first rows after %.1f ms, %lld locks in %lld keys\n",
                    round + 1, cli.seconds, cli.cpuSeconds, scan.seconds, scan.cpuSeconds,
                    scan.seconds / cli.seconds, scan.firstRowsMs, scan.locks, scan.scanned);
        cliCpu << cli.cpuSeconds;
        scanCpu << scan.cpuSeconds;
        cliServerCpu << cli.serverCpuSeconds;
        scanServerCpu << scan.serverCpuSeconds;
        std::fflush(stdout);
    }
    const qint64 peakScan = procStatusKb("VmHWM:");
    resetPeak();
    const GuiRun gui = parser.isSet(QStringLiteral("skip-gui")) ? GuiRun {} : guiScan(reader);
    const qint64 peakGui = procStatusKb("VmHWM:");

    const double ratio = median(scanTimes) / median(cliTimes);
    std::printf("\nkeyspace             %lld keys, %lld lock keys, %lld locks (redis %s)\n", dbsize,
                k.lockKeys, k.locks,
                qPrintable(admin.command({"INFO", "server"}).reply.bytes().split('\n').value(1).trimmed()));
    std::printf("redis-cli --scan     median %.2f s over %d rounds\n", median(cliTimes), rounds);
    std::printf(
        "inspector scan       median %.2f s (SCAN COUNT 1000 + TYPE/PTTL round + detail round + classify)\n",
        median(scanTimes));
    std::printf("ratio                %.2f× (target ≤ 2×) %s\n", ratio, ratio <= 2.0 ? "OK" : "OVER");
    if (withPttl)
        std::printf(
            "by hand              redis-cli --scan + PTTL per key: median %.2f s; the inspector takes "
            "%.2f× of it\n",
            median(pttlTimes), median(scanTimes) / median(pttlTimes));
    std::printf(
        "cpu (client+server)  redis-cli %.2f s (server %.2f s) · inspector %.2f s (server %.2f s) (%.2f×)\n",
        median(cliCpu), median(cliServerCpu), median(scanCpu), median(scanServerCpu),
        median(scanCpu) / median(cliCpu));
    double load[3] = {0, 0, 0};
    getloadavg(load, 3);
    std::printf("machine              %ld cpus, load average %.2f while measuring\n",
                sysconf(_SC_NPROCESSORS_ONLN), load[0]);
    std::printf("first rows           median %.1f ms (target < 1000 ms) %s\n", median(firstRows),
                median(firstRows) < 1000 ? "OK" : "OVER");
    std::printf("locks found          %lld of %lld expected %s\n", last.locks, k.locks,
                last.locks == k.locks ? "OK" : "MISMATCH");
    std::printf(
        "memory               RSS before scans %.0f MB; peak during scans %.0f MB (all records kept)\n",
        double(rssBefore) / 1024, double(peakScan) / 1024);
    std::printf(
        "GUI path             %.2f s, first rows after %.1f ms, %d rows in the model behind a sorting proxy, "
        "peak RSS %.0f MB\n",
        gui.seconds, gui.firstRowsMs, gui.rows, double(peakGui) / 1024);
    std::printf("GUI thread           longest page applied in %.1f ms wall, %.1f ms of its own CPU (target < "
                "50 ms) %s; "
                "%.0f ms in all; longest gap between 5 ms timer ticks %.1f ms (includes the OS running other "
                "processes)\n",
                gui.maxHandlerMs, gui.maxHandlerCpuMs, gui.maxHandlerCpuMs < 50 ? "OK" : "OVER",
                gui.totalHandlerMs, gui.maxStallMs);
    if (parser.isSet(QStringLiteral("json"))) {
        QJsonObject json;
        json.insert(QStringLiteral("keys"), double(dbsize));
        json.insert(QStringLiteral("locks_expected"), double(k.locks));
        json.insert(QStringLiteral("locks_found"), double(last.locks));
        json.insert(QStringLiteral("redis_cli_scan_s"), median(cliTimes));
        json.insert(QStringLiteral("lockscope_scan_s"), median(scanTimes));
        json.insert(QStringLiteral("ratio_vs_redis_cli_scan"), ratio);
        if (withPttl) {
            json.insert(QStringLiteral("redis_cli_scan_pttl_s"), median(pttlTimes));
            json.insert(QStringLiteral("ratio_vs_redis_cli_scan_pttl"),
                        median(scanTimes) / median(pttlTimes));
        }
        json.insert(QStringLiteral("cpu_ratio_vs_redis_cli_scan"), median(scanCpu) / median(cliCpu));
        json.insert(QStringLiteral("first_rows_ms"), median(firstRows));
        json.insert(QStringLiteral("peak_rss_mb_scan"), double(peakScan) / 1024);
        json.insert(QStringLiteral("peak_rss_mb_gui_path"), double(peakGui) / 1024);
        json.insert(QStringLiteral("gui_thread_longest_page_cpu_ms"), gui.maxHandlerCpuMs);
        json.insert(QStringLiteral("rounds"), rounds);
        std::printf("%s\n", QJsonDocument(json).toJson(QJsonDocument::Compact).constData());
    }
    server.stop();
    return ratio <= 2.0 && last.locks == k.locks ? 0 : 3;
}
