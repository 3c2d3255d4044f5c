// KeyPattern: keys that differ only by an id fold into one pattern, and names stay readable.
#include "metrics/keypattern.h"

#include <QTest>

class TestKeyPattern : public QObject
{
    Q_OBJECT
private slots:
    void folds_data();
    void folds();
    void longKeysAreCut();
};

void TestKeyPattern::folds_data()
{
    QTest::addColumn<QByteArray>("key");
    QTest::addColumn<QString>("pattern");
    QTest::newRow("number") << QByteArray("orders:42:lock") << "orders:*:lock";
    QTest::newRow("another number") << QByteArray("orders:43:lock") << "orders:*:lock";
    QTest::newRow("uuid") << QByteArray("lock:3f2a9c0e-1b2c-4d5e-8f90-a1b2c3d4e5f6") << "lock:*";
    QTest::newRow("uuid inside") << QByteArray("job-3f2a9c0e-1b2c-4d5e-8f90-a1b2c3d4e5f6-lock")
                                 << "job-*-lock";
    QTest::newRow("sha1") << QByteArray("job:a94a8fe5ccb19ba61c4c0873d391e987982fbbd3") << "job:*";
    QTest::newRow("mongo id") << QByteArray("doc:507f1f77bcf86cd799439011:mutex") << "doc:*:mutex";
    QTest::newRow("base62 id") << QByteArray("upload:V1StGXR8Z5jdHi6BmyT2:lock") << "upload:*:lock";
    QTest::newRow("digits in a word") << QByteArray("worker7:lock") << "worker*:lock";
    QTest::newRow("bull job") << QByteArray("bull:payments:1234:lock") << "bull:payments:*:lock";
    QTest::newRow("redisson hash tag")
        << QByteArray("redisson_lock__channel:{orders}") << "redisson_lock__channel:{orders}";
    QTest::newRow("words stay") << QByteArray("mutex:fx:rs:mutex-default") << "mutex:fx:rs:mutex-default";
    QTest::newRow("short hex word stays") << QByteArray("cafe:lock") << "cafe:lock";
    QTest::newRow("adjacent ids fold once") << QByteArray("lock:12:34:56") << "lock:*:*:*";
    QTest::newRow("ids joined") << QByteArray("lock:12-34") << "lock:*-*";
    QTest::newRow("binary") << QByteArray("lock:\x01\x02", 7) << "lock:\\x*\\x*";
}

void TestKeyPattern::folds()
{
    QFETCH(QByteArray, key);
    QFETCH(QString, pattern);
    QCOMPARE(KeyPattern::fold(key), pattern);
}

void TestKeyPattern::longKeysAreCut()
{
    const QString p = KeyPattern::fold(QByteArray(400, 'a'));
    QCOMPARE(p.size(), KeyPattern::kMaxLength);
    QVERIFY(p.endsWith(QChar(0x2026)));
}

QTEST_GUILESS_MAIN(TestKeyPattern)
#include "tst_keypattern.moc"
