// `lockscope-cli presets` and `simulate` as a user runs them: exit codes, JSON, CSV, errors that say what.
#include "redis/clusterconnection.h"
#include "redis/sandboxcluster.h"
#include "testsupport.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>

class TestSimulateCli : public QObject
{
    Q_OBJECT
private slots:
    void presetsList();
    void presetPassesWithJsonReport();
    void failedExpectationExitsThree();
    void badScenarioExitsTwoAndNamesTheField();
    void badArguments_data();
    void badArguments();
    void eventsCsvAndGivenServer();
    void readOnlyGivenServerExitsOne();
    void serverRefusingTheRunExitsOneWithTheReason();
    void givenClusterAndSandboxCluster();

private:
    QTemporaryDir m_dir;
    QString write(const QString &name, const QByteArray &content)
    {
        QFile f(m_dir.filePath(name));
        f.open(QIODevice::WriteOnly);
        f.write(content);
        return f.fileName();
    }
};

using TestSupport::run;

static const QByteArray kQuick = R"({"lockscope_scenario": 1, "id": "quick", "title": "Quick",
    "algorithm": {"id": "set-nx-px-lua", "lease_ms": 2000, "retry": {"strategy": "fixed", "interval_ms": 2}},
    "workload": {"processes": 1, "threads_per_process": 2, "duration_s": 0.5},
    "expect": ["violations == 0", "acquisitions > 0"]})";

void TestSimulateCli::presetsList()
{
    const auto r = run(TestSupport::cliPath(), {"presets", "--json"});
    QCOMPARE(r.exitCode, 0);
    const QJsonArray list = QJsonDocument::fromJson(r.out.toUtf8()).array();
    QVERIFY(list.size() >= 14);
    QStringList ids;
    for (const QJsonValue &v : list)
        ids << v.toObject().value(QStringLiteral("id")).toString();
    QVERIFY(ids.contains(QStringLiteral("gc-pause")));
    const auto table = run(TestSupport::cliPath(), {"presets"});
    QVERIFY(table.out.contains(QLatin1String("compares: unfenced vs fenced")));
}

void TestSimulateCli::presetPassesWithJsonReport()
{
    const auto r = run(TestSupport::cliPath(), {"simulate", "--preset", "seed-short-lease", "--json", "-"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
    const QJsonObject report = QJsonDocument::fromJson(r.out.toUtf8()).object();
    for (const char *key : {"scenario", "algorithm", "duration_s", "workers", "acquisitions", "cycles_per_s",
                            "acquire_latency_us", "handoff_latency_us", "fairness_jain", "renewals",
                            "expiries", "errors", "violations", "expect"})
        QVERIFY2(report.contains(QLatin1String(key)), key);
    const QJsonObject violations = report.value(QStringLiteral("violations")).toObject();
    for (const char *key :
         {"overlaps", "stale_holders", "foreign_releases", "lost_updates", "fencing_rejections", "details"})
        QVERIFY2(violations.contains(QLatin1String(key)), key);
    QVERIFY(violations.value(QStringLiteral("overlaps")).toInt() >= 1);
    QVERIFY(report.value(QStringLiteral("expect")).toObject().value(QStringLiteral("passed")).toBool());
    QCOMPARE(report.value(QStringLiteral("acquire_latency_us")).toObject().keys(),
             (QStringList {"max", "p50", "p90", "p99"}));
}

void TestSimulateCli::failedExpectationExitsThree()
{
    QByteArray json = kQuick;
    json.replace("\"violations == 0\"", "\"overlaps > 0\"");
    const auto r = run(TestSupport::cliPath(), {"simulate", write("never.json", json)});
    QCOMPARE(r.exitCode, 3);
    QVERIFY2(r.out.contains(QStringLiteral("✘ expect overlaps > 0")), qPrintable(r.out));
    QVERIFY(r.out.contains(QLatin1String("FAILED")));
}

void TestSimulateCli::badScenarioExitsTwoAndNamesTheField()
{
    QByteArray json = kQuick;
    json.replace("\"lease_ms\"", "\"leese_ms\"");
    const auto r = run(TestSupport::cliPath(), {"simulate", write("typo.json", json)});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(QLatin1String("algorithm.leese_ms: unknown field (did you mean lease_ms?)")),
             qPrintable(r.err));
    const auto broken = run(TestSupport::cliPath(), {"simulate", write("broken.json", "{\"id\": ")});
    QCOMPARE(broken.exitCode, 2);
    QVERIFY2(broken.err.contains(QLatin1String("not valid JSON")), qPrintable(broken.err));
}

void TestSimulateCli::badArguments_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("expected");
    QTest::newRow("nothing") << QStringList {"simulate"} << "give one scenario";
    QTest::newRow("both") << QStringList {"simulate", "x.json", "--preset", "gc-pause"}
                          << "give one scenario";
    QTest::newRow("unknown preset") << QStringList {"simulate", "--preset", "gc-paws"}
                                    << "no preset 'gc-paws'";
    QTest::newRow("missing file") << QStringList {"simulate", "/nonexistent/s.json"}
                                  << "cannot read /nonexistent/s.json";
    QTest::newRow("bad duration") << QStringList {"simulate", "--preset", "gc-pause", "--duration", "-1"}
                                  << "--duration";
    QTest::newRow("bad seed") << QStringList {"simulate", "--preset", "gc-pause", "--seed", "x"} << "--seed";
}

void TestSimulateCli::badArguments()
{
    QFETCH(QStringList, args);
    QFETCH(QString, expected);
    const auto r = run(TestSupport::cliPath(), args);
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(expected), qPrintable(r.err));
}

void TestSimulateCli::eventsCsvAndGivenServer()
{
    SandboxServer server;
    LS_START(server);
    const QString csv = m_dir.filePath(QStringLiteral("events.csv"));
    const QString json = m_dir.filePath(QStringLiteral("report.json"));
    const auto r = run(TestSupport::cliPath(),
                       {"simulate", write("quick.json", kQuick), "--port", QString::number(server.port()),
                        "--read-write", "--events", csv, "--json", json, "--seed", "9"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
    QFile events(csv);
    QVERIFY(events.open(QIODevice::ReadOnly));
    const QList<QByteArray> lines = events.readAll().split('\n');
    QVERIFY(lines.size() > 10);
    QVERIFY(lines.first().startsWith("variant,time_us,worker,process,lock,kind,phase"));
    QFile reportFile(json);
    QVERIFY(reportFile.open(QIODevice::ReadOnly));
    const QJsonObject report = QJsonDocument::fromJson(reportFile.readAll()).object();
    QCOMPARE(report.value(QStringLiteral("seed")).toInt(), 9);
    // The counter stays in the server so the report can be checked from outside.
    const QJsonObject counter = report.value(QStringLiteral("counter")).toObject();
    RedisConnection c(server.connectionSettings());
    LS_OPEN(c);
    QCOMPARE(c.command({"GET", counter.value(QStringLiteral("key")).toString().toUtf8()}).reply.toInteger(),
             counter.value(QStringLiteral("actual")).toInteger());
}

void TestSimulateCli::readOnlyGivenServerExitsOne()
{
    SandboxServer server;
    LS_START(server);
    const auto r = run(TestSupport::cliPath(),
                       {"simulate", write("quick2.json", kQuick), "--port", QString::number(server.port())});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains(QLatin1String("read-only")) && r.err.contains(QLatin1String("--read-write")),
             qPrintable(r.err));
}

void TestSimulateCli::serverRefusingTheRunExitsOneWithTheReason()
{
    // Neither EVALSHA nor EVAL: the run cannot take a single Redisson lock. Its expectations are not judged
    // (exit 3): the run itself failed (exit 1), early, and says why.
    SandboxServer::Options o;
    o.configLines
        = {QStringLiteral("rename-command EVALSHA \"\""), QStringLiteral("rename-command EVAL \"\"")};
    SandboxServer server(o);
    LS_START(server);
    QByteArray json = kQuick;
    json.replace("set-nx-px-lua", "redisson-reentrant").replace("\"duration_s\": 0.5", "\"duration_s\": 20");
    const QString reportPath = m_dir.filePath(QStringLiteral("refused.json"));
    QElapsedTimer clock;
    clock.start();
    const auto r = run(TestSupport::cliPath(),
                       {"simulate", write("refused.json", json), "--port", QString::number(server.port()),
                        "--read-write", "--json", reportPath});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(clock.elapsed() < 10000, qPrintable(QString::number(clock.elapsed())));
    const QStringList lines = r.err.trimmed().split(u'\n');
    QCOMPARE(lines.size(), 1);
    QVERIFY2(
        lines.first().startsWith(QLatin1String("lockscope-cli simulate: the server keeps refusing the run: "
                                               "EVAL redisson_lock (acquire) refused")),
        qPrintable(r.err));
    QVERIFY2(lines.first().contains(QLatin1String("ERR unknown command 'EVAL'")), qPrintable(r.err));
    QFile file(reportPath);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QJsonObject report = QJsonDocument::fromJson(file.readAll()).object();
    const QString reason = report.value(QStringLiteral("stop_reason")).toString();
    QVERIFY2(lines.first().endsWith(reason.trimmed()),
             qPrintable(reason)); // the server's own words end in a space
    QCOMPARE(report.value(QStringLiteral("error")).toString(), reason);
    const QJsonObject refused = report.value(QStringLiteral("persistent_error")).toObject();
    QCOMPARE(refused.value(QStringLiteral("operation")).toString(), QStringLiteral("acquire"));
    QCOMPARE(refused.value(QStringLiteral("command")).toString(), QStringLiteral("EVAL redisson_lock"));
    QVERIFY(refused.value(QStringLiteral("error"))
                .toString()
                .startsWith(QLatin1String("ERR unknown command 'EVAL'")));
    QVERIFY(refused.value(QStringLiteral("failures")).toInt() >= 2);
    QVERIFY(r.out.contains(QLatin1String("stopped early: ") + reason));
}

void TestSimulateCli::givenClusterAndSandboxCluster()
{
    static const QByteArray kSpread = R"({"lockscope_scenario": 1, "id": "spread", "title": "Spread",
        "algorithm": {"id": "redisson-reentrant", "lease_ms": 2000, "retry": {"strategy": "pubsub"}},
        "workload": {"processes": 2, "threads_per_process": 2, "locks": 6, "duration_s": 5, "operations": 10},
        "expect": ["violations == 0", "acquisitions >= 40"]})";
    SandboxCluster cluster;
    LS_START(cluster);
    const QString seed = QStringLiteral("127.0.0.1:%1").arg(cluster.master(0).port());
    const auto given
        = run(TestSupport::cliPath(),
              {"simulate", write("spread.json", kSpread), "--cluster", seed, "--read-write", "--json", "-"});
    QVERIFY2(given.exitCode == 0, qPrintable(given.out + given.err));
    const QJsonObject report = QJsonDocument::fromJson(given.out.toUtf8()).object();
    QCOMPARE(report.value(QStringLiteral("server")).toString(), QStringLiteral("cluster ") + seed);
    // The counters (one per lock, each on its slot's master) add up to what the report says.
    const QJsonObject counter = report.value(QStringLiteral("counter")).toObject();
    QCOMPARE(counter.value(QStringLiteral("count")).toInt(), 6);
    QByteArray first = counter.value(QStringLiteral("key")).toString().toUtf8();
    QVERIFY2(first.endsWith(":0"), first.constData());
    first.chop(1);
    ClusterConnection c(cluster.seedSettings());
    LS_OPEN(c);
    qint64 sum = 0;
    for (int i = 0; i < 6; ++i)
        sum += c.command({"GET", first + QByteArray::number(i)}).reply.bytes().toLongLong();
    QCOMPARE(sum, counter.value(QStringLiteral("actual")).toInteger());
    QCOMPARE(c.slotMap().masters().size(), 3);

    // Redlock needs independent masters: refused, naming the field, before anything is written.
    const auto redlock = run(TestSupport::cliPath(),
                             {"simulate", "--preset", "redlock-basic", "--cluster", seed, "--read-write"});
    QCOMPARE(redlock.exitCode, 1);
    QVERIFY2(redlock.err.contains(QLatin1String("algorithm.id: redlock needs independent masters")),
             qPrintable(redlock.err));

    // The same scenario on a sandbox cluster of its own.
    QByteArray sandboxed = kSpread;
    sandboxed.replace(R"("algorithm")", R"("servers": {"cluster": true}, "algorithm")");
    const auto sandbox
        = run(TestSupport::cliPath(), {"simulate", write("spread-sandbox.json", sandboxed), "--json", "-"});
    QVERIFY2(sandbox.exitCode == 0, qPrintable(sandbox.out + sandbox.err));
    QVERIFY2(QJsonDocument::fromJson(sandbox.out.toUtf8())
                 .object()
                 .value(QStringLiteral("server"))
                 .toString()
                 .startsWith(QLatin1String("sandbox cluster 127.0.0.1:")),
             qPrintable(sandbox.out));
}

QTEST_GUILESS_MAIN(TestSimulateCli)
#include "tst_simulatecli.moc"
