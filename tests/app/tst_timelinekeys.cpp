// What the timeline says of each lock key — when it exists, with which lease, when it ends — as Redis held
// it: a key set without TTL, the lease the library set, expiries as of a moment, a key another worker's plain
// DEL deleted. Offscreen, from histories built by hand.
#include "../sim/historybuilder.h"
#include "timelinefixture.h"

#include <QTest>

using Hold = TimelineData::Hold;
using FaultType = HistoryEvent::FaultType;
using TimelineFixture::twoWorkers;
using TimelineFixture::withEffects;

class TestTimelineKeys : public QObject
{
    Q_OBJECT
private slots:
    void keyWithoutTtlAfterACrashBetweenSetnxAndExpire();
    void theLeaseIsTheOneTheCompletionSays();
    void expiriesAsTheyStoodAtATime();
    void aDeleteWithoutOwnerCheckEndsTheKeyItHits();
};

void TestTimelineKeys::keyWithoutTtlAfterACrashBetweenSetnxAndExpire()
{
    HistoryEvent crash;
    crash.timeUs = 5000;
    crash.kind = HistoryEvent::Kind::Fault;
    crash.outcome = quint8(FaultType::Crash);
    crash.worker = 0;
    crash.process = 0;
    crash.lock = 0;
    TimelineData data(twoWorkers());
    data.append({crash});
    QCOMPARE(data.holds(0, 0).size(), 1);
    const Hold &h = data.holds(0, 0).first();
    QVERIFY(h.flags & Hold::NoTtl);
    QCOMPARE(h.keyEndUs(), TimelineData::kOpen); // never expires
    QCOMPARE(data.workerStateAt(0, 6000), TimelineData::WorkerState::Crashed);
}


void TestTimelineKeys::theLeaseIsTheOneTheCompletionSays()
{
    // Asked for 3 s; the library set none (redis-py without timeout): the key never expires. The invoke's
    // 3 s used to be drawn, draining to an expiry that never happened.
    HistoryBuilder b;
    b.acquire(0, 0, 0, 10, 3000);
    QList<HistoryEvent> events = withEffects(b.events());
    events.last().value = 0;
    TimelineData none(twoWorkers());
    none.append(events);
    none.finish(10000000);
    QVERIFY(none.holds(0, 0).first().flags & Hold::NoTtl);
    QCOMPARE(none.holds(0, 0).first().keyEndUs(), TimelineData::kOpen);
    QCOMPARE(none.expiries(), 0);
    // Its 3 s renewed by the library's own watchdog, unseen: the lease is said, its end is not known.
    events.last().value = 3000;
    events.last().outcome = quint8(HistoryEvent::AcquireOutcome::RenewedUnseen);
    TimelineData unseen(twoWorkers());
    unseen.append(events);
    unseen.finish(10000000);
    const Hold &h = unseen.holds(0, 0).first();
    QCOMPARE(h.leaseMs, 3000);
    QVERIFY(h.flags & Hold::RenewedUnseen);
    QVERIFY(!(h.flags & Hold::NoTtl));
    QCOMPARE(h.validUntilUs, TimelineData::kOpen);
    QCOMPARE(unseen.expiries(), 0);
}


void TestTimelineKeys::expiriesAsTheyStoodAtATime()
{
    // A's 100 ms lease runs out at ~100 ms while it works on; B's is released in time.
    HistoryBuilder b;
    b.acquire(0, 0, 0, 1, 100).release(0, 0, 500, 501).acquire(1, 0, 600, 601, 100).release(1, 0, 650, 651);
    TimelineData data(twoWorkers());
    data.append(withEffects(b.events()));
    data.finish(1000000);
    QCOMPARE(data.expiries(), 1);
    QCOMPARE(data.expiriesUntil(50000), 0); // stepping at 50 ms: nothing had run out yet
    QCOMPARE(data.expiriesUntil(200000), 1);
    QCOMPARE(data.expiriesUntil(1000000), data.expiries());
}


void TestTimelineKeys::aDeleteWithoutOwnerCheckEndsTheKeyItHits()
{
    // Seed 002: A's 100 ms lease runs out while it works; B takes the lock at 150 ms with 1 s; A's plain DEL
    // at 300 ms deletes B's key. Redis held no key from then on, yet the lock lane drew B's to 1.15 s.
    HistoryBuilder b;
    b.acquire(0, 0, 0, 1, 100)
        .acquire(1, 0, 50, 150, 1000)
        .release(0, 0, 300, 301, HistoryEvent::ReleaseOutcome::Released, 1);
    TimelineData data(twoWorkers());
    data.append(withEffects(b.events()));
    data.finish(2000000);
    const Hold &bHold = data.holds(1, 0).first();
    QVERIFY2(bHold.keyEndUs() <= 301000 && bHold.keyEndUs() >= 300000,
             qPrintable(QString::number(bHold.keyEndUs())));
    QVERIFY(!bHold.expired(data.nowUs())); // deleted, not run out
    QCOMPARE(data.expiries(), 1); // A's
    // With the owner check (value 0: nothing deleted blindly), B's key lives on.
    HistoryBuilder safe;
    safe.acquire(0, 0, 0, 1, 100)
        .acquire(1, 0, 50, 150, 1000)
        .release(0, 0, 300, 301, HistoryEvent::ReleaseOutcome::NotOwner, 0);
    TimelineData checked(twoWorkers());
    checked.append(withEffects(safe.events()));
    checked.finish(2000000);
    QCOMPARE(checked.holds(1, 0).first().keyEndUs(), 1149000);
}

QTEST_GUILESS_MAIN(TestTimelineKeys)
#include "tst_timelinekeys.moc"
