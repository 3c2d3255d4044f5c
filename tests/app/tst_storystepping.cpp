// Step mode walks a story's recording: the run goes on at Redis' own pace whatever the reading pace, so every
// story meets its expectations when stepped; Back and Next move every view (timeline cursor, event log, the
// keys as Redis held them, the step's Lua) together; it works on every run of a session.
#include "simulator/eventlogmodel.h"
#include "sim/presetlibrary.h"
#include "sim/scenarioparser.h"
#include "simulator/simulationcontroller.h"
#include "simulator/simulatorplace.h"
#include "smallstory.h"
#include "simulator/storysteppanel.h"
#include "simulator/summarycard.h"
#include "simulator/summarycards.h"
#include "testsupport.h"
#include "timeline/timelinepanel.h"
#include "timeline/timelineview.h"

#include <QJsonDocument>
#include <QStandardPaths>
#include <QtTest>

class TestStoryStepping : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void backAndNextMoveEveryView();
    void everyRunOfASessionSteps();
    void aLongPauseOnAStepChangesNothing();
    void nextStopsAtTheLastRecordedStepOfAStoppedRun();
    void everyStoryMeetsItsExpectationsWhenStepped_data();
    void everyStoryMeetsItsExpectationsWhenStepped();

private:
    static Scenario smallStory();
    static bool waitForRun(SimulatorPlace &place, int timeoutMs = 60000)
    {
        QElapsedTimer t;
        t.start();
        while (place.controller()->isRunning() && t.elapsed() < timeoutMs)
            QTest::qWait(20);
        return !place.controller()->isRunning();
    }
    static QString failedChecks(const SimulatorPlace &place)
    {
        QStringList failed;
        for (const Expectation::Check &c : place.controller()->outcome().checks) {
            if (!c.passed)
                failed << QStringLiteral("%1 (actual %2)").arg(c.expectation).arg(c.actual);
        }
        return failed.join(QStringLiteral("; "));
    }
    // The time of each narrated step of the run shown (of each variant in turn: the last), in order.
    static QList<qint64> stepTimes(const SimulatorPlace &place)
    {
        QList<qint64> out;
        for (const TimelineData::Step &s : place.controller()->run(place.shownRun()).timeline->steps()) {
            if (s.number > 0)
                out << s.timeUs;
        }
        return out;
    }
};

void TestStoryStepping::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
}

Scenario TestStoryStepping::smallStory()
{
    Scenario s;
    QStringList errors;
    if (!ScenarioParser().parse(SmallStory::json(), &s, &errors))
        qFatal("test story does not parse: %s", qPrintable(errors.join(u'\n')));
    return s;
}

void TestStoryStepping::backAndNextMoveEveryView()
{
    SimulatorPlace place(nullptr);
    place.resize(1300, 850);
    place.show();
    place.loadScenario(smallStory());
    place.setStepMode(true);
    QVERIFY(place.run());
    QCOMPARE(place.steppingAt(), 1);
    // Nobody presses anything until the run is over: it runs at its own pace all the same.
    QVERIFY(waitForRun(place));
    QVERIFY(place.controller()->outcome().passed());
    QCOMPARE(place.steppingAt(), 1);
    const QList<qint64> times = stepTimes(place);
    QCOMPARE(times.size(), 3);
    TimelineView *view = place.timelinePanel()->view();
    // Step 1's span: everything until just before step 2.
    QCOMPARE(view->cursorTime(), times.at(1) - 1);
    EventLogModel *log = place.eventLog();
    QVERIFY(log->rowCount() > 0);
    for (int row = 0; row < log->rowCount(); ++row)
        QVERIFY(log->index(row, 0).data(EventLogModel::TimeUsRole).toLongLong() <= times.at(1) - 1);
    const int rowsAtStep1 = log->rowCount();
    StoryStepPanel *panel = place.stepPanel();
    QVERIFY2(panel->headline().contains(QLatin1String("Step 1 of 3")), qPrintable(panel->headline()));
    // As step 2 came due (100 ms), A held the lock with its 300 ms lease.
    QStringList keys = panel->keyLines();
    QVERIFY2(keys.filter(QRegularExpression(QStringLiteral("lock string \\d+ ms"))).size() == 1,
             qPrintable(keys.join(u'\n')));
    QVERIFY(panel->scriptNames().isEmpty()); // set-nx-px-lua acquires with a plain SET NX PX

    place.nextStep();
    QCOMPARE(place.steppingAt(), 2);
    QCOMPARE(view->cursorTime(), times.at(2) - 1);
    QVERIFY(log->rowCount() > rowsAtStep1);
    QVERIFY(panel->headline().contains(QLatin1String("Step 2 of 3")));
    // As step 3 came due (700 ms), B had come and gone: no lock.
    keys = panel->keyLines();
    QVERIFY2(keys.filter(QStringLiteral("(no key)")).size() == 1, qPrintable(keys.join(u'\n')));

    place.nextStep();
    QCOMPARE(place.steppingAt(), 3);
    QCOMPARE(view->cursorTime(), view->totalUs());
    QCOMPARE(panel->scriptNames(), QStringList {QStringLiteral("compare_and_delete")}); // A's release
    QVERIFY(panel->headline().contains(QLatin1String("Step 3 of 3")));
    place.nextStep(); // nothing after the last step
    QCOMPARE(place.steppingAt(), 3);

    place.previousStep();
    QCOMPARE(place.steppingAt(), 2);
    QCOMPARE(view->cursorTime(), times.at(2) - 1);
    place.leaveStepping();
    QCOMPARE(place.steppingAt(), 0);
    QCOMPARE(view->cursorTime(), TimelineData::kOpen);
    QCOMPARE(log->rowCount(), int(place.controller()->run(0).timeline->events().size()));
    QCOMPARE(place.controller()->runCount(), 1);
    // The log calls the story's steps what they are (they used to read "fault").
    int stepRows = 0;
    for (int row = 0; row < log->rowCount(); ++row) {
        const QString kind = log->index(row, EventLogModel::Kind).data().toString();
        QVERIFY2(kind != QLatin1String("fault"), qPrintable(QString::number(row)));
        stepRows += kind == QLatin1String("story step") ? 1 : 0;
    }
    QCOMPARE(stepRows, int(place.controller()->scenario().story.steps.size()));
    // The throughput card counts what its chart counts: acquisitions per second.
    const RunMetrics &m = place.controller()->run(0).report.metrics;
    QVERIFY(m.acquisitions >= 2);
    QCOMPARE(place.cards()->card(QStringLiteral("throughput"))->value(),
             QStringLiteral("%1/s").arg(m.acquisitionsPerS, 0, 'f', 2));
}

void TestStoryStepping::everyRunOfASessionSteps()
{
    SimulatorPlace place(nullptr);
    place.show();
    place.loadScenario(smallStory());
    place.setStepMode(true);
    for (int run = 0; run < 3; ++run) {
        QVERIFY(place.run());
        QCOMPARE(place.steppingAt(), 1);
        QVERIFY(waitForRun(place));
        QVERIFY(place.controller()->outcome().passed());
        place.nextStep();
        place.nextStep();
        QCOMPARE(place.steppingAt(), 3);
    }
}

void TestStoryStepping::nextStopsAtTheLastRecordedStepOfAStoppedRun()
{
    SimulatorPlace place(nullptr);
    place.show();
    QVERIFY(place.loadPreset(QStringLiteral("seed-unconditional-del"))); // six steps over about six seconds
    place.setStepMode(true);
    QVERIFY(place.run());
    QTRY_VERIFY_WITH_TIMEOUT(place.timelinePanel()->view()->data() && !stepTimes(place).isEmpty(), 30000);
    place.stop();
    QVERIFY(waitForRun(place));
    const int recorded = int(stepTimes(place).size());
    QVERIFY2(recorded < 6, qPrintable(QStringLiteral("%1 steps recorded, run of %2 us, stopped: %3")
                                          .arg(recorded)
                                          .arg(place.timelinePanel()->view()->totalUs())
                                          .arg(place.controller()->wasStopped())));
    for (int i = 0; i < 8; ++i)
        place.nextStep();
    // Not beyond what happened: the last recorded step, its span up to the run's end, its events.
    QCOMPARE(place.steppingAt(), recorded);
    QCOMPARE(place.timelinePanel()->view()->cursorTime(), place.timelinePanel()->view()->totalUs());
    QVERIFY(place.eventLog()->rowCount() > 0);
}

void TestStoryStepping::aLongPauseOnAStepChangesNothing()
{
    // The case: the class reads step 2 of seed-unconditional-del for a long while. Step by step used
    // to pause the run there while A's lease ran out in Redis, and the flaw never happened.
    SimulatorPlace place(nullptr);
    place.show();
    QVERIFY(place.loadPreset(QStringLiteral("seed-unconditional-del")));
    place.setStepMode(true);
    QVERIFY(place.run());
    QTRY_VERIFY_WITH_TIMEOUT(place.timelinePanel()->view()->data()
                                 && stepTimes(place).size() >= 2,
                             30000);
    place.nextStep();
    QCOMPARE(place.steppingAt(), 2);
    QTest::qWait(10000); // reading pace: the point of this test, not a wait for something
    QVERIFY(waitForRun(place));
    QCOMPARE(place.steppingAt(), 2); // the view stayed where the class was
    QVERIFY2(place.controller()->outcome().passed(), qPrintable(failedChecks(place)));
}

void TestStoryStepping::everyStoryMeetsItsExpectationsWhenStepped_data()
{
    QTest::addColumn<QString>("preset");
    for (const PresetLibrary::Preset &p : PresetLibrary::all()) {
        if (p.scenario.kind == Scenario::Kind::Story && p.scenario.servers.mode != Scenario::Servers::Mode::Given)
            QTest::newRow(qPrintable(p.id)) << p.id;
    }
}

void TestStoryStepping::everyStoryMeetsItsExpectationsWhenStepped()
{
    QFETCH(QString, preset);
    SimulatorPlace place(nullptr);
    place.show();
    QVERIFY(place.loadPreset(preset));
    place.setStepMode(true);
    QVERIFY(place.run());
    QCOMPARE(place.steppingAt(), 1);
    // The class stays on step 1 for the whole run (a pause longer than any), then walks every step.
    QVERIFY(waitForRun(place, 120000));
    const SimulationRunner::Outcome outcome = place.controller()->outcome();
    QVERIFY2(outcome.error.isEmpty(), qPrintable(outcome.error));
    QVERIFY2(outcome.passed(), qPrintable(failedChecks(place)));
    int total = 0;
    for (const Scenario::Step &s : place.controller()->scenario().story.steps)
        total += s.note.isEmpty() ? 0 : 1;
    QCOMPARE(int(stepTimes(place).size()), total);
    for (int n = 2; n <= total; ++n) {
        place.nextStep();
        QCOMPARE(place.steppingAt(), n);
        QVERIFY(place.stepPanel()->headline().contains(QStringLiteral("Step %1 of %2").arg(n).arg(total)));
        // Every step shows what Redis held (read during the run), or says why it could not be read.
        QVERIFY(!place.stepPanel()->keyLines().isEmpty());
    }
}

QTEST_MAIN(TestStoryStepping)
#include "tst_storystepping.moc"
