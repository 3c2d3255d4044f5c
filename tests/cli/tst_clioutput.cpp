// lockscope-cli in pipes, cron jobs and ssh sessions, on real processes: a reader that leaves ends --watch,
// a full device or a file-size limit ends the command with exit 1 and one clear line, no half-written file
// is left behind, SIGHUP writes the report like SIGTERM, and output paths are checked before the run.
#include "inspect/samplelocks.h"
#include "sandboxfixture.h"
#include "testsupport.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>

#include <csignal>
#include <sys/mount.h>
#include <unistd.h>

class TestCliOutput : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void watchEndsWhenTheReaderLeaves();
    void pipeClosedDuringTheTable();
    void fullDeviceFails_data();
    void fullDeviceFails();
    void fileSizeLimitLeavesNoHalfFile();
    void fullFilesystemLeavesNothingBehind();
    void redirectedJsonIsTakenBackOnAFullDisk();
    void sighupWritesTheReportAndStopsTheSandbox();
    void outputPathsAreCheckedBeforeTheRun_data();
    void outputPathsAreCheckedBeforeTheRun();

private:
    // Runs `script` with bash; $CLI and $PORT are set.
    TestSupport::ProcessRun bash(const QString &script, int timeoutMs = 60000);

    SandboxFixture m_server;
};

namespace {

// The pids of the live redis-server processes whose parent is `parent`.
QList<qint64> redisChildren(qint64 parent)
{
    QList<qint64> pids;
    const QStringList entries = QDir(QStringLiteral("/proc")).entryList(QDir::Dirs);
    for (const QString &entry : entries) {
        bool numeric = false;
        const qint64 pid = entry.toLongLong(&numeric);
        if (!numeric)
            continue;
        QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
        if (!stat.open(QIODevice::ReadOnly))
            continue;
        const QByteArray line = stat.readAll();
        const qsizetype open = line.indexOf('('), close = line.lastIndexOf(')');
        if (open < 0 || close < 0)
            continue;
        const QByteArray name = line.mid(open + 1, close - open - 1);
        const QList<QByteArray> rest = line.mid(close + 2).split(' ');
        if (rest.size() > 1 && rest.at(0) != "Z" && rest.at(1).toLongLong() == parent
            && name.startsWith("redis-server"))
            pids.append(pid);
    }
    return pids;
}

} // namespace

void TestCliOutput::initTestCase()
{
    QVERIFY(QFileInfo(TestSupport::cliPath()).isExecutable());
    LS_SANDBOX(m_server);
    RedisConnection &c = m_server.admin();
    QVERIFY(SampleLocks::writeDemoSet(c));
    // Enough locks that the table and the JSON are far bigger than a pipe's or a limit's few kilobytes.
    for (int i = 0; i < 400; ++i)
        QVERIFY(c.command({"SET", "lock:order:" + QByteArray::number(i), "owner-" + QByteArray::number(i),
                           "PX", "600000"})
                    .ok());
}

TestSupport::ProcessRun TestCliOutput::bash(const QString &script, int timeoutMs)
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("CLI"), TestSupport::cliPath());
    env.insert(QStringLiteral("PORT"), QString::number(m_server.port()));
    return TestSupport::run(QStringLiteral("/bin/bash"), {QStringLiteral("-c"), script}, env, timeoutMs);
}

void TestCliOutput::watchEndsWhenTheReaderLeaves()
{
    // The reader takes the first scan's table, then closes its end of the pipe (a FIFO here, so the script
    // holds the only read end) while --watch has nothing new to print: the command must notice on its own,
    // stop talking to the server and exit 1.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const auto r = bash(
        QStringLiteral("cd '%1' && mkfifo out && "
                       "{ \"$CLI\" inspect --port \"$PORT\" --watch --interval 100 > out 2> err & } && "
                       "pid=$! && exec 3< out && "
                       "while IFS= read -r line <&3; do [[ $line == Watching* ]] && break; done && "
                       "exec 3<&- && wait $pid; echo \"exit=$?\"; cat err")
            .arg(dir.path()),
        30000);
    // Before, it polled the server for as long as anyone let it (15 s later it was still going).
    QVERIFY2(r.finished, "inspect --watch outlived its reader");
    QVERIFY2(r.out.contains(QLatin1String("exit=1")), qPrintable(r.out));
    QVERIFY2(r.out.contains(QLatin1String("cannot write standard output: the reader went away")),
             qPrintable(r.out));

    // And nothing of it keeps reading the server: its connections are gone with it.
    const QByteArray clients = m_server.admin().command({"CLIENT", "LIST"}).reply.bytes();
    QVERIFY2(!clients.contains("lockscope-inspector"), clients.constData());
}

void TestCliOutput::pipeClosedDuringTheTable()
{
    // `inspect --watch | head -1`: the pipe closes while the table is still being written.
    const auto r = bash(QStringLiteral("\"$CLI\" inspect --port \"$PORT\" --watch | head -1 >/dev/null; "
                                       "echo \"exit=${PIPESTATUS[0]}\""),
                        30000);
    QVERIFY2(r.finished, "inspect --watch | head -1 did not end");
    QVERIFY2(r.out.contains(QLatin1String("exit=1")), qPrintable(r.out + r.err));
    QVERIFY2(r.err.contains(QLatin1String("the reader went away")), qPrintable(r.err));
}

void TestCliOutput::fullDeviceFails_data()
{
    QTest::addColumn<QString>("command");
    QTest::newRow("inspect table") << QStringLiteral("\"$CLI\" inspect --port \"$PORT\"");
    QTest::newRow("inspect --json") << QStringLiteral("\"$CLI\" inspect --port \"$PORT\" --json");
    QTest::newRow("simulate --json -")
        << QStringLiteral("\"$CLI\" simulate --preset seed-unconditional-del --sandbox --json -");
    QTest::newRow("algorithms") << QStringLiteral("\"$CLI\" algorithms");
}

void TestCliOutput::fullDeviceFails()
{
    QFETCH(QString, command);
    const auto r = bash(command + QStringLiteral(" > /dev/full"), 120000);
    QVERIFY(r.finished);
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains(QLatin1String("cannot write standard output: No space left on device")),
             qPrintable(r.err));
    QCOMPARE(r.err.count(u'\n'), 1); // one line, no cascade of follow-up errors
}

void TestCliOutput::fileSizeLimitLeavesNoHalfFile()
{
    // A 16 KiB file-size limit (ulimit -f): the events CSV outgrows it, the report does not.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString report = dir.filePath(QStringLiteral("report.json"));
    const QString events = dir.filePath(QStringLiteral("events.csv"));
    const auto r
        = bash(QStringLiteral("ulimit -f 16; exec \"$CLI\" simulate --preset fair-vs-unfair --sandbox "
                              "--duration 1 --json '%1' --events '%2'")
                   .arg(report, events),
               120000);
    QVERIFY(r.finished);
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains(QStringLiteral("cannot write %1: File too large").arg(events)),
             qPrintable(r.err));
    QVERIFY2(!QFile::exists(events), "a cut events file was left behind");
    // The report fit: it is there, whole.
    QFile f(report);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QJsonParseError error;
    QJsonDocument::fromJson(f.readAll(), &error);
    QCOMPARE(error.error, QJsonParseError::NoError);
    // No temporary file either.
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files), QStringList {QStringLiteral("report.json")});
}

void TestCliOutput::fullFilesystemLeavesNothingBehind()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QByteArray mountPoint = QFile::encodeName(dir.path());
    if (::mount("tmpfs", mountPoint.constData(), "tmpfs", 0, "size=16k") != 0)
        QSKIP("cannot mount a tmpfs here (not root); fileSizeLimitLeavesNoHalfFile covers the same path");
    const auto unmount = qScopeGuard([&] { ::umount2(mountPoint.constData(), MNT_DETACH); });
    const QString report = dir.filePath(QStringLiteral("report.json"));
    const QString events = dir.filePath(QStringLiteral("events.csv"));
    const auto r
        = bash(QStringLiteral("exec \"$CLI\" simulate --preset fair-vs-unfair --sandbox --duration 1 "
                              "--json '%1' --events '%2'")
                   .arg(report, events),
               120000);
    QVERIFY(r.finished);
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains(QLatin1String("No space left on device")), qPrintable(r.err));
    // Before, report.json was 0 bytes and events.csv cut at 16 KB, and the run said PASSED with exit 0.
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files), QStringList());
}

void TestCliOutput::redirectedJsonIsTakenBackOnAFullDisk()
{
    // `inspect --json > file` with the file limited: the shell's file cannot be renamed into place, so the
    // half-written JSON is cut back to nothing instead of left as invalid JSON.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString out = dir.filePath(QStringLiteral("locks.json"));
    const auto r
        = bash(QStringLiteral("ulimit -f 16; \"$CLI\" inspect --port \"$PORT\" --json > '%1'").arg(out));
    QVERIFY(r.finished);
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains(QLatin1String("File too large")), qPrintable(r.err));
    QCOMPARE(QFileInfo(out).size(), 0);

    // Appended to an existing log (>>): what was there stays, nothing of ours is left half.
    QFile log(out);
    QVERIFY(log.open(QIODevice::WriteOnly));
    log.write("earlier line\n");
    log.close();
    const auto again
        = bash(QStringLiteral("ulimit -f 16; \"$CLI\" inspect --port \"$PORT\" --json >> '%1'").arg(out));
    QCOMPARE(again.exitCode, 1);
    QVERIFY(log.open(QIODevice::ReadOnly));
    QCOMPARE(log.readAll(), QByteArray("earlier line\n"));
}

void TestCliOutput::sighupWritesTheReportAndStopsTheSandbox()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString report = dir.filePath(QStringLiteral("report.json"));
    QProcess cli;
    cli.start(TestSupport::cliPath(),
              {"simulate", "--preset", "fair-vs-unfair", "--sandbox", "--duration", "60", "--json", report});
    QVERIFY(cli.waitForStarted());
    // Hang up once the run is under way: its sandbox server is running.
    QTRY_VERIFY_WITH_TIMEOUT(!redisChildren(cli.processId()).isEmpty(), 30000);
    const QList<qint64> sandboxes = redisChildren(cli.processId());
    ::kill(pid_t(cli.processId()), SIGHUP); // an ssh session dropping
    QVERIFY2(cli.waitForFinished(30000), "simulate did not stop on SIGHUP");
    QCOMPARE(cli.exitStatus(), QProcess::NormalExit); // not killed by the signal
    QCOMPARE(cli.exitCode(), 1);
    QVERIFY(QString::fromUtf8(cli.readAllStandardError()).contains(QLatin1String("interrupted")));
    QFile f(report);
    QVERIFY2(f.open(QIODevice::ReadOnly), "no report after SIGHUP");
    const QJsonObject o = QJsonDocument::fromJson(f.readAll()).object();
    QCOMPARE(o.value(QLatin1String("interrupted")).toBool(), true);
    for (qint64 pid : sandboxes)
        QVERIFY2(!TestSupport::processAlive(pid), "the sandbox outlived the run");
}

void TestCliOutput::outputPathsAreCheckedBeforeTheRun_data()
{
    QTest::addColumn<QStringList>("options");
    QTest::addColumn<QString>("message");
    QTest::newRow("--json in /proc") << QStringList {"--json", "/proc/x"}
                                     << QStringLiteral("cannot write /proc/x");
    QTest::newRow("--events in /proc")
        << QStringList {"--events", "/proc/x.csv"} << QStringLiteral("cannot write /proc/x.csv");
    QTest::newRow("--json a folder") << QStringList {"--json", "/tmp"}
                                     << QStringLiteral("cannot write /tmp: it is a folder");
    QTest::newRow("--json in a missing folder") << QStringList {"--json", "/nonexistent/dir/r.json"}
                                                << QStringLiteral("cannot write /nonexistent/dir/r.json");
}

void TestCliOutput::outputPathsAreCheckedBeforeTheRun()
{
    QFETCH(QStringList, options);
    QFETCH(QString, message);
    // seed-inventory runs 60 s: a check made only after the run would make this test time out.
    QStringList args {"simulate", "--preset", "seed-inventory", "--sandbox"};
    const auto r = TestSupport::run(TestSupport::cliPath(), args + options,
                                    QProcessEnvironment::systemEnvironment(), 20000);
    QVERIFY2(r.finished, "the path was only checked after the run");
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(message), qPrintable(r.err));
}

QTEST_GUILESS_MAIN(TestCliOutput)
#include "tst_clioutput.moc"
