// Every preset, run headless on sandbox servers, meets its own expectations. ctest runs one preset per
// process (tst_presets <id>) so they go in parallel.
#include "sim/presetlibrary.h"
#include "sim/simulationrunner.h"

#include <QTest>

class TestPresets : public QObject
{
    Q_OBJECT
private slots:
    void meetsItsExpectations_data();
    void meetsItsExpectations();
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
    const SimulationRunner::Outcome outcome = SimulationRunner::run(preset->scenario, Simulation::Options());
    QVERIFY2(outcome.ok(), qPrintable(outcome.error));
    QVERIFY2(outcome.passed(), qPrintable(outcome.summaryText()));
    for (const SimulationRunner::Run &run : outcome.runs)
        QCOMPARE(run.report.historyDropped, 0);
}

QTEST_GUILESS_MAIN(TestPresets)
#include "tst_presets.moc"
