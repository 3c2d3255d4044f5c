// lockscope-cli's commands called in-process, piece by piece: the command line read into a value (argument
// errors with the same sentence the process prints), what a command runs (against a real sandbox
// redis-server), and the table, JSON, steps and observer's view written to a string. tst_cli,
// tst_inspectcommand, tst_lockcli and tst_simulatecli run the whole process; these name the piece that broke.
#include "algorithmscommand.h"
#include "checkedoutput.h"
#include "clientscommand.h"
#include "cliio.h"
#include "cliserver.h"
#include "inspectarguments.h"
#include "inspectreport.h"
#include "inspectscan.h"
#include "interruptwatcher.h"
#include "lockarguments.h"
#include "lockreport.h"
#include "locks/luascript.h"
#include "locksteplog.h"
#include "pingcommand.h"
#include "presetscommand.h"
#include "sandboxcommand.h"
#include "simulatecommand.h"
#include "testsupport.h"

#include <QBuffer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTextStream>
#include <QTimer>

#include <functional>

class TestCliCommands : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void anInterruptBeforeTheLoopRunsStillEndsIt();
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
    void argumentErrors_data();
    void argumentErrors();
    void helpNeedsNoServer_data();
    void helpNeedsNoServer();
    void pingArgumentsAreRead();
    void pingARealServer();
    void pingPrintsThreeLines();
    void sandboxArgumentsAreRead();
    void sandboxStartsAndSaysWhere();
    void presetsTableAndJson();
    void algorithmsArgumentsAreRead();
    void algorithmsCatalog();
    void algorithmInFull();
    void clientsArgumentsAreRead();
    void clientsTableAndJson();
    void simulateArgumentsAreRead();
    void simulateRunAndReport();

private:
    QString port() const { return QString::number(m_server.port()); }

    SandboxServer m_server;
    QTemporaryDir m_dir;
};

namespace {

const QString kInspect = QStringLiteral("lockscope-cli inspect");
const QString kLock = QStringLiteral("lockscope-cli lock");

// What reading a command line decided before anything ran: --help's text, or the usage error.
struct CommandLineVerdict
{
    QString helpText;
    QString error;
};

template<typename Arguments> CommandLineVerdict verdictOf(const QStringList &commandLine)
{
    const Arguments args = Arguments::parse(commandLine);
    return {args.helpText, args.error};
}

// Reads `arguments` as `command` ("ping", …) does, through its own arguments type.
CommandLineVerdict readCommandLine(const QString &command, const QStringList &arguments)
{
    const QStringList commandLine = QStringList {"lockscope-cli " + command} + arguments;
    if (command == QLatin1String("ping"))
        return verdictOf<PingArguments>(commandLine);
    if (command == QLatin1String("sandbox"))
        return verdictOf<SandboxArguments>(commandLine);
    if (command == QLatin1String("presets"))
        return verdictOf<PresetsArguments>(commandLine);
    if (command == QLatin1String("clients"))
        return verdictOf<ClientsArguments>(commandLine);
    if (command == QLatin1String("algorithms"))
        return verdictOf<AlgorithmsArguments>(commandLine);
    if (command == QLatin1String("simulate"))
        return verdictOf<SimulateArguments>(commandLine);
    return {{}, "no such command in this test: " + command};
}

// What `print` writes, as a user would read it.
QString printed(const std::function<void(QTextStream &)> &print)
{
    QString text;
    QTextStream out(&text);
    print(out);
    return text;
}

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
    QVERIFY(m_dir.isValid());
    QFile broken(m_dir.filePath("broken.json"));
    QVERIFY(broken.open(QIODevice::WriteOnly));
    broken.write("{\"id\": ");
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

void TestCliCommands::argumentErrors_data()
{
    QTest::addColumn<QString>("command");
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QString>("error");
    QTest::newRow("ping unknown option") << "ping" << QStringList {"--bogus"} << "Unknown option 'bogus'.";
    for (const char *count : {"x", "0", "1001"})
        QTest::addRow("ping count %s", count)
            << "ping" << QStringList {"--count", count} << "--count expects a whole number from 1 to 1000";
    QTest::newRow("ping port") << "ping" << QStringList {"--port", "notaport"}
                               << "--port notaport: expected a whole number from 1 to 65535";
    QTest::newRow("ping password") << "ping" << QStringList {"--password-env", "LS_TEST_NO_SUCH_VARIABLE"}
                                   << "--password-env LS_TEST_NO_SUCH_VARIABLE: the environment variable "
                                      "LS_TEST_NO_SUCH_VARIABLE is not set";
    QTest::newRow("sandbox seconds") << "sandbox" << QStringList {"--seconds", "0"}
                                     << "--seconds expects a whole number of seconds, 1 or more";
    QTest::newRow("sandbox both") << "sandbox" << QStringList {"--cluster", "--sentinel"}
                                  << "give --cluster or --sentinel, not both";
    const QString replicasAlone
        = QStringLiteral("--replicas goes with --cluster or --sentinel, --master with --sentinel");
    QTest::newRow("sandbox replicas alone") << "sandbox" << QStringList {"--replicas", "1"} << replicasAlone;
    QTest::newRow("sandbox master on a cluster")
        << "sandbox" << QStringList {"--cluster", "--master", "m"} << replicasAlone;
    QTest::newRow("sandbox replicas") << "sandbox" << QStringList {"--cluster", "--replicas", "9"}
                                      << "--replicas expects a number from 0 to 4";
    QTest::newRow("presets unknown option")
        << "presets" << QStringList {"--bogus"} << "Unknown option 'bogus'.";
    const QString adapters = ClientCatalog::ids().join(", ");
    QTest::newRow("clients unknown") << "clients" << QStringList {"nope"}
                                     << "no adapter is called nope; there are " + adapters;
    QTest::newRow("clients one unknown") << "clients" << QStringList {ClientCatalog::ids().first(), "nope"}
                                         << "no adapter is called nope; there are " + adapters;
    QTest::newRow("algorithms unknown")
        << "algorithms" << QStringList {"paxos"}
        << "unknown algorithm 'paxos'; known: " + LockCatalog::ids().join(", ");
    QTest::newRow("algorithms two") << "algorithms" << QStringList {"fenced", "redlock"}
                                    << "give at most one algorithm id";
    QTest::newRow("algorithms scripts of none")
        << "algorithms" << QStringList {"--scripts", "--json"} << "--scripts needs an algorithm id";
    const QString oneScenario
        = QStringLiteral("give one scenario: a JSON file or --preset ID (see 'lockscope-cli presets')");
    QTest::newRow("simulate nothing") << "simulate" << QStringList {} << oneScenario;
    QTest::newRow("simulate both") << "simulate" << QStringList {"x.json", "--preset", "gc-pause"}
                                   << oneScenario;
    QTest::newRow("simulate unknown preset")
        << "simulate" << QStringList {"--preset", "gc-paws"}
        << "no preset 'gc-paws'; the presets are: " + PresetLibrary::ids().join(", ");
    QTest::newRow("simulate missing file") << "simulate" << QStringList {"/nonexistent/s.json"}
                                           << "cannot read /nonexistent/s.json: No such file or directory";
    const QString broken = m_dir.filePath("broken.json");
    QTest::newRow("simulate broken file") << "simulate" << QStringList {broken}
                                          << broken
            + " is not a valid scenario:\n  line 1, column 8: unterminated object (the file is not valid "
              "JSON)";
    QTest::newRow("simulate duration")
        << "simulate" << QStringList {"--preset", "gc-pause", "--duration", "-1"}
        << "--duration expects seconds from 0.1 to 3600";
    QTest::newRow("simulate seed") << "simulate" << QStringList {"--preset", "gc-pause", "--seed", "x"}
                                   << "--seed expects a whole number";
    QTest::newRow("simulate sentinel")
        << "simulate" << QStringList {"--preset", "gc-pause", "--sentinel", "127.0.0.1:1"}
        << "--sentinel needs --master NAME for a simulation (lockscope-cli "
           "inspect --sentinel … lists the names)";
}

void TestCliCommands::argumentErrors()
{
    QFETCH(QString, command);
    QFETCH(QStringList, arguments);
    QFETCH(QString, error);
    const CommandLineVerdict verdict = readCommandLine(command, arguments);
    QCOMPARE(verdict.error, error);
    QVERIFY(verdict.helpText.isEmpty());
    // The process prints the same sentence after the command's name, and exits 2 before anything starts.
    const auto r = TestSupport::run(TestSupport::cliPath(), QStringList {command} + arguments);
    QCOMPARE(r.exitCode, int(CliIo::Usage));
    QCOMPARE(r.err, "lockscope-cli " + command + ": " + error + "\n");
    QCOMPARE(r.out, QString());
}

void TestCliCommands::helpNeedsNoServer_data()
{
    QTest::addColumn<QString>("command");
    QTest::addColumn<QString>("mentions");
    QTest::newRow("ping") << "ping"
                          << "--count <n>";
    QTest::newRow("sandbox") << "sandbox"
                             << "--notify-keyspace-events <flags>";
    QTest::newRow("presets") << "presets"
                             << "lockscope-cli simulate --preset ID";
    QTest::newRow("clients") << "clients"
                             << "--install";
    QTest::newRow("algorithms") << "algorithms"
                                << "--scripts";
    QTest::newRow("simulate") << "simulate"
                              << "--no-history";
}

void TestCliCommands::helpNeedsNoServer()
{
    QFETCH(QString, command);
    QFETCH(QString, mentions);
    // --help wins over anything else on the line, even arguments that would be refused.
    const CommandLineVerdict verdict = readCommandLine(command, {"--help", "nonsense"});
    QVERIFY(verdict.error.isEmpty());
    QVERIFY2(verdict.helpText.contains(mentions), qPrintable(verdict.helpText));
    const auto r = TestSupport::run(TestSupport::cliPath(), {command, "--help"});
    QCOMPARE(r.exitCode, int(CliIo::Ok));
    QCOMPARE(r.out.section(u'\n', 1), verdict.helpText.section(u'\n', 1)); // the first line names the program
}

void TestCliCommands::pingArgumentsAreRead()
{
    const PingArguments defaults = PingArguments::parse({"lockscope-cli ping"});
    QVERIFY2(defaults.error.isEmpty(), qPrintable(defaults.error));
    QCOMPARE(defaults.count, 3);
    QVERIFY(!defaults.connection.sandbox);
    const PingArguments args = PingArguments::parse({"lockscope-cli ping", "--port", port(), "--count", "7"});
    QVERIFY2(args.error.isEmpty(), qPrintable(args.error));
    QCOMPARE(args.count, 7);
    QCOMPARE(args.connection.settings.port, m_server.port());
    QVERIFY(PingArguments::parse({"lockscope-cli ping", "--sandbox"}).connection.sandbox);
}

void TestCliCommands::pingARealServer()
{
    const PingArguments args = PingArguments::parse({"lockscope-cli ping", "--port", port(), "--count", "4"});
    QVERIFY2(args.error.isEmpty(), qPrintable(args.error));
    CliServer server;
    QString error;
    QVERIFY2(server.open(args.connection, &error), qPrintable(error));
    const std::optional<PingResult> result = PingCommand::run(server, args.count, &error);
    QVERIFY2(result, qPrintable(error));
    QCOMPARE(result->server, "127.0.0.1:" + port());
    QVERIFY(!result->sandbox);
    QCOMPARE(result->count, 4);
    QVERIFY(result->medianMs > 0);
    QVERIFY(result->info.isValid());
    QVERIFY(result->info.readOnly); // connections are read-only unless --read-write

    const QStringList lines
        = printed([&](QTextStream &out) { PingCommand::print(out, *result); }).split(u'\n');
    QCOMPARE(lines.size(), 4);
    QCOMPARE(lines.at(0), "PONG from 127.0.0.1:" + port());
    QVERIFY2(QRegularExpression(R"(^  Redis \S+ · standalone · db 0 · \d+ keys? · read-only$)")
                 .match(lines.at(1))
                 .hasMatch(),
             qPrintable(lines.at(1)));
    QVERIFY2(QRegularExpression(R"(^  round trip: median \d+\.\d{3} ms over 4 PINGs$)")
                 .match(lines.at(2))
                 .hasMatch(),
             qPrintable(lines.at(2)));
    QCOMPARE(lines.at(3), QString());
}

void TestCliCommands::pingPrintsThreeLines()
{
    PingResult result;
    result.server = QStringLiteral("127.0.0.1:6390");
    result.sandbox = true;
    result.count = 1;
    result.medianMs = 0.25;
    result.info.readOnly = false;
    const QStringList lines
        = printed([&](QTextStream &out) { PingCommand::print(out, result); }).split(u'\n');
    QCOMPARE(lines.size(), 4);
    QCOMPARE(lines.at(0), QStringLiteral("PONG from 127.0.0.1:6390 (sandbox)"));
    QVERIFY2(lines.at(1).endsWith(" · read-write"), qPrintable(lines.at(1)));
    QCOMPARE(lines.at(2), QStringLiteral("  round trip: median 0.250 ms over 1 PING"));
}

void TestCliCommands::sandboxArgumentsAreRead()
{
    const QString name = QStringLiteral("lockscope-cli sandbox");
    const SandboxArguments single = SandboxArguments::parse({name});
    QVERIFY2(single.error.isEmpty(), qPrintable(single.error));
    QCOMPARE(single.topology, SandboxArguments::Topology::Server);
    QCOMPARE(single.seconds, 0);
    QVERIFY(!single.sampleLocks);
    QVERIFY(!single.notifyKeyspaceEvents);

    const SandboxArguments cluster = SandboxArguments::parse(
        {name, "--cluster", "--seconds", "9", "--sample-locks", "--notify-keyspace-events", "KEA"});
    QVERIFY2(cluster.error.isEmpty(), qPrintable(cluster.error));
    QCOMPARE(cluster.topology, SandboxArguments::Topology::Cluster);
    QCOMPARE(cluster.replicas, 0); // a cluster's masters have no replicas unless asked
    QCOMPARE(cluster.seconds, 9);
    QVERIFY(cluster.sampleLocks);
    QCOMPARE(cluster.notifyKeyspaceEvents, std::optional<QString>("KEA"));

    const SandboxArguments sentinel = SandboxArguments::parse({name, "--sentinel", "--master", "orders"});
    QVERIFY2(sentinel.error.isEmpty(), qPrintable(sentinel.error));
    QCOMPARE(sentinel.topology, SandboxArguments::Topology::Sentinel);
    QCOMPARE(sentinel.replicas, 1); // a Sentinel group's master has one unless told otherwise
    QCOMPARE(sentinel.masterName, std::optional<QString>("orders"));
    QCOMPARE(SandboxArguments::parse({name, "--sentinel", "--replicas", "0"}).replicas, 0);
}

void TestCliCommands::sandboxStartsAndSaysWhere()
{
    const SandboxArguments args = SandboxArguments::parse(
        {"lockscope-cli sandbox", "--sample-locks", "--notify-keyspace-events", "KEA", "--seconds", "5"});
    QVERIFY2(args.error.isEmpty(), qPrintable(args.error));
    QString error;
    std::optional<SandboxServers> servers = SandboxCommand::run(args, &error);
    QVERIFY2(servers, qPrintable(error));
    QVERIFY(servers->server && !servers->cluster && !servers->sentinels);
    SandboxServer &server = *servers->server;
    const QString where = QString::number(server.port());
    QCOMPARE(printed([&](QTextStream &out) { SandboxCommand::print(out, *servers, args.seconds); }),
             "sandbox redis-server listening on 127.0.0.1:" + where + " (pid " + QString::number(server.pid())
                 + ")\ntry: redis-cli -p " + where + " ping\nstopping in 5 s\n");
    QVERIFY(printed([&](QTextStream &out) {
                SandboxCommand::print(out, *servers, 0);
            }).endsWith("\nCtrl-C to stop\n"));

    // What it promised is there: the sample locks, and key changes published.
    RedisConnection c(server.connectionSettings());
    LS_OPEN(c);
    QVERIFY(c.command({"DBSIZE"}).reply.toInteger() > 0);
    QVERIFY(c.command({"SCAN", "0", "MATCH", "demo:*", "COUNT", "1000"}).reply.at(1).size() > 0);
    const QByteArray events = c.command({"CONFIG", "GET", "notify-keyspace-events"}).reply.at(1).bytes();
    QVERIFY2(events.contains('K') && events.contains('E'), events.constData());
}

void TestCliCommands::presetsTableAndJson()
{
    const PresetsArguments args = PresetsArguments::parse({"lockscope-cli presets", "--json"});
    QVERIFY2(args.error.isEmpty(), qPrintable(args.error));
    QVERIFY(args.json);
    QVERIFY(!PresetsArguments::parse({"lockscope-cli presets"}).json);

    const QList<PresetLibrary::Preset> &presets = PresetLibrary::all();
    QVERIFY(!presets.isEmpty());
    const QJsonArray list = QJsonDocument::fromJson(printed([&](QTextStream &out) {
                                                        PresetsCommand::print(out, presets, true);
                                                    }).toUtf8())
                                .array();
    QCOMPARE(list.size(), presets.size());
    for (qsizetype i = 0; i < presets.size(); ++i) {
        const QJsonObject o = list.at(i).toObject();
        const Scenario &scenario = presets.at(i).scenario;
        QCOMPARE(o.value("id").toString(), presets.at(i).id);
        QCOMPARE(o.value("title").toString(), scenario.title);
        QCOMPARE(o.value("kind").toString(),
                 scenario.kind == Scenario::Kind::Story ? QStringLiteral("story")
                                                        : QStringLiteral("workload"));
        QCOMPARE(o.value("client").isNull(), !scenario.client.isSet());
        QCOMPARE(o.value("expect").toArray().size(), scenario.expect.size());
    }

    const QStringList lines
        = printed([&](QTextStream &out) { PresetsCommand::print(out, presets, false); }).split(u'\n');
    qsizetype row = 0;
    for (const PresetLibrary::Preset &p : presets) {
        QVERIFY2(lines.at(row).startsWith(p.id.leftJustified(26)) && lines.at(row).endsWith(p.scenario.title),
                 qPrintable(lines.at(row)));
        ++row;
        if (!p.scenario.variants.isEmpty()) {
            QCOMPARE(lines.at(row),
                     QString(35, u' ') + "compares: " + p.scenario.variantNames().join(" vs "));
            ++row;
        }
    }
    QCOMPARE(lines.size(), row + 1); // and the last line ends
}

void TestCliCommands::algorithmsArgumentsAreRead()
{
    const QString name = QStringLiteral("lockscope-cli algorithms");
    const AlgorithmsArguments all = AlgorithmsArguments::parse({name});
    QVERIFY2(all.error.isEmpty(), qPrintable(all.error));
    QVERIFY(!all.algorithm);
    QVERIFY(!all.json && !all.scripts);
    const AlgorithmsArguments one = AlgorithmsArguments::parse({name, "redlock", "--json", "--scripts"});
    QVERIFY2(one.error.isEmpty(), qPrintable(one.error));
    QCOMPARE(one.algorithm, LockCatalog::find("redlock"));
    QVERIFY(one.json && one.scripts);
}

void TestCliCommands::algorithmsCatalog()
{
    const QList<LockAlgorithmInfo> &catalog = LockCatalog::all();
    const QStringList lines = printed([&](QTextStream &out) {
                                  AlgorithmsCommand::printCatalog(out, catalog, false);
                              }).split(u'\n');
    QCOMPARE(lines.at(0), catalog.first().id);
    QCOMPARE(lines.at(1), "    " + catalog.first().title);
    QVERIFY2(lines.at(2).startsWith("    origin: "), qPrintable(lines.at(2)));
    QCOMPARE(lines.at(lines.size() - 2),
             QStringLiteral("Run 'lockscope-cli algorithms ID' for one in full, or 'lockscope-cli lock "
                            "--algorithm ID --sandbox' to run it."));
    for (const LockAlgorithmInfo &a : catalog)
        QVERIFY2(lines.contains(a.id), qPrintable(a.id));

    const QJsonArray list = QJsonDocument::fromJson(printed([&](QTextStream &out) {
                                                        AlgorithmsCommand::printCatalog(out, catalog, true);
                                                    }).toUtf8())
                                .array();
    QCOMPARE(list.size(), catalog.size());
    QCOMPARE(list.first().toObject(), catalog.first().toJson());
}

void TestCliCommands::algorithmInFull()
{
    const LockAlgorithmInfo *fair = LockCatalog::find("redisson-fair");
    QVERIFY(fair && !fair->scripts.isEmpty());
    const QString brief
        = printed([&](QTextStream &out) { AlgorithmsCommand::printAlgorithm(out, *fair, false, false); });
    QVERIFY2(brief.startsWith("redisson-fair — " + fair->title + "\n  origin:   "), qPrintable(brief));
    QVERIFY2(brief.contains("\n  defaults: lease "), qPrintable(brief));
    QVERIFY(!brief.contains("-----"));
    const QString withScripts
        = printed([&](QTextStream &out) { AlgorithmsCommand::printAlgorithm(out, *fair, false, true); });
    QVERIFY(withScripts.startsWith(brief));
    for (const QString &script : fair->scripts) {
        const LuaScript *lua = LuaScript::find(script);
        QVERIFY2(lua, qPrintable(script));
        QVERIFY2(withScripts.contains("\n----- " + script + ".lua (sha1 " + lua->sha1() + ") -----\n"),
                 qPrintable(script));
    }

    const QJsonObject json
        = QJsonDocument::fromJson(printed([&](QTextStream &out) {
                                      AlgorithmsCommand::printAlgorithm(out, *fair, true, false);
                                  }).toUtf8())
              .object();
    QCOMPARE(json, fair->toJson());
    const QJsonObject sources
        = QJsonDocument::fromJson(printed([&](QTextStream &out) {
                                      AlgorithmsCommand::printAlgorithm(out, *fair, true, true);
                                  }).toUtf8())
              .object()
              .value("script_sources")
              .toObject();
    QStringList scripts = fair->scripts;
    scripts.sort();
    QCOMPARE(sources.keys(), scripts);
}

void TestCliCommands::clientsArgumentsAreRead()
{
    const QString name = QStringLiteral("lockscope-cli clients");
    const ClientsArguments all = ClientsArguments::parse({name});
    QVERIFY2(all.error.isEmpty(), qPrintable(all.error));
    QCOMPARE(all.adapters.size(), ClientCatalog::all().size());
    QCOMPARE(all.adapters.first(), &ClientCatalog::all().first());
    QVERIFY(!all.json && !all.install);
    const QString id = ClientCatalog::ids().last();
    const ClientsArguments one = ClientsArguments::parse({name, id, "--json", "--install"});
    QVERIFY2(one.error.isEmpty(), qPrintable(one.error));
    QCOMPARE(one.adapters, QList<const ClientCatalog::Adapter *> {ClientCatalog::find(id)});
    QVERIFY(one.json && one.install);
}

void TestCliCommands::clientsTableAndJson()
{
    // Made-up states, so the layout is checked without running any adapter's version command.
    const ClientCatalog::Adapter &adapter = ClientCatalog::all().first();
    ClientState missing {&adapter, {}};
    missing.status.problem = QStringLiteral("install the runtime first");
    ClientState ready {&adapter, {}};
    ready.status.runtimePath = QStringLiteral("/usr/bin/true");
    ready.status.libraryInstalled = true;
    ready.status.version = QStringLiteral("9.9.9");
    const QList<ClientState> states {missing, ready};

    const QString indent(33, u' ');
    const QString text = printed([&](QTextStream &out) { ClientsCommand::print(out, states, false); });
    const QStringList lines = text.split(u'\n');
    QVERIFY2(lines.at(0).startsWith(adapter.id.leftJustified(24) + adapter.language.leftJustified(9)
                                    + adapter.library + u' ')
                 && lines.at(0).endsWith("runtime missing"),
             qPrintable(lines.at(0)));
    QCOMPARE(lines.at(1), indent + adapter.summary);
    QCOMPARE(lines.at(2), indent + "install the runtime first");
    QCOMPARE(lines.at(3),
             adapter.id.leftJustified(24) + adapter.language.leftJustified(9)
                 + (adapter.library + " 9.9.9").leftJustified(36) + "ready");
    QCOMPARE(lines.at(4), indent + adapter.summary);
    QCOMPARE(lines.at(5), QString());
    QCOMPARE(lines.at(6),
             "Adapters are unpacked, their npm packages installed and their programs built, in "
                 + ClientCatalog::clientsDir());

    const QJsonArray list = QJsonDocument::fromJson(printed([&](QTextStream &out) {
                                                        ClientsCommand::print(out, states, true);
                                                    }).toUtf8())
                                .array();
    QCOMPARE(list.size(), 2);
    const QJsonObject first = list.at(0).toObject(), second = list.at(1).toObject();
    QCOMPARE(first.value("id").toString(), adapter.id);
    QCOMPARE(first.value("state").toString(), QStringLiteral("runtime missing"));
    QCOMPARE(first.value("runtime_present").toBool(), false);
    QVERIFY(first.value("version").isNull());
    QCOMPARE(first.value("problem").toString(), QStringLiteral("install the runtime first"));
    QCOMPARE(second.value("state").toString(), QStringLiteral("ready"));
    QCOMPARE(second.value("version").toString(), QStringLiteral("9.9.9"));
    QCOMPARE(second.value("library_installed").toBool(), true);
    QVERIFY(!second.contains("problem"));
}

void TestCliCommands::simulateArgumentsAreRead()
{
    const QString name = QStringLiteral("lockscope-cli simulate");
    const SimulateArguments args
        = SimulateArguments::parse({name, "--preset", "seed-short-lease", "--seed", "7", "--duration", "2.5",
                                    "--no-history", "--events", "e.csv", "--json", "-", "--port", port()});
    QVERIFY2(args.error.isEmpty(), qPrintable(args.error));
    QCOMPARE(args.scenario.id, PresetLibrary::find("seed-short-lease")->scenario.id);
    QCOMPARE(args.options.seed, std::optional<quint64>(7));
    QCOMPARE(args.options.durationS, std::optional<double>(2.5));
    QVERIFY(!args.options.recordHistory);
    QVERIFY(args.options.server);
    QCOMPARE(args.options.server->port, m_server.port());
    QCOMPARE(args.eventsPath, std::optional<QString>("e.csv"));
    QCOMPARE(args.jsonPath, QStringLiteral("-"));

    // Without a server the scenario runs on sandboxes; without --events no CSV is written.
    const SimulateArguments plain = SimulateArguments::parse({name, "--preset", "gc-pause"});
    QVERIFY2(plain.error.isEmpty(), qPrintable(plain.error));
    QVERIFY(!plain.options.server && !plain.options.seed && !plain.options.durationS);
    QVERIFY(plain.options.recordHistory);
    QVERIFY(!plain.eventsPath);
    QVERIFY(plain.jsonPath.isEmpty());
}

void TestCliCommands::simulateRunAndReport()
{
    const SimulateArguments args
        = SimulateArguments::parse({"lockscope-cli simulate", "--preset", "seed-short-lease", "--seed", "3"});
    QVERIFY2(args.error.isEmpty(), qPrintable(args.error));
    QBuffer events;
    QVERIFY(events.open(QIODevice::WriteOnly));
    const SimulationRunner::Outcome outcome = SimulateCommand::run(args, &events, nullptr);
    QVERIFY2(outcome.ok(), qPrintable(outcome.error));
    QVERIFY(!outcome.interrupted);
    QCOMPARE(outcome.runs.size(), 1);
    QVERIFY2(outcome.passed(), qPrintable(outcome.summaryText()));
    QVERIFY(events.data().count('\n') > 0); // one CSV row per event (the command writes the header)

    const QString summary = printed([&](QTextStream &out) { SimulateCommand::print(out, outcome, false); });
    QCOMPARE(summary, outcome.summaryText());
    QVERIFY2(summary.endsWith("PASSED\n"), qPrintable(summary));
    const QString json = printed([&](QTextStream &out) { SimulateCommand::print(out, outcome, true); });
    QCOMPARE(json.toUtf8(), SimulateCommand::jsonReport(outcome));
    QCOMPARE(QJsonDocument::fromJson(json.toUtf8()).object(), outcome.toJson());
}

// `inspect --watch | head -1`: a write can fail (the reader left) after --watch asked to be stopped when output
// is lost and before its event loop runs. That interrupt must still end the loop; a quit() that found no loop
// running was lost, and the command then waited forever.
void TestCliCommands::anInterruptBeforeTheLoopRunsStillEndsIt()
{
    InterruptWatcher interrupts;
    interrupts.stopWhenOutputLost();
    interrupts.quitEventLoopWhenInterrupted();
    emit CliIo::stdoutDevice().writeFailed(QStringLiteral("the reader went away (broken pipe)")); // as a write does
    QVERIFY(interrupts.outputLost());
    bool gaveUp = false;
    QTimer::singleShot(10000, qApp, [&gaveUp] {
        gaveUp = true;
        QCoreApplication::quit();
    });
    QCoreApplication::exec();
    QVERIFY2(!gaveUp, "the interrupt was lost: the loop ran until the test's own deadline");
}

QTEST_GUILESS_MAIN(TestCliCommands)
#include "tst_clicommands.moc"
