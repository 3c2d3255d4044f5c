// A simulation on a master behind Sentinel (a real master, replica and 3 sentinels): a forced failover in
// the middle of the run, and the workers carry on against the promoted replica.
#include "redis/sandboxsentinelgroup.h"
#include "sim/scenarioparser.h"
#include "sim/simulation.h"
#include "testsupport.h"

class TestSimulationSentinel : public QObject
{
    Q_OBJECT
private slots:
    void workersFollowAFailover();
};

void TestSimulationSentinel::workersFollowAFailover()
{
    SandboxSentinelGroup group;
    LS_START(group);
    Scenario scenario;
    QStringList errors;
    QVERIFY2(ScenarioParser().parse(R"({"lockscope_scenario": 1, "id": "t", "title": "t",
        "algorithm": {"id": "set-nx-px-lua", "lease_ms": 2000, "retry": {"strategy": "fixed", "interval_ms": 5}},
        "workload": {"processes": 2, "threads_per_process": 1, "duration_s": 30,
                     "critical_section": {"distribution": "uniform", "min_ms": 1, "max_ms": 2}},
        "resource": {"counter": false}})",
                                    &scenario, &errors),
             qPrintable(errors.join(u'\n')));
    Simulation::Options options;
    options.server = group.settings(); // read-write through the sentinels, as --sentinel … --read-write gives
    Simulation sim(scenario, options);
    sim.start();
    QTRY_VERIFY_WITH_TIMEOUT(sim.history() && sim.history()->size() > 50, 20000);

    QString error;
    QVERIFY2(group.failover(&error), qPrintable(error));
    const int promoted = group.currentMaster();
    QVERIFY(promoted > 0);
    RedisConnection admin(group.node(promoted).connectionSettings());
    LS_OPEN(admin);
    // Lock scripts run on the promoted replica itself (before, it only applied the master's effects).
    const auto scriptCalls = [&admin] {
        return TestSupport::commandCalls(admin, "evalsha") + TestSupport::commandCalls(admin, "eval");
    };
    QTRY_VERIFY_WITH_TIMEOUT(scriptCalls() > 20, 15000);
    sim.requestStop();
    QVERIFY(sim.waitFinished(20000));
    QCOMPARE(sim.state(), Simulation::State::Finished);
    QVERIFY2(sim.report().metrics.acquisitions > 20, qPrintable(sim.report().summaryText()));
}

QTEST_GUILESS_MAIN(TestSimulationSentinel)
#include "tst_simulationsentinel.moc"
