// Simulation against real sandbox servers: workloads, faults, stories, given servers, stopping, export.
#include "sim/historycsv.h"
#include "sim/simulationrunner.h"
#include "simtestsupport.h"
#include "testsupport.h"
#include "sandboxfixture.h"

#include <QBuffer>
#include <QDeadlineTimer>

class TestSimulation : public QObject
{
    Q_OBJECT
private slots:
    void safeWorkloadKeepsTheCounterExact();
    void withoutTheHistoryTheWorkersStillCount();
    void noLockLosesUpdates();
    void pauseStopsTheWholeProcess_data();
    void pauseStopsTheWholeProcess();
    void crashLeavesTheLockUntilItsLeaseEnds();
    void aLeaseThatRanOutIsCountedAndADeadProcessIsNotResumed();
    void givenReadOnlyServerIsRefused();
    void givenServerKeepsOtherKeysAndTheCounter();
    void scenarioNeedingSandboxesRefusesAGivenServer();
    void stopEndsARunEarly();
    void serverRestartMidRunIsSurvived();
    void storySnapshotsShowTheKeysAtEachNarratedStep();
    void historyExportsAsCsv();
    void variantsAreJudgedTogether();
    void eventEngineRunsManyWorkersOnFewThreads();
    void fibersOfALoopShareItsLog();
};

using SimTest::parse;
using SimTest::runToEnd;

static const QByteArray kWorkload = R"({"lockscope_scenario": 1, "id": "t", "title": "t",
    "algorithm": {"id": "set-nx-px-lua", "lease_ms": 2000, "retry": {"strategy": "fixed", "interval_ms": 2}},
    "workload": {"processes": 2, "threads_per_process": 2, "duration_s": 0.8,
                 "critical_section": {"distribution": "uniform", "min_ms": 0.2, "max_ms": 1}},
    "resource": {"counter": true, "counter_initial": 10000}})";

void TestSimulation::safeWorkloadKeepsTheCounterExact()
{
    Simulation sim(parse(kWorkload));
    const RunReport r = runToEnd(sim);
    QCOMPARE(sim.state(), Simulation::State::Finished);
    QVERIFY2(r.metrics.acquisitions > 20, qPrintable(r.summaryText()));
    QCOMPARE(r.safety.violations(), 0);
    QVERIFY(r.safety.counterObserved);
    QCOMPARE(r.safety.counterActual, r.safety.counterExpected);
    QCOMPARE(r.safety.counterExpected, 10000 - r.metrics.cycles);
    qint64 perWorker = 0;
    for (qint64 n : r.metrics.acquisitionsPerWorker)
        perWorker += n;
    QCOMPARE(perWorker, r.metrics.acquisitions);
    QCOMPARE(r.historyDropped, 0);
    QCOMPARE(sim.workerNames(), (QStringList {"P1-T1", "P1-T2", "P2-T1", "P2-T2"}));
    QVERIFY(r.metrics.commandsPerAcquisition >= 1.0);
    // The workers count their commands themselves too (a run without the history has only that count).
    QCOMPARE(r.countedCommands, r.metrics.commands);
}

// What a benchmark compares a run without the history with: cycles and commands the workers counted.
void TestSimulation::withoutTheHistoryTheWorkersStillCount()
{
    Simulation::Options options;
    options.recordHistory = false;
    Simulation sim(parse(kWorkload), options);
    const RunReport r = runToEnd(sim);
    QCOMPARE(sim.state(), Simulation::State::Finished);
    QCOMPARE(r.metrics.acquisitions, 0); // nothing recorded to count from
    QVERIFY2(r.countedCycles > 20, qPrintable(r.summaryText()));
    // At least the lock's SET and the release's EVAL per cycle; more when an attempt fails.
    QVERIFY2(r.countedCommands >= 2 * r.countedCycles,
             qPrintable(QStringLiteral("%1 commands, %2 cycles").arg(r.countedCommands).arg(r.countedCycles)));
}

void TestSimulation::noLockLosesUpdates()
{
    Scenario s = parse(kWorkload);
    s.algorithm.id = QStringLiteral("none");
    s.workload.criticalSection.distribution = Scenario::CriticalSection::Distribution::Fixed;
    s.workload.criticalSection.ms = 1;
    Simulation sim(s);
    const RunReport r = runToEnd(sim);
    QVERIFY(r.safety.counterObserved);
    QVERIFY2(r.safety.lostUpdates > 0, qPrintable(r.summaryText()));
    QVERIFY(r.safety.overlaps > 0);
    QCOMPARE(r.safety.foreignReleases, 0); // there is no lock to delete
    QCOMPARE(r.safety.counterExpected - r.safety.counterActual, -qint64(r.safety.lostUpdates));
}

void TestSimulation::pauseStopsTheWholeProcess_data()
{
    QTest::addColumn<Scenario::Workload::Engine>("engine");
    QTest::newRow("threads") << Scenario::Workload::Engine::Threads;
    // On fibers the two processes share the event loops: a pause that blocked a loop's thread instead of
    // parking the paused process's fibers would stop the other process too.
    QTest::newRow("events") << Scenario::Workload::Engine::Events;
}

void TestSimulation::pauseStopsTheWholeProcess()
{
    QFETCH(Scenario::Workload::Engine, engine);
    Scenario s = parse(kWorkload);
    s.workload.engine = engine;
    // A lease shorter than the pause: if process 0 is paused holding the lock, process 1 takes it once
    // the lease ends, so it has work to record inside the pause either way.
    s.algorithm.leaseMs = 100;
    Scenario::Fault pause;
    pause.type = Scenario::Fault::Type::Pause;
    pause.atMs = 200;
    pause.durationMs = 300;
    pause.process = 0;
    s.faults << pause;
    Simulation sim(s);
    runToEnd(sim);
    const QList<HistoryEvent> events = sim.history()->events();
    qint64 pauseStart = -1, pauseEnd = -1;
    for (const HistoryEvent &e : events) {
        if (e.kind == HistoryEvent::Kind::Fault && e.outcome == quint8(HistoryEvent::FaultType::PauseStart))
            pauseStart = e.timeUs;
        if (e.kind == HistoryEvent::Kind::Fault && e.outcome == quint8(HistoryEvent::FaultType::PauseEnd))
            pauseEnd = e.timeUs;
    }
    QVERIFY(pauseStart > 0 && pauseEnd > pauseStart);
    QVERIFY(pauseEnd - pauseStart >= 300000);
    // Stop-the-world: process 0's threads record nothing between the pause's start and its end.
    int duringPause = 0, otherProcess = 0;
    for (const HistoryEvent &e : events) {
        if (e.kind == HistoryEvent::Kind::Fault || e.timeUs <= pauseStart || e.timeUs >= pauseEnd)
            continue;
        (e.process == 0 ? duringPause : otherProcess)++;
    }
    QCOMPARE(duringPause, 0);
    QVERIFY2(otherProcess > 0, "process 1 must keep working while process 0 is paused");
}

void TestSimulation::crashLeavesTheLockUntilItsLeaseEnds()
{
    // A crashes while holding the lock: its key stays until the lease ends, B gets it only then.
    const QByteArray story = R"({"lockscope_scenario": 1, "id": "t", "title": "t", "kind": "story",
        "algorithm": {"id": "set-nx-px-lua", "lease_ms": 600, "retry": {"strategy": "fixed", "interval_ms": 10}},
        "resource": {"counter": false},
        "story": {"actors": ["A", "B"], "steps": [
          {"at_ms": 0, "actor": "A", "action": "acquire", "note": "A takes the lock"},
          {"at_ms": 100, "actor": "A", "action": "crash", "note": "A dies holding it"},
          {"at_ms": 150, "actor": "B", "action": "acquire"},
          {"at_ms": 200, "actor": "A", "action": "release", "note": "a dead actor does nothing"},
          {"at_ms": 300, "actor": "B", "action": "release"}]}})";
    Simulation sim(parse(story));
    const RunReport r = runToEnd(sim);
    QCOMPARE(r.metrics.acquisitions, 2);
    QCOMPARE(r.safety.violations(), 0);
    qint64 bAcquiredAt = -1;
    int releasesByA = 0;
    for (const HistoryEvent &e : sim.history()->events()) {
        if (e.kind == HistoryEvent::Kind::Acquire && e.phase == HistoryEvent::Phase::Ok && e.worker == 1)
            bAcquiredAt = e.timeUs;
        if (e.kind == HistoryEvent::Kind::Release && e.worker == 0)
            ++releasesByA;
    }
    QVERIFY2(bAcquiredAt >= 590000,
             qPrintable(QString::number(bAcquiredAt))); // only once A's 600 ms lease ran out
    QCOMPARE(releasesByA, 0);
}

// Issue 41, point 7, in-process: A's lease runs out while it is paused, and the report counts that expiry
// (it said "expiries 0" beside "its lease ran out"). A process that crashed while paused is not said to run
// again: the pause's end notes there is nothing to resume.
void TestSimulation::aLeaseThatRanOutIsCountedAndADeadProcessIsNotResumed()
{
    Simulation paused(parse(R"({"lockscope_scenario": 1, "id": "t", "title": "t", "kind": "story",
        "algorithm": {"id": "set-nx-px-lua", "lease_ms": 400, "retry": {"strategy": "fixed", "interval_ms": 10}},
        "resource": {"counter": false},
        "story": {"actors": ["A", "B"], "steps": [
          {"at_ms": 0, "actor": "A", "action": "acquire"},
          {"at_ms": 100, "actor": "A", "action": "pause", "ms": 900},
          {"at_ms": 600, "actor": "B", "action": "acquire"},
          {"at_ms": 700, "actor": "B", "action": "release"},
          {"at_ms": 1200, "actor": "A", "action": "release"}]}})"));
    const RunReport r = runToEnd(paused);
    QCOMPARE(r.metrics.acquisitions, 2);
    QVERIFY2(r.metrics.expiries == 1, qPrintable(r.summaryText()));
    QVERIFY2(r.summaryText().contains(QLatin1String("expiries 1")), qPrintable(r.summaryText()));
    int resumed = 0;
    for (const HistoryEvent &e : paused.history()->events())
        resumed += e.kind == HistoryEvent::Kind::Fault && e.outcome == quint8(HistoryEvent::FaultType::PauseEnd);
    QCOMPARE(resumed, 1); // alive: it does run again

    Simulation crashed(parse(R"({"lockscope_scenario": 1, "id": "t", "title": "t", "kind": "story",
        "algorithm": {"id": "set-nx-px-lua", "lease_ms": 400},
        "resource": {"counter": false},
        "story": {"actors": ["A"], "steps": [
          {"at_ms": 0, "actor": "A", "action": "acquire"},
          {"at_ms": 100, "actor": "A", "action": "pause", "ms": 500},
          {"at_ms": 300, "actor": "A", "action": "crash"},
          {"at_ms": 900, "action": "note", "note": "after the pause's end"}]}})"));
    runToEnd(crashed);
    QStringList notes;
    resumed = 0;
    const EventHistory *history = crashed.history();
    for (const HistoryEvent &e : history->events()) {
        resumed += e.kind == HistoryEvent::Kind::Fault && e.outcome == quint8(HistoryEvent::FaultType::PauseEnd);
        if (e.kind == HistoryEvent::Kind::Note)
            notes << QString::fromUtf8(history->text(e));
    }
    QCOMPARE(resumed, 0);
    QVERIFY2(notes.contains(QStringLiteral("A crashed while paused: nothing to resume")),
             qPrintable(notes.join(QStringLiteral("; "))));
}

void TestSimulation::givenReadOnlyServerIsRefused()
{
    SandboxServer server;
    LS_START(server);
    Simulation::Options options;
    options.server = server.connectionSettings();
    options.server->readOnly = true;
    Simulation sim(parse(kWorkload), options);
    sim.start();
    QVERIFY(sim.waitFinished(30000));
    QCOMPARE(sim.state(), Simulation::State::Failed);
    QVERIFY2(sim.errorString().contains(QLatin1String("read-only")), qPrintable(sim.errorString()));
    RedisConnection c(server.connectionSettings());
    LS_OPEN(c);
    QCOMPARE(c.command({"DBSIZE"}).reply.toInteger(), 0); // nothing was written
}

void TestSimulation::givenServerKeepsOtherKeysAndTheCounter()
{
    SandboxFixture server;
    LS_SANDBOX(server);
    RedisConnection &c = server.admin();
    QVERIFY(c.command({"SET", "users:1", "alice"}).ok());
    Simulation::Options options;
    options.server = server.connectionSettings(); // read-write, as --read-write gives
    Simulation sim(parse(kWorkload), options);
    const RunReport r = runToEnd(sim);
    QCOMPARE(sim.state(), Simulation::State::Finished);
    QCOMPARE(c.command({"GET", "users:1"}).reply.bytes(), QByteArray("alice"));
    // The counter stays after the run so its value can be checked from outside.
    QCOMPARE(c.command({"GET", r.counterKey.toUtf8()}).reply.toInteger(), r.safety.counterActual);
    const RedisResult keys = c.command({"SCAN", "0", "MATCH", "*", "COUNT", "1000"});
    for (const RedisReply &k : keys.reply.at(1).elements())
        QVERIFY2(k.bytes() == "users:1" || k.bytes().startsWith("lockscope:sim:"), k.bytes().constData());
}

void TestSimulation::scenarioNeedingSandboxesRefusesAGivenServer()
{
    SandboxServer server;
    LS_START(server);
    Scenario s = parse(kWorkload);
    s.servers.count = 3;
    s.algorithm.id = QStringLiteral("redlock");
    Simulation::Options options;
    options.server = server.connectionSettings();
    Simulation sim(s, options);
    sim.start();
    QVERIFY(sim.waitFinished(30000));
    QCOMPARE(sim.state(), Simulation::State::Failed);
    QVERIFY2(sim.errorString().contains(QLatin1String("3 independent servers")),
             qPrintable(sim.errorString()));
}

void TestSimulation::stopEndsARunEarly()
{
    Scenario s = parse(kWorkload);
    s.workload.durationS = 60;
    Simulation sim(s);
    sim.start();
    QTRY_VERIFY_WITH_TIMEOUT(sim.history() && sim.history()->size() > 50, 20000);
    sim.requestStop();
    QVERIFY(sim.waitFinished(20000)); // far sooner than the 60 s asked for
    const RunReport r = sim.report();
    QVERIFY(!r.stopReason.isEmpty());
    QVERIFY(r.metrics.durationUs < 30 * 1000000LL);
    QCOMPARE(r.safety.violations(), 0);
}

void TestSimulation::serverRestartMidRunIsSurvived()
{
    Scenario s = parse(kWorkload);
    s.workload.durationS = 1.5;
    Scenario::Fault restart;
    restart.type = Scenario::Fault::Type::ServerRestart;
    restart.atMs = 300;
    restart.restartDelayMs = 300;
    s.faults << restart;
    Simulation sim(s);
    const RunReport r = runToEnd(sim);
    QCOMPARE(sim.state(), Simulation::State::Finished);
    QVERIFY2(r.outages.size() == 1, qPrintable(r.outages.join(u'\n')));
    QVERIFY2(r.outages.first().contains(QLatin1String("server 0 down")), qPrintable(r.outages.first()));
    QVERIFY2(r.metrics.errors > 0, "the outage must show as errors in the history");
    qint64 before = 0, after = 0;
    for (const HistoryEvent &e : sim.history()->events()) {
        if (e.kind == HistoryEvent::Kind::Acquire && e.phase == HistoryEvent::Phase::Ok)
            (e.timeUs < 300000 ? before : after)++;
    }
    QVERIFY(before > 0);
    QVERIFY2(after > 0, "workers must get going again once the server is back");
}

void TestSimulation::storySnapshotsShowTheKeysAtEachNarratedStep()
{
    const QByteArray story = R"({"lockscope_scenario": 1, "id": "t", "title": "t", "kind": "story",
        "algorithm": {"id": "set-nx-px-lua", "lease_ms": 1000},
        "resource": {"counter": true},
        "story": {"actors": ["A"], "steps": [
          {"at_ms": 0, "actor": "A", "action": "acquire", "note": "A takes the lock"},
          {"at_ms": 10, "actor": "A", "action": "read"},
          {"at_ms": 20, "actor": "A", "action": "write", "note": "A writes"},
          {"at_ms": 300, "actor": "A", "action": "release"},
          {"at_ms": 500, "action": "note", "note": "nobody holds it"}]}})";
    Simulation::Options options;
    options.storySnapshots = true;
    Simulation sim(parse(story), options);
    const RunReport r = runToEnd(sim);
    QCOMPARE(r.safety.counterActual, 999);
    const QList<StorySnapshot> snapshots = sim.storySnapshots();
    QList<int> steps;
    for (const StorySnapshot &s : snapshots)
        steps << s.stepIndex;
    // The narrated steps (not the read and the release), then the story's end.
    QCOMPARE(steps, (QList<int> {0, 2, 4, -1}));
    const auto lockAt = [&](int i) {
        const StorySnapshot::Server &server = snapshots.at(i).servers.value(0);
        for (const StorySnapshot::Key &k : server.keys) {
            if (k.key.endsWith("lock"))
                return k;
        }
        return StorySnapshot::Key();
    };
    for (const StorySnapshot &s : snapshots) {
        QCOMPARE(s.servers.size(), 1);
        QVERIFY2(s.servers.first().unread.isEmpty(), qPrintable(s.servers.first().unread));
        QVERIFY(s.readUs >= s.requestedUs);
        QVERIFY(!s.late); // a sandbox on loopback answers well within the wait
        bool counterSeen = false;
        for (const StorySnapshot::Key &k : s.servers.first().keys)
            counterSeen = counterSeen || (k.type != QLatin1String("none") && !k.key.endsWith("lock"));
        QVERIFY(counterSeen);
    }
    QCOMPARE(lockAt(0).type, QStringLiteral("none")); // before A's acquire
    QCOMPARE(lockAt(1).type, QStringLiteral("string")); // A holds it while it writes
    QVERIFY(lockAt(1).pttlMs > 0 && lockAt(1).pttlMs <= 1000);
    QVERIFY(!lockAt(1).value.isEmpty()); // A's token
    QCOMPARE(lockAt(2).type, QStringLiteral("none")); // released
    QCOMPARE(lockAt(3).type, QStringLiteral("none"));
}

void TestSimulation::historyExportsAsCsv()
{
    Simulation sim(parse(kWorkload));
    runToEnd(sim);
    QBuffer buffer;
    buffer.open(QIODevice::WriteOnly);
    buffer.write(HistoryCsv::header());
    const qint64 rows = HistoryCsv::write(buffer, sim, QStringLiteral("base"));
    QCOMPARE(rows, sim.history()->size());
    const QList<QByteArray> lines = buffer.data().split('\n');
    QVERIFY(lines.first().startsWith("variant,time_us,worker"));
    QCOMPARE(lines.first().count(','), 13); // 14 columns, votes included
    bool sawAcquire = false;
    for (const QByteArray &line : lines.mid(1)) {
        if (line.startsWith("base,") && line.contains(",acquire,ok,"))
            sawAcquire = true;
    }
    QVERIFY(sawAcquire);
}

void TestSimulation::variantsAreJudgedTogether()
{
    QByteArray json = kWorkload;
    json.chop(1);
    json += R"(, "variants": [{"name": "locked"}, {"name": "unlocked", "algorithm": {"id": "none"},
                  "workload": {"critical_section": {"distribution": "fixed", "ms": 1}}}],
               "expect": ["locked.lost_updates == 0", "unlocked.lost_updates > locked.lost_updates"]})";
    const SimulationRunner::Outcome outcome = SimulationRunner::run(parse(json), Simulation::Options());
    QVERIFY2(outcome.ok(), qPrintable(outcome.error));
    QCOMPARE(outcome.runs.size(), 2);
    QCOMPARE(outcome.runs.at(1).variant, QStringLiteral("unlocked"));
    QVERIFY2(outcome.passed(), qPrintable(outcome.summaryText()));
    const QJsonObject json2 = outcome.toJson();
    QVERIFY(json2.value(QStringLiteral("variants")).toObject().contains(QStringLiteral("locked")));
    QVERIFY(json2.value(QStringLiteral("expect")).toObject().value(QStringLiteral("passed")).toBool());
}

void TestSimulation::eventEngineRunsManyWorkersOnFewThreads()
{
    // 600 workers in 3 processes, each on a lock of its own: the thread engine would start 600 threads;
    // fibers need the event loops plus each process's watchdog and listener. Every fiber gets its turns
    // (each worker acquires), and the counters stay exact, as with threads.
    Scenario s = parse(kWorkload);
    s.workload.engine = Scenario::Workload::Engine::Events;
    s.workload.processes = 3;
    s.workload.threadsPerProcess = 200;
    s.workload.locks = 600;
    s.workload.lockChoice = Scenario::Workload::LockChoice::Own;
    s.workload.durationS = 1.5;
    const int threadsBefore = TestSupport::threadsOfThisProcess();
    Simulation sim(s);
    sim.start();
    int busiest = 0;
    const QDeadlineTimer cap(120000);
    while (!sim.waitFinished(20) && !cap.hasExpired()) {
        if (sim.state() == Simulation::State::Running)
            busiest = std::max(busiest, TestSupport::threadsOfThisProcess() - threadsBefore);
    }
    const RunReport r = sim.report();
    QCOMPARE(sim.state(), Simulation::State::Finished);
    QVERIFY2(busiest > 0, "never saw the run running");
    QVERIFY2(busiest < 100, qPrintable(QStringLiteral("%1 threads for 600 workers").arg(busiest)));
    QCOMPARE(r.safety.violations(), 0);
    QVERIFY(r.safety.counterObserved);
    QCOMPARE(r.safety.counterActual, r.safety.counterExpected);
    QCOMPARE(r.historyDropped, 0);
    QCOMPARE(sim.workerNames().size(), 600);
    int workersThatAcquired = 0;
    for (qint64 n : r.metrics.acquisitionsPerWorker)
        workersThatAcquired += n > 0 ? 1 : 0;
    QCOMPARE(workersThatAcquired, 600);
}

// On the event engine the fibers of one loop write the loop's log (their events side by side rather than a
// chunk apiece in thousands of logs) and take their operation ids from it: every completion pairs with an
// invoke of its own worker, never with a neighbour's that had the same number.
void TestSimulation::fibersOfALoopShareItsLog()
{
    Scenario s = parse(kWorkload);
    s.workload.engine = Scenario::Workload::Engine::Events;
    s.workload.processes = 2;
    s.workload.threadsPerProcess = 20;
    s.workload.durationS = 1.0;
    Simulation sim(s);
    const RunReport r = runToEnd(sim);
    QCOMPARE(sim.state(), Simulation::State::Finished);
    const int workers = 40, processes = 2;
    const int logs = sim.history()->logCount();
    QVERIFY2(logs < workers + processes + 1, qPrintable(QStringLiteral("%1 logs for %2 workers").arg(logs).arg(workers)));
    QHash<quint64, HistoryEvent> open;
    int paired = 0;
    for (const HistoryEvent &e : sim.history()->events()) {
        if (e.worker < 0)
            continue;
        const quint64 key = (quint64(e.log) << 32) | e.opId;
        if (e.phase == HistoryEvent::Phase::Invoke) {
            QVERIFY2(!open.contains(key), "two open operations with one id in one log");
            open.insert(key, e);
        } else if (open.contains(key)) {
            const HistoryEvent invoke = open.take(key);
            QCOMPARE(invoke.worker, e.worker);
            QCOMPARE(invoke.kind, e.kind);
            ++paired;
        }
    }
    QVERIFY2(paired > workers, qPrintable(QString::number(paired)));
    QCOMPARE(r.safety.violations(), 0);
    QCOMPARE(r.safety.counterActual, r.safety.counterExpected);
    QCOMPARE(r.historyDropped, 0);
}

QTEST_GUILESS_MAIN(TestSimulation)
#include "tst_simulation.moc"
