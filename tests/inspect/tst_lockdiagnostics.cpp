// LockDiagnostics: each code fires on its own condition, with a sentence that names the numbers.
#include "inspect/lockdiagnostics.h"

#include <QTest>

class TestLockDiagnostics : public QObject
{
    Q_OBJECT
private slots:
    void noTtl();
    void ttlAboveThreshold();
    void watchdogStalledFromTheDefaultLease();
    void watchdogStalledFromHistory();
    void orphanQueue();
    void contended();
    void malformed();
    void healthyLockHasNone();
};

namespace {

LockRecord lock(LockKind kind, qint64 pttl)
{
    LockRecord r;
    r.key = "k";
    r.kind = kind;
    r.type = LockKinds::isRedissonHash(kind) ? "hash" : "string";
    r.pttlMs = pttl;
    r.owners = {{"a:1", QStringLiteral("a"), QStringLiteral("1"), 1, {}, {}}};
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

} // namespace

void TestLockDiagnostics::noTtl()
{
    LockRecord r = lock(LockKind::RedisPy, -1);
    LockDiagnostics::diagnose(r, context());
    QCOMPARE(codes(r), QStringList {QStringLiteral("no-ttl")});
    QVERIFY(r.diagnoses.first().text.contains(QLatin1String("never expire")));
    QVERIFY(r.diagnoses.first().text.contains(QLatin1String("redis-py")));
}

void TestLockDiagnostics::ttlAboveThreshold()
{
    LockRecord r = lock(LockKind::Token, 2 * 3600 * 1000);
    DiagnosticContext c = context();
    c.ttlThresholdMs = 600'000;
    LockDiagnostics::diagnose(r, c);
    QCOMPARE(codes(r), QStringList {QStringLiteral("ttl-above-threshold")});
    QVERIFY2(r.diagnoses.first().text.contains(QLatin1String("2 h 00 min")),
             qPrintable(r.diagnoses.first().text));
    QVERIFY(r.diagnoses.first().text.contains(QLatin1String("10 min 00 s")));
    c.ttlThresholdMs = 0; // off
    LockDiagnostics::diagnose(r, c);
    QVERIFY(r.diagnoses.isEmpty());
}

void TestLockDiagnostics::watchdogStalledFromTheDefaultLease()
{
    LockRecord r = lock(LockKind::RedissonReentrant, 12'000);
    LockDiagnostics::diagnose(r, context());
    QCOMPARE(codes(r), QStringList {QStringLiteral("watchdog-stalled")});
    QVERIFY(r.diagnoses.first().text.contains(QLatin1String("12.0 s")));
    r.pttlMs = 21'000; // within the saw-tooth of a working watchdog
    LockDiagnostics::diagnose(r, context());
    QVERIFY(r.diagnoses.isEmpty());
    r.pttlMs = 120'000; // a fixed lease longer than the watchdog's: not a watchdog lock
    LockDiagnostics::diagnose(r, context());
    QVERIFY(r.diagnoses.isEmpty());
    // Non-Redisson string locks have no known lease without history.
    LockRecord s = lock(LockKind::Token, 100);
    LockDiagnostics::diagnose(s, context());
    QVERIFY(s.diagnoses.isEmpty());
}

void TestLockDiagnostics::watchdogStalledFromHistory()
{
    LockRecord r = lock(LockKind::Token, 200);
    DiagnosticContext c = context();
    c.renewalsSeen = 3;
    c.observedLeaseMs = 1000;
    c.sinceLastRenewalMs = 800;
    LockDiagnostics::diagnose(r, c);
    QCOMPARE(codes(r), QStringList {QStringLiteral("watchdog-stalled")});
    QVERIFY2(r.diagnoses.first().text.contains(QLatin1String("no renewal for 800 ms")),
             qPrintable(r.diagnoses.first().text));
    r.pttlMs = 700;
    LockDiagnostics::diagnose(r, c);
    QVERIFY(r.diagnoses.isEmpty());
}

void TestLockDiagnostics::orphanQueue()
{
    LockRecord gone = lock(LockKind::RedissonFair, -2);
    gone.type = "none";
    gone.owners.clear();
    gone.queueLength = 2;
    gone.queue = {{"w:1", 1}, {"w:2", 2}};
    LockDiagnostics::diagnose(gone, context());
    QCOMPARE(codes(gone), QStringList {QStringLiteral("orphan-queue")});
    QVERIFY(gone.diagnoses.first().text.contains(QLatin1String("2 waiters")));

    LockRecord stale = lock(LockKind::RedissonFair, 20'000);
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

void TestLockDiagnostics::contended()
{
    LockRecord r = lock(LockKind::RedissonReentrant, 25'000);
    r.subscribers = 3;
    LockDiagnostics::diagnose(r, context());
    QCOMPARE(codes(r), QStringList {QStringLiteral("contended")});
    QCOMPARE(r.diagnoses.first().text,
             QStringLiteral("3 clients are waiting for it (3 subscribed to its channel)."));
}

void TestLockDiagnostics::malformed()
{
    LockRecord r = lock(LockKind::RedissonReentrant, 25'000);
    r.problems << QStringLiteral("the hold count of 'x' is 'abc', not a positive integer");
    LockDiagnostics::diagnose(r, context());
    QCOMPARE(codes(r), QStringList {QStringLiteral("malformed")});
    QVERIFY(r.diagnoses.first().text.contains(QLatin1String("'abc'")));
}

void TestLockDiagnostics::healthyLockHasNone()
{
    LockRecord r = lock(LockKind::RedissonReentrant, 25'000);
    r.subscribers = 0;
    LockDiagnostics::diagnose(r, context());
    QVERIFY(r.diagnoses.isEmpty());
    QCOMPARE(LockDiagnostics::catalog().size(), 6);
}

QTEST_GUILESS_MAIN(TestLockDiagnostics)
#include "tst_lockdiagnostics.moc"
