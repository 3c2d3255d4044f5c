// A Redlock simulation on three real sandbox masters, one of them frozen: every round is in the history
// with who granted it, who refused and who did not answer, and the report, the CSV and the JSON count them.
#include "sim/historycsv.h"
#include "sim/scenarioparser.h"
#include "sim/simulation.h"
#include "testsupport.h"

#include <QBuffer>

using RO = HistoryEvent::RoundOutcome;

class TestSimulationRedlock : public QObject
{
    Q_OBJECT
private slots:
    void roundsRecordTheirVotes();
};

// Server 2 is frozen (SIGSTOP) for the whole story. A wins 2 of 3; B asks while A holds: servers 0 and 1
// refuse, server 2 says nothing, round after round, until B's acquire timeout.
static const QByteArray kStory = R"({"lockscope_scenario": 1, "id": "t", "title": "t", "kind": "story",
    "servers": {"mode": "sandbox", "count": 3},
    "algorithm": {"id": "redlock", "lease_ms": 3000, "acquire_timeout_ms": 400,
                  "retry": {"strategy": "fixed", "interval_ms": 60}},
    "resource": {"counter": false},
    "story": {"actors": ["A", "B"], "steps": [
        {"at_ms": 0, "action": "server-pause", "server": 2, "ms": 1500},
        {"at_ms": 100, "actor": "A", "action": "acquire"},
        {"at_ms": 300, "actor": "B", "action": "acquire"},
        {"at_ms": 1000, "actor": "A", "action": "release"}]}})";

void TestSimulationRedlock::roundsRecordTheirVotes()
{
    Scenario scenario;
    QStringList errors;
    QVERIFY2(ScenarioParser().parse(kStory, &scenario, &errors), qPrintable(errors.join(u'\n')));
    Simulation sim(scenario);
    sim.start();
    QVERIFY(sim.waitFinished(60000));
    QCOMPARE(sim.state(), Simulation::State::Finished);
    const RunReport report = sim.report();
    QCOMPARE(sim.serverCount(), 3);

    QList<HistoryEvent> roundsA, roundsB;
    HistoryEvent acquiredA;
    for (const HistoryEvent &e : sim.history()->events()) {
        if (e.kind == HistoryEvent::Kind::Round)
            (e.worker == 0 ? roundsA : roundsB) << e;
        if (e.kind == HistoryEvent::Kind::Acquire && e.worker == 0 && e.phase == HistoryEvent::Phase::Ok)
            acquiredA = e;
    }
    QCOMPARE(roundsA.size(), 1);
    const HistoryEvent &won = roundsA.first();
    QCOMPARE(won.phase, HistoryEvent::Phase::Ok);
    QCOMPARE(RO(won.outcome), RO::Won);
    QCOMPARE(won.votesGranted, quint16(0b011)); // servers 0 and 1
    QCOMPARE(won.votesAnswered, quint16(0b011)); // server 2 is frozen: no answer
    QCOMPARE(won.votePattern(3), QByteArray("11x"));
    QVERIFY2(won.value > 2500 && won.value < 3000, qPrintable(QString::number(won.value))); // validity left
    QVERIFY(won.effectUs > 0 && won.effectUs <= won.timeUs);
    QCOMPARE(acquiredA.votesGranted, quint16(0b011)); // the acquisition carries its deciding round's votes
    QCOMPARE(acquiredA.effectUs, won.effectUs);

    // B: at least two rounds in 400 ms (one every 60 ms + 50 ms for the frozen server), all refused.
    QVERIFY2(roundsB.size() >= 2, qPrintable(QString::number(roundsB.size())));
    for (const HistoryEvent &e : roundsB) {
        QCOMPARE(e.phase, HistoryEvent::Phase::Fail);
        QCOMPARE(RO(e.outcome), RO::NoQuorum);
        QCOMPARE(e.votePattern(3), QByteArray("00x"));
    }

    const RunMetrics &m = report.metrics;
    QCOMPARE(m.rounds, qint64(roundsA.size() + roundsB.size()));
    QCOMPARE(m.roundsWon, 1);
    QCOMPARE(m.roundsNoQuorum, qint64(roundsB.size()));
    QCOMPARE(m.roundsValiditySpent, 0);
    QCOMPARE(m.validityMinMs, won.value);
    QCOMPARE(report.failedRounds, qint64(roundsB.size()));
    QCOMPARE(report.expectationValues().value(QStringLiteral("rounds_no_quorum")), double(roundsB.size()));
    const QString text = report.summaryText();
    QVERIFY2(
        text.contains(QStringLiteral("Redlock on 3 servers (quorum 2): %1 rounds, 1 won, %2 without a quorum")
                          .arg(m.rounds)
                          .arg(roundsB.size())),
        qPrintable(text));
    const QJsonObject redlock = report.toJson().value(QStringLiteral("redlock")).toObject();
    QCOMPARE(redlock.value(QStringLiteral("won")).toInt(), 1);
    QCOMPARE(redlock.value(QStringLiteral("quorum")).toInt(), 2);
    QCOMPARE(redlock.value(QStringLiteral("no_quorum")).toInt(), int(roundsB.size()));

    // The CSV has the votes column.
    QBuffer buffer;
    buffer.open(QIODevice::WriteOnly);
    buffer.write(HistoryCsv::header());
    HistoryCsv::write(buffer, sim, QString());
    const QList<QByteArray> lines = buffer.data().split('\n');
    QVERIFY(lines.first().endsWith(",commands,votes,detail"));
    int wonLines = 0, lostLines = 0;
    for (const QByteArray &line : lines) {
        wonLines += line.contains(",round,ok,") && line.contains(",won,0,11x,") ? 1 : 0;
        lostLines += line.contains(",round,fail,") && line.contains(",no-quorum,0,00x,") ? 1 : 0;
    }
    QCOMPARE(wonLines, 1);
    QCOMPARE(lostLines, int(roundsB.size()));
}

QTEST_GUILESS_MAIN(TestSimulationRedlock)
#include "tst_simulationredlock.moc"
