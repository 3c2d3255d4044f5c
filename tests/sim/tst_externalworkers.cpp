// Real lock libraries as workers (docs/client-protocol.md): each worker is an adapter process of its own
// (redis-py's Lock through Debian's python3-redis), on a real sandbox server. What the report says about the
// processes, how a missing reply becomes an unknown outcome the checker treats as both ways, what a crash
// and a restart do, and the clear errors when an adapter cannot do what a scenario asks.
#include "simtestsupport.h"
#include "redis/redisconnection.h"
#include "sim/clientcatalog.h"
#include "sim/simulation.h"
#include "sshdfixture.h"
#include "testsupport.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>

#include <csignal>
#include <unistd.h>

class TestExternalWorkers : public QObject
{
    Q_OBJECT
private slots:
    void everyWorkerIsAProcessOfItsOwn();
    void aMissingReplyIsUnknownAndCountsBothWays();
    void aRestartStartsANewProcessThatWorksOn();
    void aOneWayCutLetsTheWriteThroughButNotItsReply();
    void droppedConnectionsAreReconnectedByTheLibrary();
    void anAdapterRunsOnAnotherHostOverSsh();
    void anAdapterThatNeverSaysHelloFailsTheRunClearly();
    void whatTheAdapterCannotDoIsRefusedBeforeTheRun();
    void leaseZeroIsALockWithoutExpiryForALibraryThatMakesOne();
    void aSlowStartDoesNotEatIntoTheRun();
    void aProcessKilledWhilePausedIsNotResumed();

private:
    // Successful acquisitions before and after `atUs` of run time.
    static QPair<int, int> acquisitionsAround(const Simulation &sim, qint64 atUs);
    // Whether the history has a note whose text starts with `start`.
    static bool hasNote(const Simulation &sim, const char *start);
    static QString errorTexts(const Simulation &sim);
};

using SimTest::failureOf;
using SimTest::parse;
using SimTest::runToEnd;

QPair<int, int> TestExternalWorkers::acquisitionsAround(const Simulation &sim, qint64 atUs)
{
    QPair<int, int> counts;
    for (const HistoryEvent &e : sim.history()->events()) {
        if (e.kind == HistoryEvent::Kind::Acquire && e.phase == HistoryEvent::Phase::Ok)
            (e.timeUs < atUs ? counts.first : counts.second) += 1;
    }
    return counts;
}

bool TestExternalWorkers::hasNote(const Simulation &sim, const char *start)
{
    const EventHistory *history = sim.history();
    for (const HistoryEvent &e : history->events()) {
        if (e.kind == HistoryEvent::Kind::Note && history->text(e).startsWith(start))
            return true;
    }
    return false;
}

// The texts of the run's error events, for a failure message that says which error it was.
QString TestExternalWorkers::errorTexts(const Simulation &sim)
{
    QStringList texts;
    const EventHistory *history = sim.history();
    for (const HistoryEvent &e : history->events()) {
        if (e.kind == HistoryEvent::Kind::Error)
            texts << QString::fromUtf8(history->text(e));
    }
    return texts.join(QStringLiteral("; "));
}

void TestExternalWorkers::everyWorkerIsAProcessOfItsOwn()
{
    Simulation sim(parse(R"({"lockscope_scenario": 1, "id": "t", "title": "t",
        "client": {"adapter": "redis-py"},
        "algorithm": {"lease_ms": 2000, "acquire_timeout_ms": 2000},
        "workload": {"processes": 3, "duration_s": 1.5, "critical_section": {"ms": 2}},
        "resource": {"counter": true, "counter_initial": 10000}})"));
    const RunReport r = runToEnd(sim);
    QCOMPARE(sim.state(), Simulation::State::Finished);
    QVERIFY2(r.metrics.acquisitions > 10, qPrintable(r.summaryText()));
    QCOMPARE(r.safety.violations(), 0);
    QVERIFY(r.safety.counterObserved);
    QCOMPARE(r.safety.counterActual, r.safety.counterExpected);
    QCOMPARE(r.unknownOutcomes, 0);
    QCOMPARE(r.algorithm, QStringLiteral("redis-py"));
    QCOMPARE(r.clients.size(), 3);
    QSet<qint64> pids;
    for (const RunReport::ClientWorker &c : r.clients) {
        QCOMPARE(c.library, QStringLiteral("redis-py"));
        QVERIFY2(!c.version.isEmpty(), "the adapter announces its library's version");
        QCOMPARE(c.pids.size(), 1);
        QVERIFY(c.pids.first() > 0 && c.pids.first() != ::getpid());
        pids.insert(c.pids.first());
    }
    QCOMPARE(pids.size(), 3);
    // The processes are gone with the run.
    for (qint64 pid : std::as_const(pids))
        QVERIFY2(::kill(pid_t(pid), 0) != 0, qPrintable(QStringLiteral("pid %1 still runs").arg(pid)));
}

// A's write goes out while its process is stopped; the reply comes after the reply timeout, so the write's
// outcome is unknown — yet the adapter performs it once resumed. The counter then ends one lower than the
// writes LockScope saw succeed: the checker must take the unknown write as possibly applied, not call the
// difference a lost update.
void TestExternalWorkers::aMissingReplyIsUnknownAndCountsBothWays()
{
    Simulation sim(parse(R"({"lockscope_scenario": 1, "id": "t", "title": "t", "kind": "story",
        "client": {"adapter": "redis-py", "reply_timeout_ms": 400},
        "algorithm": {"lease_ms": 20000, "acquire_timeout_ms": 1000},
        "resource": {"counter": true, "counter_initial": 100},
        "story": {"actors": ["A"], "steps": [
            {"at_ms": 0, "actor": "A", "action": "acquire"},
            {"at_ms": 100, "actor": "A", "action": "read"},
            {"at_ms": 200, "actor": "A", "action": "pause", "ms": 1500},
            {"at_ms": 300, "actor": "A", "action": "write"},
            {"at_ms": 2200, "actor": "A", "action": "release"}]}})"));
    const RunReport r = runToEnd(sim);
    QVERIFY2(r.unknownOutcomes >= 1, qPrintable(r.summaryText()));
    QCOMPARE(r.safety.unknownWrites, 1);
    QVERIFY(r.safety.counterObserved);
    QCOMPARE(r.safety.counterActual, 99); // the paused adapter did write, late
    QCOMPARE(r.safety.counterExpected, 100); // no write was seen to succeed
    QCOMPARE(r.safety.lostUpdates, 0);
    QCOMPARE(r.counterLost(), 0);
    QCOMPARE(r.safety.violations(), 0);
    // The write's late reply is logged as a note; the unknown write is the only error.
    QVERIFY(hasNote(sim, "a late reply to request"));
    QCOMPARE(r.metrics.errors, r.unknownOutcomes);
}

void TestExternalWorkers::aRestartStartsANewProcessThatWorksOn()
{
    Simulation sim(parse(R"({"lockscope_scenario": 1, "id": "t", "title": "t",
        "client": {"adapter": "redis-py"},
        "algorithm": {"lease_ms": 500, "acquire_timeout_ms": 2000},
        "workload": {"processes": 1, "duration_s": 2.5, "critical_section": {"ms": 2}},
        "faults": [{"type": "crash", "process": 0, "at_ms": 500},
                   {"type": "restart", "process": 0, "at_ms": 1000}],
        "resource": {"counter": true, "counter_initial": 100000}})"));
    const RunReport r = runToEnd(sim);
    QCOMPARE(r.clients.size(), 1);
    QCOMPARE(r.clients.first().pids.size(), 2);
    QVERIFY(r.clients.first().pids.at(0) != r.clients.first().pids.at(1));
    // Acquisitions after the restart (at 1 s) come from the new process.
    const auto [before, after] = acquisitionsAround(sim, 1000000);
    QVERIFY2(before > 0 && after > 0, qPrintable(QStringLiteral("%1 before, %2 after").arg(before).arg(after)));
    QCOMPARE(r.safety.violations(), 0);
    // The new process's pid is a note, not an error: what the crash cut off is unknown, and that is all.
    QVERIFY(hasNote(sim, "a new process of the adapter runs as pid"));
    QVERIFY2(r.metrics.errors == r.unknownOutcomes,
             qPrintable(QStringLiteral("%1 errors, %2 unknown; error events: %3")
                            .arg(r.metrics.errors)
                            .arg(r.unknownOutcomes)
                            .arg(errorTexts(sim))));
}

// The proxy cuts only what comes back from Redis: A's SET reaches the server (the counter changes at once)
// while its reply is held past the reply timeout. Done, and the client does not know: unknown, not lost.
void TestExternalWorkers::aOneWayCutLetsTheWriteThroughButNotItsReply()
{
    Simulation sim(parse(R"({"lockscope_scenario": 1, "id": "t", "title": "t", "kind": "story",
        "client": {"adapter": "redis-py", "reply_timeout_ms": 400},
        "algorithm": {"lease_ms": 20000, "acquire_timeout_ms": 1000},
        "resource": {"counter": true, "counter_initial": 100},
        "faults": [{"type": "partition", "process": 0, "at_ms": 200, "duration_ms": 1500,
                    "direction": "from-server"}],
        "story": {"actors": ["A"], "steps": [
            {"at_ms": 0, "actor": "A", "action": "acquire"},
            {"at_ms": 100, "actor": "A", "action": "read"},
            {"at_ms": 300, "actor": "A", "action": "write"},
            {"at_ms": 2200, "actor": "A", "action": "release"}]}})"));
    sim.start();
    // While the reply is held, the server already has the write.
    QTRY_VERIFY_WITH_TIMEOUT(sim.elapsedUs() > 600000, 10000);
    {
        RedisConnection direct(sim.serverSettings(0));
        QVERIFY(!direct.open());
        QTRY_COMPARE_WITH_TIMEOUT(direct.command({"GET", "lockscope:sim:counter:0"}).reply.bytes(), QByteArray("99"), 1000);
        QVERIFY2(sim.elapsedUs() < 1700000, "the write arrived only after the heal");
    }
    QVERIFY(sim.waitFinished(60000));
    const RunReport r = sim.report();
    QCOMPARE(r.safety.unknownWrites, 1);
    QCOMPARE(r.safety.counterActual, 99);
    QCOMPARE(r.counterLost(), 0);
    QCOMPARE(r.safety.violations(), 0);
}

// A drop that lands while a command is in flight can orphan the lock: a SET that took effect but whose reply
// was cut, or a release that never reached the server. The lock is then free only when its lease runs out,
// so the lease (500 ms) is well inside what is left of the run after the drop (1.8 s); with a lease longer
// than that, an unlucky drop (a few per cent of them) left no acquisition after it and failed this test.
void TestExternalWorkers::droppedConnectionsAreReconnectedByTheLibrary()
{
    Simulation sim(parse(R"({"lockscope_scenario": 1, "id": "t", "title": "t",
        "client": {"adapter": "redis-py"},
        "algorithm": {"lease_ms": 500, "acquire_timeout_ms": 1000},
        "workload": {"processes": 1, "duration_s": 2.5, "critical_section": {"ms": 2}},
        "faults": [{"type": "drop-connections", "process": 0, "at_ms": 700}],
        "resource": {"counter": true, "counter_initial": 100000}})"));
    const RunReport r = runToEnd(sim);
    int drops = 0;
    for (const HistoryEvent &e : sim.history()->events()) {
        if (e.kind == HistoryEvent::Kind::Fault
            && HistoryEvent::FaultType(e.outcome) == HistoryEvent::FaultType::ConnectionsDropped)
            ++drops;
    }
    QCOMPARE(drops, 1);
    const auto [before, after] = acquisitionsAround(sim, 700000);
    QVERIFY2(before > 0 && after > 0, qPrintable(QStringLiteral("%1 before, %2 after").arg(before).arg(after)));
    QCOMPARE(r.clients.first().pids.size(), 1); // the same process: only its connections went
    QCOMPARE(r.safety.violations(), 0);
}

// The client command is any argv: `ssh host python3 adapter.py` runs the worker on another machine (here the
// project's private sshd on loopback), and its requests and replies are still timed on LockScope's clock.
void TestExternalWorkers::anAdapterRunsOnAnotherHostOverSsh()
{
    SshdFixture sshd;
    if (!sshd.start())
        QSKIP(qPrintable(QStringLiteral("no private sshd here: ") + sshd.errorString()));
    ExternalClient::Launch adapter;
    QString error;
    QVERIFY2(ClientCatalog::prepare(*ClientCatalog::find(QStringLiteral("redis-py")), &adapter, &error),
             qPrintable(error));
    const ConnectionSettings::Ssh ssh = sshd.tunnel();
    const QStringList command = QStringList {QStringLiteral("ssh"), QStringLiteral("-F"), ssh.configFile,
                                             QStringLiteral("-i"), ssh.identityFile, QStringLiteral("-p"),
                                             QString::number(ssh.port), QStringLiteral("-o"), QStringLiteral("BatchMode=yes"),
                                             ssh.user + u'@' + ssh.host}
        + adapter.argv;
    Scenario s = parse(R"({"lockscope_scenario": 1, "id": "t", "title": "t",
        "client": {"command": ["placeholder"]},
        "algorithm": {"lease_ms": 2000, "acquire_timeout_ms": 2000},
        "workload": {"processes": 2, "duration_s": 1.5, "critical_section": {"ms": 2}},
        "resource": {"counter": true, "counter_initial": 10000}})");
    s.client.command = command;
    Simulation sim(s);
    const RunReport r = runToEnd(sim);
    QVERIFY2(sim.state() == Simulation::State::Finished, qPrintable(sim.errorString() + u'\n' + sshd.log()));
    QVERIFY2(r.metrics.acquisitions > 5, qPrintable(r.summaryText()));
    QCOMPARE(r.algorithm, QStringLiteral("redis-py")); // what the remote adapter announced, not "ssh"
    QCOMPARE(r.safety.violations(), 0);
    QCOMPARE(r.safety.counterActual, r.safety.counterExpected);
}

void TestExternalWorkers::anAdapterThatNeverSaysHelloFailsTheRunClearly()
{
    // `sleep` reads nothing and answers nothing: no hello within the hello timeout.
    Simulation silent(parse(R"({"lockscope_scenario": 1, "id": "t", "title": "t",
        "client": {"command": ["sleep", "30"], "hello_timeout_ms": 300},
        "workload": {"processes": 1, "duration_s": 1}})"));
    const QString never = failureOf(silent);
    QVERIFY2(never.contains(QLatin1String("did not say hello")) && never.contains(QLatin1String("unknown")),
             qPrintable(never));

    Simulation missing(parse(R"({"lockscope_scenario": 1, "id": "t", "title": "t",
        "client": {"command": ["no-such-adapter-program"]},
        "workload": {"processes": 1, "duration_s": 1}})"));
    const QString notFound = failureOf(missing);
    QVERIFY2(notFound.contains(QLatin1String("no-such-adapter-program is not on PATH")), qPrintable(notFound));

    // An adapter that dies at once: its standard error is in the message.
    QTemporaryDir dir;
    const QString script = dir.filePath(QStringLiteral("broken.sh"));
    {
        QFile f(script);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("#!/bin/sh\necho 'ImportError: no module named lockthing' >&2\nexit 3\n");
    }
    QFile::setPermissions(script, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    Simulation broken(parse(R"({"lockscope_scenario": 1, "id": "t", "title": "t",
        "client": {"command": [")" + script.toUtf8() + R"("]},
        "workload": {"processes": 1, "duration_s": 1}})"));
    const QString died = failureOf(broken);
    QVERIFY2(died.contains(QLatin1String("no module named lockthing")), qPrintable(died));
}

void TestExternalWorkers::whatTheAdapterCannotDoIsRefusedBeforeTheRun()
{
    Simulation sim(parse(R"({"lockscope_scenario": 1, "id": "t", "title": "t",
        "client": {"adapter": "redis-py"},
        "algorithm": {"lease_ms": 2000, "watchdog": true},
        "workload": {"processes": 1, "duration_s": 1}})"));
    const QString refused = failureOf(sim);
    QVERIFY2(refused.contains(QLatin1String("auto_renewal")), qPrintable(refused));

    // The parser refuses what no external client can do, naming the field.
    Scenario s;
    QStringList errors;
    QVERIFY(!ScenarioParser().parse(QByteArray(R"({"lockscope_scenario": 1, "id": "t", "title": "t",
        "client": {"adapter": "redis-py"}, "workload": {"processes": 1, "threads_per_process": 4},
        "faults": [{"type": "crash-after-setnx", "at_ms": 10}]})"),
                                    &s, &errors));
    QVERIFY2(errors.join(u'\n').contains(QLatin1String("workload.threads_per_process")), qPrintable(errors.join(u'\n')));
    QVERIFY2(errors.join(u'\n').contains(QLatin1String("faults[0]")), qPrintable(errors.join(u'\n')));
    errors.clear();
    QVERIFY(!ScenarioParser().parse(QByteArray(R"({"lockscope_scenario": 1, "id": "t", "title": "t",
        "client": {"adapter": "redis-pie"}})"),
                                    &s, &errors));
    QVERIFY2(errors.join(u'\n').contains(QLatin1String("did you mean redis-py")), qPrintable(errors.join(u'\n')));
}

// The protocol's lease_ms 0: a lock that never expires, for an adapter announcing no_lease (redis-py's Lock
// without timeout). LockScope's own algorithms refuse a lease of 0; that refusal is not the library's.
void TestExternalWorkers::leaseZeroIsALockWithoutExpiryForALibraryThatMakesOne()
{
    Simulation sim(parse(R"({"lockscope_scenario": 1, "id": "t", "title": "t", "kind": "story",
        "client": {"adapter": "redis-py"},
        "algorithm": {"lease_ms": 0, "acquire_timeout_ms": 300},
        "story": {"actors": ["A", "B"], "steps": [
            {"at_ms": 0, "actor": "A", "action": "acquire"},
            {"at_ms": 100, "actor": "A", "action": "crash"},
            {"at_ms": 200, "actor": "B", "action": "acquire"}]}})"));
    const QString failed = failureOf(sim);
    QVERIFY2(failed.isEmpty(), qPrintable(failed));
    const RunReport r = sim.report();
    QCOMPARE(r.metrics.acquisitions, 1); // B waits in vain: A's lock never expires
    QCOMPARE(r.locksWithoutTtl, 1);

}

// A JVM or an interpreter takes seconds to start: the run's clock starts after the last worker's hello, so
// a one-second workload gets its second whatever the start-up took (here 1.5 s before each process even
// runs its adapter).
void TestExternalWorkers::aSlowStartDoesNotEatIntoTheRun()
{
    ExternalClient::Launch launch;
    QString error;
    QVERIFY2(ClientCatalog::prepare(*ClientCatalog::find(QStringLiteral("redis-py")), &launch, &error),
             qPrintable(error));
    QJsonArray command {"/bin/sh", "-c", "sleep 1.5; exec \"$@\"", "sh"};
    for (const QString &arg : std::as_const(launch.argv))
        command.append(arg);
    QJsonObject scenario = QJsonDocument::fromJson(R"({"lockscope_scenario": 1, "id": "t", "title": "t",
        "algorithm": {"lease_ms": 2000, "acquire_timeout_ms": 2000},
        "workload": {"processes": 2, "duration_s": 1, "critical_section": {"ms": 2}}})").object();
    scenario.insert(QStringLiteral("client"), QJsonObject {{QStringLiteral("command"), command}});
    Simulation sim(parse(QJsonDocument(scenario).toJson()));
    const RunReport r = runToEnd(sim);
    QCOMPARE(sim.state(), Simulation::State::Finished);
    qint64 firstAcquireUs = -1;
    for (const HistoryEvent &e : sim.history()->events()) {
        if (e.kind == HistoryEvent::Kind::Acquire && (firstAcquireUs < 0 || e.timeUs < firstAcquireUs))
            firstAcquireUs = e.timeUs;
    }
    QVERIFY2(firstAcquireUs >= 0 && firstAcquireUs < 500000,
             qPrintable(QStringLiteral("first acquire at %1 µs of run time").arg(firstAcquireUs)));
    QVERIFY2(r.metrics.acquisitions > 10, qPrintable(r.summaryText()));
}

// Issue 41, point 7: after a frozen (SIGSTOP) adapter was killed, the log said "A runs again (SIGCONT)": a
// signal meant for a dead pid, which may be another process's by then. The pause's end now sends SIGCONT only
// to the process it stopped while that is our child and still stopped, and says what it found instead; the
// lease that ran out under the dead holder is counted as an expiry.
void TestExternalWorkers::aProcessKilledWhilePausedIsNotResumed()
{
    Simulation sim(parse(R"({"lockscope_scenario": 1, "id": "t", "title": "t", "kind": "story",
        "client": {"adapter": "redis-py"},
        "algorithm": {"lease_ms": 1000, "acquire_timeout_ms": 3000},
        "resource": {"counter": false},
        "story": {"actors": ["A", "B"], "steps": [
            {"at_ms": 0, "actor": "A", "action": "acquire"},
            {"at_ms": 100, "actor": "A", "action": "pause", "ms": 1500},
            {"at_ms": 400, "actor": "A", "action": "crash"},
            {"at_ms": 500, "actor": "B", "action": "acquire"},
            {"at_ms": 2000, "actor": "B", "action": "release"}]}})"));
    const qint64 ownPid = ::getpid();
    const RunReport r = runToEnd(sim);
    const EventHistory *history = sim.history();
    int resumed = 0;
    QStringList notes;
    for (const HistoryEvent &e : history->events()) {
        if (e.kind == HistoryEvent::Kind::Fault && e.outcome == quint8(HistoryEvent::FaultType::PauseEnd))
            ++resumed;
        if (e.kind == HistoryEvent::Kind::Note)
            notes << QString::fromUtf8(history->text(e));
    }
    QCOMPARE(resumed, 0);
    const qint64 pidA = r.clients.value(0).pids.value(0);
    QVERIFY(pidA > 0 && pidA != ownPid);
    QVERIFY2(notes.contains(QStringLiteral("A (pid %1) was killed while paused: nothing to resume").arg(pidA)),
             qPrintable(notes.join(QStringLiteral("; "))));
    // B got the lock once A's 1 s lease ran out under its dead holder: one expiry, as the report says.
    QCOMPARE(r.metrics.acquisitions, 2);
    QVERIFY2(r.metrics.expiries == 1, qPrintable(r.summaryText()));
    QCOMPARE(r.safety.violations(), 0);

    // Killed and started again while the pause ran: its end leaves the new process alone (it was never
    // stopped), and says so.
    Simulation again(parse(R"({"lockscope_scenario": 1, "id": "t", "title": "t",
        "client": {"adapter": "redis-py"},
        "algorithm": {"lease_ms": 500, "acquire_timeout_ms": 2000},
        "workload": {"processes": 1, "duration_s": 2.5, "critical_section": {"ms": 2}},
        "faults": [{"type": "pause", "process": 0, "at_ms": 300, "duration_ms": 1200},
                   {"type": "crash", "process": 0, "at_ms": 500},
                   {"type": "restart", "process": 0, "at_ms": 700}],
        "resource": {"counter": true, "counter_initial": 100000}})"));
    const RunReport r2 = runToEnd(again);
    QCOMPARE(r2.clients.value(0).pids.size(), 2);
    notes.clear();
    resumed = 0;
    for (const HistoryEvent &e : again.history()->events()) {
        if (e.kind == HistoryEvent::Kind::Fault && e.outcome == quint8(HistoryEvent::FaultType::PauseEnd))
            ++resumed;
        if (e.kind == HistoryEvent::Kind::Note)
            notes << QString::fromUtf8(again.history()->text(e));
    }
    QCOMPARE(resumed, 0);
    const QString replaced = QStringLiteral("P1 (pid %1) was killed while paused: nothing to resume; it runs as a "
                                            "new process now (pid %2)")
                                 .arg(r2.clients.value(0).pids.value(0))
                                 .arg(r2.clients.value(0).pids.value(1));
    QVERIFY2(notes.contains(replaced), qPrintable(notes.join(QStringLiteral("; "))));
    // The new process worked on through the old pause's end (at 1.5 s).
    const auto [before, after] = acquisitionsAround(again, 1500000);
    QVERIFY2(after > 0, qPrintable(QStringLiteral("%1 before, %2 after").arg(before).arg(after)));
}

QTEST_GUILESS_MAIN(TestExternalWorkers)
#include "tst_externalworkers.moc"
