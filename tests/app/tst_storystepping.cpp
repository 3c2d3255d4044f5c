// Step mode walks a story's recording: the run goes on at Redis' own pace whatever the reading pace, so every
// story meets its expectations when stepped; Back and Next move every view (timeline cursor, event log, the
// keys as Redis held them, the step's Lua) together; it works on every run of a session.
#include "inspect/locknames.h"
#include "sim/presetlibrary.h"
#include "sim/scenarioparser.h"
#include "simulator/eventlogmodel.h"
#include "simulator/simulationcontroller.h"
#include "simulator/simulatorplace.h"
#include "simulator/storysteppanel.h"
#include "simulator/summarycard.h"
#include "simulator/summarycards.h"
#include "simulator/violationmodel.h"
#include "smallstory.h"
#include "testsupport.h"
#include "timeline/timelinepanel.h"
#include "timeline/timelineview.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStandardPaths>
#include <QTextBrowser>
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
    void storyOneDrawsTheKeyThatSetnxSet();
    void steppingShowsTheRunAsOfTheStep();
    void aComparisonStaysOnTheReadersVariant();

private:
    // Shows `place`, loads `preset` and runs it in step mode.
    static bool startStepping(SimulatorPlace &place, const QString &preset)
    {
        place.show();
        if (!place.loadPreset(preset))
            return false;
        place.setStepMode(true);
        return place.run();
    }
    // Where the timeline and Redis disagree about each lock key, at each reading of the story's keys: the
    // key exists or not, and has a TTL or not. Empty when they agree everywhere they can be compared.
    static QStringList disagreementsWithRedis(const SimulationController::Run &run,
                                              const QList<StorySnapshot> &snapshots);
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
    QVERIFY(
        startStepping(place, QStringLiteral("seed-unconditional-del"))); // six steps over about six seconds
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
    QVERIFY(startStepping(place, QStringLiteral("seed-unconditional-del")));
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
    QVERIFY(startStepping(place, preset));
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
    // Each run's timeline tells what Redis held at each reading: the key there or not, with a TTL or not.
    for (int i = 0; i < place.controller()->runCount(); ++i) {
        const QStringList disagreements
            = disagreementsWithRedis(place.controller()->run(i), place.controller()->storySnapshots(i));
        QVERIFY2(disagreements.isEmpty(),
                 qPrintable(QStringLiteral("%1: %2").arg(place.controller()->run(i).variant,
                                                         disagreements.join(u'\n'))));
    }
}

QStringList TestStoryStepping::disagreementsWithRedis(const SimulationController::Run &run,
                                                      const QList<StorySnapshot> &snapshots)
{
    QStringList out;
    const TimelineData &d = *run.timeline;
    // Redlock's keys live on several servers (a hold is a majority of them): compared on one server only.
    if (run.scenario.servers.count > 1)
        return out;
    // (exists, without TTL) as the timeline draws the key at `t`.
    const auto drawn = [&](int lock, qint64 t) {
        QPair<bool, bool> state {false, false};
        for (int w = 0; w < d.workerCount(); ++w) {
            for (const TimelineData::Hold &h : d.holds(w, lock)) {
                if (std::min(h.startUs, h.leaseFromUs) <= t && t < h.keyEndUs()) {
                    state.first = true;
                    state.second = state.second || (h.flags & TimelineData::Hold::NoTtl);
                }
            }
        }
        return state;
    };
    // A server fault may lose the key without anything in the history saying so: not compared after one.
    qint64 serverFaultUs = TimelineData::kOpen;
    for (int server = 0; server < d.serverCount(); ++server) {
        for (const TimelineData::ServerMark &m : d.serverMarks(server))
            serverFaultUs = std::min(serverFaultUs, m.timeUs);
    }
    constexpr qint64 kMarginUs = 50000; // the reading's own round trip, and a lease counted from its send
    for (const StorySnapshot &snap : snapshots) {
        if (snap.late || snap.servers.isEmpty() || !snap.servers.first().unread.isEmpty()
            || snap.readUs >= serverFaultUs)
            continue;
        for (int lock = 0; lock < d.lockCount(); ++lock) {
            const QByteArray name = d.layout().locks.at(lock).toUtf8();
            // The lock's own key; an external library's key around its name ("mutex:" + name) when it
            // names it its own way.
            const StorySnapshot::Key *exact = nullptr;
            const StorySnapshot::Key *library = nullptr;
            for (const StorySnapshot::Key &k : snap.servers.first().keys) {
                if (k.key == name)
                    exact = &k;
                // Found only while it exists; a lock's companions (Redisson's queue and deadlines) are not
                // it.
                else if (!library && k.key.contains(name)
                         && LockNames::companionOf(k.key).role == LockNames::CompanionRole::None)
                    library = &k;
            }
            const bool exactHeld = exact && exact->type != QLatin1String("none");
            const StorySnapshot::Key *key
                = run.scenario.client.isSet() && library && !exactHeld ? library : exact;
            if (!key || !key->unread.isEmpty() || key->type.isEmpty())
                continue;
            const QPair<bool, bool> redis {key->type != QLatin1String("none"), key->pttlMs == -1};
            bool agreed = false;
            for (qint64 t = snap.requestedUs - kMarginUs; t <= snap.readUs + kMarginUs && !agreed; t += 1000)
                agreed = drawn(lock, t) == redis;
            if (!agreed) {
                const QPair<bool, bool> at = drawn(lock, snap.readUs);
                out << QStringLiteral("%1 at %2 us (step %3): Redis %4, the timeline %5")
                           .arg(QString::fromUtf8(name))
                           .arg(snap.readUs)
                           .arg(snap.stepIndex)
                           .arg(redis.first ? (redis.second ? "holds it without TTL" : "holds it")
                                            : "has no key",
                                at.first ? (at.second ? "draws it without TTL" : "draws it")
                                         : "draws no key");
            }
        }
    }
    return out;
}

void TestStoryStepping::storyOneDrawsTheKeyThatSetnxSet()
{
    // Story 1: A's SETNX set the key, then A died before EXPIRE. The timeline drew A waiting for the whole
    // run, no crash and an empty lock lane, and the cards said 0 acquisitions, while Redis held A's key
    // without expiry: the crash dropped A's last records.
    SimulatorPlace place(nullptr);
    QVERIFY(startStepping(place, QStringLiteral("seed-setnx-expire-crash")));
    QVERIFY(waitForRun(place));
    const SimulationController::Run &run = place.controller()->run(0);
    const TimelineData &d = *run.timeline;
    const int a = int(d.layout().workers.indexOf(QStringLiteral("A")));
    const int b = int(d.layout().workers.indexOf(QStringLiteral("B")));
    QVERIFY(a >= 0 && b >= 0);
    QCOMPARE(d.holds(a, 0).size(), 1);
    const TimelineData::Hold &hold = d.holds(a, 0).first();
    QVERIFY(hold.flags & TimelineData::Hold::NoTtl);
    QVERIFY(hold.flags & TimelineData::Hold::Crashed);
    QVERIFY2(hold.leaseFromUs < 500000, qPrintable(QString::number(hold.leaseFromUs))); // step 1, at 0 s
    QCOMPARE(hold.keyEndUs(), TimelineData::kOpen); // the key never expires
    QCOMPARE(d.waits(a).last().outcome, TimelineData::Wait::Outcome::Acquired);
    QCOMPARE(d.workerStateAt(a, d.nowUs()), TimelineData::WorkerState::Crashed);
    QCOMPARE(d.waits(b).last().outcome, TimelineData::Wait::Outcome::GaveUp);
    QCOMPARE(run.report.metrics.acquisitions, 1);
    QCOMPARE(run.report.locksWithoutTtl, 1);
    const QStringList disagreements = disagreementsWithRedis(run, place.controller()->storySnapshots(0));
    QVERIFY2(disagreements.isEmpty(), qPrintable(disagreements.join(u'\n')));
    // Step 2 is the narrator's: nothing "happens to the servers" there.
    place.nextStep();
    QVERIFY2(!place.stepPanel()->scriptsCaption().contains(QLatin1String("happens to")),
             qPrintable(place.stepPanel()->scriptsCaption()));
}

void TestStoryStepping::steppingShowsTheRunAsOfTheStep()
{
    // At step 1 the cards and the Violations tab showed the whole run's totals: the ending, given away.
    SimulatorPlace place(nullptr);
    place.show();
    place.loadScenario(smallStory());
    place.setStepMode(true);
    QVERIFY(place.run());
    QVERIFY(waitForRun(place));
    const SimulationController::Run &run = place.controller()->run(0);
    const int total = run.report.safety.violations();
    QVERIFY(total >= 1);
    QCOMPARE(place.steppingAt(), 1); // before B came: nothing wrong yet
    QCOMPARE(place.violations()->rowCount(), 0);
    QCOMPARE(place.cards()->violationsCard()->value(), QStringLiteral("0"));
    QVERIFY(place.cards()->card(QStringLiteral("expect"))->value() != QStringLiteral("1 / 1"));
    auto *report = place.findChild<QTextBrowser *>();
    QVERIFY(report->toPlainText().contains(QLatin1String("shown at the last step")));
    place.nextStep();
    place.nextStep();
    QCOMPARE(place.steppingAt(), 3); // the last step: the run's own numbers, as its report
    QCOMPARE(place.violations()->rowCount(), run.report.safety.details.size());
    QCOMPARE(place.cards()->violationsCard()->value(), QString::number(total));
    QVERIFY2(report->toPlainText().contains(QLatin1String("shown as expected")),
             qPrintable(report->toPlainText()));
    place.previousStep();
    place.previousStep();
    QCOMPARE(place.violations()->rowCount(), 0);
    place.leaveStepping();
    QCOMPARE(place.cards()->violationsCard()->value(), QString::number(total));
}

void TestStoryStepping::aComparisonStaysOnTheReadersVariant()
{
    // Stepping the first variant, the view switched to the next one as it started.
    SimulatorPlace place(nullptr);
    place.show();
    Scenario s = smallStory();
    QJsonObject json = QJsonDocument::fromJson(SmallStory::json()).object();
    json.insert(QStringLiteral("variants"),
                QJsonArray {QJsonObject {{QStringLiteral("name"), QStringLiteral("one")}},
                            QJsonObject {{QStringLiteral("name"), QStringLiteral("two")}}});
    json.insert(QStringLiteral("expect"), QJsonArray {QStringLiteral("one.overlaps >= 1")});
    QStringList errors;
    QVERIFY2(ScenarioParser().parse(json, &s, &errors), qPrintable(errors.join(u'\n')));
    place.loadScenario(s);
    place.setStepMode(true);
    QVERIFY(place.run());
    QTRY_COMPARE_WITH_TIMEOUT(place.controller()->activeRun(), 1, 30000);
    QCOMPARE(place.shownRun(), 0);
    QCOMPARE(place.steppingAt(), 1);
    QVERIFY(waitForRun(place));
    QCOMPARE(place.shownRun(), 0);
    QCOMPARE(place.steppingAt(), 1);
}

QTEST_MAIN(TestStoryStepping)
#include "tst_storystepping.moc"
