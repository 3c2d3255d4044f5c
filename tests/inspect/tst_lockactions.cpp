// LockActions against real servers: compare-and-delete against the snapshot shown, refusal when the lock
// changed, Redisson waiters woken, orphan queues removed, and commands redis-cli reads back exactly.
#include "inspect/lockactions.h"
#include "inspect/locknames.h"
#include "inspect/lockscanjob.h"
#include "inspect/samplelocks.h"
#include "locks/redissonnames.h"
#include "testsupport.h"
#include "sandboxfixture.h"

#include <QDateTime>
#include <QProcess>

class TestLockActions : public QObject
{
    Q_OBJECT
private slots:
    void forceUnlockRedissonWakesWaiters();
    void forceUnlockRefusedWhenChanged();
    void forceUnlockWhenAlreadyGone();
    void fairAndReadWriteChannels();
    void multiResourceLock();
    void extendTtl();
    void removeOrphanQueue();
    void unavailableWithoutAnExactSnapshot();
    void readOnlyConnectionRefusesBeforeSending();
    void renderedCommandRunsInRedisCli();
    void enableNotifications();

private:
    static LockRecord scanOne(RedisConnection &c, const QByteArray &key, const QByteArray &pattern = {});
};

// The lock `key` as a scan with `pattern` (default: the key itself) shows it.
LockRecord TestLockActions::scanOne(RedisConnection &c, const QByteArray &key, const QByteArray &pattern)
{
    ScanOptions options;
    options.patterns = {pattern.isEmpty() ? key : pattern};
    LockScanJob job(c, options);
    LockRecord found;
    while (!job.atEnd()) {
        for (const LockRecord &r : job.nextPage()) {
            if (r.key == key)
                found = r;
        }
    }
    return found;
}

void TestLockActions::forceUnlockRedissonWakesWaiters()
{
    SandboxFixture server;
    LS_SANDBOX(server);
    RedisConnection &c = server.admin();
    const QByteArray client = SampleLocks::redissonClientId();
    QVERIFY(SampleLocks::redissonLock(c, "order:1", client, 7, 60000, 2));
    RedisConnection waiter(server.connectionSettings());
    LS_OPEN(waiter);
    QVERIFY(!waiter.append({"SUBSCRIBE", RedissonNames::lockChannel("order:1")}));
    QVERIFY(waiter.readReply(3000).ok());

    const LockRecord snapshot = scanOne(c, "order:1");
    QCOMPARE(snapshot.kind, LockKind::Reentrant);
    const LockAction action = LockActions::forceUnlock(snapshot);
    QVERIFY2(action.isAvailable(), qPrintable(action.unavailable));
    QVERIFY(action.explanation.contains(QLatin1String("redisson_lock__channel:{order:1}")));
    QVERIFY(action.commandText().startsWith(QLatin1String("EVAL \"")));
    const LockActionOutcome outcome = LockActions::interpret(action, c.command(action.command));
    QVERIFY2(outcome.done, qPrintable(outcome.message));
    QCOMPARE(c.command({"EXISTS", "order:1"}).reply.toInteger(), 0);
    const RedisResult message = waiter.readReply(3000);
    QVERIFY(message.ok());
    QCOMPARE(message.reply.at(0).bytes(), QByteArray("message"));
    QCOMPARE(message.reply.at(2).bytes(), QByteArray("0"));
}

void TestLockActions::forceUnlockRefusedWhenChanged()
{
    SandboxFixture server;
    LS_SANDBOX(server);
    RedisConnection &c = server.admin();
    const QByteArray client = SampleLocks::redissonClientId();
    QVERIFY(SampleLocks::redissonLock(c, "order:1", client, 7, 60000));
    QVERIFY(SampleLocks::plainLock(c, "lock:s", "owner-a", 60000));
    const LockAction hash = LockActions::forceUnlock(scanOne(c, "order:1"));
    const LockAction string = LockActions::forceUnlock(scanOne(c, "lock:s"));
    // The holder re-enters; the string lock expires and someone else takes it.
    QVERIFY(c.command({"HINCRBY", "order:1", client + ":7", "1"}).ok());
    QVERIFY(c.command({"SET", "lock:s", "owner-b", "PX", "60000"}).ok());
    for (const LockAction &a : {hash, string}) {
        const LockActionOutcome o = LockActions::interpret(a, c.command(a.command));
        QVERIFY(!o.done);
        QVERIFY2(o.message.contains(QLatin1String("refused")), qPrintable(o.message));
        QVERIFY(o.message.contains(QLatin1String("Nothing was changed")));
    }
    QCOMPARE(c.command({"EXISTS", "order:1", "lock:s"}).reply.toInteger(), 2);
}

void TestLockActions::forceUnlockWhenAlreadyGone()
{
    SandboxFixture server;
    LS_SANDBOX(server);
    RedisConnection &c = server.admin();
    QVERIFY(SampleLocks::plainLock(c, "lock:s", "owner-a", 60000));
    const LockAction a = LockActions::forceUnlock(scanOne(c, "lock:s"));
    QVERIFY(c.command({"DEL", "lock:s"}).ok());
    const LockActionOutcome o = LockActions::interpret(a, c.command(a.command));
    QVERIFY(!o.done);
    QVERIFY(o.message.contains(QLatin1String("already gone")));
}

void TestLockActions::fairAndReadWriteChannels()
{
    SandboxFixture server;
    LS_SANDBOX(server);
    RedisConnection &c = server.admin();
    const QByteArray client = SampleLocks::redissonClientId();
    const QByteArray head = SampleLocks::redissonClientId() + ":9";
    QVERIFY(SampleLocks::redissonLock(c, "fair", client, 1, 60000));
    QVERIFY(SampleLocks::redissonFairWaiter(c, "fair", head, QDateTime::currentMSecsSinceEpoch() + 60000));
    QVERIFY(SampleLocks::redissonWriteLock(c, "doc", client, 2, 60000));
    RedisConnection waiter(server.connectionSettings());
    LS_OPEN(waiter);
    QVERIFY(!waiter.append(
        {"SUBSCRIBE", RedissonNames::lockChannel("fair") + ':' + head, RedissonNames::rwChannel("doc")}));
    QVERIFY(waiter.readReply(3000).ok());
    QVERIFY(waiter.readReply(3000).ok());

    LockAction a = LockActions::forceUnlock(scanOne(c, "fair"));
    QVERIFY(LockActions::interpret(a, c.command(a.command)).done);
    RedisResult m = waiter.readReply(3000);
    QCOMPARE(m.reply.at(1).bytes(),
             RedissonNames::lockChannel("fair") + ':' + head); // only the head is woken
    QCOMPARE(m.reply.at(2).bytes(), QByteArray("0"));
    QCOMPARE(c.command({"LLEN", RedissonNames::fairQueue("fair")}).reply.toInteger(), 1); // the queue stays

    a = LockActions::forceUnlock(scanOne(c, "doc"));
    QVERIFY(LockActions::interpret(a, c.command(a.command)).done);
    m = waiter.readReply(3000);
    QCOMPARE(m.reply.at(1).bytes(), QByteArray("redisson_rwlock:{doc}"));
    QCOMPARE(m.reply.at(2).bytes(), QByteArray("1"));
}

void TestLockActions::multiResourceLock()
{
    SandboxFixture server;
    LS_SANDBOX(server);
    RedisConnection &c = server.admin();
    const QByteArray value = SampleLocks::redlock(c, {"rl:1", "rl:2", "rl:3"}, 60000);
    LockRecord snapshot;
    {
        ScanOptions options;
        options.patterns = {"rl:*"};
        LockScanJob job(c, options);
        while (!job.atEnd())
            for (const LockRecord &r : job.nextPage())
                snapshot = r;
    }
    QCOMPARE(snapshot.memberKeys().size(), 3);
    const LockAction a = LockActions::forceUnlock(snapshot);
    // One resource already expired: the others are still released.
    QVERIFY(c.command({"DEL", "rl:2"}).ok());
    QVERIFY(LockActions::interpret(a, c.command(a.command)).done);
    QCOMPARE(c.command({"EXISTS", "rl:1", "rl:2", "rl:3"}).reply.toInteger(), 0);
    // Taken by someone else on one resource: nothing is deleted.
    QVERIFY(c.command({"SET", "rl:1", value, "PX", "60000"}).ok());
    QVERIFY(c.command({"SET", "rl:3", "other", "PX", "60000"}).ok());
    QVERIFY(!LockActions::interpret(a, c.command(a.command)).done);
    QCOMPARE(c.command({"EXISTS", "rl:1", "rl:3"}).reply.toInteger(), 2);
}

void TestLockActions::extendTtl()
{
    SandboxFixture server;
    LS_SANDBOX(server);
    RedisConnection &c = server.admin();
    QVERIFY(SampleLocks::redissonLock(c, "order:1", SampleLocks::redissonClientId(), 1, 5000));
    QVERIFY(!SampleLocks::redisPyLock(c, "py", 5000).isEmpty());
    for (const char *key : {"order:1", "py"}) {
        const LockAction a = LockActions::extendTtl(scanOne(c, key), 600000);
        QVERIFY2(a.isAvailable(), qPrintable(a.unavailable));
        QVERIFY(LockActions::interpret(a, c.command(a.command)).done);
        QVERIFY(c.command({"PTTL", key}).reply.toInteger() > 500000);
    }
    QVERIFY(!LockActions::extendTtl(scanOne(c, "py"), 0).isAvailable());
}

void TestLockActions::removeOrphanQueue()
{
    SandboxFixture server;
    LS_SANDBOX(server);
    RedisConnection &c = server.admin();
    const QByteArray waiter = SampleLocks::redissonClientId() + ":3";
    QVERIFY(SampleLocks::redissonFairWaiter(c, "gone", waiter, QDateTime::currentMSecsSinceEpoch() + 60000));
    // Found through its queue: the lock key itself no longer exists.
    const LockRecord orphan = scanOne(c, "gone", "redisson_lock_queue:*");
    QVERIFY(orphan.hasDiagnosis(QStringLiteral("orphan-queue")));
    const LockAction a = LockActions::removeOrphanQueue(orphan);
    QVERIFY2(a.isAvailable(), qPrintable(a.unavailable));
    // Refused while the lock has come back.
    QVERIFY(SampleLocks::redissonLock(c, "gone", SampleLocks::redissonClientId(), 1, 60000));
    QVERIFY(!LockActions::interpret(a, c.command(a.command)).done);
    QVERIFY(c.command({"DEL", "gone"}).ok());
    QVERIFY(LockActions::interpret(a, c.command(a.command)).done);
    QCOMPARE(c.command({"EXISTS", RedissonNames::fairQueue("gone"), RedissonNames::fairTimeouts("gone")})
                 .reply.toInteger(),
             0);
    LockRecord healthy;
    healthy.key = "x";
    QVERIFY(!LockActions::removeOrphanQueue(healthy).isAvailable());
}

void TestLockActions::unavailableWithoutAnExactSnapshot()
{
    LockRecord r;
    r.key = "lock:huge";
    r.kind = LockKind::Named;
    r.type = "hash";
    r.fields = {{"a", "b"}};
    r.fieldCount = 1000000;
    QVERIFY(LockActions::forceUnlock(r).unavailable.contains(QLatin1String("part of this key")));
    r.type = "list";
    r.fieldCount = -1;
    QVERIFY(!LockActions::forceUnlock(r).isAvailable());
    r.type = "none";
    QVERIFY(LockActions::forceUnlock(r).unavailable.contains(QLatin1String("gone")));
}

void TestLockActions::readOnlyConnectionRefusesBeforeSending()
{
    SandboxFixture server;
    LS_SANDBOX(server);
    RedisConnection &admin = server.admin();
    QVERIFY(SampleLocks::plainLock(admin, "lock:s", "owner", 60000));
    const LockAction a = LockActions::forceUnlock(scanOne(admin, "lock:s"));
    ConnectionSettings s = server.connectionSettings();
    s.readOnly = true;
    RedisConnection reader(s);
    LS_OPEN(reader);
    const qint64 evals = TestSupport::commandCalls(admin, "eval");
    const LockActionOutcome o = LockActions::interpret(a, reader.command(a.command));
    QVERIFY(!o.done);
    QVERIFY2(o.message.contains(QLatin1String("read-only")), qPrintable(o.message));
    QCOMPARE(TestSupport::commandCalls(admin, "eval"), evals);
    QCOMPARE(admin.command({"EXISTS", "lock:s"}).reply.toInteger(), 1);
}

void TestLockActions::renderedCommandRunsInRedisCli()
{
    SandboxFixture server;
    LS_SANDBOX(server);
    RedisConnection &c = server.admin();
    const QByteArray key("lock:\"q\" \xff\\x", 12);
    QVERIFY(SampleLocks::plainLock(c, key, QByteArray("own\ner\x01", 7), 60000));
    const LockAction a = LockActions::forceUnlock(scanOne(c, key, "lock:*"));
    QVERIFY2(a.isAvailable(), qPrintable(a.unavailable));
    QProcess cli;
    cli.start(QStringLiteral("redis-cli"), {QStringLiteral("-p"), QString::number(server.port())});
    QVERIFY(cli.waitForStarted());
    cli.write(a.commandText().toUtf8() + '\n');
    cli.closeWriteChannel();
    QVERIFY(cli.waitForFinished(10000));
    const QString out = QString::fromUtf8(cli.readAllStandardOutput()).trimmed();
    QCOMPARE(out, QStringLiteral("1"));
    QCOMPARE(c.command({"EXISTS", key}).reply.toInteger(), 0);
}

void TestLockActions::enableNotifications()
{
    SandboxFixture server;
    LS_SANDBOX(server);
    RedisConnection &c = server.admin();
    const LockAction a = LockActions::enableNotifications(QString());
    QCOMPARE(a.commandText(), QStringLiteral("CONFIG SET notify-keyspace-events \"Kg$hlzx\""));
    QVERIFY(LockActions::interpret(a, c.command(a.command)).done);
    const QByteArray flags = c.command({"CONFIG", "GET", "notify-keyspace-events"}).reply.at(1).bytes();
    for (char f : QByteArray("Kg$hlzx"))
        QVERIFY2(flags.contains(f), flags.constData());
}

QTEST_GUILESS_MAIN(TestLockActions)
#include "tst_lockactions.moc"
