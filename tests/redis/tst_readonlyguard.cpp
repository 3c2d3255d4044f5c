// ReadOnlyGuard: the allow-list decides, including sub-commands; unknown commands are refused.
#include "redis/readonlyguard.h"

#include <QTest>

class TestReadOnlyGuard : public QObject
{
    Q_OBJECT
private slots:
    void allowsReads_data();
    void allowsReads();
    void refusesWrites_data();
    void refusesWrites();
    void reasonNamesTheCommand();
    void allowListIsDocumented();
};

static QList<QByteArray> split(const QByteArray &line)
{
    return line.split(' ');
}

void TestReadOnlyGuard::allowsReads_data()
{
    QTest::addColumn<QByteArray>("command");
    for (const char *c : {"GET k",
                          "get k",
                          "SCAN 0 MATCH * COUNT 1000",
                          "HGETALL h",
                          "PTTL k",
                          "TYPE k",
                          "HSCAN h 0",
                          "LRANGE q 0 -1",
                          "ZRANGE z 0 -1 WITHSCORES",
                          "CLIENT SETNAME x",
                          "client id",
                          "CONFIG GET notify-keyspace-events",
                          "PUBSUB NUMSUB ch",
                          "SUBSCRIBE a",
                          "INFO",
                          "HELLO 2",
                          "CLUSTER SLOTS",
                          "SENTINEL get-master-addr-by-name m",
                          "MEMORY USAGE k",
                          "OBJECT ENCODING k",
                          "AUTH u p",
                          "SELECT 2",
                          "COMMAND INFO get"})
        QTest::newRow(c) << QByteArray(c);
}

void TestReadOnlyGuard::allowsReads()
{
    QFETCH(QByteArray, command);
    QString reason;
    QVERIFY2(ReadOnlyGuard::allows(split(command), &reason), qPrintable(reason));
}

void TestReadOnlyGuard::refusesWrites_data()
{
    QTest::addColumn<QByteArray>("command");
    for (const char *c : {"SET k v",           "set k v",        "DEL k",
                          "UNLINK k",          "EVAL x 0",       "EVALSHA abc 0",
                          "EVAL_RO x 0",       "PEXPIRE k 10",   "HINCRBY h f 1",
                          "PUBLISH ch 0",      "FLUSHALL",       "FLUSHDB",
                          "CONFIG SET a b",    "CONFIG REWRITE", "CLIENT KILL ID 1",
                          "CLIENT PAUSE 10",   "SCRIPT LOAD x",  "SCRIPT FLUSH",
                          "DEBUG SLEEP 1",     "SHUTDOWN",       "KEYS *",
                          "ACL SETUSER x",     "CLUSTER RESET",  "SENTINEL FAILOVER m",
                          "MIGRATE a b c d e", "RESTORE k 0 x",  "FUNCTION LOAD x",
                          "FCALL f 0",         "XADD s * a b",   "SWAPDB 0 1",
                          "MOVE k 1",          "RENAME a b",     "NOSUCHCOMMAND",
                          "MEMORY PURGE",      "OBJECT",         "CLIENT"})
        QTest::newRow(c) << QByteArray(c);
}

void TestReadOnlyGuard::refusesWrites()
{
    QFETCH(QByteArray, command);
    QVERIFY(!ReadOnlyGuard::allows(split(command)));
}

void TestReadOnlyGuard::reasonNamesTheCommand()
{
    QString reason;
    QVERIFY(!ReadOnlyGuard::allows({"del", "k"}, &reason));
    QVERIFY2(reason.startsWith(QLatin1String("DEL is not a read-only command")), qPrintable(reason));
    QVERIFY(!ReadOnlyGuard::allows({"config", "set", "x", "y"}, &reason));
    QVERIFY2(reason.startsWith(QLatin1String("CONFIG SET is not")), qPrintable(reason));
    QVERIFY(!ReadOnlyGuard::allows({}, &reason));
}

void TestReadOnlyGuard::allowListIsDocumented()
{
    const QStringList list = ReadOnlyGuard::allowList();
    QVERIFY(list.contains(QStringLiteral("GET")));
    QVERIFY(list.contains(QStringLiteral("CONFIG|GET")));
    QVERIFY(!list.contains(QStringLiteral("CONFIG|SET")));
    QVERIFY(!list.contains(QStringLiteral("SET")));
}

QTEST_GUILESS_MAIN(TestReadOnlyGuard)
#include "tst_readonlyguard.moc"
