// Faults done to real processes from outside, as an operator or the kernel would: the server killed with
// SIGKILL mid-simulation and mid-scan and started again, or frozen with SIGSTOP for longer than the command
// timeout. Nothing hangs or crashes, the history keeps what happened before, during and after, the report
// marks the outage, connections come back within a second, and the CLI exits with its documented code.
#include "inspect/lockscanjob.h"
#include "inspect/samplelocks.h"
#include "sandboxfixture.h"
#include "simtestsupport.h"
#include "testsupport.h"

#include <QElapsedTimer>
#include <QProcess>
#include <QTemporaryDir>

using SimTest::parse;

namespace {

// A workload on the given server that keeps every worker busy: short leases, quick retries.
const QByteArray kWorkload = R"({"lockscope_scenario": 1, "id": "fault", "title": "fault",
    "servers": {"mode": "given"},
    "algorithm": {"id": "set-nx-px-lua", "lease_ms": 500, "retry": {"strategy": "fixed", "interval_ms": 10}},
    "workload": {"processes": 2, "threads_per_process": 2, "duration_s": 3,
                 "critical_section": {"distribution": "uniform", "min_ms": 0.5, "max_ms": 2}},
    "resource": {"counter": false}})";

ConnectionSettings shortTimeouts(const SandboxServer &server)
{
    ConnectionSettings s = server.connectionSettings();
    s.commandTimeoutMs = 300;
    s.connectTimeoutMs = 300;
    return s;
}

struct Phases
{
    int okBefore = 0; // acquisitions before the fault
    int failedDuring = 0; // acquire attempts that failed during it (recorded, not lost)
    int okAfter = 0; // acquisitions after the server was back
    qint64 firstOkAfterUs = -1; // run time of the first acquisition after the server was back
};

Phases phasesOf(const Simulation &sim, qint64 faultUs, qint64 backUs)
{
    Phases p;
    for (const HistoryEvent &e : sim.history()->events()) {
        if (e.kind != HistoryEvent::Kind::Acquire || e.phase == HistoryEvent::Phase::Invoke)
            continue;
        if (e.phase == HistoryEvent::Phase::Ok) {
            if (e.timeUs < faultUs)
                ++p.okBefore;
            if (e.timeUs >= backUs) {
                ++p.okAfter;
                if (p.firstOkAfterUs < 0 || e.timeUs < p.firstOkAfterUs)
                    p.firstOkAfterUs = e.timeUs;
            }
        } else if (e.phase == HistoryEvent::Phase::Info && e.timeUs >= faultUs
                   && e.timeUs < backUs + 1000000) {
            ++p.failedDuring;
        }
    }
    return p;
}

qint64 okAcquisitions(const Simulation &sim)
{
    if (!sim.history())
        return 0;
    qint64 n = 0;
    for (const HistoryEvent &e : sim.history()->events())
        n += e.kind == HistoryEvent::Kind::Acquire && e.phase == HistoryEvent::Phase::Ok ? 1 : 0;
    return n;
}

} // namespace

class TestFaultRecovery : public QObject
{
    Q_OBJECT
private slots:
    void simulationSurvivesKillAndRestart();
    void simulationSurvivesSigstopLongerThanTheTimeout();
    void scanSurvivesKillAndTheNextScanWorks();
    void scanOnAFrozenServerTimesOut();
    void cliInspectKilledMidScanExitsOne();
    void cliOnAFrozenServerTimesOutAndExitsOne();
    void cliSimulateWhoseServerDiesExitsOne();
};

void TestFaultRecovery::simulationSurvivesKillAndRestart()
{
    SandboxServer server;
    LS_START(server);
    Simulation::Options options;
    ConnectionSettings s = shortTimeouts(server);
    s.readOnly = false;
    options.server = s;
    Simulation sim(parse(kWorkload), options);
    sim.start();
    QTRY_VERIFY_WITH_TIMEOUT(okAcquisitions(sim) > 20, 10000);

    const qint64 killedUs = sim.elapsedUs();
    server.kill(); // SIGKILL: no goodbye to the clients
    // Stay down long enough for every worker to fail several times (their timeouts are 300 ms).
    QTRY_VERIFY_WITH_TIMEOUT(sim.elapsedUs() - killedUs > 600000, 5000);
    QVERIFY2(server.start(), qPrintable(server.errorString()));
    const qint64 backUs = sim.elapsedUs();

    QVERIFY(sim.waitFinished(30000));
    QCOMPARE(sim.state(), Simulation::State::Finished);
    const RunReport report = sim.report();
    const Phases p = phasesOf(sim, killedUs, backUs);
    QVERIFY2(p.okBefore > 0 && p.failedDuring > 0 && p.okAfter > 0,
             qPrintable(QStringLiteral("before %1, during %2, after %3")
                            .arg(p.okBefore)
                            .arg(p.failedDuring)
                            .arg(p.okAfter)));
    // The workers were back at work within a second of the server's return.
    QVERIFY2(p.firstOkAfterUs - backUs < 1000000,
             qPrintable(QStringLiteral("first acquisition %1 ms after the server came back")
                            .arg((p.firstOkAfterUs - backUs) / 1000)));
    QCOMPARE(report.historyDropped, 0);
    // The report marks the outage nobody scheduled, with what the workers saw.
    const QString outages = report.outages.join(u'\n');
    QVERIFY2(outages.contains(QLatin1String("servers unreachable from")), qPrintable(report.summaryText()));
    QVERIFY2(outages.contains(QString::number(server.port())), qPrintable(outages));
    QVERIFY(report.summaryText().contains(QLatin1String("outage:")));
    qInfo("kill -9 at %.2f s, back at %.2f s, first acquisition %.0f ms later; %d/%d/%d acquisitions "
          "before/failed during/after",
          double(killedUs) / 1e6, double(backUs) / 1e6, double(p.firstOkAfterUs - backUs) / 1e3, p.okBefore,
          p.failedDuring, p.okAfter);
}

void TestFaultRecovery::simulationSurvivesSigstopLongerThanTheTimeout()
{
    SandboxServer server;
    LS_START(server);
    Simulation::Options options;
    ConnectionSettings s = shortTimeouts(server);
    s.readOnly = false;
    options.server = s;
    Scenario scenario = parse(kWorkload);
    scenario.workload.durationS = 2.5;
    Simulation sim(scenario, options);
    QElapsedTimer wall;
    wall.start();
    sim.start();
    QTRY_VERIFY_WITH_TIMEOUT(okAcquisitions(sim) > 20, 10000);
    const qint64 frozenUs = sim.elapsedUs();
    QVERIFY(server.pause()); // three times the command timeout
    QTRY_VERIFY_WITH_TIMEOUT(sim.elapsedUs() - frozenUs > 900000, 5000);
    QVERIFY(server.resume());
    const qint64 backUs = sim.elapsedUs();
    QVERIFY(sim.waitFinished(30000));
    QCOMPARE(sim.state(), Simulation::State::Finished);
    // Timeouts, not hangs: the run ends on plan (plus the stop's own timeouts), not minutes later.
    QVERIFY2(wall.elapsed() < 15000, qPrintable(QString::number(wall.elapsed())));
    const Phases p = phasesOf(sim, frozenUs, backUs);
    QVERIFY2(p.okBefore > 0 && p.failedDuring > 0 && p.okAfter > 0,
             qPrintable(QStringLiteral("before %1, during %2, after %3")
                            .arg(p.okBefore)
                            .arg(p.failedDuring)
                            .arg(p.okAfter)));
    QVERIFY2(p.firstOkAfterUs - backUs < 1000000, qPrintable(QString::number(p.firstOkAfterUs - backUs)));
    const QString outages = sim.report().outages.join(u'\n');
    QVERIFY2(outages.contains(QLatin1String("within 300 ms")), qPrintable(outages));
    qInfo("SIGSTOP at %.2f s for %.2f s (timeout 300 ms), first acquisition %.0f ms after SIGCONT; %d/%d/%d "
          "acquisitions before/failed during/after; run took %lld ms for 2.5 s planned",
          double(frozenUs) / 1e6, double(backUs - frozenUs) / 1e6, double(p.firstOkAfterUs - backUs) / 1e3,
          p.okBefore, p.failedDuring, p.okAfter, wall.elapsed());
}

void TestFaultRecovery::scanSurvivesKillAndTheNextScanWorks()
{
    SandboxFixture server;
    LS_SANDBOX_FILLED(server, 3000);
    RedisConnection viewer(shortTimeouts(server));
    LS_OPEN(viewer);
    ScanOptions options;
    options.count = 50;
    {
        LockScanJob job(viewer, options);
        job.nextPage();
        QVERIFY(!job.atEnd());
        server.kill();
        for (int guard = 0; !job.atEnd() && guard < 1000; ++guard)
            job.nextPage();
        QVERIFY(job.atEnd());
        QVERIFY(job.error().breaksConnection());
        QVERIFY2(job.error().message().contains(QString::number(server.port())),
                 qPrintable(job.error().message()));
    }
    QVERIFY2(server.start(), qPrintable(server.errorString()));
    QElapsedTimer back;
    back.start();
    {
        RedisConnection admin(server.connectionSettings());
        LS_OPEN(admin);
        QVERIFY(SampleLocks::plainLock(admin, "lock:after", "owner", 60000));
    }
    // The same connection object scans again: it reconnects by itself.
    LockScanJob again(viewer, options);
    QList<LockRecord> found;
    for (int guard = 0; !again.atEnd() && guard < 1000; ++guard)
        found << again.nextPage();
    QVERIFY2(!again.error(), qPrintable(again.error().message()));
    QCOMPARE(found.size(), 1);
    QVERIFY2(back.elapsed() < 1000, qPrintable(QString::number(back.elapsed())));
}

void TestFaultRecovery::scanOnAFrozenServerTimesOut()
{
    SandboxFixture server;
    LS_SANDBOX_FILLED(server, 2000);
    RedisConnection viewer(shortTimeouts(server));
    LS_OPEN(viewer);
    ScanOptions options;
    options.count = 50;
    LockScanJob job(viewer, options);
    job.nextPage();
    QVERIFY(server.pause());
    QElapsedTimer timer;
    timer.start();
    for (int guard = 0; !job.atEnd() && guard < 1000; ++guard)
        job.nextPage();
    const qint64 took = timer.elapsed();
    QVERIFY(server.resume());
    QCOMPARE(job.error().code(), RedisError::Code::Timeout);
    QVERIFY2(took < 5000, qPrintable(QString::number(took))); // a few timeouts, not a hang
    // Resumed: the connection reopens and answers.
    QVERIFY(viewer.command({"PING"}).ok());
}

void TestFaultRecovery::cliInspectKilledMidScanExitsOne()
{
    SandboxFixture server;
    LS_SANDBOX_FILLED(server, 60000);
    RedisConnection &admin = server.admin();
    QProcess cli;
    cli.start(
        TestSupport::cliPath(),
        {"inspect", "--port", QString::number(server.port()), "--count", "5", "--timeout", "300", "--json"});
    QVERIFY(cli.waitForStarted());
    // Kill the server once the CLI is a few pages into the scan.
    QTRY_VERIFY_WITH_TIMEOUT(TestSupport::commandCalls(admin, "scan") > 5, 10000);
    server.kill();
    QVERIFY2(cli.waitForFinished(15000), "lockscope-cli inspect hung on a dead server");
    QCOMPARE(cli.exitStatus(), QProcess::NormalExit);
    const QString err = QString::fromUtf8(cli.readAllStandardError());
    QVERIFY2(cli.exitCode() == 1, qPrintable(QString::number(cli.exitCode()) + err));
    QVERIFY2(err.contains(QString::number(server.port())), qPrintable(err));
    QVERIFY2(err.count(u'\n') <= 3, qPrintable(err)); // one clear message, not a flood
}

void TestFaultRecovery::cliOnAFrozenServerTimesOutAndExitsOne()
{
    SandboxServer server;
    LS_START(server);
    QVERIFY(server.pause());
    for (const QString &command : {QStringLiteral("ping"), QStringLiteral("inspect")}) {
        QElapsedTimer timer;
        timer.start();
        const auto r = TestSupport::run(TestSupport::cliPath(),
                                        {command, "--port", QString::number(server.port()), "--timeout",
                                         "300", "--connect-timeout", "300"},
                                        QProcessEnvironment::systemEnvironment(), 15000);
        QVERIFY2(r.finished, qPrintable(command + QStringLiteral(" hung on a frozen server")));
        QVERIFY2(r.exitCode == 1, qPrintable(QString::number(r.exitCode) + r.err));
        QVERIFY2(r.err.contains(QLatin1String("300 ms")), qPrintable(r.err));
    }
    QVERIFY(server.resume());
    const auto r
        = TestSupport::run(TestSupport::cliPath(), {"ping", "--port", QString::number(server.port())});
    QCOMPARE(r.exitCode, 0);
}

void TestFaultRecovery::cliSimulateWhoseServerDiesExitsOne()
{
    SandboxFixture server;
    LS_SANDBOX(server);
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("fault.json"));
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(kWorkload);
    f.close();
    RedisConnection &admin = server.admin();
    QProcess cli;
    cli.start(TestSupport::cliPath(),
              {"simulate", path, "--port", QString::number(server.port()), "--read-write", "--timeout", "300",
               "--connect-timeout", "300", "--duration", "2", "--json", "-"});
    QVERIFY(cli.waitForStarted());
    QTRY_VERIFY_WITH_TIMEOUT(
        TestSupport::commandCalls(admin, "evalsha") + TestSupport::commandCalls(admin, "set") > 50, 10000);
    server.kill(); // and it does not come back
    QVERIFY2(cli.waitForFinished(30000), "lockscope-cli simulate hung on a dead server");
    const QString err = QString::fromUtf8(cli.readAllStandardError());
    const QString out = QString::fromUtf8(cli.readAllStandardOutput());
    QVERIFY2(cli.exitCode() == 1, qPrintable(QString::number(cli.exitCode()) + err + out));
    QVERIFY2(err.contains(QString::number(server.port())), qPrintable(err));
    // The report is still written, with the outage in it: nothing recorded is lost.
    QVERIFY2(out.contains(QLatin1String("servers unreachable from")), qPrintable(out.left(2000)));
}

QTEST_GUILESS_MAIN(TestFaultRecovery)
#include "tst_faultrecovery.moc"
