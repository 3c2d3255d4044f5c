// PersistentErrorTracker without a server: which errors are persistent, the back-off, when a run gives up,
// and what ends a streak.
#include "sim/persistenterrortracker.h"

#include <QTest>

using Tracker = PersistentErrorTracker;
using Op = PersistentErrorTracker::Operation;

class TestPersistentErrorTracker : public QObject
{
    Q_OBJECT
private slots:
    void classification_data();
    void classification();
    void readOnlyThroughSentinelIsTransient();
    void backoffDoublesUpToItsCap();
    void givesUpWhenTheSameErrorLasts();
    void givesUpAfterManyFailuresHoweverFast();
    void successOfTheOperationEndsItsStreak();
    void transientErrorsNeitherBackOffNorCount();
    void blockingVoteNeedsMoreRefusalsThanTheQuorumSpares();

private:
    static RedisError reply(const char *text) { return RedisError::fromServerReply(text); }
    static const RedisError kUnknown;
};

const RedisError TestPersistentErrorTracker::kUnknown
    = RedisError::fromServerReply("ERR unknown command 'EVALSHA', with args beginning with: 'abc' '1' 'k'");

void TestPersistentErrorTracker::classification_data()
{
    QTest::addColumn<RedisError>("error");
    QTest::addColumn<int>("kind");
    const int transient = int(Tracker::Kind::Transient);
    const int persistent = int(Tracker::Kind::Persistent);
    QTest::newRow("none") << RedisError() << int(Tracker::Kind::None);
    QTest::newRow("interrupted") << RedisError(RedisError::Code::Interrupted, "stop")
                                 << int(Tracker::Kind::None);
    QTest::newRow("timeout") << RedisError(RedisError::Code::Timeout, "no reply") << transient;
    QTest::newRow("refused") << RedisError(RedisError::Code::ConnectionRefused, "refused") << transient;
    QTest::newRow("reset") << RedisError(RedisError::Code::ConnectionClosed, "reset") << transient;
    QTest::newRow("LOADING") << reply("LOADING Redis is loading the dataset in memory") << transient;
    QTest::newRow("BUSY") << reply("BUSY Redis is busy running a script.") << transient;
    QTest::newRow("TRYAGAIN") << reply("TRYAGAIN Multiple keys request during rehashing of slot")
                              << transient;
    QTest::newRow("MASTERDOWN") << reply("MASTERDOWN Link with MASTER is down") << transient;
    QTest::newRow("CLUSTERDOWN") << reply("CLUSTERDOWN The cluster is down") << transient;
    QTest::newRow("MOVED") << reply("MOVED 3999 127.0.0.1:6381") << transient;
    QTest::newRow("unknown command") << kUnknown << persistent;
    QTest::newRow("OOM") << reply("OOM command not allowed when used memory > 'maxmemory'.") << persistent;
    QTest::newRow("NOPERM") << reply("NOPERM this user has no permissions to run the 'set' command")
                            << persistent;
    QTest::newRow("READONLY") << reply("READONLY You can't write against a read only replica.") << persistent;
    QTest::newRow("WRONGTYPE") << reply("WRONGTYPE Operation against a key holding the wrong kind of value")
                               << persistent;
    QTest::newRow("NOSCRIPT") << reply("NOSCRIPT No matching script. Please use EVAL.") << persistent;
    QTest::newRow("read-only guard") << RedisError(RedisError::Code::ReadOnlyRefused, "read-only")
                                     << persistent;
}

void TestPersistentErrorTracker::classification()
{
    QFETCH(RedisError, error);
    QFETCH(int, kind);
    QCOMPARE(int(Tracker().classify(error)), kind);
}

void TestPersistentErrorTracker::readOnlyThroughSentinelIsTransient()
{
    Tracker::Policy p;
    p.readOnlyIsTransient = true;
    QCOMPARE(Tracker(p).classify(reply("READONLY You can't write against a read only replica.")),
             Tracker::Kind::Transient);
}

void TestPersistentErrorTracker::backoffDoublesUpToItsCap()
{
    Tracker t;
    const Tracker::Policy &p = t.policy();
    QCOMPARE(t.failed(0, Op::Acquire, 0, "EVALSHA", kUnknown), p.firstBackoffUs);
    QCOMPARE(t.failed(0, Op::Acquire, 1, "EVALSHA", kUnknown), 2 * p.firstBackoffUs);
    QCOMPARE(t.failed(1, Op::Acquire, 2, "EVALSHA", kUnknown), p.firstBackoffUs); // each worker its own
    qint64 wait = 0;
    for (int i = 0; i < 40; ++i)
        wait = t.failed(0, Op::Acquire, 3, "EVALSHA", kUnknown);
    QCOMPARE(wait, p.maxBackoffUs);
}

void TestPersistentErrorTracker::givesUpWhenTheSameErrorLasts()
{
    Tracker t;
    const qint64 window = t.policy().windowUs;
    t.failed(0, Op::Acquire, 100, "EVALSHA", kUnknown);
    // The same refusal about other keys and tokens: the same error.
    t.failed(1, Op::Acquire, 200, "EVALSHA",
             reply("ERR unknown command 'EVALSHA', with args beginning with: 'x'"));
    t.failed(0, Op::Acquire, window - 1, "EVALSHA", kUnknown);
    QVERIFY(!t.hasGivenUp()); // three failures, but not for long yet
    t.failed(1, Op::Acquire, window + 100, "EVALSHA", kUnknown);
    QVERIFY(t.hasGivenUp());
    const auto f = t.failure();
    QVERIFY(f);
    QCOMPARE(f->operation, Op::Acquire);
    QCOMPARE(f->command, QStringLiteral("EVALSHA"));
    QCOMPARE(f->error, kUnknown.message());
    QCOMPARE(f->failures, 4);
    QCOMPARE(f->firstUs, 100);
    QCOMPARE(f->describe(),
             QStringLiteral("EVALSHA (acquire) refused 4 times in 1.00 s: ") + kUnknown.message());
}

void TestPersistentErrorTracker::givesUpAfterManyFailuresHoweverFast()
{
    Tracker t;
    for (int i = 0; i < t.policy().maxFailures - 1; ++i)
        t.failed(i % 4, Op::Write, i, "SET",
                 reply("OOM command not allowed when used memory > 'maxmemory'."));
    QVERIFY(!t.hasGivenUp());
    t.failed(0, Op::Write, 1000, "SET", reply("OOM command not allowed when used memory > 'maxmemory'."));
    QVERIFY(t.hasGivenUp());
}

void TestPersistentErrorTracker::successOfTheOperationEndsItsStreak()
{
    Tracker t;
    const qint64 window = t.policy().windowUs;
    t.failed(0, Op::Acquire, 0, "SET", reply("OOM command not allowed"));
    t.failed(0, Op::Acquire, 10, "SET", reply("OOM command not allowed"));
    t.succeeded(Op::Release); // another operation going through proves nothing about acquires
    t.failed(0, Op::Acquire, 20, "SET", reply("OOM command not allowed"));
    t.succeeded(Op::Acquire);
    // A new streak: its first failure is now, and the back-off starts over.
    QCOMPARE(t.failed(0, Op::Acquire, window + 30, "SET", reply("OOM command not allowed")),
             t.policy().firstBackoffUs);
    t.failed(0, Op::Acquire, window + 40, "SET", reply("OOM command not allowed"));
    t.failed(0, Op::Acquire, window + 50, "SET", reply("OOM command not allowed"));
    QVERIFY(!t.hasGivenUp());
}

void TestPersistentErrorTracker::transientErrorsNeitherBackOffNorCount()
{
    Tracker t;
    for (int i = 0; i < 1000; ++i)
        QCOMPARE(
            t.failed(0, Op::Acquire, i * 10000, "SET", RedisError(RedisError::Code::Timeout, "no reply")), 0);
    QVERIFY(!t.hasGivenUp());
    QVERIFY(!t.failure());
}

void TestPersistentErrorTracker::blockingVoteNeedsMoreRefusalsThanTheQuorumSpares()
{
    const RedisError oom = reply("OOM command not allowed");
    QList<ServerVote> votes(5);
    votes[0].error = oom;
    votes[1].error = oom;
    votes[2].error = RedisError(RedisError::Code::Timeout, "no reply");
    Tracker t;
    QVERIFY(!t.blockingVote(votes, 3)); // two refusals: a quorum of 3 of 5 is still possible
    votes[3].error = oom;
    votes[3].errorCommand = "SET";
    const ServerVote *v = t.blockingVote(votes, 3);
    QVERIFY(v);
    QCOMPARE(v->error, oom);
}

QTEST_GUILESS_MAIN(TestPersistentErrorTracker)
#include "tst_persistenterrortracker.moc"
