// RunReport's terminal summary: the user's own text (key prefix, expectations) comes out as written.
#include "sim/runreport.h"
#include "sim/simulationrunner.h"

#include <QJsonArray>

#include <QTest>

class TestRunReport : public QObject
{
    Q_OBJECT
private slots:
    void counterLineKeepsThePercentSignsOfTheKey();
    void severalCountersAreNamedAsSuch();
    void expectationLineKeepsItsText();
    void aComparisonIsOneRowPerVariantWithWhatHappenedToTheData();
};

void TestRunReport::counterLineKeepsThePercentSignsOfTheKey()
{
    RunReport r;
    r.counterKey = QStringLiteral("app:%1:%2:count");
    r.counters = 1;
    r.safety.counterExpected = 5;
    r.safety.counterObserved = true;
    r.safety.counterActual = 7;
    const QString text = r.summaryText();
    QVERIFY2(text.contains(QStringLiteral("counter app:%1:%2:count: expected 5, actual 7\n")),
             qPrintable(text));
}

void TestRunReport::severalCountersAreNamedAsSuch()
{
    RunReport r;
    r.counterKey = QStringLiteral("app:%3:count");
    r.counters = 4;
    r.safety.counterExpected = 40;
    const QString text = r.summaryText();
    QVERIFY2(text.contains(QStringLiteral(
                 "4 counters (app:%3:count and the next ones, summed): expected 40, actual unknown\n")),
             qPrintable(text));
}

void TestRunReport::expectationLineKeepsItsText()
{
    RunReport r;
    Expectation::Check check;
    check.expectation = QStringLiteral("%1 overlaps >= 1");
    check.actual = 2;
    check.passed = true;
    r.checks.append(check);
    const QString text = r.summaryText();
    QVERIFY2(text.contains(QStringLiteral("✔ expect %1 overlaps >= 1 (actual 2)\n")), qPrintable(text));
}

void TestRunReport::aComparisonIsOneRowPerVariantWithWhatHappenedToTheData()
{
    // A library that lost an update, the fenced run that two holders could not hurt, and a lock left stuck.
    const auto report = [](const QString &library, int overlaps, int stale, int lost, int refused) {
        RunReport r;
        r.algorithm = library;
        r.counterKey = QStringLiteral("lockscope:sim:counter:0");
        r.counters = 1;
        r.metrics.acquisitions = 2;
        r.safety.overlaps = overlaps;
        r.safety.staleHolders = stale;
        r.safety.lostUpdates = lost;
        r.safety.fencingRejections = refused;
        return r;
    };
    SimulationRunner::Outcome outcome;
    outcome.runs << SimulationRunner::Run {QStringLiteral("redis-py"),
                                           report(QStringLiteral("redis-py"), 1, 1, 1, 0)}
                 << SimulationRunner::Run {QStringLiteral("fenced"),
                                           report(QStringLiteral("fenced"), 1, 1, 0, 1)};
    RunReport stuck = report(QStringLiteral("setnx-expire"), 0, 0, 0, 0);
    stuck.counterKey.clear();
    stuck.counters = 0;
    stuck.locksWithoutTtl = 1;
    outcome.runs << SimulationRunner::Run {QStringLiteral("stuck"), stuck};
    const QJsonArray rows = outcome.toJson().value(QStringLiteral("comparison")).toArray();
    QCOMPARE(rows.size(), 3);
    const QJsonObject lost = rows.at(0).toObject();
    QCOMPARE(lost.value(QStringLiteral("variant")).toString(), QStringLiteral("redis-py"));
    QCOMPARE(lost.value(QStringLiteral("lost_updates")).toInt(), 1);
    QCOMPARE(lost.value(QStringLiteral("overlaps")).toInt(), 1);
    QCOMPARE(lost.value(QStringLiteral("acquisitions")).toInt(), 2);
    QCOMPARE(lost.value(QStringLiteral("verdict")).toString(), QStringLiteral("data-lost"));
    QCOMPARE(lost.value(QStringLiteral("verdict_text")).toString(), QStringLiteral("data lost: 1 update"));
    // Fencing kept the data safe: not "2 violations".
    const QJsonObject fenced = rows.at(1).toObject();
    QCOMPARE(fenced.value(QStringLiteral("verdict")).toString(), QStringLiteral("safe-by-fencing"));
    QCOMPARE(fenced.value(QStringLiteral("fencing_rejections")).toInt(), 1);
    QVERIFY(fenced.value(QStringLiteral("verdict_text")).toString().startsWith(QLatin1String("data safe")));
    // No counter: no data to lose, so lost updates are unknown (null), not 0.
    const QJsonObject locked = rows.at(2).toObject();
    QVERIFY(locked.value(QStringLiteral("lost_updates")).isNull());
    QCOMPARE(locked.value(QStringLiteral("verdict")).toString(), QStringLiteral("lock-stuck"));
    // The terminal gets the same table.
    const QString text = outcome.summaryText();
    QVERIFY2(text.contains(QLatin1String("side by side"))
                 && text.contains(QLatin1String("data lost: 1 update")),
             qPrintable(text));
}

QTEST_GUILESS_MAIN(TestRunReport)
#include "tst_runreport.moc"
