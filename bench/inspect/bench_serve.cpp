// bench_serve: `lockscope-cli serve` on the benchmarks' keyspace (1,000,000 keys, 100,000 lock keys): how
// long GET /metrics takes at the default series limit, how much memory the exporter holds, how many commands
// per second it sends per 1,000 locks once the first scan is done (polling, then with keyspace
// notifications), and how much other clients feel it: bench_scanimpact's probe (its own process) sends a GET
// every millisecond throughout, and its p99 in each phase is compared with idle. See docs/benchmarks.md.
#include "benchkeyspace.h"
#include "redis/redisconnection.h"
#include "redis/sandboxserver.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QProcess>
#include <QRegularExpression>
#include <QThread>
#include <QTimer>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <vector>

namespace {

qint64 nowNs()
{
    timespec t {};
    clock_gettime(CLOCK_MONOTONIC, &t); // the probe's clock too
    return qint64(t.tv_sec) * 1'000'000'000 + t.tv_nsec;
}

struct Phase
{
    QString name;
    qint64 startNs = 0, endNs = 0;
};

struct Scrape
{
    double seconds = -1;
    QByteArray body;
};

Scrape scrape(QNetworkAccessManager &http, const QString &url)
{
    QElapsedTimer t;
    t.start();
    QNetworkReply *reply = http.get(QNetworkRequest(QUrl(url)));
    QEventLoop loop;
    QObject::connect(reply, &QNetworkReply::finished, &loop, &QEventLoop::quit);
    QTimer::singleShot(60000, &loop, &QEventLoop::quit);
    loop.exec();
    Scrape s;
    if (reply->isFinished() && reply->error() == QNetworkReply::NoError) {
        s.body = reply->readAll();
        s.seconds = double(t.nsecsElapsed()) / 1e9;
    }
    reply->deleteLater();
    return s;
}

// The value of the first sample of `name` in a metrics text, or -1.
double valueOf(const QByteArray &body, const QByteArray &name)
{
    for (const QByteArray &line : body.split('\n')) {
        if (line.startsWith(name + '{') || line.startsWith(name + ' '))
            return line.mid(line.lastIndexOf(' ') + 1).toDouble();
    }
    return -1;
}

QByteArray procStatus(qint64 pid, const QByteArray &field)
{
    QFile f(QStringLiteral("/proc/%1/status").arg(pid));
    if (!f.open(QIODevice::ReadOnly))
        return "?";
    for (const QByteArray &line : f.readAll().split('\n')) {
        if (line.startsWith(field + ':'))
            return line.mid(field.size() + 1).simplified();
    }
    return "?";
}

double percentile(std::vector<double> v, double p)
{
    if (v.empty())
        return 0;
    std::sort(v.begin(), v.end());
    return v[std::min(v.size() - 1, size_t(p * double(v.size() - 1) + 0.5))];
}

void sleepS(double seconds)
{
    QElapsedTimer t;
    t.start();
    while (t.elapsed() < qint64(seconds * 1000)) {
        QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
        QThread::msleep(20);
    }
}

// One run of serve on the server: until its first scan completes, then `steadyS` seconds of following,
// scraped every 2 s. Prints what it saw; appends its phases.
bool follow(const QString &cli, int port, qint64 locks, double steadyS, const QString &label,
            QList<Phase> *phases)
{
    QProcess serve;
    serve.setProcessChannelMode(QProcess::SeparateChannels);
    serve.start(cli, {"serve", "--port", QString::number(port), "--listen", "127.0.0.1:0"});
    if (!serve.waitForStarted()) {
        std::fprintf(stderr, "cannot start %s\n", qPrintable(cli));
        return false;
    }
    const qint64 scanStart = nowNs();
    QByteArray err;
    QString url;
    const QRegularExpression serving(QStringLiteral("serving (http://127\\.0\\.0\\.1:\\d+/metrics)"));
    while (url.isEmpty() && serve.state() == QProcess::Running && nowNs() - scanStart < 30'000'000'000) {
        serve.waitForReadyRead(200);
        err += serve.readAllStandardError();
        url = serving.match(QString::fromUtf8(err)).captured(1);
    }
    if (url.isEmpty()) {
        std::fprintf(stderr, "serve did not start: %s\n", err.constData());
        return false;
    }
    QNetworkAccessManager http;
    Scrape s;
    do {
        sleepS(0.5);
        s = scrape(http, url);
    } while (valueOf(s.body, "lockscope_scan_complete") != 1 && nowNs() - scanStart < 600'000'000'000);
    const qint64 scanEnd = nowNs();
    phases->append({label + ": first scan", scanStart, scanEnd});
    std::printf(
        "%s: first scan done in %.1f s (as serve reports: %.1f s, %.0f keys), RSS %s\n", qPrintable(label),
        double(scanEnd - scanStart) / 1e9, valueOf(s.body, "lockscope_scan_duration_seconds"),
        valueOf(s.body, "lockscope_scan_keys_scanned"), procStatus(serve.processId(), "VmRSS").constData());

    const double commandsBefore = valueOf(s.body, "lockscope_commands_sent_total");
    const qint64 steadyStart = nowNs();
    std::vector<double> times;
    while (nowNs() - steadyStart < qint64(steadyS * 1e9)) {
        sleepS(2);
        s = scrape(http, url);
        if (s.seconds >= 0)
            times.push_back(s.seconds);
    }
    const qint64 steadyEnd = nowNs();
    phases->append({label + ": following", steadyStart, steadyEnd});
    const double commands = valueOf(s.body, "lockscope_commands_sent_total") - commandsBefore;
    const double perS = commands / (double(steadyEnd - steadyStart) / 1e9);
    const double lockSeries = double(s.body.count("\nlockscope_lock_ttl_seconds{"));
    std::printf("%s: GET /metrics median %.3f s, max %.3f s over %zu scrapes; %lld bytes, %lld lines, %.0f "
                "locks with a TTL series, %.0f left out; notifications %s\n",
                qPrintable(label), percentile(times, 0.5), percentile(times, 1.0), times.size(),
                qint64(s.body.size()), qint64(s.body.count('\n')), lockSeries,
                valueOf(s.body, "lockscope_locks_not_exported"),
                valueOf(s.body, "lockscope_notifications_flowing") == 1 ? "flowing" : "off (polling)");
    std::printf("%s: %.0f commands/s while following %lld locks = %.1f commands/s per 1,000 locks; serve's "
                "memory: RSS %s, peak %s\n",
                qPrintable(label), perS, locks, perS / (double(locks) / 1000.0),
                procStatus(serve.processId(), "VmRSS").constData(),
                procStatus(serve.processId(), "VmHWM").constData());
    serve.terminate();
    serve.waitForFinished(10000);
    return true;
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parser.addHelpOption();
    parser.addOptions({
        {QStringLiteral("keys"), QStringLiteral("Keys in all (default 1000000)."), QStringLiteral("n"),
         QStringLiteral("1000000")},
        {QStringLiteral("lock-keys"), QStringLiteral("Lock keys among them (default 100000)."),
         QStringLiteral("n"), QStringLiteral("100000")},
        {QStringLiteral("steady"), QStringLiteral("Seconds of following after each first scan (default 30)."),
         QStringLiteral("s"), QStringLiteral("30")},
        {QStringLiteral("idle"), QStringLiteral("Seconds of idle probing first (default 10)."),
         QStringLiteral("s"), QStringLiteral("10")},
        {QStringLiteral("cli"), QStringLiteral("lockscope-cli (default: the build tree's)."),
         QStringLiteral("path")},
    });
    parser.process(app);
    const QString dir = QCoreApplication::applicationDirPath();
    const QString cli = parser.isSet(QStringLiteral("cli"))
        ? parser.value(QStringLiteral("cli"))
        : dir + QStringLiteral("/../../src/cli/lockscope-cli");
    const double steadyS = parser.value(QStringLiteral("steady")).toDouble();

    SandboxServer server;
    if (!server.start()) {
        std::fprintf(stderr, "%s\n", qPrintable(server.errorString()));
        return 1;
    }
    RedisConnection admin(server.connectionSettings());
    if (const RedisError e = admin.open()) {
        std::fprintf(stderr, "%s\n", qPrintable(e.message()));
        return 1;
    }
    Keyspace keyspace;
    if (!BenchKeyspace::build(admin, parser.value(QStringLiteral("keys")).toLongLong(),
                              parser.value(QStringLiteral("lock-keys")).toLongLong(), &keyspace))
        return 1;
    std::printf("keyspace: %lld keys, %lld lock keys, %lld locks\n", keyspace.keys, keyspace.lockKeys,
                keyspace.locks);

    QProcess probe;
    probe.start(dir + QStringLiteral("/bench_scanimpact"),
                {"--probe", QString::number(server.port()), "--interval-us", "1000"});
    if (!probe.waitForStarted()) {
        std::fprintf(stderr, "cannot start the probe (bench_scanimpact): %s\n",
                     qPrintable(probe.errorString()));
        return 1;
    }
    sleepS(1);
    QList<Phase> phases;
    const qint64 idleStart = nowNs();
    sleepS(parser.value(QStringLiteral("idle")).toDouble());
    phases.append({QStringLiteral("idle"), idleStart, nowNs()});

    bool ok = follow(cli, server.port(), keyspace.locks, steadyS, QStringLiteral("polling"), &phases);
    admin.command({"CONFIG", "SET", "notify-keyspace-events", "KEA"});
    ok = ok && follow(cli, server.port(), keyspace.locks, steadyS, QStringLiteral("notifications"), &phases);

    probe.closeWriteChannel();
    probe.waitForFinished(-1);
    std::vector<std::pair<qint64, double>> samples; // sent ns, latency µs
    for (const QByteArray &line : probe.readAllStandardOutput().split('\n')) {
        const QList<QByteArray> f = line.split(' ');
        if (f.size() == 3)
            samples.push_back(
                {f.at(1).toLongLong(), double(f.at(2).toLongLong() - f.at(1).toLongLong()) / 1e3});
    }
    double idleP99 = 0;
    std::printf("\n%-28s %8s %8s %8s %10s\n", "probe GET latency (µs)", "p50", "p99", "max", "p99÷idle");
    for (const Phase &p : std::as_const(phases)) {
        std::vector<double> v;
        for (const auto &[sent, us] : samples) {
            if (sent >= p.startNs && sent < p.endNs)
                v.push_back(us);
        }
        const double p99 = percentile(v, 0.99);
        if (p.name == QLatin1String("idle"))
            idleP99 = p99;
        std::printf("%-28s %8.0f %8.0f %8.0f %9.2f×\n", qPrintable(p.name), percentile(v, 0.5), p99,
                    percentile(v, 1.0), idleP99 > 0 ? p99 / idleP99 : 0.0);
    }
    return ok ? 0 : 1;
}
