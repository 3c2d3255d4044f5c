// The explorer against real sandbox Redis servers: the search finds a seed flaw without being told where to
// strike, the shrinker cuts a known failing schedule down to its core, confirmation counts what it saw, the
// story it writes parses and replays, "none found" never claims more than it tried, and shard reports merge.
// No test asserts a time: budgets are bounds, schedule counts are the measure.
#include "explore/explorer.h"
#include "explore/exploreresult.h"
#include "explore/schedulerunner.h"
#include "explore/scheduleshrinker.h"
#include "sim/scenarioparser.h"
#include "sim/simulationrunner.h"

#include <QJsonArray>
#include <QTest>

class TestExplorer : public QObject
{
    Q_OBJECT
private slots:
    void searchFindsTheUnconditionalDelete();
    void shrinkerCutsAKnownScheduleToItsCore();
    void crashBetweenSetnxAndExpireLeavesAStuckLock();
    void noneFoundSaysHowManyAndIsNoProof();
    void fencedUnderPausesLosesNoData();
    void unknownFaultForTheTargetIsRefused();
    void mergeKeepsTheSmallestConfirmedFailure();
    void mergeRefusesReportsOfDifferentSearches();

private:
    static Explorer::Options quick(const QString &algorithm, QList<ScheduledFault::Type> faults);
};

Explorer::Options TestExplorer::quick(const QString &algorithm, QList<ScheduledFault::Type> faults)
{
    Explorer::Options o;
    o.target.algorithm = algorithm;
    o.faults = faults;
    o.budgetS = 60; // a bound, not the measure: every search here stops at its first confirmed failure
    o.confirmRuns = 3;
    o.boundaryRuns = 3;
    o.storyRuns = 1;
    o.parallel = 2;
    return o;
}

void TestExplorer::searchFindsTheUnconditionalDelete()
{
    Explorer explorer(quick(QStringLiteral("set-nx-px-del"), {ScheduledFault::Type::Pause}));
    QString error;
    QVERIFY2(explorer.prepare(&error), qPrintable(error));
    const ExploreResult r = explorer.run();
    QVERIFY2(r.found, qPrintable(r.coverageText));
    // Unconditional DEL under a pause longer than the lease: an update is lost (or, at least, two holders).
    QVERIFY2(r.property == QLatin1String("lost-update") || r.property == QLatin1String("overlap"),
             qPrintable(r.property));
    QVERIFY(r.minimal.faults.size() >= 1 && r.minimal.faults.size() <= 2);
    QVERIFY(r.minimal.workers >= 2 && r.minimal.workers <= 3);
    QCOMPARE(r.minimal.faults.first().type, ScheduledFault::Type::Pause);
    // The pause that breaks it outlasts the lease it froze (the search was told neither).
    QVERIFY2(r.minimal.faults.first().durationMs > 0.9 * 500, qPrintable(r.minimal.describe()));
    QVERIFY(r.reproducedRuns > 0);
    QVERIFY(r.reproducedViolated >= 1 && r.reproducedViolated <= r.reproducedRuns);
    QVERIFY2(!r.sentence.contains(QLatin1String("lockscope:explore:")), qPrintable(r.sentence));
    // The boundary's headline is the shortest length seen to break it: no measurement below it broke it.
    if (r.boundary) {
        for (const ExploreResult::Boundary::Step &c : r.confirmations)
            QVERIFY2(c.violated == 0 || c.ms >= r.boundary->failsAtMs, qPrintable(r.boundary->text));
        for (const ExploreResult::Boundary::Step &g : r.boundary->grey)
            QVERIFY2(g.ms >= r.boundary->failsAtMs, qPrintable(r.boundary->text));
    }

    // The story: an ordinary scenario of kind story that the parser reads back and that encodes the violation.
    const std::optional<Scenario> story = explorer.story();
    QVERIFY(story);
    Scenario parsed;
    QStringList problems;
    QVERIFY2(ScenarioParser().parse(ScenarioParser::toJson(*story), &parsed, &problems),
             qPrintable(problems.join(u'\n')));
    QCOMPARE(parsed.kind, Scenario::Kind::Story);
    QVERIFY(!parsed.expect.isEmpty());
    QVERIFY(parsed.story.actors.contains(QStringLiteral("A")));
    QVERIFY(r.storyProblem.isEmpty());

    // Replayed like `simulate FILE`: its expectation is met (the violation happens again).
    const SimulationRunner::Outcome replay = SimulationRunner::run(parsed, Simulation::Options());
    QVERIFY2(replay.ok(), qPrintable(replay.error));
    QVERIFY2(replay.passed(), qPrintable(replay.summaryText()));

    // The report's JSON carries what the issue names.
    const QJsonObject json = r.toJson();
    QCOMPARE(json.value(QStringLiteral("found")).toBool(), true);
    QVERIFY(!json.value(QStringLiteral("violation")).toObject().value(QStringLiteral("sentence")).toString().isEmpty());
    const QJsonArray faults = json.value(QStringLiteral("minimal")).toObject().value(QStringLiteral("faults")).toArray();
    QCOMPARE(faults.size(), r.minimal.faults.size());
    QCOMPARE(faults.first().toObject().value(QStringLiteral("type")).toString(), QStringLiteral("pause"));
    QVERIFY(faults.first().toObject().contains(QStringLiteral("duration_ms")));
    QCOMPARE(json.value(QStringLiteral("reproduced")).toObject().value(QStringLiteral("runs")).toInt(), r.reproducedRuns);
    QCOMPARE(json.value(QStringLiteral("shard")).toString(), QStringLiteral("0/1"));
}

void TestExplorer::shrinkerCutsAKnownScheduleToItsCore()
{
    // A known failing schedule with padding: A pauses for three leases right after its first acquire (the
    // core), C is cut off late for a moment, and a third worker takes part. The core is one pause on 2 workers.
    ExploreTarget::Options to;
    to.algorithm = QStringLiteral("set-nx-px-lua");
    to.workers = 3;
    QString error;
    const std::optional<ExploreTarget> target = ExploreTarget::make(to, &error);
    QVERIFY2(target, qPrintable(error));
    ScheduleRunner runner(*target, ScheduleRunner::Options {2, std::nullopt});
    QVERIFY2(runner.start(&error), qPrintable(error));

    FaultSchedule padded;
    padded.workers = 3;
    ScheduledFault pause;
    pause.type = ScheduledFault::Type::Pause;
    pause.target = 0;
    pause.atMs = 1;
    pause.durationMs = 1500;
    ScheduledFault cut;
    cut.type = ScheduledFault::Type::Cut;
    cut.target = 2;
    cut.atMs = 2500;
    cut.durationMs = 5;
    padded.faults = {pause, cut};

    // It fails as given (the shrinker starts from a sighting, like the search hands it one).
    std::optional<ScheduleVerdict> sighting;
    for (const ScheduleVerdict &v : runner.run({{padded, 11}, {padded, 12}})) {
        if (v.ran && v.worstOf({ScheduleVerdict::Property::Overlap}))
            sighting = v;
    }
    QVERIFY2(sighting, "a 1.5 s pause under a 500 ms lease must let a second holder in");

    ScheduleShrinker shrinker(runner, ScheduleVerdict::Property::Overlap, 77);
    const ScheduleShrinker::Result shrunk = shrinker.shrink(*sighting);
    QCOMPARE(shrunk.minimal.faults.size(), 1);
    QCOMPARE(shrunk.minimal.faults.first().type, ScheduledFault::Type::Pause);
    QCOMPARE(shrunk.minimal.workers, 2);
    // Shorter than given, and still longer than most of the lease: the boundary is near the lease.
    QVERIFY2(shrunk.minimal.faults.first().durationMs < 1500, qPrintable(shrunk.minimal.describe()));
    QVERIFY2(shrunk.minimal.faults.first().durationMs > 0.8 * 500, qPrintable(shrunk.minimal.describe()));
    QCOMPARE(shrunk.boundaryFault, 0);
    QVERIFY(shrunk.failsAtMs > 0);
    QVERIFY(shrunk.passedAtMs < shrunk.failsAtMs);
    // Every accepted step failed: the last one is the minimal schedule, and its run broke the property.
    QVERIFY(!shrunk.path.isEmpty());
    QVERIFY(shrunk.failing.violates(ScheduleVerdict::Property::Overlap));
}

void TestExplorer::crashBetweenSetnxAndExpireLeavesAStuckLock()
{
    Explorer explorer(quick(QStringLiteral("setnx-expire"), {ScheduledFault::Type::Crash}));
    QString error;
    QVERIFY2(explorer.prepare(&error), qPrintable(error));
    const ExploreResult r = explorer.run();
    QVERIFY2(r.found, qPrintable(r.coverageText));
    QCOMPARE(r.property, QStringLiteral("stuck-lock"));
    QCOMPARE(r.minimal.faults.size(), 1);
    QCOMPARE(r.minimal.faults.first().point, ScheduledFault::Point::InsideAcquire);
    QVERIFY(r.reproducedViolated >= 1);
    QVERIFY(!r.boundary); // no length decides a crash
}

void TestExplorer::noneFoundSaysHowManyAndIsNoProof()
{
    // The textbook lock meets crashes: a crashed holder's lease runs out, nothing breaks. Six schedules only.
    Explorer::Options o = quick(QStringLiteral("set-nx-px-lua"), {ScheduledFault::Type::Crash});
    o.maxSchedules = 6;
    // A 2 s lease: on a loaded 2-core machine a worker can stall inside its section for longer than 500 ms
    // with no fault of ours, which really does break a lock without fencing (seen once, under a parallel
    // ctest) and is not what this test is about.
    o.target.leaseMs = 2000;
    Explorer explorer(o);
    QString error;
    QVERIFY2(explorer.prepare(&error), qPrintable(error));
    const ExploreResult r = explorer.run();
    QVERIFY2(!r.found, qPrintable(r.sentence));
    QCOMPARE(r.schedulesTried, 6);
    QVERIFY(!explorer.story());
    const QJsonObject json = r.toJson();
    QCOMPARE(json.value(QStringLiteral("schedules_tried")).toInt(), 6);
    QVERIFY(json.value(QStringLiteral("violation")).isNull());
    // The coverage counts only what ran.
    QCOMPARE(json.value(QStringLiteral("coverage")).toObject().value(QStringLiteral("crash")).toObject()
                 .value(QStringLiteral("schedules")).toInt(),
             6);
    const QString summary = ExploreResult::summaryOf(json);
    QVERIFY2(summary.contains(QLatin1String("NONE FOUND in 6 schedules")), qPrintable(summary));
    QVERIFY2(summary.contains(QLatin1String("not a proof")), qPrintable(summary));
    QVERIFY2(!summary.contains(QLatin1String("safe"), Qt::CaseInsensitive), qPrintable(summary));
    QVERIFY(summary.count(u'\n') <= 5);
}

// The fenced lock still has two holders under a long pause (a lease is a lease), but its store refuses the
// stale holder's write, even one that lands before the new holder's own write: no update is lost, and the
// report says what the store refused.
void TestExplorer::fencedUnderPausesLosesNoData()
{
    Explorer::Options o = quick(QStringLiteral("fenced"), {ScheduledFault::Type::Pause});
    o.properties = {ScheduleVerdict::Property::LostUpdate};
    o.maxSchedules = 16;
    Explorer explorer(o);
    QString error;
    QVERIFY2(explorer.prepare(&error), qPrintable(error));
    const ExploreResult r = explorer.run();
    QVERIFY2(!r.found, qPrintable(r.sentence + u' ' + r.minimal.describe()));
    QCOMPARE(r.schedulesTried, 16);

    // The same pauses with overlap asked for: found, and the data safe.
    o.properties = {ScheduleVerdict::Property::Overlap};
    o.maxSchedules = 0;
    Explorer overlaps(o);
    QVERIFY2(overlaps.prepare(&error), qPrintable(error));
    const ExploreResult v = overlaps.run();
    QVERIFY2(v.found, qPrintable(v.coverageText));
    QVERIFY(!v.dataLost);
    QVERIFY(v.fencingRejections >= 1);
    const QString summary = ExploreResult::summaryOf(v.toJson());
    QVERIFY2(summary.contains(QLatin1String("no data lost")), qPrintable(summary));
}

void TestExplorer::unknownFaultForTheTargetIsRefused()
{
    // The textbook lock reads no clock: a clock jump cannot touch it. Refused before anything runs, as a bad
    // option.
    Explorer explorer(quick(QStringLiteral("set-nx-px-lua"), {ScheduledFault::Type::ClockJump}));
    QString error;
    bool bad = false;
    QVERIFY(!explorer.prepare(&error, &bad));
    QVERIFY(bad);
    QVERIFY2(error.contains(QLatin1String("clock-jump")), qPrintable(error));
}

namespace {

QJsonObject shardReport(int shard, bool found, int schedules, int faults, int workers)
{
    ExploreResult r;
    r.target = QStringLiteral("set-nx-px-lua");
    r.leaseMs = 500;
    r.workers = 3;
    r.seed = 1;
    r.shardIndex = shard;
    r.shardCount = 2;
    r.schedulesTried = schedules;
    r.runs = schedules;
    r.found = found;
    if (found) {
        r.property = QStringLiteral("overlap");
        r.sentence = QStringLiteral("A and B were both inside");
        r.minimal.workers = workers;
        for (int i = 0; i < faults; ++i) {
            ScheduledFault f;
            f.type = ScheduledFault::Type::Pause;
            f.target = 0;
            f.atMs = 1 + i;
            f.durationMs = 600;
            r.minimal.faults << f;
        }
        r.reproducedRuns = 5;
        r.reproducedViolated = 5;
    }
    return r.toJson();
}

} // namespace

void TestExplorer::mergeKeepsTheSmallestConfirmedFailure()
{
    QJsonObject merged;
    QString error;
    QVERIFY2(ExploreResult::merge({shardReport(0, true, 40, 2, 3), shardReport(1, true, 30, 1, 2)}, &merged, &error),
             qPrintable(error));
    QCOMPARE(merged.value(QStringLiteral("found")).toBool(), true);
    QCOMPARE(merged.value(QStringLiteral("schedules_tried")).toInt(), 70);
    const QJsonObject minimal = merged.value(QStringLiteral("minimal")).toObject();
    QCOMPARE(minimal.value(QStringLiteral("faults")).toArray().size(), 1);
    QCOMPARE(minimal.value(QStringLiteral("workers")).toInt(), 2);

    // A shard that found nothing adds its schedules and never hides another's failure.
    QVERIFY(ExploreResult::merge({shardReport(0, false, 50, 0, 0), shardReport(1, true, 30, 2, 3)}, &merged, &error));
    QCOMPARE(merged.value(QStringLiteral("found")).toBool(), true);
    QCOMPARE(merged.value(QStringLiteral("schedules_tried")).toInt(), 80);
    QVERIFY(ExploreResult::merge({shardReport(0, false, 50, 0, 0), shardReport(1, false, 30, 0, 0)}, &merged, &error));
    QCOMPARE(merged.value(QStringLiteral("found")).toBool(), false);
    QVERIFY(ExploreResult::summaryOf(merged).contains(QLatin1String("NONE FOUND in 80 schedules")));
}

void TestExplorer::mergeRefusesReportsOfDifferentSearches()
{
    QJsonObject other = shardReport(1, false, 10, 0, 0);
    other.insert(QStringLiteral("lease_ms"), 2000);
    QJsonObject merged;
    QString error;
    QVERIFY(!ExploreResult::merge({shardReport(0, false, 10, 0, 0), other}, &merged, &error));
    QVERIFY2(error.contains(QLatin1String("lease")), qPrintable(error));
}

QTEST_GUILESS_MAIN(TestExplorer)

#include "tst_explorer.moc"
