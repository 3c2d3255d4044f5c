// Every preset, run headless on sandbox servers, meets its own expectations — on the engine it names and on
// the event engine too (fibers instead of threads must change no outcome). ctest runs one preset per
// process (tst_presets <function>:<id>) so they go in parallel.
#include "sim/presetlibrary.h"
#include "sim/simulationrunner.h"

#include <QTest>

class TestPresets : public QObject
{
    Q_OBJECT
private slots:
    void meetsItsExpectations_data();
    void meetsItsExpectations();
    void meetsItsExpectationsOnTheEventEngine_data() { meetsItsExpectations_data(); }
    void meetsItsExpectationsOnTheEventEngine();

private:
    static void runAndJudge(const Scenario &scenario);
};

void TestPresets::meetsItsExpectations_data()
{
    QTest::addColumn<QString>("id");
    for (const PresetLibrary::Preset &p : PresetLibrary::all())
        QTest::newRow(qPrintable(p.id)) << p.id;
}

void TestPresets::meetsItsExpectations()
{
    QFETCH(QString, id);
    const PresetLibrary::Preset *preset = PresetLibrary::find(id);
    QVERIFY(preset);
    runAndJudge(preset->scenario);
}

void TestPresets::meetsItsExpectationsOnTheEventEngine()
{
    QFETCH(QString, id);
    const PresetLibrary::Preset *preset = PresetLibrary::find(id);
    QVERIFY(preset);
    if (preset->scenario.client.isSet())
        QSKIP("an external client's workers are processes of their own: there is no engine to choose");
    if (preset->scenario.workload.engine == Scenario::Workload::Engine::Events)
        QSKIP("this preset runs on the event engine already (meetsItsExpectations)");
    Scenario scenario = preset->scenario;
    scenario.workload.engine = Scenario::Workload::Engine::Events; // variants derive from it, engine included
    runAndJudge(scenario);
}

void TestPresets::runAndJudge(const Scenario &scenario)
{
    const SimulationRunner::Outcome outcome = SimulationRunner::run(scenario, Simulation::Options());
    QVERIFY2(outcome.ok(), qPrintable(outcome.error));
    QVERIFY2(outcome.passed(), qPrintable(outcome.summaryText()));
    for (const SimulationRunner::Run &run : outcome.runs)
        QCOMPARE(run.report.historyDropped, 0);
}

QTEST_GUILESS_MAIN(TestPresets)
#include "tst_presets.moc"
