// LockNames: Redisson's companion names both ways, and Redis glob semantics.
#include "inspect/locknames.h"
#include "locks/redissonnames.h"

#include <QTest>

class TestLockNames : public QObject
{
    Q_OBJECT
private slots:
    void companionNames();
    void companionOf_data();
    void companionOf();
    void glob_data();
    void glob();
    void globIsIterative();
};

void TestLockNames::companionNames()
{
    // Reading back what the lock library writes: every companion name leads to its lock.
    const QByteArray owner = "0b7d3b1c-6a0f-4b8e-9d52-5c1d2f3e4a5b:42";
    for (const QByteArray &name : {QByteArray("order:1"), QByteArray("{shop}:lock"), QByteArray("a b")}) {
        QCOMPARE(LockNames::companionOf(RedissonNames::fairQueue(name)).lockName, name);
        QCOMPARE(int(LockNames::companionOf(RedissonNames::fairQueue(name)).role),
                 int(LockNames::CompanionRole::Queue));
        QCOMPARE(LockNames::companionOf(RedissonNames::fairTimeouts(name)).lockName, name);
        QCOMPARE(LockNames::companionOf(RedissonNames::tokenCounter(name)).lockName, name);
        QCOMPARE(LockNames::companionOf(RedissonNames::unlockLatch(name, "0123456789abcdef")).lockName, name);
        const LockNames::Companion read
            = LockNames::companionOf(RedissonNames::rwTimeoutPrefix(name, owner) + ":3");
        QCOMPARE(int(read.role), int(LockNames::CompanionRole::ReadTimeout));
        QCOMPARE(read.lockName, name);
        QCOMPARE(read.owner, owner);
    }
}

void TestLockNames::companionOf_data()
{
    QTest::addColumn<QByteArray>("key");
    QTest::addColumn<int>("role");
    QTest::addColumn<QByteArray>("lock");
    using R = LockNames::CompanionRole;
    const QByteArray owner = "0b7d3b1c-6a0f-4b8e-9d52-5c1d2f3e4a5b:42";
    QTest::newRow("queue") << QByteArray("redisson_lock_queue:{order:1}") << int(R::Queue)
                           << QByteArray("order:1");
    QTest::newRow("deadlines") << QByteArray("redisson_lock_timeout:{a}") << int(R::Deadlines)
                               << QByteArray("a");
    QTest::newRow("token") << QByteArray("redisson_lock_token:{fence}") << int(R::Token)
                           << QByteArray("fence");
    QTest::newRow("tagged name") << QByteArray("redisson_lock_queue:{shop}:lock") << int(R::Queue)
                                 << QByteArray("{shop}:lock");
    QTest::newRow("read timeout") << QByteArray("{doc}:" + owner + ":rwlock_timeout:3") << int(R::ReadTimeout)
                                  << QByteArray("doc");
    QTest::newRow("unlock latch") << QByteArray(
        "redisson_unlock_latch:{doc}:0123456789abcdef0123456789abcdef")
                                  << int(R::UnlockLatch) << QByteArray("doc");
    QTest::newRow("plain key") << QByteArray("lock:order:1") << int(R::None) << QByteArray();
    QTest::newRow("prefix only") << QByteArray("redisson_lock_queue:") << int(R::None) << QByteArray();
    QTest::newRow("bad read timeout")
        << QByteArray("{doc}:nope:1:rwlock_timeout:3") << int(R::None) << QByteArray();
    QTest::newRow("binary") << QByteArray("redisson_lock_queue:{\xff\x00}", 24) << int(R::Queue)
                            << QByteArray("\xff\x00", 2);
}

void TestLockNames::companionOf()
{
    QFETCH(QByteArray, key);
    QFETCH(int, role);
    QFETCH(QByteArray, lock);
    const LockNames::Companion c = LockNames::companionOf(key);
    QCOMPARE(int(c.role), role);
    QCOMPARE(c.lockName, lock);
}

void TestLockNames::glob_data()
{
    QTest::addColumn<QByteArray>("pattern");
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<bool>("matches");
    QTest::newRow("star") << QByteArray("*lock*") << QByteArray("order:lock:1") << true;
    QTest::newRow("case") << QByteArray("*lock*") << QByteArray("order:LOCK:1") << false;
    QTest::newRow("question") << QByteArray("a?c") << QByteArray("abc") << true;
    QTest::newRow("question needs one") << QByteArray("a?c") << QByteArray("ac") << false;
    QTest::newRow("class") << QByteArray("h[ae]llo") << QByteArray("hello") << true;
    QTest::newRow("negated class") << QByteArray("h[^e]llo") << QByteArray("hello") << false;
    QTest::newRow("range") << QByteArray("k[0-9]") << QByteArray("k7") << true;
    QTest::newRow("escape") << QByteArray("a\\*b") << QByteArray("a*b") << true;
    QTest::newRow("escape literal") << QByteArray("a\\*b") << QByteArray("axb") << false;
    QTest::newRow("empty text") << QByteArray("*") << QByteArray() << true;
    QTest::newRow("backtrack") << QByteArray("*a*b") << QByteArray("xaxxaxb") << true;
    QTest::newRow("binary") << QByteArray("lock:*") << QByteArray("lock:\xff\x00", 7) << true;
    // "*word*" takes a substring search instead of the general matcher: the same answers.
    QTest::newRow("word is the whole text") << QByteArray("*lock*") << QByteArray("lock") << true;
    QTest::newRow("word cut short") << QByteArray("*lock*") << QByteArray("loc") << false;
    QTest::newRow("word at the end") << QByteArray("*mutex*") << QByteArray("a:mutex") << true;
    QTest::newRow("word after a NUL") << QByteArray("*lock*") << QByteArray("\x00lock", 5) << true;
    QTest::newRow("two stars") << QByteArray("**") << QByteArray("anything") << true;
    QTest::newRow("word with a class") << QByteArray("*l[o]ck*") << QByteArray("a:lock") << true;
    QTest::newRow("word with an escape") << QByteArray("*a\\*b*") << QByteArray("xa*bx") << true;
    QTest::newRow("unterminated class") << QByteArray("a[bc") << QByteArray("ab") << true;
}

void TestLockNames::glob()
{
    QFETCH(QByteArray, pattern);
    QFETCH(QByteArray, text);
    QFETCH(bool, matches);
    QCOMPARE(LockNames::globMatch(pattern, text), matches);
}

void TestLockNames::globIsIterative()
{
    // A pathological pattern must neither recurse deeply nor take exponential time.
    const QByteArray pattern = QByteArray(5000, '*') + 'b';
    const QByteArray text(100000, 'a');
    QVERIFY(!LockNames::globMatch(pattern, text));
    QVERIFY(LockNames::globMatch(pattern, text + 'b'));
}

QTEST_GUILESS_MAIN(TestLockNames)
#include "tst_locknames.moc"
