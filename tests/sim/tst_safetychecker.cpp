// SafetyChecker on hand-built histories: each violation is found with the right workers and window, and
// histories that are safe (including close calls) give zero.
#include "historybuilder.h"
#include "sim/safetychecker.h"

#include <QTest>

using Outcome = HistoryEvent::ReleaseOutcome;

class TestSafetyChecker : public QObject
{
    Q_OBJECT
private slots:
    void cleanHandOffIsSafe();
    void overlapNamesWorkersAndWindow();
    void threeWorkersInsideCountEachPair();
    void staleHolderAfterLeaseWithoutRenewal();
    void renewalsKeepAHolderValid();
    void leaseRunsFromTheWinningAttempt();
    void noTtlLockIsNeverStale();
    void aLeaseRenewedUnseenIsNotJudged();
    void foreignReleaseDetected();
    void ownReleaseAfterExpiryIsNotForeign();
    void ambiguousReleaseIsNotCounted();
    void twoStepReleaseCountsFromItsDel();
    void serverRestartEndsCertainty();
    void crashEndsTheSectionButNotTheLock();
    void lostUpdatesFromStaleReads();
    void counterIsTheGroundTruth();
    void unknownWritesCountBothWays();
    void fencingRejectionsAreNotViolations();
    void gcPauseStory();
    void detailsAreCappedButCountsExact();

private:
    static SafetyChecker::Result check(const HistoryBuilder &b, qint64 endMs = 100000,
                                       QHash<int, SafetyChecker::Counter> counters = {})
    {
        SafetyChecker::Input in;
        in.events = b.events();
        in.workerNames = {QStringLiteral("A"), QStringLiteral("B"), QStringLiteral("C")};
        in.lockNames = {QStringLiteral("lock:0"), QStringLiteral("lock:1")};
        in.endUs = endMs * 1000;
        in.counters = counters;
        return SafetyChecker::check(in);
    }
};

void TestSafetyChecker::cleanHandOffIsSafe()
{
    HistoryBuilder b;
    b.acquire(0, 0, 0, 1, 1000).enter(0, 0, 1).exit(0, 0, 50).release(0, 0, 50, 51);
    b.acquire(1, 0, 10, 52, 1000).enter(1, 0, 52).exit(1, 0, 90).release(1, 0, 90, 91);
    const auto r = check(b);
    QCOMPARE(r.violations(), 0);
    QCOMPARE(r.details.size(), 0);
    QCOMPARE(r.maxInside, 1);
}

void TestSafetyChecker::overlapNamesWorkersAndWindow()
{
    HistoryBuilder b;
    b.acquire(0, 0, 0, 1, 100).enter(0, 0, 1).exit(0, 0, 80).release(0, 0, 80, 81);
    b.acquire(1, 0, 2, 60, 100).enter(1, 0, 60).exit(1, 0, 70).release(1, 0, 70, 71);
    const auto r = check(b);
    QCOMPARE(r.overlaps, 1);
    const Violation &v = r.details.first();
    QCOMPARE(v.type, Violation::Type::Overlap);
    QCOMPARE(v.lock, 0);
    QCOMPARE(v.workers, (QList<int> {1, 0}));
    QCOMPARE(v.startUs, 60000);
    QCOMPARE(v.endUs, 70000);
    QVERIFY2(v.text.contains(QLatin1String("A and B were both inside"))
                 && v.text.contains(QLatin1String("lock:0")),
             qPrintable(v.text));
    QVERIFY(v.text.contains(QLatin1String("10.0 ms")));
}

void TestSafetyChecker::threeWorkersInsideCountEachPair()
{
    HistoryBuilder b;
    b.enter(0, 0, 1).enter(1, 0, 2).enter(2, 0, 3).exit(0, 0, 10).exit(1, 0, 11).exit(2, 0, 12);
    QCOMPARE(check(b).overlaps, 3);
    QCOMPARE(check(b).maxInside, 3);
    HistoryBuilder differentLocks;
    differentLocks.enter(0, 0, 1).enter(1, 1, 2).exit(0, 0, 10).exit(1, 1, 11);
    QCOMPARE(check(differentLocks).overlaps, 0);
}

void TestSafetyChecker::staleHolderAfterLeaseWithoutRenewal()
{
    HistoryBuilder b;
    b.acquire(0, 0, 10, 11, 100)
        .enter(0, 0, 11)
        .exit(0, 0, 150)
        .release(0, 0, 150, 151, Outcome::AlreadyExpired, 0);
    const auto r = check(b);
    QCOMPARE(r.staleHolders, 1);
    const Violation &v = r.details.first();
    QCOMPARE(v.startUs, 110000); // acquire invoke + lease: the latest the lock can have lived
    QCOMPARE(v.endUs, 150000);
    QCOMPARE(r.violations(), 1);
}

void TestSafetyChecker::renewalsKeepAHolderValid()
{
    HistoryBuilder b;
    b.acquire(0, 0, 0, 1, 100).enter(0, 0, 1);
    for (int t = 30; t < 300; t += 30)
        b.renew(0, 0, t, t + 1, 100, 50);
    b.exit(0, 0, 300).release(0, 0, 300, 301);
    QCOMPARE(check(b).violations(), 0);
    HistoryBuilder stopped; // renewals stop (the process was paused) → stale
    stopped.acquire(0, 0, 0, 1, 100).enter(0, 0, 1).renew(0, 0, 30, 31, 100, 50).exit(0, 0, 300);
    const auto r = check(stopped);
    QCOMPARE(r.staleHolders, 1);
    QCOMPARE(r.details.first().startUs, 130000);
}

void TestSafetyChecker::leaseRunsFromTheWinningAttempt()
{
    // B called acquire at 0.3 s and polled until its SET won at 1.0 s: its lease runs from 1.0 s, not 0.3 s.
    HistoryBuilder b;
    b.acquire(1, 0, 300, 1001, 1000).enter(1, 0, 1001).exit(1, 0, 1800).release(1, 0, 1800, 1801);
    QCOMPARE(check(b).staleHolders, 1); // without the attempt's start, the call's start is all we know
    QList<HistoryEvent> events = b.events();
    for (HistoryEvent &e : events) {
        if (e.kind == HistoryEvent::Kind::Acquire && e.phase == HistoryEvent::Phase::Ok)
            e.effectUs = 1000000;
    }
    SafetyChecker::Input in;
    in.events = events;
    in.endUs = 10000000;
    QCOMPARE(SafetyChecker::check(in).staleHolders, 0);
}

void TestSafetyChecker::noTtlLockIsNeverStale()
{
    HistoryBuilder b;
    b.acquire(0, 0, 0, 1, 0).enter(0, 0, 1).exit(0, 0, 99000);
    QCOMPARE(check(b).violations(), 0);
}

void TestSafetyChecker::aLeaseRenewedUnseenIsNotJudged()
{
    // An external library's watchdog renews a 100 ms lease without saying when: the acquire says the lease
    // it set (not 0, "never expires") and that it is renewed unseen. Nobody can call it spent.
    HistoryBuilder b;
    b.acquire(0, 0, 0, 1, 100).enter(0, 0, 1).exit(0, 0, 5000);
    QCOMPARE(check(b).staleHolders, 1); // a lease nobody renews
    QList<HistoryEvent> events = b.events();
    for (HistoryEvent &e : events) {
        if (e.kind == HistoryEvent::Kind::Acquire && e.phase == HistoryEvent::Phase::Ok)
            e.outcome = quint8(HistoryEvent::AcquireOutcome::RenewedUnseen);
    }
    SafetyChecker::Input in;
    in.events = events;
    in.endUs = 10000000;
    QCOMPARE(SafetyChecker::check(in).staleHolders, 0);
}

void TestSafetyChecker::foreignReleaseDetected()
{
    // A's lease runs out, B takes the lock, A's unconditional DEL deletes B's lock.
    HistoryBuilder b;
    b.acquire(0, 0, 0, 1, 100).enter(0, 0, 1);
    b.acquire(1, 0, 100, 120, 100).enter(1, 0, 120); // B polled again once A's lease ran out
    b.exit(0, 0, 150).release(0, 0, 150, 151, Outcome::Released, 1);
    b.exit(1, 0, 180).release(1, 0, 180, 181, Outcome::Released, 0);
    const auto r = check(b);
    QCOMPARE(r.foreignReleases, 1);
    QCOMPARE(r.overlaps, 1);
    QCOMPARE(r.staleHolders, 1);
    bool found = false;
    for (const Violation &v : r.details) {
        if (v.type == Violation::Type::ForeignRelease) {
            found = true;
            QCOMPARE(v.workers, (QList<int> {0, 1}));
            QVERIFY2(v.text.contains(QLatin1String("deleted B's lock")), qPrintable(v.text));
        }
    }
    QVERIFY(found);
}

void TestSafetyChecker::ownReleaseAfterExpiryIsNotForeign()
{
    // A's lease ran out and nobody took the lock: A's DEL removes nothing of anybody else's.
    HistoryBuilder b;
    b.acquire(0, 0, 0, 1, 100).enter(0, 0, 1).exit(0, 0, 150).release(0, 0, 150, 151, Outcome::Released, 0);
    QCOMPARE(check(b).foreignReleases, 0);
    // B's lock had itself expired (no renewal) before A's DEL ran: nothing proves A deleted it.
    HistoryBuilder c;
    c.acquire(0, 0, 0, 1, 100).acquire(1, 0, 50, 120, 20).release(0, 0, 150, 151, Outcome::Released, 1);
    QCOMPARE(check(c).foreignReleases, 0);
}

void TestSafetyChecker::ambiguousReleaseIsNotCounted()
{
    // A's release was in flight while B's acquire completed: it may have run before B's SET. Not counted.
    HistoryBuilder b;
    b.acquire(0, 0, 0, 1, 100).acquire(1, 0, 50, 120, 100).release(0, 0, 110, 125, Outcome::Released, 1);
    QCOMPARE(check(b).foreignReleases, 0);
}

void TestSafetyChecker::twoStepReleaseCountsFromItsDel()
{
    // A's GET ran at 1.9 s (before B's acquire), its DEL only at 2.5 s (while B held the lock).
    HistoryBuilder b;
    b.acquire(0, 0, 0, 1, 2000)
        .acquire(1, 0, 1950, 2014, 2000)
        .release(0, 0, 1900, 2501, Outcome::Released, 1);
    QCOMPARE(check(b).foreignReleases, 0); // without knowing when the DEL went out, it is ambiguous
    QList<HistoryEvent> events = b.events();
    for (HistoryEvent &e : events) {
        if (e.kind == HistoryEvent::Kind::Release && e.phase == HistoryEvent::Phase::Ok)
            e.effectUs = 2500000;
    }
    SafetyChecker::Input in;
    in.events = events;
    in.endUs = 10000000;
    QCOMPARE(SafetyChecker::check(in).foreignReleases, 1);
}

void TestSafetyChecker::serverRestartEndsCertainty()
{
    HistoryBuilder b;
    b.acquire(1, 0, 0, 1, 10000);
    b.fault(HistoryEvent::FaultType::ServerRestart, -1, 50);
    b.acquire(0, 0, 60, 61, 10000).release(0, 0, 70, 71, Outcome::Released, 1);
    QCOMPARE(check(b).foreignReleases, 0);
}

void TestSafetyChecker::crashEndsTheSectionButNotTheLock()
{
    HistoryBuilder b;
    b.acquire(0, 0, 0, 1, 100).enter(0, 0, 1);
    b.fault(HistoryEvent::FaultType::Crash, 0, 20);
    b.acquire(1, 0, 95, 101, 100).enter(1, 0, 101).exit(1, 0, 150).release(1, 0, 150, 151);
    const auto r = check(b);
    QCOMPARE(r.overlaps, 0); // A died before B entered
    QCOMPARE(r.staleHolders, 0); // A's section ended at its death, inside its lease
}

void TestSafetyChecker::lostUpdatesFromStaleReads()
{
    HistoryBuilder b;
    b.enter(0, 0, 1).read(0, 0, 2, 10);
    b.enter(1, 0, 3).read(1, 0, 4, 10);
    b.write(0, 0, 5, 6, 9).exit(0, 0, 7);
    b.write(1, 0, 8, 9, 9).exit(1, 0, 10);
    b.enter(0, 0, 20).read(0, 0, 21, 9).write(0, 0, 22, 23, 8).exit(0, 0, 24);
    QHash<int, SafetyChecker::Counter> counters {{0, {10, 8, true}}};
    const auto r = check(b, 100, counters);
    QCOMPARE(r.lostUpdates, 1);
    QCOMPARE(r.counterExpected, 7); // 10 + three decrements
    QCOMPARE(r.counterActual, 8);
    bool named = false;
    for (const Violation &v : r.details) {
        if (v.type == Violation::Type::LostUpdate) {
            named = true;
            QCOMPARE(v.workers, (QList<int> {1, 0}));
            QVERIFY2(v.text.contains(QLatin1String("A's update")), qPrintable(v.text));
        }
    }
    QVERIFY(named);
}

void TestSafetyChecker::counterIsTheGroundTruth()
{
    HistoryBuilder b;
    for (int i = 0; i < 5; ++i)
        b.enter(0, 0, 10 * i + 1)
            .read(0, 0, 10 * i + 2, 100 - i)
            .write(0, 0, 10 * i + 3, 10 * i + 4, 99 - i)
            .exit(0, 0, 10 * i + 5);
    QCOMPARE(check(b, 100, {{0, {100, 95, true}}}).lostUpdates, 0);
    // The server lost two writes (e.g. restarted without persistence): the counter says so.
    QCOMPARE(check(b, 100, {{0, {100, 97, true}}}).lostUpdates, 2);
}

// Three writes seen to succeed and two whose reply never came: the counter may end anywhere between the
// two extremes without a lost update; outside them, only the distance to the nearer one counts.
void TestSafetyChecker::unknownWritesCountBothWays()
{
    HistoryBuilder b;
    for (int i = 0; i < 5; ++i) {
        b.enter(0, 0, 10 * i + 1).read(0, 0, 10 * i + 2, 100 - i);
        if (i == 1 || i == 3)
            b.writeUnknown(0, 0, 10 * i + 3, 10 * i + 8, 99 - i);
        else
            b.write(0, 0, 10 * i + 3, 10 * i + 4, 99 - i);
        b.exit(0, 0, 10 * i + 9);
    }
    for (qint64 final : {95, 96, 97}) {
        const SafetyChecker::Result r = check(b, 100, {{0, {100, final, true}}});
        QCOMPARE(r.unknownWrites, 2);
        QCOMPARE(r.counterExpected, 97);
        QCOMPARE(r.counterExpectedLow, 95);
        QCOMPARE(r.counterExpectedHigh, 97);
        QCOMPARE(r.lostUpdates, 0);
    }
    QCOMPARE(check(b, 100, {{0, {100, 99, true}}}).lostUpdates, 2);
}

void TestSafetyChecker::fencingRejectionsAreNotViolations()
{
    HistoryBuilder b;
    b.enter(0, 0, 1).fencedOut(0, 0, 2, 3, 9, 33).exit(0, 0, 4);
    const auto r = check(b);
    QCOMPARE(r.fencingRejections, 1);
    QCOMPARE(r.violations(), 0);
    QVERIFY(r.details.first().text.contains(QLatin1String("stale token 33")));
}

void TestSafetyChecker::gcPauseStory()
{
    // F5: A acquires (fence 33) and pauses past its lease; B acquires (34) and writes; A wakes and writes.
    HistoryBuilder b;
    b.acquire(0, 0, 0, 1, 3000, 33).enter(0, 0, 1).read(0, 0, 2, 100);
    b.fault(HistoryEvent::FaultType::PauseStart, 0, 3);
    b.acquire(1, 0, 100, 3005, 3000, 34)
        .enter(1, 0, 3005)
        .read(1, 0, 3006, 100)
        .write(1, 0, 3007, 3008, 99, 34)
        .exit(1, 0, 3009);
    b.release(1, 0, 3009, 3010);
    b.fault(HistoryEvent::FaultType::PauseEnd, 0, 8003);
    b.write(0, 0, 8004, 8005, 99, 33).exit(0, 0, 8006);
    const auto unfenced = check(b, 9000, {{0, {100, 99, true}}});
    QCOMPARE(unfenced.overlaps, 1);
    QCOMPARE(unfenced.staleHolders, 1);
    QCOMPARE(unfenced.lostUpdates, 1);
}

void TestSafetyChecker::detailsAreCappedButCountsExact()
{
    HistoryBuilder b;
    for (int i = 0; i < 1500; ++i)
        b.enter(0, 0, 10 * i + 1).enter(1, 0, 10 * i + 2).exit(0, 0, 10 * i + 3).exit(1, 0, 10 * i + 4);
    const auto r = check(b, 100000);
    QCOMPARE(r.overlaps, 1500);
    QCOMPARE(r.details.size(), SafetyChecker::kMaxDetails);
}

QTEST_GUILESS_MAIN(TestSafetyChecker)
#include "tst_safetychecker.moc"
