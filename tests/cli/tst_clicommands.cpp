// lockscope-cli's commands called in-process, piece by piece: the command line read into a value (argument
// errors with the same sentence the process prints), and the table, JSON, steps and observer's view written
// to a string, for what a real sandbox redis-server holds. tst_cli and tst_inspectcommand run the whole
// process; these name the piece that broke.
#include "cliio.h"
#include "cliserver.h"
#include "inspectarguments.h"
#include "inspectreport.h"
#include "inspectscan.h"
#include "lockarguments.h"
#include "lockreport.h"
#include "locksteplog.h"
#include "testsupport.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTextStream>

class TestCliCommands : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void inspectArgumentErrors_data();
    void inspectArgumentErrors();
    void inspectArgumentsAreRead();
    void inspectHelpNeedsNoServer();
    void inspectTableOfARealServer();
    void inspectJsonAndExitCodes();
    void lockArgumentErrors_data();
    void lockArgumentErrors();
    void lockArgumentsAreRead();
    void lockStepsAsTextOrJson();
    void lockHeaderAndObserverView();

private:
    QString port() const { return QString::number(m_server.port()); }

    SandboxServer m_server;
};

namespace {

const QString kInspect = QStringLiteral("lockscope-cli inspect");
const QString kLock = QStringLiteral("lockscope-cli lock");

// The inspection of `arguments` (after the command's name), or a failed test's empty one.
std::optional<InspectFindings> inspect(const QStringList &arguments, InspectArguments *args, QString *error)
{
    *args = InspectArguments::parse(QStringList {kInspect} + arguments);
    if (!args->error.isEmpty()) {
        *error = args->error;
        return std::nullopt;
    }
    CliServer server;
    if (!server.open(args->connection, error))
        return std::nullopt;
    return InspectScan::run(server, args->scan, nullptr, error);
}

QString tableOf(const InspectFindings &found)
{
    QString text;
    QTextStream out(&text);
    InspectReport::printTable(out, found);
    return text;
}

} // namespace

void TestCliCommands::initTestCase()
{
    LS_START(m_server);
    RedisConnection c(m_server.connectionSettings());
    LS_OPEN(c);
    QVERIFY(c.command({"SET", "lock:order:1", "owner-a", "PX", "600000"}).ok());
    // A uuid owner makes it a SET NX lock; without a TTL it is diagnosed no-ttl.
    QVERIFY(c.command({"SET", "lock:stuck", "6f1c2a34-5b6d-4e7f-8a9b-0c1d2e3f4a5b"}).ok());
    QVERIFY(c.command({"SET", "user:1", "plain value"}).ok());
}

void TestCliCommands::inspectArgumentErrors_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QString>("error");
    QTest::newRow("unknown option") << QStringList {"--bogus"} << "Unknown option 'bogus'.";
    QTest::newRow("positional") << QStringList {"extra"} << "unexpected argument 'extra'";
    QTest::newRow("count") << QStringList {"--count", "x"}
                           << "--count expects a whole number from 1 to 100000, not 'x'";
    QTest::newRow("ttl threshold") << QStringList {"--ttl-threshold", "-1"}
                                   << "--ttl-threshold expects a whole number of seconds, 0 or more";
    QTest::newRow("interval") << QStringList {"--interval", "5"}
                              << "--interval expects milliseconds from 100 to 3600000";
    QTest::newRow("max ops") << QStringList {"--max-ops", "5"}
                             << "--max-ops expects a whole number of commands per second, 100 or more";
}

void TestCliCommands::inspectArgumentErrors()
{
    QFETCH(QStringList, arguments);
    QFETCH(QString, error);
    const InspectArguments args
        = InspectArguments::parse(QStringList {kInspect, "--port", port()} + arguments);
    QCOMPARE(args.error, error);
    QVERIFY(args.helpText.isEmpty());
    // The process prints the same sentence after the command's name, and exits 2.
    const auto r
        = TestSupport::run(TestSupport::cliPath(), QStringList {"inspect", "--port", port()} + arguments);
    QCOMPARE(r.exitCode, int(CliIo::Usage));
    QCOMPARE(r.err, kInspect + ": " + error + "\n");
}

void TestCliCommands::inspectArgumentsAreRead()
{
    const InspectArguments args = InspectArguments::parse(
        {kInspect, "--port", port(), "--pattern", "lock:*", "--count", "50", "--ttl-threshold", "30",
         "--fail-on", "no-ttl,contended", "--watch", "--interval", "250", "--json"});
    QVERIFY2(args.error.isEmpty(), qPrintable(args.error));
    QCOMPARE(args.connection.settings.port, m_server.port());
    QCOMPARE(args.scan.patterns, QList<QByteArray> {"lock:*"});
    QCOMPARE(args.scan.count, 50);
    QCOMPARE(args.scan.ttlThresholdMs, 30000);
    QCOMPARE(args.failOn, (QStringList {"no-ttl", "contended"}));
    QVERIFY(args.watch);
    QVERIFY(args.json);
    QCOMPARE(args.intervalMs, 250);

    const InspectArguments unknown = InspectArguments::parse({kInspect, "--fail-on", "no-ttl,nonsense"});
    QVERIFY(unknown.error.startsWith("--fail-on: unknown diagnosis 'nonsense' (known: any, "));
}

void TestCliCommands::inspectHelpNeedsNoServer()
{
    // Port 1 has no server: --help is answered before anything connects.
    const InspectArguments args = InspectArguments::parse({kInspect, "--port", "1", "--help"});
    QVERIFY(args.error.isEmpty());
    QVERIFY(args.helpText.contains("--fail-on <codes>"));
    QVERIFY(args.helpText.contains("Read-only: SCAN with pipelined TYPE/PTTL"));
}

void TestCliCommands::inspectTableOfARealServer()
{
    InspectArguments args;
    QString error;
    const std::optional<InspectFindings> found = inspect({"--port", port()}, &args, &error);
    QVERIFY2(found, qPrintable(error));
    QVERIFY(!found->cluster);
    QVERIFY(found->incomplete.isEmpty());
    QCOMPARE(found->progress.scannedKeys, 3);
    QCOMPARE(found->records.size(), 2);
    // Most alarming first: the lock with no TTL before the healthy one.
    QCOMPARE(found->records.at(0).key, QByteArray("lock:stuck"));
    QCOMPARE(found->records.at(1).key, QByteArray("lock:order:1"));

    const QStringList lines = tableOf(*found).split(u'\n');
    QVERIFY2(lines.at(0).startsWith("Redis ")
                 && lines.at(0).endsWith(" · standalone · db 0 · 3 keys · read-only"),
             qPrintable(lines.at(0)));
    QCOMPARE(lines.at(1), QString());
    QVERIFY2(lines.at(2).startsWith("KEY           KIND          LIBRARY"), qPrintable(lines.at(2)));
    QVERIFY2(lines.at(3).startsWith("lock:stuck    mutex") && lines.at(3).endsWith("no TTL     ?  no-ttl"),
             qPrintable(lines.at(3)));
    QVERIFY2(lines.at(4).startsWith("lock:order:1  mutex") && lines.at(4).contains("owner-a"),
             qPrintable(lines.at(4)));
    QVERIFY(lines.contains("Diagnoses:"));
    QVERIFY2(lines.at(lines.size() - 2).startsWith("2 locks in 3 keys scanned ("),
             qPrintable(lines.join('\n')));
    QCOMPARE(lines.last(), QString()); // ends with a newline
}

void TestCliCommands::inspectJsonAndExitCodes()
{
    InspectArguments args;
    QString error;
    const std::optional<InspectFindings> found = inspect({"--port", port()}, &args, &error);
    QVERIFY2(found, qPrintable(error));
    const QJsonObject root = InspectReport::json(*found);
    QCOMPARE(root.value("complete").toBool(), true);
    QCOMPARE(root.value("scanned_keys").toInt(), 3);
    QVERIFY(!root.contains("nodes")); // a cluster's only
    const QJsonArray locks = root.value("locks").toArray();
    QCOMPARE(locks.size(), 2);
    QCOMPARE(locks.at(0).toObject().value("key").toString(), QStringLiteral("lock:stuck"));

    QString text;
    QTextStream out(&text);
    InspectReport::printFoundLines(out, *found);
    const QStringList lines = text.split(u'\n', Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 2);
    for (const QString &line : lines)
        QVERIFY2(line.startsWith(u'{') && line.contains("\"event\":\"found\""), qPrintable(line));

    QCOMPARE(InspectReport::exitCode(*found, {}), int(CliIo::Ok));
    QCOMPARE(InspectReport::exitCode(*found, {"contended"}), int(CliIo::Ok));
    QCOMPARE(InspectReport::exitCode(*found, {"no-ttl"}), int(CliIo::ExpectFailed));
    QCOMPARE(InspectReport::exitCode(*found, {"any"}), int(CliIo::ExpectFailed));
    InspectFindings incomplete = *found;
    incomplete.incomplete << QStringLiteral("a node did not answer");
    QCOMPARE(InspectReport::exitCode(incomplete, {}), int(CliIo::Incomplete));
    // A diagnosis asked for is reported whatever else was missed.
    QCOMPARE(InspectReport::exitCode(incomplete, {"no-ttl"}), int(CliIo::ExpectFailed));
}

void TestCliCommands::lockArgumentErrors_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QString>("error");
    const QString rw = QStringLiteral("--read-write");
    QTest::newRow("no algorithm") << QStringList {rw}
                                  << "--algorithm is required; one of " + LockCatalog::ids().join(", ");
    QTest::newRow("unknown algorithm") << QStringList {"--algorithm", "nope", rw}
                                       << "unknown algorithm 'nope'; known: " + LockCatalog::ids().join(", ");
    QTest::newRow("hold") << QStringList {"--algorithm", "set-nx-px-lua", "--hold-ms", "x", rw}
                          << "--hold-ms expects a whole number from 0 to 3600000";
    QTest::newRow("watchdog both") << QStringList {"--algorithm", "set-nx-px-lua", "--watchdog",
                                                   "--no-watchdog", rw}
                                   << "--watchdog and --no-watchdog contradict each other";
    QTest::newRow("mode elsewhere") << QStringList {"--algorithm", "set-nx-px-lua", "--mode", "read", rw}
                                    << "--mode only applies to redisson-rw";
    QTest::newRow("mode") << QStringList {"--algorithm", "redisson-rw", "--mode", "x", rw}
                          << "--mode must be read or write";
    QTest::newRow("fault delay") << QStringList {"--algorithm", "set-nx-px-lua", "--fault", "send-delay=x",
                                                 rw}
                                 << "--fault send-delay=x: the delay must be a whole number of milliseconds";
    QTest::newRow("empty name") << QStringList {"--algorithm", "set-nx-px-lua", "--name", "", rw}
                                << "--name must not be empty";
    QTest::newRow("servers elsewhere")
        << QStringList {"--algorithm", "set-nx-px-lua", "--servers", "3", rw}
        << "--node and --servers are for redlock; set-nx-px-lua runs on one server";
    QTest::newRow("redlock without servers")
        << QStringList {"--algorithm", "redlock", rw}
        << "redlock needs several independent servers: --sandbox --servers 3, or --node HOST:PORT once per "
           "server (with --read-write)";
    QTest::newRow("node") << QStringList {"--algorithm", "redlock", "--node", "foo", rw}
                          << "--node expects HOST:PORT, got 'foo'";
}

void TestCliCommands::lockArgumentErrors()
{
    QFETCH(QStringList, arguments);
    QFETCH(QString, error);
    const LockArguments args = LockArguments::parse(QStringList {kLock, "--port", port()} + arguments);
    QCOMPARE(args.error, error);
    // Nothing was written: an argument error is found before anything connects.
    RedisConnection c(m_server.connectionSettings());
    LS_OPEN(c);
    QCOMPARE(c.command({"EXISTS", "lockscope:cli-demo"}).reply.toInteger(), 0);
}

void TestCliCommands::lockArgumentsAreRead()
{
    const LockArguments args = LockArguments::parse({kLock,         "--port",
                                                     port(),        "--read-write",
                                                     "--algorithm", "redisson-reentrant",
                                                     "--name",      "lock:a",
                                                     "--lease-ms",  "5000",
                                                     "--hold-ms",   "20",
                                                     "--reentry",   "2",
                                                     "--thread-id", "7",
                                                     "--wait",      "fixed",
                                                     "--fault",     "skip-renewals",
                                                     "--fault",     "pause",
                                                     "--json"});
    QVERIFY2(args.error.isEmpty(), qPrintable(args.error));
    QCOMPARE(args.algorithmId, QStringLiteral("redisson-reentrant"));
    QVERIFY(args.algorithm && args.algorithm->reentrant);
    QCOMPARE(args.name, QByteArray("lock:a"));
    QCOMPARE(args.options.leaseMs, 5000);
    QCOMPARE(args.holdMs, 20);
    QCOMPARE(args.reentry, 2);
    QCOMPARE(args.threadId, 7);
    QCOMPARE(LockOptions::waitName(args.options.wait), QStringLiteral("fixed"));
    QCOMPARE(args.faults.names, (QStringList {"skip-renewals", "pause"}));
    QVERIFY(args.faults.pause);
    QVERIFY(args.faults.hooks.allowRenewal);
    QVERIFY(args.json);

    const LockArguments redlock = LockArguments::parse({kLock, "--read-write", "--algorithm", "redlock",
                                                        "--node", "127.0.0.1:7001", "--node", "[::1]:7002"});
    QVERIFY2(redlock.error.isEmpty(), qPrintable(redlock.error));
    QCOMPARE(redlock.nodes.size(), 2);
    QCOMPARE(redlock.nodes.at(0).endpoint(), QStringLiteral("127.0.0.1:7001"));
    QCOMPARE(redlock.nodes.at(1).port, 7002);
}

void TestCliCommands::lockStepsAsTextOrJson()
{
    QString text;
    QTextStream out(&text);
    LockStepLog log(out, false);
    log.step("acquire", "acquired (1 command)", {{"outcome", "acquired"}});
    log.note("lock:a → STRING \"tok\" PTTL 30000 ms");
    const QStringList lines = text.split(u'\n');
    QCOMPARE(lines.size(), 3);
    QVERIFY2(QRegularExpression(R"(^\+ *\d+\.\d{3} ms  acquire   acquired \(1 command\)$)")
                 .match(lines.at(0))
                 .hasMatch(),
             qPrintable(lines.at(0)));
    QCOMPARE(lines.at(1), QString(16, u' ') + "lock:a → STRING \"tok\" PTTL 30000 ms");
    QVERIFY(log.steps().isEmpty());

    QString none;
    QTextStream silent(&none);
    LockStepLog json(silent, true);
    json.step("acquire", "acquired (1 command)", {{"outcome", "acquired"}});
    json.note("only for people");
    QVERIFY(none.isEmpty());
    QCOMPARE(json.steps().size(), 1);
    const QJsonObject step = json.steps().at(0).toObject();
    QCOMPARE(step.value("step").toString(), QStringLiteral("acquire"));
    QCOMPARE(step.value("outcome").toString(), QStringLiteral("acquired"));
    QVERIFY(step.contains("t_ms"));
}

void TestCliCommands::lockHeaderAndObserverView()
{
    const LockArguments args
        = LockArguments::parse({kLock, "--port", port(), "--read-write", "--algorithm", "set-nx-px-lua",
                                "--name", "lock:view", "--lease-ms", "30000", "--fault", "send-delay=5"});
    QVERIFY2(args.error.isEmpty(), qPrintable(args.error));
    QString text;
    QTextStream out(&text);
    LockReport::printHeader(out, args, {m_server.connectionSettings().endpoint()}, "client-1");
    const QStringList lines = text.split(u'\n');
    QCOMPARE(lines.at(0), "algorithm  set-nx-px-lua — " + args.algorithm->title);
    QCOMPARE(lines.at(1), "server     " + m_server.connectionSettings().endpoint());
    QCOMPARE(lines.at(2), QStringLiteral("lock       lock:view   client client-1   thread 1"));
    QVERIFY2(lines.at(3).startsWith("options    lease 30000 ms, ")
                 && lines.at(3).endsWith(", faults: send-delay=5"),
             qPrintable(lines.at(3)));

    RedisConnection c(m_server.connectionSettings());
    LS_OPEN(c);
    QCOMPARE(LockReport::describeKey(c, "lock:view"), QStringLiteral("(no key)"));
    QVERIFY(c.command({"SET", "lock:view", "tok", "PX", "30000"}).ok());
    QVERIFY(QRegularExpression(R"(^STRING "tok" PTTL \d+ ms$)")
                .match(LockReport::describeKey(c, "lock:view"))
                .hasMatch());
    QVERIFY(c.command({"DEL", "lock:view"}).ok());
    QVERIFY(c.command({"HSET", "lock:view", "client:1", "2"}).ok());
    QCOMPARE(LockReport::describeKey(c, "lock:view"), QStringLiteral("HASH {client:1 = 2} no TTL"));
    QVERIFY(c.command({"DEL", "lock:view"}).ok());
}

QTEST_GUILESS_MAIN(TestCliCommands)
#include "tst_clicommands.moc"
