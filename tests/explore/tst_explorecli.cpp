// `lockscope-cli explore` as a script sees it: bad input is exit 2 with a message naming what was wrong and no
// file written; a given server needs --read-write; a short search with nothing found is exit 0 and says how
// many schedules it tried, never "safe"; `explore merge` joins shard reports.
#include "redis/sandboxserver.h"
#include "testsupport.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

class TestExploreCli : public QObject
{
    Q_OBJECT
private slots:
    void unknownAlgorithmExitsTwo();
    void unknownFaultExitsTwo();
    void faultTheTargetCannotMeetExitsTwo();
    void givenServerWithoutReadWriteExitsTwoAndWritesNothing();
    void shortSearchWithNothingFoundExitsZeroAndWritesNoStory();
    void mergeJoinsShardsAndRefusesAMissingFile();

private:
    QString path(const QString &name) const { return m_dir.filePath(name); }
    QTemporaryDir m_dir;
};

void TestExploreCli::unknownAlgorithmExitsTwo()
{
    const auto r = TestSupport::run(TestSupport::cliPath(),
                                    {"explore", "--algorithm", "no-such-lock", "--json", path("a.json"), "--quiet"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(QLatin1String("no-such-lock")), qPrintable(r.err));
    QVERIFY(!QFile::exists(path("a.json")));
}

void TestExploreCli::unknownFaultExitsTwo()
{
    const auto r = TestSupport::run(TestSupport::cliPath(), {"explore", "--algorithm", "set-nx-px-lua", "--faults",
                                                             "pause,earthquake", "--json", path("b.json"), "--quiet"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(QLatin1String("earthquake")), qPrintable(r.err));
    QVERIFY(!QFile::exists(path("b.json")));
}

void TestExploreCli::faultTheTargetCannotMeetExitsTwo()
{
    const auto r = TestSupport::run(TestSupport::cliPath(), {"explore", "--algorithm", "set-nx-px-lua", "--faults",
                                                             "clock-jump", "--story", path("c.json"), "--quiet"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(QLatin1String("clock-jump")), qPrintable(r.err));
    QVERIFY(!QFile::exists(path("c.json")));
}

void TestExploreCli::givenServerWithoutReadWriteExitsTwoAndWritesNothing()
{
    SandboxServer server;
    LS_START(server);
    const auto r = TestSupport::run(TestSupport::cliPath(),
                                    {"explore", "--algorithm", "set-nx-px-del", "--port", QString::number(server.port()),
                                     "--json", path("d.json"), "--quiet"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(QLatin1String("--read-write")), qPrintable(r.err));
    QVERIFY(!QFile::exists(path("d.json")));
    // Nothing was written to the server either.
    RedisConnection c(server.connectionSettings());
    QVERIFY(!c.open());
    QCOMPARE(c.command({"DBSIZE"}).reply.toInteger(), 0);
}

void TestExploreCli::shortSearchWithNothingFoundExitsZeroAndWritesNoStory()
{
    const auto r = TestSupport::run(TestSupport::cliPath(),
                                    {"explore", "--algorithm", "set-nx-px-lua", "--faults", "crash", "--schedules", "4",
                                     "--json", path("e.json"), "--story", path("e-story.json"), "--quiet"},
                                    QProcessEnvironment::systemEnvironment(), 300000);
    QVERIFY2(r.finished, "explore did not finish");
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.out.contains(QLatin1String("NONE FOUND in 4 schedules")), qPrintable(r.out));
    QVERIFY2(r.out.contains(QLatin1String("not a proof")), qPrintable(r.out));
    QVERIFY2(r.err.contains(QLatin1String("no story was written")), qPrintable(r.err));
    QVERIFY(!QFile::exists(path("e-story.json")));
    QFile f(path("e.json"));
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QJsonObject json = QJsonDocument::fromJson(f.readAll()).object();
    QCOMPARE(json.value(QStringLiteral("found")).toBool(true), false);
    QCOMPARE(json.value(QStringLiteral("schedules_tried")).toInt(), 4);
    QCOMPARE(json.value(QStringLiteral("stopped_because")).toString(), QStringLiteral("schedules"));
}

void TestExploreCli::mergeJoinsShardsAndRefusesAMissingFile()
{
    // Two shards of one search, each 2 schedules, nothing found: the merge says 4.
    for (const char *shard : {"0/2", "1/2"}) {
        const QString out = path(QStringLiteral("shard%1.json").arg(QLatin1String(shard).left(1)));
        const auto r = TestSupport::run(TestSupport::cliPath(),
                                        {"explore", "--algorithm", "set-nx-px-lua", "--faults", "crash", "--schedules",
                                         "2", "--shard", shard, "--json", out, "--quiet"},
                                        QProcessEnvironment::systemEnvironment(), 300000);
        QCOMPARE(r.exitCode, 0);
    }
    const auto merged = TestSupport::run(TestSupport::cliPath(), {"explore", "merge", path("shard0.json"),
                                                                  path("shard1.json"), "--json", path("merged.json")});
    QCOMPARE(merged.exitCode, 0);
    QVERIFY2(merged.out.contains(QLatin1String("NONE FOUND in 4 schedules")), qPrintable(merged.out));

    const auto missing = TestSupport::run(TestSupport::cliPath(),
                                          {"explore", "merge", path("shard0.json"), path("nowhere.json")});
    QCOMPARE(missing.exitCode, 2);
    QVERIFY2(missing.err.contains(QLatin1String("nowhere.json")), qPrintable(missing.err));
}

QTEST_GUILESS_MAIN(TestExploreCli)

#include "tst_explorecli.moc"
