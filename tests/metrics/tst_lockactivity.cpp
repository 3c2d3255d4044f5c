// LockActivity: what the live history says per key pattern, and nothing it did not see: a hold is timed only
// when its acquisition was seen, and the number of patterns stays bounded.
#include "metrics/lockactivity.h"

#include <QTest>

class TestLockActivity : public QObject
{
    Q_OBJECT
private slots:
    void countsPerPattern();
    void timesOnlyHoldsWhoseStartWasSeen();
    void holdingsEndWithTheLock();
    void patternsAreBounded();
    void aLeaseLostUnderARenewingHolderIsListedForAWhile();
};

namespace {
LockEvent ev(LockEvent::Type type, qint64 atMs)
{
    LockEvent e;
    e.type = type;
    e.atMs = atMs;
    return e;
}
using T = LockEvent::Type;
} // namespace

// A renewer that stops: the lease runs out under a holder that had been renewing it. Listed with its key from
// the expiry for the window; an expiry nobody had renewed, a release after renewals, and a renewed lock seen
// again (a new holding) are not.
void TestLockActivity::aLeaseLostUnderARenewingHolderIsListedForAWhile()
{
    LockActivity a;
    a.record("jobs:7:lock", {ev(T::Acquired, 0), ev(T::Renewed, 1000), ev(T::Renewed, 2000), ev(T::Expired, 5000)});
    a.record("jobs:8:lock", {ev(T::Acquired, 0), ev(T::Expired, 3000)}); // a crash: nobody renewed it
    a.record("jobs:9:lock", {ev(T::Acquired, 0), ev(T::Renewed, 1000), ev(T::Released, 1500)});
    a.record("jobs:10:lock", {ev(T::Seen, 0), ev(T::Renewed, 1000)});
    a.record("jobs:10:lock", {ev(T::Acquired, 2000), ev(T::Expired, 4000)}); // the new holding never renewed
    const QList<LockActivity::RenewedExpiry> now = a.renewedExpiries(6000);
    QCOMPARE(now.size(), 1);
    QCOMPARE(now.first().key, QByteArray("jobs:7:lock"));
    QCOMPARE(now.first().pattern, QStringLiteral("jobs:*:lock"));
    QCOMPARE(now.first().atMs, 5000);
    QCOMPARE(a.renewedExpiries(5000 + LockActivity::kRenewedExpiryWindowMs).size(), 1);
    QVERIFY(a.renewedExpiries(5001 + LockActivity::kRenewedExpiryWindowMs).isEmpty());
}

void TestLockActivity::countsPerPattern()
{
    LockActivity a;
    a.record("orders:1:lock", {ev(T::Acquired, 0), ev(T::Renewed, 10), ev(T::Renewed, 20)});
    a.record("orders:2:lock", {ev(T::Acquired, 5), ev(T::Expired, 50)});
    a.record("orders:3:lock", {ev(T::Seen, 5), ev(T::Lost, 60)});
    a.record("payments:lock", {ev(T::Acquired, 0), ev(T::Released, 30)});
    QCOMPARE(a.patterns().size(), 2);
    const LockActivity::Counts orders = a.patterns().value(QStringLiteral("orders:*:lock"));
    QCOMPARE(orders.acquisitions, 2u);
    QCOMPARE(orders.renewals, 2u);
    QCOMPARE(orders.expiries, 1u);
    QCOMPARE(orders.losses, 1u);
    QCOMPARE(orders.releases, 0u);
    const LockActivity::Counts payments = a.patterns().value(QStringLiteral("payments:lock"));
    QCOMPARE(payments.acquisitions, 1u);
    QCOMPARE(payments.releases, 1u);
    QCOMPARE(a.patternOf("orders:99:lock"), QStringLiteral("orders:*:lock"));
}

void TestLockActivity::timesOnlyHoldsWhoseStartWasSeen()
{
    LockActivity a;
    // Seen by a scan, released 2 s later: how long it was held is unknown, so no hold time.
    a.record("lock:a", {ev(T::Seen, 1000), ev(T::Released, 3000)});
    // Acquired and released 2.5 s later, then acquired again and expired after 40 s.
    a.record("lock:b", {ev(T::Acquired, 1000), ev(T::Released, 3500)});
    a.record("lock:b", {ev(T::Acquired, 4000)});
    QCOMPARE(a.holding("lock:b").sinceMs, 4000);
    QVERIFY(a.holding("lock:b").exact);
    a.record("lock:b", {ev(T::Renewed, 20000), ev(T::Expired, 44000)});
    const LockActivity::Counts c = a.patterns().value(QStringLiteral("lock:a"));
    QCOMPARE(c.holds, 0u);
    QCOMPARE(c.releases, 1u);
    const LockActivity::Counts b = a.patterns().value(QStringLiteral("lock:b"));
    QCOMPARE(b.holds, 2u);
    QCOMPARE(b.holdSecondsSum, 42.5);
    // 2.5 s falls in the ≤ 5 s bucket, 40 s in the ≤ 60 s one.
    const QList<double> &bounds = LockActivity::holdBuckets();
    QCOMPARE(b.holdBuckets.size(), bounds.size() + 1);
    QCOMPARE(b.holdBuckets.at(bounds.indexOf(5)), 1u);
    QCOMPARE(b.holdBuckets.at(bounds.indexOf(60)), 1u);
    QCOMPARE(a.holding("lock:b").sinceMs, -1);
}

void TestLockActivity::holdingsEndWithTheLock()
{
    LockActivity a;
    a.record("lock:c", {ev(T::Seen, 100)});
    QCOMPARE(a.holding("lock:c").sinceMs, 100);
    QVERIFY(!a.holding("lock:c").exact);
    a.forget("lock:c");
    QCOMPARE(a.holding("lock:c").sinceMs, -1);
}

void TestLockActivity::patternsAreBounded()
{
    LockActivity a;
    // Names no folding can merge: each is a pattern of its own until the bound.
    for (int i = 0; i < LockActivity::kMaxPatterns + 50; ++i) {
        QByteArray name = "lock:";
        for (int n = i; n >= 0; n = n / 26 - 1)
            name += char('a' + n % 26);
        a.record(name, {ev(T::Acquired, 0)});
    }
    QCOMPARE(a.patterns().size(), LockActivity::kMaxPatterns);
    QVERIFY(a.patterns().contains(LockActivity::kOtherPattern));
    QCOMPARE(a.patterns().value(LockActivity::kOtherPattern).acquisitions, 51u);
    QCOMPARE(a.patternOf("lock:zzzz"), LockActivity::kOtherPattern);
}

QTEST_GUILESS_MAIN(TestLockActivity)
#include "tst_lockactivity.moc"
