// RunReport's terminal summary: the user's own text (key prefix, expectations) comes out as written.
#include "sim/runreport.h"

#include <QTest>

class TestRunReport : public QObject
{
    Q_OBJECT
private slots:
    void counterLineKeepsThePercentSignsOfTheKey();
    void severalCountersAreNamedAsSuch();
    void expectationLineKeepsItsText();
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

QTEST_GUILESS_MAIN(TestRunReport)
#include "tst_runreport.moc"
