// `lockscope-cli serve --max-commands-per-second`: what the server itself counts (INFO commandstats deltas over
// a measured window, no MONITOR) stays under the cap with a margin, the exported gauges say so and agree with
// it, a log line says the cap makes passes longer, no cap means today's rate, and scrapes of every lock's
// series while polling goes on do not stop polling.
#include "inspect/samplelocks.h"
#include "metricstext.h"
#include "processready.h"
#include "testsupport.h"

#include <QElapsedTimer>
#include <QEventLoop>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QProcess>
#include <QRegularExpression>
#include <QTcpSocket>
#include <QTimer>

#include <cmath>
#include <csignal>

namespace {

constexpr int kPlainLocks = 1500;
constexpr int kRedissonLocks = 300;
constexpr int kLocks = kPlainLocks + kRedissonLocks;
constexpr int kCap = 120;

} // namespace

class TestServeBudget : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void capIsHonouredAndExported();
    void noCapKeepsTheOldRate();

private:
    QString startServe(QProcess &serve, const QStringList &arguments);
    QList<MetricSample> scrape(const QString &url, double *seconds = nullptr);
    // Every command the server executed so far (INFO commandstats), minus the INFO calls made to ask.
    qint64 serverCommands();
    // Commands per second the server executed over `ms` (the event loop runs meanwhile; `during` is called
    // repeatedly while it waits, e.g. to scrape).
    double serverRate(int ms, const std::function<void()> &during = {});
    // Waits until serve's first scan ended and its commands per second were measured once.
    bool waitMeasured(const QString &url);
    static void stop(QProcess &serve);

    SandboxServer m_server;
    std::unique_ptr<RedisConnection> m_admin;
    QNetworkAccessManager m_http;
    qint64 m_infoCalls = 0;
};

void TestServeBudget::initTestCase()
{
    QVERIFY(QFileInfo(TestSupport::cliPath()).isExecutable());
    LS_START(m_server);
    m_admin = std::make_unique<RedisConnection>(m_server.connectionSettings());
    LS_OPEN(*m_admin);
    QVERIFY(TestSupport::writePlainLocks(*m_admin, kPlainLocks));
    const QByteArray client = SampleLocks::redissonClientId();
    for (int i = 0; i < kRedissonLocks; ++i)
        QVERIFY(SampleLocks::redissonLock(*m_admin, "inventory:" + QByteArray::number(i), client, 1, 600000));
}

QString TestServeBudget::startServe(QProcess &serve, const QStringList &arguments)
{
    QRegularExpressionMatch m;
    QByteArray log;
    if (!ProcessReady::start(serve, TestSupport::cliPath(),
                             QStringList {"serve", "--listen", "127.0.0.1:0", "--port",
                                          QString::number(m_server.port())}
                                 + arguments,
                             QRegularExpression(QStringLiteral("serving (http://127\\.0\\.0\\.1:\\d+)/metrics")),
                             QProcessEnvironment::systemEnvironment(), &m, &log, 20000))
        return {};
    return m.captured(1);
}

QList<MetricSample> TestServeBudget::scrape(const QString &url, double *seconds)
{
    QElapsedTimer t;
    t.start();
    QNetworkReply *reply = m_http.get(QNetworkRequest(QUrl(url + "/metrics")));
    QEventLoop loop;
    connect(reply, &QNetworkReply::finished, &loop, &QEventLoop::quit);
    QTimer::singleShot(15000, &loop, &QEventLoop::quit);
    loop.exec();
    if (seconds)
        *seconds = double(t.nsecsElapsed()) / 1e9;
    const QByteArray body = reply->readAll();
    reply->deleteLater();
    return MetricsText::parse(body);
}

qint64 TestServeBudget::serverCommands()
{
    const RedisResult info = m_admin->command({"INFO", "commandstats"});
    ++m_infoCalls;
    static const QRegularExpression calls(QStringLiteral("calls=(\\d+)"));
    qint64 total = 0;
    auto it = calls.globalMatch(QString::fromLatin1(info.reply.bytes()));
    while (it.hasNext())
        total += it.next().captured(1).toLongLong();
    return total - m_infoCalls;
}

double TestServeBudget::serverRate(int ms, const std::function<void()> &during)
{
    const qint64 before = serverCommands();
    QElapsedTimer t;
    t.start();
    while (t.elapsed() < ms) {
        if (during)
            during();
        else
            QTest::qWait(100);
    }
    return double(serverCommands() - before) * 1000.0 / double(t.elapsed());
}

bool TestServeBudget::waitMeasured(const QString &url)
{
    QElapsedTimer t;
    t.start();
    while (t.elapsed() < 30000) {
        const QList<MetricSample> s = scrape(url);
        if (MetricsText::value(s, "lockscope_scans_total", {{"result", "complete"}}) >= 1
            && !MetricsText::find(s, "lockscope_poll_commands_per_second").isEmpty())
            return true;
        QTest::qWait(250);
    }
    return false;
}

void TestServeBudget::stop(QProcess &serve)
{
    ::kill(pid_t(serve.processId()), SIGTERM);
    QVERIFY(serve.waitForFinished(15000));
    QCOMPARE(serve.exitCode(), 0);
}

void TestServeBudget::capIsHonouredAndExported()
{
    QProcess serve;
    const QString url = startServe(
        serve, {"--max-commands-per-second", QString::number(kCap), "--max-lock-series", QString::number(kLocks)});
    QVERIFY(!url.isEmpty());
    QVERIFY(waitMeasured(url));
    QTest::qWait(5000); // the batch settles on what a lock costs here (one 5 s window)

    // The next rescan is 30 s after the first: these windows see polls only (checked below).
    const double scansBefore = MetricsText::value(scrape(url), "lockscope_scans_total", {{"result", "complete"}});
    const double rate = serverRate(8000);
    qInfo("capped at %d: the server executed %.1f commands/s", kCap, rate);
    QVERIFY2(rate <= kCap * 1.5, qPrintable(QString::number(rate)));
    QVERIFY2(rate >= kCap * 0.3, qPrintable(QString::number(rate))); // polling goes on

    const QList<MetricSample> s = scrape(url);
    QCOMPARE(MetricsText::value(s, "lockscope_poll_max_commands_per_second"), double(kCap));
    QCOMPARE(MetricsText::value(s, "lockscope_poll_budget_limited"), 1.0);
    const double measured = MetricsText::value(s, "lockscope_poll_commands_per_second");
    QVERIFY2(measured >= rate / 2 && measured <= rate * 2,
             qPrintable(QStringLiteral("exported %1, server counted %2").arg(measured).arg(rate)));
    const double perRound = MetricsText::value(s, "lockscope_poll_locks_per_round");
    QVERIFY2(perRound >= 1 && perRound < kLocks / 4.0, qPrintable(QString::number(perRound)));
    double locks = 0;
    for (const MetricSample &l : MetricsText::find(s, "lockscope_locks"))
        locks += l.value;
    QCOMPARE(locks, double(kLocks));
    QCOMPARE(MetricsText::value(s, "lockscope_poll_pass_seconds"), std::ceil(locks / perRound));

    // Scrapes of every lock's series back to back: polling goes on meanwhile.
    int scrapes = 0;
    double slowest = 0;
    const double scraped = serverRate(6000, [&] {
        double seconds = 0;
        QVERIFY(!scrape(url, &seconds).isEmpty());
        slowest = std::max(slowest, seconds);
        ++scrapes;
    });
    qInfo("while scraping %d series (%d scrapes, the slowest %.3f s): %.1f commands/s", kLocks, scrapes, slowest,
          scraped);
    QVERIFY(scrapes >= 3);
    QVERIFY2(scraped >= rate * 0.5 && scraped <= kCap * 1.5, qPrintable(QString::number(scraped)));
    QCOMPARE(MetricsText::value(scrape(url), "lockscope_scans_total", {{"result", "complete"}}), scansBefore);

    // Clients that leave while their answer is being written on the writer thread: the late answers are
    // dropped, and serve goes on answering.
    const QUrl parsed(url);
    for (int i = 0; i < 10; ++i) {
        QTcpSocket leaver;
        leaver.connectToHost(QStringLiteral("127.0.0.1"), quint16(parsed.port()));
        QVERIFY(leaver.waitForConnected(5000));
        leaver.write("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
        QVERIFY(leaver.waitForBytesWritten(5000));
        QTest::qWait(i * 3); // some leave before the snapshot, some while the text is written
        leaver.abort();
    }
    QCOMPARE(MetricsText::value(scrape(url), "lockscope_poll_max_commands_per_second"), double(kCap));
    QCOMPARE(serve.state(), QProcess::Running);

    stop(serve);
    const QByteArray log = serve.readAllStandardError();
    QVERIFY2(log.contains("polling is capped at 120 commands/s"), log.constData());
    QCOMPARE(log.count("polling is capped"), 1); // once, not at every poll
}

void TestServeBudget::noCapKeepsTheOldRate()
{
    QProcess serve;
    const QString url = startServe(serve, {"--max-commands-per-second", "0"});
    QVERIFY(!url.isEmpty());
    QVERIFY(waitMeasured(url));
    const double rate = serverRate(5000);
    qInfo("no cap: the server executed %.1f commands/s", rate);
    QVERIFY2(rate > kCap * 2.5, qPrintable(QString::number(rate))); // 200 locks per poll
    const QList<MetricSample> s = scrape(url);
    QVERIFY(MetricsText::find(s, "lockscope_poll_max_commands_per_second").isEmpty());
    QCOMPARE(MetricsText::value(s, "lockscope_poll_budget_limited"), 0.0);
    QCOMPARE(MetricsText::value(s, "lockscope_poll_locks_per_round"), 200.0);
    stop(serve);
}

QTEST_GUILESS_MAIN(TestServeBudget)
#include "tst_servebudget.moc"
