// Fork from here, as a teacher uses it: step through a finished story, pick Fork… at a step, change one
// thing, and the Fork tab shows the recording and the fork one above the other on one time axis, with what
// each did and whether the steps before the fork point played out the same. The two cases: gc-pause
// with fencing off → on, seed-unconditional-del with a 2 s → 4 s lease.
#include "simulator/forkdialog.h"
#include "simulator/forkpanel.h"
#include "simulator/simulationcontroller.h"
#include "simulator/simulatorplace.h"
#include "simulator/summarycards.h"
#include "timeline/timelineview.h"

#include "sim/presetlibrary.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QPushButton>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

class TestForkFromHere : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }
    void forkRunsBesideTheRecording_data();
    void forkRunsBesideTheRecording();
    void nothingToForkWhileNotStepping();

private:
    static bool waitForRun(SimulatorPlace &place)
    {
        QElapsedTimer t;
        t.start();
        while (place.controller()->isRunning() && t.elapsed() < 120000)
            QTest::qWait(20);
        return !place.controller()->isRunning();
    }
};

void TestForkFromHere::forkRunsBesideTheRecording_data()
{
    QTest::addColumn<QString>("preset");
    QTest::addColumn<int>("forkAtNarrated"); // the step number as the story shows it
    QTest::addColumn<int>("change");
    QTest::addColumn<qint64>("ms");
    QTest::addColumn<QString>("described");
    // gc-pause step 4: "B waits…" (after A's acquire, read and pause).
    QTest::newRow("gc-pause, fencing off → on") << QStringLiteral("gc-pause") << 4
                                               << int(StoryFork::Change::Fencing) << qint64(0)
                                               << QStringLiteral("fencing off → on");
    // seed-unconditional-del step 3: "B polls every 100 ms…".
    QTest::newRow("seed-unconditional-del, lease 2 s → 4 s")
        << QStringLiteral("seed-unconditional-del") << 3 << int(StoryFork::Change::Lease) << qint64(4000)
        << QStringLiteral("lease 2 s → 4 s");
}

void TestForkFromHere::forkRunsBesideTheRecording()
{
    QFETCH(QString, preset);
    QFETCH(int, forkAtNarrated);
    QFETCH(int, change);
    QFETCH(qint64, ms);
    QFETCH(QString, described);

    SimulatorPlace place(nullptr);
    place.resize(1300, 900);
    place.show();
    QVERIFY(place.loadPreset(preset));
    place.setStepMode(true);
    QVERIFY(place.run());
    QVERIFY(waitForRun(place));
    place.showRun(0); // gc-pause: its unfenced variant
    QVERIFY(place.steppingAt() >= 1);
    while (place.steppingAt() > 1)
        place.previousStep();
    while (place.steppingAt() < forkAtNarrated)
        place.nextStep();
    QCOMPARE(place.steppingAt(), forkAtNarrated);
    const RunReport recorded = place.controller()->run(0).report;
    QVERIFY2(recorded.safety.violations() > 0, qPrintable(recorded.summaryText()));

    ForkDialog *dialog = place.forkFromHere();
    QVERIFY(dialog);
    StoryFork::Choice choice;
    choice.change = StoryFork::Change(change);
    choice.ms = ms;
    choice.fencing = true;
    dialog->setChoice(choice);
    QCOMPARE(dialog->choice().change, choice.change);
    auto *go = dialog->findChild<QPushButton *>(QStringLiteral("forkRun"));
    QVERIFY(go && go->isEnabled());
    go->click();

    ForkPanel *fork = place.forkPanel();
    QVERIFY(fork->hasFork());
    QTRY_VERIFY_WITH_TIMEOUT(!fork->isRunning(), 120000);
    QCOMPARE(fork->controller().runCount(), 1);
    const SimulationController::Run &run = fork->controller().run(0);
    QVERIFY(run.finished);
    // The change fixed what the recording showed going wrong, on the same kind of server.
    const SafetyChecker::Result &was = recorded.safety, &now = run.report.safety;
    if (preset == QLatin1String("gc-pause")) {
        // Fencing cannot stop the paused holder from waking up late; it stops its write.
        QVERIFY2(was.lostUpdates >= 1, qPrintable(recorded.summaryText()));
        QVERIFY2(now.lostUpdates == 0 && now.fencingRejections >= 1, qPrintable(run.report.summaryText()));
    } else {
        QVERIFY2(was.foreignReleases >= 1 && was.overlaps >= 1, qPrintable(recorded.summaryText()));
        QVERIFY2(now.foreignReleases == 0 && now.overlaps == 0, qPrintable(run.report.summaryText()));
    }
    // And nothing before the fork point changed.
    QVERIFY2(fork->divergence().same, qPrintable(fork->divergence().what));
    const QString header = fork->headerText();
    QVERIFY2(header.contains(described.toHtmlEscaped()), qPrintable(header));
    // Where it ran is where the recording ran: fresh sandboxes here ("same server", it said).
    QVERIFY2(header.contains(QLatin1String("fresh private sandbox servers")), qPrintable(header));
    // The comparison can be kept: both runs side by side, with what each did to the data.
    QTemporaryDir dir;
    QString error;
    const QString path = dir.filePath(QStringLiteral("fork.json"));
    QVERIFY2(fork->exportComparison(path, &error), qPrintable(error));
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QJsonObject json = QJsonDocument::fromJson(file.readAll()).object();
    QCOMPARE(json.value(QStringLiteral("comparison")).toArray().size(), 2);
    QCOMPARE(
        json.value(QStringLiteral("comparison")).toArray().at(1).toObject().value(QStringLiteral("variant")),
        QJsonValue(QStringLiteral("fork")));
    QVERIFY(json.value(QStringLiteral("divergence"))
                .toObject()
                .value(QStringLiteral("same_before_fork"))
                .toBool());
    QVERIFY(json.contains(QStringLiteral("recorded")) && json.contains(QStringLiteral("fork")));
    QVERIFY2(header.contains(QStringLiteral("Steps 1–%1 played out the same").arg(forkAtNarrated - 1)),
             qPrintable(header));

    // Side by side on one time axis: both views show the same span, and a zoom of one moves the other.
    TimelineView *a = fork->recordedView();
    TimelineView *b = fork->forkView();
    QVERIFY(a->isVisible() && b->isVisible());
    // The recording's summary cards give the two timelines their room while the Fork tab is shown.
    QVERIFY(!place.cards()->isVisible());
    QCOMPARE(a->viewStart(), b->viewStart());
    QCOMPARE(a->viewEnd(), b->viewEnd());
    b->zoomBy(0.5, (b->viewStart() + b->viewEnd()) / 2);
    QCOMPARE(a->viewStart(), b->viewStart());
    QCOMPARE(a->viewEnd(), b->viewEnd());
    a->showRange(0, 2'000'000);
    QCOMPARE(b->viewStart(), qint64(0));
    QCOMPARE(b->viewEnd(), qint64(2'000'000));

    // A new run of the Simulator starts afresh: the fork (made from the old recording) is gone.
    place.leaveStepping();
    QVERIFY(place.run());
    QVERIFY(!fork->hasFork());
    QVERIFY(place.cards()->isVisible());
    QVERIFY(waitForRun(place));
}

void TestForkFromHere::nothingToForkWhileNotStepping()
{
    SimulatorPlace place(nullptr);
    place.show();
    QVERIFY(place.loadPreset(QStringLiteral("seed-unconditional-del")));
    QVERIFY(!place.forkFromHere()); // not run yet
    QVERIFY(place.run());
    QVERIFY(!place.forkFromHere()); // not stepping
    QVERIFY(waitForRun(place));
    QVERIFY(!place.forkFromHere());
}

QTEST_MAIN(TestForkFromHere)
#include "tst_forkfromhere.moc"
