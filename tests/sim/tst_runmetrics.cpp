// RunMetrics on hand-built histories: counts, latencies, hand-off, fairness, time series.
#include "historybuilder.h"
#include "sim/runmetrics.h"

#include <QTest>

class TestRunMetrics : public QObject
{
    Q_OBJECT
private slots:
    void countsAndRates();
    void handOffOnlyForWaiters();
    void jainIndex();
    void timeSeries();
    void waitingCountsInEveryBucketItLasts();
    void emptyHistory();
    void renewalPeriodIsTheMedianGapBetweenOneHoldersRenewals();
    void expiriesAreCountedFromTheHistory();
};

void TestRunMetrics::countsAndRates()
{
    HistoryBuilder b;
    b.acquire(0, 0, 0, 2, 100).enter(0, 0, 2).exit(0, 0, 12).release(0, 0, 12, 13);
    b.acquire(1, 0, 1, 14, 100).enter(1, 0, 14).exit(1, 0, 34).release(1, 0, 34, 35);
    b.acquireFailed(2, 0, 5, 500, 100);
    b.renew(1, 0, 20, 21, 100);
    const RunMetrics m = RunMetrics::compute(b.events(), 3, 1000000);
    QCOMPARE(m.acquisitions, 2);
    QCOMPARE(m.cycles, 2);
    QCOMPARE(m.failedAcquires, 1);
    QCOMPARE(m.renewals, 1);
    QCOMPARE(m.cyclesPerS, 2.0);
    QCOMPARE(m.acquireLatency.count, 2);
    QCOMPARE(m.acquireLatency.p50, 2000);
    QCOMPARE(m.acquireLatency.max, 13000);
    QCOMPARE(m.holdTime.p50, 10000);
    QCOMPARE(m.holdTime.max, 20000);
    QCOMPARE(m.longestWaitUs, 495000);
    QCOMPARE(m.acquisitionsPerWorker, (QList<qint64> {1, 1, 0}));
    QCOMPARE(m.commands, 6); // one per completion in the builder: 3 acquires, 2 releases, 1 renew
    QCOMPARE(m.commandsPerAcquisition, 3.0);
}

void TestRunMetrics::handOffOnlyForWaiters()
{
    HistoryBuilder b;
    b.acquire(0, 0, 0, 1, 100).release(0, 0, 10, 11);
    b.acquire(1, 0, 5, 11.3, 100).release(1, 0, 20, 21); // waited: hand-off 0.3 ms
    b.acquire(0, 0, 50, 51, 100).release(0, 0, 60, 61); // arrived after the release: not a hand-off
    const RunMetrics m = RunMetrics::compute(b.events(), 2, 1000000);
    QCOMPARE(m.handoffLatency.count, 1);
    QCOMPARE(m.handoffLatency.p50, 300);
}

void TestRunMetrics::jainIndex()
{
    QCOMPARE(RunMetrics::jainIndex({5, 5, 5, 5}), 1.0);
    QCOMPARE(RunMetrics::jainIndex({20, 0, 0, 0}), 0.25);
    QVERIFY(qAbs(RunMetrics::jainIndex({10, 5}) - 225.0 / 250.0) < 1e-12);
    QCOMPARE(RunMetrics::jainIndex({}), 0.0);
}

void TestRunMetrics::timeSeries()
{
    HistoryBuilder b;
    b.acquire(0, 0, 100, 200, 10).acquire(1, 0, 150, 1200, 10).acquire(2, 0, 160, 1300, 10);
    const RunMetrics m = RunMetrics::compute(b.events(), 3, 2000000, 1000000);
    QCOMPARE(m.acquisitionsPerBucket, (QList<int> {1, 2}));
    QCOMPARE(m.waitingPerBucket.first(), 3);
}

void TestRunMetrics::waitingCountsInEveryBucketItLasts()
{
    // A waits 1 ms at 0 s, B from 1.2 s to 3.5 s, C from 2.5 s to the end of the (live) run; 1 s buckets.
    HistoryBuilder b;
    b.acquire(0, 0, 0, 1, 10000).release(0, 0, 3500, 3501);
    b.acquire(1, 0, 1200, 3500, 10000);
    b.acquireInvoked(2, 0, 2500);
    const RunMetrics m = RunMetrics::compute(b.events(), 3, 5000000, 1000000);
    QCOMPARE(m.waitingPerBucket, (QList<int> {1, 1, 2, 2, 1}));
}

void TestRunMetrics::emptyHistory()
{
    const RunMetrics m = RunMetrics::compute({}, 4, 0);
    QCOMPARE(m.acquisitions, 0);
    QCOMPARE(m.cyclesPerS, 0.0);
    QCOMPARE(m.acquireLatency.p99, 0);
    QCOMPARE(m.acquisitionsPerBucket.size(), 0);
}

void TestRunMetrics::renewalPeriodIsTheMedianGapBetweenOneHoldersRenewals()
{
    HistoryBuilder b;
    b.acquire(0, 0, 0, 1, 3000); // held from 1 ms: renewed 1 s, 1 s, then 2.5 s later (a pause)
    b.renew(0, 0, 1000, 1001, 3000).renew(0, 0, 2000, 2001, 3000).renew(0, 0, 4500, 4501, 3000);
    b.release(0, 0, 5000, 5001);
    b.renew(1, 0, 5100, 5101, 3000); // no acquisition seen for worker 1: no gap to measure
    b.acquire(1, 0, 6000, 6001, 3000).renew(1, 0, 7000, 7001, 3000); // a new hold starts its own count
    const RunMetrics m = RunMetrics::compute(b.events(), 2, 10000000);
    QCOMPARE(m.renewals, 5);
    QCOMPARE(m.renewalInterval.count, 4); // 1000, 1000, 2500 and 1000 ms: not the gap across holds
    QCOMPARE(m.renewalInterval.p50, 1000000);
    QCOMPARE(m.renewalInterval.max, 2500000);
}

// Issue 41, point 7: reports said "expiries 0" while the same report said "its lease ran out at 2.001 s": no
// recorder writes expire events, so the count is made from the history, as the report's story tells it.
void TestRunMetrics::expiriesAreCountedFromTheHistory()
{
    using RO = HistoryEvent::ReleaseOutcome;
    using FT = HistoryEvent::FaultType;
    // A pauses past its 2 s lease (it ran out at 2.001 s); its release finds the key gone: one expiry.
    HistoryBuilder paused;
    paused.acquire(0, 0, 0, 1, 2000).fault(FT::PauseStart, 0, 100).fault(FT::PauseEnd, 0, 3000);
    paused.release(0, 0, 3000, 3001, RO::AlreadyExpired, 0);
    QCOMPARE(RunMetrics::compute(paused.events(), 1, 4000000).expiries, 1);
    // Released in time, or renewed in time and then released: none.
    HistoryBuilder inTime;
    inTime.acquire(0, 0, 0, 1, 2000).release(0, 0, 1500, 1501);
    inTime.acquire(1, 0, 1600, 1601, 2000).renew(1, 0, 2600, 2601, 2000).release(1, 0, 4000, 4001);
    QCOMPARE(RunMetrics::compute(inTime.events(), 2, 5000000).expiries, 0);
    // Its release deleted the key after the lease had run out (a blind DEL of whoever held it then): one.
    HistoryBuilder late;
    late.acquire(0, 0, 0, 1, 1000).release(0, 0, 1500, 1501);
    QCOMPARE(RunMetrics::compute(late.events(), 1, 2000000).expiries, 1);
    // The key was gone before its lease ran out (a restart, someone's DEL): lost another way, no expiry.
    HistoryBuilder lost;
    lost.acquire(0, 0, 0, 1, 5000).release(0, 0, 1000, 1001, RO::AlreadyExpired, 0);
    QCOMPARE(RunMetrics::compute(lost.events(), 1, 6000000).expiries, 0);
    // A crashed holder's key runs out within the run (one), or after its end (none yet).
    HistoryBuilder crashed;
    crashed.acquire(0, 0, 0, 1, 2000).fault(FT::Crash, 0, 500);
    QCOMPARE(RunMetrics::compute(crashed.events(), 1, 3000000).expiries, 1);
    QCOMPARE(RunMetrics::compute(crashed.events(), 1, 1500000).expiries, 0);
    // Without a TTL a key never runs out (that is no-ttl, not an expiry).
    HistoryBuilder noTtl;
    noTtl.acquire(0, 0, 0, 1, 0).fault(FT::Crash, 0, 500);
    QCOMPARE(RunMetrics::compute(noTtl.events(), 1, 60000000).expiries, 0);
    // After a crash and a restart the process's next acquisition is a new tenure, not a reentrant one: the
    // old key's expiry counts once, the new one released in time adds none.
    HistoryBuilder restarted;
    restarted.acquire(0, 0, 0, 1, 1000).fault(FT::Crash, 0, 100).fault(FT::ProcessRestart, 0, 200);
    restarted.acquire(0, 0, 1200, 1201, 1000).release(0, 0, 1500, 1501);
    QCOMPARE(RunMetrics::compute(restarted.events(), 1, 2000000).expiries, 1);
}

QTEST_GUILESS_MAIN(TestRunMetrics)
#include "tst_runmetrics.moc"
