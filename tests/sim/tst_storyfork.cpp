// StoryFork: the change lands in the scenario that runs; a fork of a real story run on a real sandbox
// server plays out the same before the fork point and differently after it (the lesson's point); a fork
// that changes a step before the fork point is caught by compare().
#include "sim/presetlibrary.h"
#include "sim/runreport.h"
#include "sim/scenarioparser.h"
#include "sim/simulation.h"
#include "sim/storyfork.h"

#include <QtTest>

class TestStoryFork : public QObject
{
    Q_OBJECT

private slots:
    void changesOfferedDependOnTheStep();
    void applyChangesOneThingAndDropsExpectations();
    void badChangesAreRefusedWithAReason();
    void longerLeaseForkOfTheUnconditionalDelStory();
    void fencingForkOfTheGcPauseStory();
    void aLibrarysStoryForksToLockScopesLock();
    void compareFindsTheFirstStepThatDiffered();

private:
    static Scenario preset(const QString &id, int variant = -1)
    {
        const PresetLibrary::Preset *p = PresetLibrary::find(id);
        if (!p)
            qFatal("no preset %s", qPrintable(id));
        if (variant < 0)
            return p->scenario;
        Scenario v;
        QStringList errors;
        if (!ScenarioParser().variant(p->scenario, variant, &v, &errors))
            qFatal("variant: %s", qPrintable(errors.join(u'\n')));
        return v;
    }
    static int stepIndex(const Scenario &s, const QString &actor, Scenario::Step::Action action)
    {
        for (int i = 0; i < s.story.steps.size(); ++i) {
            if (s.story.steps.at(i).actor == actor && s.story.steps.at(i).action == action)
                return i;
        }
        qFatal("no such step");
    }
    struct Ran
    {
        RunReport report;
        QList<HistoryEvent> events;
    };
    static Ran run(const Scenario &s)
    {
        Simulation sim(s);
        sim.start();
        if (!sim.waitFinished(120000))
            qFatal("simulation did not finish");
        return {sim.report(), sim.history()->events()};
    }
};

void TestStoryFork::changesOfferedDependOnTheStep()
{
    const Scenario gc = preset(QStringLiteral("gc-pause"), 0);
    using C = StoryFork::Change;
    QCOMPARE(StoryFork::changesAt(gc, 0), (QList<C> {C::Lease, C::Fencing, C::PauseLength, C::Algorithm}));
    // After the pause step, its length is history: nothing to change there any more.
    const int afterPause = stepIndex(gc, QStringLiteral("A"), Scenario::Step::Action::Pause) + 1;
    QCOMPARE(StoryFork::changesAt(gc, afterPause), (QList<C> {C::Lease, C::Fencing, C::Algorithm}));
    // No counter, no fencing.
    const Scenario del = preset(QStringLiteral("seed-unconditional-del"));
    QCOMPARE(StoryFork::changesAt(del, 0), (QList<C> {C::Lease, C::Algorithm}));
    QCOMPARE(StoryFork::currentValue(del, 0, C::Lease), QStringLiteral("2 s"));
    QCOMPARE(StoryFork::currentValue(gc, 0, C::Fencing), QStringLiteral("off"));
    QCOMPARE(StoryFork::currentValue(gc, 0, C::PauseLength), QStringLiteral("5 s"));
}

void TestStoryFork::applyChangesOneThingAndDropsExpectations()
{
    const Scenario gc = preset(QStringLiteral("gc-pause")); // the comparison itself: variants, expectations
    QVERIFY(!gc.expect.isEmpty() && !gc.variants.isEmpty());
    Scenario fork;
    QString error;
    StoryFork::Choice fencing;
    fencing.change = StoryFork::Change::Fencing;
    fencing.fencing = true;
    QVERIFY2(StoryFork::apply(gc, 0, fencing, &fork, &error), qPrintable(error));
    QCOMPARE(fork.algorithm.id, QStringLiteral("fenced"));
    QVERIFY(fork.resource.fencedStore);
    QCOMPARE(fork.algorithm.leaseMs, gc.algorithm.leaseMs);
    QCOMPARE(fork.story.steps.size(), gc.story.steps.size());
    QVERIFY(fork.expect.isEmpty());
    QVERIFY(fork.variants.isEmpty());
    QCOMPARE(StoryFork::describe(gc, 0, fencing), QStringLiteral("fencing off → on"));

    StoryFork::Choice pause;
    pause.change = StoryFork::Change::PauseLength;
    pause.ms = 1500;
    QVERIFY2(StoryFork::apply(gc, 1, pause, &fork, &error), qPrintable(error));
    const int p = stepIndex(gc, QStringLiteral("A"), Scenario::Step::Action::Pause);
    QCOMPARE(fork.story.steps.at(p).ms, 1500.0);
    QCOMPARE(fork.algorithm.id, gc.algorithm.id);
    QCOMPARE(StoryFork::describe(gc, 1, pause), QStringLiteral("pause 5 s → 1.5 s"));
}

void TestStoryFork::badChangesAreRefusedWithAReason()
{
    const Scenario del = preset(QStringLiteral("seed-unconditional-del"));
    Scenario fork;
    QString error;
    StoryFork::Choice c;
    c.change = StoryFork::Change::Fencing;
    QVERIFY(!StoryFork::apply(del, 0, c, &fork, &error));
    QVERIFY2(error.contains(QLatin1String("counter")), qPrintable(error));
    c.change = StoryFork::Change::Algorithm;
    c.algorithmId = QStringLiteral("no-such-lock");
    QVERIFY(!StoryFork::apply(del, 0, c, &fork, &error));
    QVERIFY2(error.contains(QLatin1String("no-such-lock")), qPrintable(error));
    c.change = StoryFork::Change::Lease;
    c.ms = 0;
    QVERIFY(!StoryFork::apply(del, 0, c, &fork, &error));
    QVERIFY(!StoryFork::apply(del, 99, StoryFork::Choice {}, &fork, &error));
    QVERIFY2(error.contains(QLatin1String("step")), qPrintable(error));
}

// The done-means case: seed-unconditional-del forked at B's acquire with a 4 s lease. The recording has
// the flaw (A's late DEL removes B's lock, B and C overlap); the fork, on the same real server, has none,
// and the steps before the fork point did the same in both runs.
void TestStoryFork::longerLeaseForkOfTheUnconditionalDelStory()
{
    const Scenario recorded = preset(QStringLiteral("seed-unconditional-del"));
    const int at = stepIndex(recorded, QStringLiteral("B"), Scenario::Step::Action::Acquire);
    StoryFork::Choice c;
    c.change = StoryFork::Change::Lease;
    c.ms = 4000;
    Scenario fork;
    QString error;
    QVERIFY2(StoryFork::apply(recorded, at, c, &fork, &error), qPrintable(error));
    const Ran a = run(recorded);
    const Ran b = run(fork);
    QVERIFY2(a.report.safety.overlaps >= 1 && a.report.safety.foreignReleases >= 1,
             qPrintable(a.report.summaryText()));
    QCOMPARE(b.report.safety.overlaps, 0);
    QCOMPARE(b.report.safety.foreignReleases, 0);
    const StoryFork::Divergence d = StoryFork::compare(recorded, a.events, b.events, at);
    QVERIFY2(d.same, qPrintable(d.what));
    // Compared over the whole story, the runs differ, and compare() says where and how.
    const StoryFork::Divergence all
        = StoryFork::compare(recorded, a.events, b.events, int(recorded.story.steps.size()));
    QVERIFY(!all.same);
    QVERIFY2(!all.what.isEmpty(), "a difference is described");
}

// The other done-means case: gc-pause forked at B's acquire with fencing on: A's late write is refused
// and no update is lost; before the fork both runs did the same.
void TestStoryFork::fencingForkOfTheGcPauseStory()
{
    const Scenario recorded = preset(QStringLiteral("gc-pause"), 0);
    const int at = stepIndex(recorded, QStringLiteral("B"), Scenario::Step::Action::Acquire);
    StoryFork::Choice c;
    c.change = StoryFork::Change::Fencing;
    c.fencing = true;
    Scenario fork;
    QString error;
    QVERIFY2(StoryFork::apply(recorded, at, c, &fork, &error), qPrintable(error));
    const Ran a = run(recorded);
    const Ran b = run(fork);
    QVERIFY2(a.report.safety.lostUpdates >= 1, qPrintable(a.report.summaryText()));
    QCOMPARE(b.report.safety.lostUpdates, 0);
    QVERIFY2(b.report.safety.fencingRejections >= 1, qPrintable(b.report.summaryText()));
    const StoryFork::Divergence d = StoryFork::compare(recorded, a.events, b.events, at);
    QVERIFY2(d.same, qPrintable(d.what));
}

// A change that acts before the fork point shows: a 1 s pause instead of 5 s keeps A's lock alive (the
// watchdog renews it), so B's acquire — before a fork at A's late write — fails in the fork.
void TestStoryFork::aLibrarysStoryForksToLockScopesLock()
{
    // gc-pause-libraries' redis-py run, forked with fencing on: the fenced lock is LockScope's, so the fork
    // runs it instead of the library (it failed: "the fenced store is LockScope's own").
    const Scenario redisPy = preset(QStringLiteral("gc-pause-libraries"), 0);
    QVERIFY(redisPy.client.isSet());
    QCOMPARE(StoryFork::currentValue(redisPy, 0, StoryFork::Change::Algorithm), QStringLiteral("redis-py"));
    StoryFork::Choice fencing;
    fencing.change = StoryFork::Change::Fencing;
    fencing.fencing = true;
    Scenario fork;
    QString error;
    QVERIFY2(StoryFork::apply(redisPy, 3, fencing, &fork, &error), qPrintable(error));
    QVERIFY(!fork.client.isSet());
    QCOMPARE(fork.algorithm.id, QStringLiteral("fenced"));
    // A longer lease stays the library's own.
    StoryFork::Choice lease;
    lease.change = StoryFork::Change::Lease;
    lease.ms = 8000;
    QVERIFY2(StoryFork::apply(redisPy, 0, lease, &fork, &error), qPrintable(error));
    QCOMPARE(fork.client.adapter, QStringLiteral("redis-py"));
}

void TestStoryFork::compareFindsTheFirstStepThatDiffered()
{
    const Scenario recorded = preset(QStringLiteral("gc-pause"), 0);
    StoryFork::Choice c;
    c.change = StoryFork::Change::PauseLength;
    c.ms = 200;
    Scenario fork;
    QString error;
    QVERIFY2(StoryFork::apply(recorded, 0, c, &fork, &error), qPrintable(error));
    const Ran a = run(recorded);
    const Ran b = run(fork);
    const int late = stepIndex(recorded, QStringLiteral("A"), Scenario::Step::Action::Write);
    const StoryFork::Divergence d = StoryFork::compare(recorded, a.events, b.events, late);
    QVERIFY2(!d.same, "a short pause changes what B got before A's late write");
    QVERIFY2(d.what.startsWith(QLatin1String("B: ")) || d.what.startsWith(QLatin1String("A: ")),
             qPrintable(d.what));
    QVERIFY(d.stepIndex >= 0 && d.stepIndex < late);
}

QTEST_GUILESS_MAIN(TestStoryFork)
#include "tst_storyfork.moc"
