// The real lockscope-cli: `algorithms` in text and JSON, and `lock` running every algorithm of the catalog
// against sandboxes, refusing to write to a read-only connection, and showing a flaw on demand.
#include "locktestsupport.h"
#include "sandboxfixture.h"

#include "locks/lockcatalog.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

using TestSupport::run;
using namespace LockTest;

class TestLockCli : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void algorithmsText();
    void algorithmsJson();
    void oneAlgorithmInFull();
    void badAlgorithmArguments();
    void everyAlgorithmRunsOnASandbox_data();
    void everyAlgorithmRunsOnASandbox();
    void givenServerNeedsReadWrite();
    void crashAfterSetnxOnDemand();
    void refusedWhenHeld();

private:
    SandboxFixture m_server;
};

void TestLockCli::initTestCase()
{
    QVERIFY(QFileInfo(TestSupport::cliPath()).isExecutable());
    LS_SANDBOX(m_server);
}

void TestLockCli::algorithmsText()
{
    const auto r = run(TestSupport::cliPath(), {"algorithms"});
    QCOMPARE(r.exitCode, 0);
    for (const LockAlgorithmInfo &a : LockCatalog::all()) {
        QVERIFY2(r.out.contains(a.id + u'\n'), qPrintable(a.id));
        QVERIFY(r.out.contains(a.title));
        QVERIFY(r.out.contains(QStringLiteral("flaw:")));
    }
    const auto help = run(TestSupport::cliPath(), {"--help"});
    QVERIFY(help.out.contains(QLatin1String("algorithms")));
    QVERIFY(help.out.contains(QLatin1String("lock ")));
}

void TestLockCli::algorithmsJson()
{
    const auto r = run(TestSupport::cliPath(), {"algorithms", "--json"});
    QCOMPARE(r.exitCode, 0);
    const QJsonArray list = QJsonDocument::fromJson(r.out.toUtf8()).array();
    QCOMPARE(list.size(), 10);
    QStringList ids;
    for (const QJsonValue &v : list) {
        const QJsonObject o = v.toObject();
        ids << o.value(QStringLiteral("id")).toString();
        for (const char *field : {"title", "origin", "flaw", "explanation"})
            QVERIFY2(!o.value(QLatin1String(field)).toString().isEmpty(), field);
    }
    QCOMPARE(ids, LockCatalog::ids());
}

void TestLockCli::oneAlgorithmInFull()
{
    const auto r = run(TestSupport::cliPath(), {"algorithms", "redisson-fair", "--scripts"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.out.contains(QLatin1String("redisson_lock_queue:{name}")));
    QVERIFY(r.out.contains(QLatin1String("----- redisson_fair_lock.lua")));
    QVERIFY(r.out.contains(QLatin1String("ZINCRBY"))); // the script itself
    const auto j = run(TestSupport::cliPath(), {"algorithms", "fenced", "--json", "--scripts"});
    QCOMPARE(j.exitCode, 0);
    const QJsonObject o = QJsonDocument::fromJson(j.out.toUtf8()).object();
    QVERIFY(o.value(QStringLiteral("script_sources"))
                .toObject()
                .value(QStringLiteral("fenced_write"))
                .toString()
                .contains(QLatin1String("HSET")));
}

void TestLockCli::badAlgorithmArguments()
{
    auto r = run(TestSupport::cliPath(), {"algorithms", "paxos"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY(r.err.contains(QLatin1String("unknown algorithm 'paxos'")));
    r = run(TestSupport::cliPath(), {"lock", "--sandbox"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY(r.err.contains(QLatin1String("--algorithm is required")));
    r = run(TestSupport::cliPath(),
            {"lock", "--algorithm", "set-nx-px-lua", "--wait", "pubsub", "--sandbox"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY(r.err.contains(QLatin1String("publishes nothing")));
    r = run(TestSupport::cliPath(), {"lock", "--algorithm", "redlock", "--read-write", "--port", "1"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY(r.err.contains(QLatin1String("--servers 3")));
    r = run(TestSupport::cliPath(),
            {"lock", "--algorithm", "set-nx-px-lua", "--fault", "gremlins", "--sandbox"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY(r.err.contains(QLatin1String("crash-after-setnx")));
    r = run(TestSupport::cliPath(),
            {"lock", "--algorithm", "set-nx-px-lua", "--lease-ms", "soon", "--sandbox"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY(r.err.contains(QLatin1String("--lease-ms")));
}

void TestLockCli::everyAlgorithmRunsOnASandbox_data()
{
    QTest::addColumn<QString>("id");
    for (const QString &id : LockCatalog::ids())
        QTest::newRow(qPrintable(id)) << id;
}

void TestLockCli::everyAlgorithmRunsOnASandbox()
{
    QFETCH(QString, id);
    const LockAlgorithmInfo *info = LockCatalog::find(id);
    QStringList args {"lock", "--algorithm", id, "--sandbox", "--hold-ms", "50", "--reentry", "1", "--json"};
    if (info->multiServer)
        args << "--servers"
             << "3";
    const auto r = run(TestSupport::cliPath(), args);
    QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
    const QJsonObject o = QJsonDocument::fromJson(r.out.toUtf8()).object();
    QCOMPARE(o.value(QStringLiteral("algorithm")).toString(), id);
    QCOMPARE(o.value(QStringLiteral("servers")).toArray().size(), info->multiServer ? 3 : 1);
    const QJsonArray steps = o.value(QStringLiteral("steps")).toArray();
    QStringList kinds, outcomes;
    for (const QJsonValue &v : steps) {
        kinds << v.toObject().value(QStringLiteral("step")).toString();
        outcomes << v.toObject().value(QStringLiteral("outcome")).toString();
    }
    QCOMPARE(kinds.first(), QStringLiteral("acquire"));
    QCOMPARE(outcomes.first(), QStringLiteral("acquired"));
    QCOMPARE(kinds.count(QStringLiteral("release")), info->reentrant ? 2 : 1);
    QCOMPARE(outcomes.last(), QStringLiteral("released"));
    const QJsonObject firstStep = steps.first().toObject();
    QVERIFY(firstStep.value(QStringLiteral("commands")).toInt() >= 1);
    if (info->fencing)
        QCOMPARE(firstStep.value(QStringLiteral("fence")).toInt(), 1);
    if (info->multiServer)
        QCOMPARE(firstStep.value(QStringLiteral("servers")).toArray().size(), 3);
}

void TestLockCli::givenServerNeedsReadWrite()
{
    const QString port = QString::number(m_server.port());
    const qint64 writes = TestSupport::writeCommandCalls(m_server.admin());
    auto r = run(TestSupport::cliPath(), {"lock", "--algorithm", "set-nx-px-lua", "--port", port});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(QLatin1String("--read-write")), qPrintable(r.err));
    QCOMPARE(TestSupport::writeCommandCalls(m_server.admin()), writes);

    r = run(TestSupport::cliPath(),
            {"lock", "--algorithm", "redisson-reentrant", "--port", port, "--read-write", "--name", "t:cli",
             "--hold-ms", "300", "--lease-ms", "300", "--watchdog-period-ms", "100"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
    QVERIFY(r.out.contains(QLatin1String("acquire   acquired")));
    QVERIFY(r.out.contains(QLatin1String("renew     renewed t:cli")));
    QVERIFY(r.out.contains(QLatin1String("release   released")));
    QVERIFY(r.out.contains(QLatin1String("HASH {")));
    QVERIFY(!exists(m_server.admin(), "t:cli"));
}

void TestLockCli::crashAfterSetnxOnDemand()
{
    QVERIFY(m_server.admin().command({"DEL", "t:crash"}).ok());
    const auto r = run(TestSupport::cliPath(),
                       {"lock", "--algorithm", "setnx-expire", "--port", QString::number(m_server.port()),
                        "--read-write", "--name", "t:crash", "--fault", "crash-after-setnx"});
    QCOMPARE(r.exitCode, 3);
    QVERIFY(r.out.contains(QLatin1String("crashed")));
    QVERIFY(r.out.contains(QLatin1String("no TTL")));
    QCOMPARE(pttl(m_server.admin(), "t:crash"), LockTtl::NoExpiry);
    QVERIFY(m_server.admin().command({"DEL", "t:crash"}).ok());
}

void TestLockCli::refusedWhenHeld()
{
    QVERIFY(m_server.admin().command({"SET", "t:held", "someone", "PX", "5000"}).ok());
    const auto r = run(TestSupport::cliPath(),
                       {"lock", "--algorithm", "set-nx-px-lua", "--port", QString::number(m_server.port()),
                        "--read-write", "--name", "t:held", "--acquire-timeout-ms", "100"});
    QCOMPARE(r.exitCode, 3);
    QVERIFY(r.out.contains(QLatin1String("timed out")));
    QCOMPARE(get(m_server.admin(), "t:held"), QByteArray("someone"));
}

QTEST_GUILESS_MAIN(TestLockCli)
#include "tst_lockcli.moc"
