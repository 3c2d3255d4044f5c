// LockDiagnostics: each code fires on its own condition, with a sentence that names the numbers and the
// evidence it rests on; nothing is judged from an unknown, a shape-only match is never alarmed on, and a
// stall is judged against the lock's own renewal rhythm.
#include "inspect/lockdiagnostics.h"

#include <QTest>

class TestLockDiagnostics : public QObject
{
    Q_OBJECT
private slots:
    void noTtl();
    void unknownTtlIsNotJudged();
    void ttlAboveThreshold();
    void aSingleReadingNeverClaimsAStall();
    void stallFromTheLibrarysRhythm_data();
    void stallFromTheLibrarysRhythm();
    void stallFromTheObservedCadence();
    void renewalTextSaysWhatTheWatchSaw();
    void orphanQueue();
    void expiredHolders();
    void contended();
    void malformed();
    void shapeOnlyMatchesAreNotAlarmedOn();
    void aSteadyRhythmMakesAShapeALease();
    void healthyLockHasNone();
};

namespace {

LockRecord lock(LockKind kind, qint64 pttl)
{
    LockRecord r;
    r.key = "k";
    r.kind = kind;
    r.type = kind == LockKind::Mutex ? "string" : "hash";
    r.pttlMs = pttl;
    r.certain = true;
    r.formatName = QStringLiteral("Test lock");
    LockOwner o;
    o.id = "a:1";
    o.client = QStringLiteral("a");
    o.thread = QStringLiteral("1");
    o.count = 1;
    r.owners = {o};
    return r;
}

QStringList codes(const LockRecord &r)
{
    QStringList out;
    for (const LockDiagnosis &d : r.diagnoses)
        out << d.code;
    return out;
}

DiagnosticContext context()
{
    DiagnosticContext c;
    c.nowEpochMs = 1'700'000'000'000;
    return c;
}

RenewalPolicy policy(RenewalPolicy::Rule rule, double value)
{
    RenewalPolicy p;
    p.rule = rule;
    p.value = value;
    return p;
}

} // namespace

void TestLockDiagnostics::noTtl()
{
    LockRecord r = lock(LockKind::Mutex, -1);
    LockDiagnostics::diagnose(r, context());
    QCOMPARE(codes(r), QStringList {QStringLiteral("no-ttl")});
    QVERIFY(r.diagnoses.first().text.contains(QLatin1String("never expires")));
    QVERIFY2(r.diagnoses.first().evidence.contains(QLatin1String("PTTL -1")), qPrintable(r.diagnoses.first().evidence));
    QVERIFY(r.diagnoses.first().evidence.contains(QLatin1String("Test lock")));
}

void TestLockDiagnostics::unknownTtlIsNotJudged()
{
    LockRecord r = lock(LockKind::Mutex, LockRecord::kPttlUnknown);
    r.setUnknown(QStringLiteral("pttl_ms"), QStringLiteral("PTTL refused: NOPERM"));
    DiagnosticContext c = context();
    c.ttlThresholdMs = 1;
    LockDiagnostics::diagnose(r, c);
    QVERIFY(r.diagnoses.isEmpty());
}

void TestLockDiagnostics::ttlAboveThreshold()
{
    LockRecord r = lock(LockKind::Mutex, 2 * 3600 * 1000);
    DiagnosticContext c = context();
    c.ttlThresholdMs = 600'000;
    LockDiagnostics::diagnose(r, c);
    QCOMPARE(codes(r), QStringList {QStringLiteral("ttl-above-threshold")});
    QVERIFY2(r.diagnoses.first().text.contains(QLatin1String("2 h 00 min")), qPrintable(r.diagnoses.first().text));
    QVERIFY(r.diagnoses.first().text.contains(QLatin1String("10 min 00 s")));
    c.ttlThresholdMs = 0; // off
    LockDiagnostics::diagnose(r, c);
    QVERIFY(r.diagnoses.isEmpty());
}

void TestLockDiagnostics::aSingleReadingNeverClaimsAStall()
{
    // 12 s left of a Redisson lock: a stalled watchdog, or a fixed 15 s lease? One reading cannot tell, so no
    // alarm (the old fixed 60 % rule claimed a stall here).
    LockRecord r = lock(LockKind::Reentrant, 12'000);
    r.renewal = policy(RenewalPolicy::Rule::ElapsedFraction, 1.0 / 3);
    LockDiagnostics::diagnose(r, context());
    QVERIFY(r.diagnoses.isEmpty());
}

void TestLockDiagnostics::stallFromTheLibrarysRhythm_data()
{
    QTest::addColumn<int>("rule");
    QTest::addColumn<double>("value");
    QTest::addColumn<qint64>("lease");
    QTest::addColumn<qint64>("healthyGap"); // the longest gap a healthy holder of that library leaves
    QTest::addColumn<qint64>("frozenGap"); // a gap a frozen holder reaches within 1.5 renewal periods
    // Redisson: every third of 30 s.
    QTest::newRow("Redisson") << int(RenewalPolicy::Rule::ElapsedFraction) << 1.0 / 3 << qint64(30'000)
                              << qint64(10'500) << qint64(14'900);
    // Bull/BullMQ: at half the lease.
    QTest::newRow("Bull") << int(RenewalPolicy::Rule::ElapsedFraction) << 0.5 << qint64(30'000) << qint64(15'800)
                          << qint64(22'400);
    // redis-semaphore: when a fifth is left (80 % elapsed).
    QTest::newRow("redis-semaphore") << int(RenewalPolicy::Rule::RemainingFraction) << 0.2 << qint64(10'000)
                                     << qint64(8'300) << qint64(11'900);
    // redlock's auto-extension: with 500 ms left.
    QTest::newRow("redlock using()") << int(RenewalPolicy::Rule::RemainingMs) << 500.0 << qint64(5'000)
                                     << qint64(4'700) << qint64(6'700);
}

void TestLockDiagnostics::stallFromTheLibrarysRhythm()
{
    QFETCH(int, rule);
    QFETCH(double, value);
    QFETCH(qint64, lease);
    QFETCH(qint64, healthyGap);
    QFETCH(qint64, frozenGap);
    LockRecord r = lock(LockKind::Mutex, std::max<qint64>(1, lease - healthyGap));
    r.renewal = policy(RenewalPolicy::Rule(rule), value);
    DiagnosticContext c = context();
    c.readingGranularityMs = 100;
    c.renewalsSeen = 1;
    c.observedLeaseMs = lease;
    c.sinceLastRenewalMs = healthyGap;
    LockDiagnostics::diagnose(r, c);
    QVERIFY2(r.diagnoses.isEmpty(), qPrintable(codes(r).join(u',')));
    c.sinceLastRenewalMs = frozenGap;
    r.pttlMs = std::max<qint64>(1, lease - frozenGap);
    LockDiagnostics::diagnose(r, c);
    QCOMPARE(codes(r), QStringList {QStringLiteral("watchdog-stalled")});
    QVERIFY(r.diagnoses.first().evidence.contains(QLatin1String("renewal(s) seen")));
}

void TestLockDiagnostics::stallFromTheObservedCadence()
{
    // A library the catalog knows nothing about, seen renewing every 2 s: a 3 s gap is a stall.
    LockRecord r = lock(LockKind::Mutex, 4'000);
    DiagnosticContext c = context();
    c.readingGranularityMs = 100;
    c.renewalsSeen = 4;
    c.renewalIntervalMs = 2'000;
    c.observedLeaseMs = 7'000;
    c.sinceLastRenewalMs = 2'400;
    LockDiagnostics::diagnose(r, c);
    QVERIFY(r.diagnoses.isEmpty());
    c.sinceLastRenewalMs = 3'000;
    LockDiagnostics::diagnose(r, c);
    QCOMPARE(codes(r), QStringList {QStringLiteral("watchdog-stalled")});
    QVERIFY2(r.diagnoses.first().text.contains(QLatin1String("no renewal for 3.0 s")), qPrintable(r.diagnoses.first().text));
    // Without any renewal seen, nothing is claimed whatever the TTL.
    c.renewalsSeen = 0;
    LockDiagnostics::diagnose(r, c);
    QVERIFY(r.diagnoses.isEmpty());
}

// Issue 41: a library that renews redis-py's Lock by calling extend() every second was told "renews it only
// when the application calls extend()". Once a watch has seen renewals, the renewal text says the rhythm
// seen and that something renews it; the library's own rule stays next to it. Without renewals seen, the
// library's rule alone.
void TestLockDiagnostics::renewalTextSaysWhatTheWatchSaw()
{
    LockRecord r = lock(LockKind::Mutex, 4'000);
    r.renewal = policy(RenewalPolicy::Rule::None, 0);
    r.renewal.text = QStringLiteral("redis-py renews it only through extend() or reacquire(), when the "
                                    "application or a library built on it calls one");
    DiagnosticContext c = context();
    LockDiagnostics::diagnose(r, c);
    QCOMPARE(r.renewal.shown(), r.renewal.text);
    c.renewalsSeen = 5;
    c.renewalIntervalMs = 1'000;
    c.renewalJitterMs = 40;
    c.observedLeaseMs = 4'000;
    c.sinceLastRenewalMs = 300;
    LockDiagnostics::diagnose(r, c);
    const QString shown = r.renewal.shown();
    QVERIFY2(shown.startsWith(QLatin1String("renewed every ~1.0 s while watched (5 renewals seen, a steady "
                                            "rhythm): something renews it")),
             qPrintable(shown));
    QVERIFY2(shown.contains(r.renewal.text), qPrintable(shown));
    QVERIFY(r.diagnoses.isEmpty());
    // A library with a rhythm of its own: what was seen, then its rule.
    r.renewal = policy(RenewalPolicy::Rule::Period, 1'000);
    r.renewal.text = QStringLiteral("the scheduler's heartbeat resets the TTL every interval (1 s)");
    LockDiagnostics::diagnose(r, c);
    QCOMPARE(r.renewal.shown(),
             QStringLiteral("renewed every ~1.0 s while watched (5 renewals seen, a steady rhythm); the "
                            "scheduler's heartbeat resets the TTL every interval (1 s)"));
    // A format that says nothing about renewal gets no text from a watch either: the stall rules speak.
    r.renewal = RenewalPolicy {};
    LockDiagnostics::diagnose(r, c);
    QVERIFY(r.renewal.shown().isEmpty());
}

void TestLockDiagnostics::orphanQueue()
{
    LockRecord gone = lock(LockKind::Fair, -2);
    gone.type = "none";
    gone.owners.clear();
    gone.queueLength = 2;
    gone.queue = {{"w:1", 1}, {"w:2", 2}};
    LockDiagnostics::diagnose(gone, context());
    QCOMPARE(codes(gone), QStringList {QStringLiteral("orphan-queue")}); // no lock, so nobody contends for it
    QVERIFY(gone.diagnoses.first().text.contains(QLatin1String("2 waiters")));

    LockRecord stale = lock(LockKind::Fair, 20'000);
    stale.queueLength = 2;
    stale.subscribers = 0;
    stale.queue = {{"w:1", context().nowEpochMs - 10}, {"w:2", context().nowEpochMs - 5}};
    LockDiagnostics::diagnose(stale, context());
    QVERIFY2(codes(stale).contains(QStringLiteral("orphan-queue")), qPrintable(codes(stale).join(u',')));
    QVERIFY(stale.diagnoses.constFirst().text.contains(QLatin1String("past its deadline")));

    stale.queue[1].deadlineEpochMs = context().nowEpochMs + 60'000; // one live waiter: a working queue
    LockDiagnostics::diagnose(stale, context());
    QVERIFY(!codes(stale).contains(QStringLiteral("orphan-queue")));
}

void TestLockDiagnostics::expiredHolders()
{
    // A holder past its own expiry is flagged where it is shown; the library drops it at its next call, so it
    // is no alarm.
    LockRecord r = lock(LockKind::Semaphore, 30'000);
    r.owners.first().untilEpochMs = context().nowEpochMs - 5'000;
    LockOwner live;
    live.id = "b";
    live.untilEpochMs = context().nowEpochMs + 5'000;
    r.owners << live;
    LockDiagnostics::diagnose(r, context());
    QVERIFY(r.diagnoses.isEmpty());
    QVERIFY(r.owners.first().note.startsWith(QLatin1String("expired 5.0 s ago")));
    QVERIFY(r.owners.last().note.isEmpty());
    QCOMPARE(r.ownerSummary(), QStringLiteral("2 permits taken (1 expired)"));
}

void TestLockDiagnostics::contended()
{
    LockRecord r = lock(LockKind::Reentrant, 25'000);
    r.subscribers = 3;
    LockDiagnostics::diagnose(r, context());
    QCOMPARE(codes(r), QStringList {QStringLiteral("contended")});
    QCOMPARE(r.diagnoses.first().text, QStringLiteral("3 clients are waiting for it."));
    QCOMPARE(r.diagnoses.first().evidence, QStringLiteral("3 subscribed to its channel"));
}

void TestLockDiagnostics::malformed()
{
    LockRecord r = lock(LockKind::Reentrant, 25'000);
    r.problems << QStringLiteral("the hold count of 'x' is 'abc', not a positive integer");
    LockDiagnostics::diagnose(r, context());
    QCOMPARE(codes(r), QStringList {QStringLiteral("malformed")});
    QVERIFY(r.diagnoses.first().text.contains(QLatin1String("'abc'")));
}

void TestLockDiagnostics::shapeOnlyMatchesAreNotAlarmedOn()
{
    // A 32-hex value with no TTL under a name that says nothing: a digest as likely as a lock.
    LockRecord r = lock(LockKind::Mutex, -1);
    r.certain = false;
    r.nameSaysLock = false;
    LockDiagnostics::diagnose(r, context());
    QVERIFY(r.diagnoses.isEmpty());
    r.nameSaysLock = true;
    LockDiagnostics::diagnose(r, context());
    QCOMPARE(codes(r), QStringList {QStringLiteral("no-ttl")});
    // Named like a lock without a lock's shape: never.
    r.kind = LockKind::Named;
    LockDiagnostics::diagnose(r, context());
    QVERIFY(r.diagnoses.isEmpty());
}

// Issue 31: a key listed for its shape alone (a random id that expires, a semaphore of random ids under a
// name with no lock word) is alarmed on once the watch has seen it renewed on a steady rhythm, and then only
// for a stall against that rhythm. (Before: the frozen in-house semaphore 'pool:gpu-slots', renewed every 3
// s, was never flagged; sherlock's renewed lock was not even listed.)
void TestLockDiagnostics::aSteadyRhythmMakesAShapeALease()
{
    LockRecord r = lock(LockKind::Semaphore, 26'000);
    r.certain = false;
    r.nameSaysLock = false;
    r.ttlPolicy = QStringLiteral("always");
    DiagnosticContext c = context();
    c.ttlThresholdMs = 1'000; // would be ttl-above-threshold on a lock known as one
    c.readingGranularityMs = 100;
    c.observedLeaseMs = 30'000;
    c.renewalsSeen = 5;
    c.renewalIntervalMs = 3'000;
    c.renewalJitterMs = 5;
    c.sinceLastRenewalMs = 3'500;
    LockDiagnostics::diagnose(r, c);
    QVERIFY(r.diagnoses.isEmpty());
    // Two periods after the last renewal at the latest (here 3.8 s: a period and a margin), a stall.
    c.sinceLastRenewalMs = 4'000;
    LockDiagnostics::diagnose(r, c);
    QCOMPARE(codes(r), QStringList {QStringLiteral("watchdog-stalled")});
    QVERIFY2(r.diagnoses.first().evidence.contains(QLatin1String("renewed every 3.0 s")),
             qPrintable(r.diagnoses.first().evidence));
    // An unsteady rhythm (a session touched by requests) is no lease: nothing.
    c.renewalJitterMs = 1'500;
    LockDiagnostics::diagnose(r, c);
    QVERIFY(r.diagnoses.isEmpty());
    // Two renewals are no rhythm yet.
    c.renewalJitterMs = -1;
    c.renewalsSeen = 2;
    LockDiagnostics::diagnose(r, c);
    QVERIFY(r.diagnoses.isEmpty());
    // A word under a lock name names no holder: never, whatever the rhythm.
    c.renewalsSeen = 5;
    c.renewalJitterMs = 5;
    r.holderEvidence = false;
    LockDiagnostics::diagnose(r, c);
    QVERIFY(r.diagnoses.isEmpty());
}

void TestLockDiagnostics::healthyLockHasNone()
{
    LockRecord r = lock(LockKind::Reentrant, 25'000);
    r.subscribers = 0;
    LockDiagnostics::diagnose(r, context());
    QVERIFY(r.diagnoses.isEmpty());
    QCOMPARE(LockDiagnostics::catalog().size(), 7);
}

QTEST_GUILESS_MAIN(TestLockDiagnostics)
#include "tst_lockdiagnostics.moc"
