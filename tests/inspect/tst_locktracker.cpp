// LockTracker: readings and notifications become acquired / renewed / changed / released / expired.
#include "inspect/locktracker.h"

#include <QTest>

class TestLockTracker : public QObject
{
    Q_OBJECT
private slots:
    void firstScanIsSeenNotAcquired();
    void renewalsFromPolling();
    void renewalTimeFromNotification();
    void ownerChangeAndCount();
    void refusedDataIsNoOwnerChange();
    void holdersInAnotherOrderAreNoChange();
    void releasedOrExpired();
    void notificationsDecideGone();
    void acquiredWithNotificationTime();
    void boundedMemory();
};

namespace {

// Readings are dated on the monotonic clock, where 0 means "never read": the test's times start well after it.
constexpr qint64 kT0 = 1000000;

LockRecord reading(qint64 at, qint64 pttl, const QByteArray &owner = "a:1", qint64 count = 1)
{
    LockRecord r;
    r.key = "lock";
    r.kind = LockKind::Reentrant;
    r.type = "hash";
    r.pttlMs = pttl;
    r.readAtMs = kT0 + at;
    r.owners = {{owner, {}, {}, count, {}, {}, {}, -1, -1}};
    return r;
}

QList<LockEvent::Type> types(const QList<LockEvent> &events)
{
    QList<LockEvent::Type> out;
    for (const LockEvent &e : events)
        out << e.type;
    return out;
}

using T = LockEvent::Type;

} // namespace

void TestLockTracker::firstScanIsSeenNotAcquired()
{
    LockTracker t;
    QCOMPARE(types(t.observe(reading(1000, 30000), LockTracker::Source::Scan)), QList<T> {T::Seen});
    QVERIFY(t.isPresent("lock"));
    // A steadily falling TTL is no event.
    QVERIFY(t.observe(reading(2000, 29000), LockTracker::Source::Live).isEmpty());
}

void TestLockTracker::renewalsFromPolling()
{
    // A watchdog lease of 30 s renewed every 10 s, polled every second.
    LockTracker t;
    t.observe(reading(0, 30000), LockTracker::Source::Live);
    int renewals = 0;
    for (qint64 now = 1000; now <= 35000; now += 1000) {
        const qint64 sinceRenewal = now % 10000;
        const auto events = t.observe(reading(now, 30000 - sinceRenewal), LockTracker::Source::Live);
        renewals += events.count() == 1 && events.first().type == T::Renewed;
    }
    QCOMPARE(renewals, 3);
    const LockHistory *h = t.history("lock");
    QCOMPARE(h->renewals(), 3);
    QCOMPARE(h->renewalIntervalMs(), 10000);
    QCOMPARE(h->observedLeaseMs(), 30000);
    QCOMPARE(h->cadenceText(kT0 + 35000), QStringLiteral("renewed every 10.0 s, last 5.0 s ago"));
    DiagnosticContext c;
    t.fillContext("lock", kT0 + 35000, &c);
    QCOMPARE(c.renewalsSeen, 3);
    QCOMPARE(c.observedLeaseMs, 30000);
}

void TestLockTracker::renewalTimeFromNotification()
{
    LockTracker t;
    t.observe(reading(0, 1000), LockTracker::Source::Live);
    t.noteNotification("lock", "expire", kT0 + 330);
    const auto events = t.observe(reading(500, 830), LockTracker::Source::Live);
    QCOMPARE(types(events), QList<T> {T::Renewed});
    QCOMPARE(events.first().atMs, kT0 + 330);
}

void TestLockTracker::ownerChangeAndCount()
{
    LockTracker t;
    t.observe(reading(0, 30000), LockTracker::Source::Scan);
    QCOMPARE(types(t.observe(reading(100, 29900, "a:1", 2), LockTracker::Source::Live)),
             QList<T> {T::Changed});
    QCOMPARE(t.history("lock")->events().last().detail, QStringLiteral("hold count 1 → 2"));
    QCOMPARE(types(t.observe(reading(200, 30000, "b:2"), LockTracker::Source::Live)),
             (QList<T> {T::Released, T::Acquired}));
}

void TestLockTracker::refusedDataIsNoOwnerChange()
{
    // A reading whose data the server refused (LOADING half-way through the reads) has no owners: that is not
    // a new holder, and the next full reading of the same holder is no change either.
    LockTracker t;
    t.observe(reading(0, 30000), LockTracker::Source::Scan);
    LockRecord refused = reading(1000, 29000);
    refused.owners.clear();
    refused.setUnknown(QStringLiteral("data"), QStringLiteral("LOADING Redis is loading the dataset in memory"));
    QCOMPARE(types(t.observe(refused, LockTracker::Source::Live)), QList<T> {});
    QCOMPARE(types(t.observe(reading(2000, 28000), LockTracker::Source::Live)), QList<T> {});
    // Someone else's, read in full, still is.
    QCOMPARE(types(t.observe(reading(3000, 30000, "b:1"), LockTracker::Source::Live)),
             (QList<T> {T::Released, T::Acquired}));
}

// redis-semaphore's holders refresh in turn, and a zset read by score returns them in the order of the last
// refresh: the same holders, reshuffled, are no release and no change (seen as "released (owner changed)"
// every few seconds on a healthy semaphore).
void TestLockTracker::holdersInAnotherOrderAreNoChange()
{
    LockTracker t;
    LockRecord first = reading(0, 5000, "holder-1");
    first.kind = LockKind::Semaphore;
    first.owners.append(LockOwner {"holder-2", {}, {}, 1, {}, {}, {}, -1, -1});
    t.observe(first, LockTracker::Source::Scan);
    LockRecord swapped = first;
    swapped.readAtMs = kT0 + 1000;
    swapped.pttlMs = 4900; // renewed
    std::swap(swapped.owners[0], swapped.owners[1]);
    const QList<T> events = types(t.observe(swapped, LockTracker::Source::Live));
    QVERIFY(!events.contains(T::Released) && !events.contains(T::Changed) && !events.contains(T::Acquired));
    // One holder replaced by another still is a change of owners.
    LockRecord replaced = swapped;
    replaced.readAtMs = kT0 + 2000;
    replaced.owners[0].id = "holder-3";
    QCOMPARE(types(t.observe(replaced, LockTracker::Source::Live)), (QList<T> {T::Released, T::Acquired}));
}

void TestLockTracker::releasedOrExpired()
{
    LockTracker t;
    t.observe(reading(0, 1000), LockTracker::Source::Live);
    // Gone while 700 ms were still left: someone deleted it.
    QCOMPARE(types(t.observeGone("lock", kT0 + 300)), QList<T> {T::Released});
    QVERIFY(!t.isPresent("lock"));
    QVERIFY(t.observeGone("lock", kT0 + 400).isEmpty()); // already gone
    t.observe(reading(500, 1000), LockTracker::Source::Live);
    const auto expired = t.observeGone("lock", kT0 + 1600);
    QCOMPARE(types(expired), QList<T> {T::Expired});
    QCOMPARE(expired.first().atMs, kT0 + 1500); // when its TTL ran out
    QCOMPARE(types(t.history("lock")->events()).mid(0, 4),
             (QList<T> {T::Acquired, T::Released, T::Acquired, T::Expired}));
}

void TestLockTracker::notificationsDecideGone()
{
    LockTracker t;
    t.observe(reading(0, 60000), LockTracker::Source::Live);
    t.noteNotification("lock", "expired", kT0 + 120);
    const auto e = t.observeGone("lock", kT0 + 200);
    QCOMPARE(types(e), QList<T> {T::Expired}); // the server said so, though the TTL said otherwise
    QCOMPARE(e.first().atMs, kT0 + 120);
    t.observe(reading(300, 60000), LockTracker::Source::Live);
    t.noteNotification("lock", "del", kT0 + 310);
    QCOMPARE(types(t.observeGone("lock", kT0 + 400)), QList<T> {T::Released});
}

void TestLockTracker::acquiredWithNotificationTime()
{
    LockTracker t;
    t.noteNotification("lock", "hincrby", kT0 + 90);
    const auto e = t.observe(reading(100, 30000), LockTracker::Source::Live);
    QCOMPARE(types(e), QList<T> {T::Acquired});
    QCOMPARE(e.first().atMs, kT0 + 90);
}

void TestLockTracker::boundedMemory()
{
    LockTracker t;
    for (int i = 0; i < LockTracker::kMaxPendingHints * 3; ++i)
        t.noteNotification("k" + QByteArray::number(i), "set", kT0 + i);
    QCOMPARE(t.size(), 0); // hints for keys that are not locks do not create histories
    for (int i = 0; i < LockTracker::kMaxStates + 10; ++i) {
        LockRecord r = reading(i, 1000);
        r.key = "gone" + QByteArray::number(i);
        t.observe(r, LockTracker::Source::Live);
        t.observeGone(r.key, kT0 + i + 1);
    }
    QVERIFY(t.size() <= LockTracker::kMaxStates);
}

QTEST_GUILESS_MAIN(TestLockTracker)
#include "tst_locktracker.moc"
