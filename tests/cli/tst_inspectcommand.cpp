// `lockscope-cli inspect` for real: the JSON shape, the table, --watch until interrupted, exit codes, bad
// arguments, wrong passwords and a read-only ACL user that writes nothing.
#include "inspect/samplelocks.h"
#include "sandboxfixture.h"
#include "testsupport.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>

#include <csignal>

class TestInspectCommand : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void jsonHasTheDocumentedShape();
    void tableIsReadable();
    void badArguments_data();
    void badArguments();
    void failOnDiagnoses();
    void connectionFailures();
    void readOnlyAclUser();
    void watchPrintsChangesUntilInterrupted();
    void watchSaysWhatPollingCannotSee();

private:
    SandboxFixture m_server;
};

using TestSupport::run;

namespace {
QStringList keysOf(const QJsonObject &o)
{
    QStringList keys = o.keys();
    keys.sort();
    return keys;
}
} // namespace

void TestInspectCommand::initTestCase()
{
    QVERIFY(QFileInfo(TestSupport::cliPath()).isExecutable());
    LS_SANDBOX(m_server);
    RedisConnection &c = m_server.admin();
    QVERIFY(SampleLocks::writeDemoSet(c));
    QVERIFY(c.command({"SET", QByteArray("lock:\xff\xfe", 7), "owner", "PX", "600000"}).ok());
    QVERIFY(SampleLocks::fill(c, "user:", 300));
}

void TestInspectCommand::jsonHasTheDocumentedShape()
{
    const auto r
        = run(TestSupport::cliPath(), {"inspect", "--port", QString::number(m_server.port()), "--json"});
    QCOMPARE(r.exitCode, 0);
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(r.out.toUtf8(), &error);
    QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(error.errorString() + r.out));
    const QJsonObject root = doc.object();
    QCOMPARE(keysOf(root), (QStringList {"complete", "incomplete_because", "locks", "scanned_keys", "server", "unread"}));
    QCOMPARE(root.value("complete").toBool(), true);
    QCOMPARE(keysOf(root.value("server").toObject()), (QStringList {"db", "mode", "role", "version"}));
    QCOMPARE(root.value("server").toObject().value("mode").toString(), QStringLiteral("standalone"));
    QVERIFY(root.value("scanned_keys").toInteger() >= 300);
    const QJsonArray locks = root.value("locks").toArray();
    QCOMPARE(locks.size(), 16);
    QSet<QString> kinds;
    bool binarySeen = false;
    for (const QJsonValue &v : locks) {
        const QJsonObject lock = v.toObject();
        // Always there (null when unknown); the rest depends on the kind (renewal, job, holders…).
        for (const char *field : {"certain", "companions", "diagnoses", "format", "incomplete", "key", "kind",
                                  "library", "owners", "pttl_ms", "reason", "token", "type", "unknown", "waiters"})
            QVERIFY2(lock.contains(QLatin1String(field)), field);
        kinds.insert(lock.value("kind").toString());
        for (const QJsonValue &o : lock.value("owners").toArray()) {
            const QStringList keys = keysOf(o.toObject());
            for (const char *field : {"client", "count", "id", "thread"})
                QVERIFY(keys.contains(QLatin1String(field)));
        }
        for (const QJsonValue &d : lock.value("diagnoses").toArray())
            QCOMPARE(keysOf(d.toObject()), (QStringList {"code", "evidence", "text"}));
        // A key that is not UTF-8: readable escapes, and its exact bytes in base64.
        if (lock.value("key").toString() == QStringLiteral("lock:\\xff\\xfe")) {
            binarySeen = true;
            QCOMPARE(QByteArray::fromBase64(lock.value("key_base64").toString().toLatin1()), QByteArray("lock:\xff\xfe"));
        }
        if (lock.value("key").toString() == QStringLiteral("demo:ledger"))
            QCOMPARE(lock.value("token").toInteger(), 1);
        if (lock.value("key").toString() == QStringLiteral("demo:order:1001")) {
            const QJsonObject owner = lock.value("owners").toArray().first().toObject();
            QCOMPARE(owner.value("thread").toInteger(), 57);
            QCOMPARE(owner.value("count").toInteger(), 2);
            QCOMPARE(lock.value("waiters").toInteger(), 0);
        }
        if (lock.value("format").toString() == QStringLiteral("redis-py-lock")) {
            QVERIFY(lock.value("waiters").isNull()); // pollers are invisible
            QVERIFY(lock.value("unknown").toObject().value("waiters").toString().contains(QLatin1String("poll")));
        }
    }
    QVERIFY(binarySeen);
    for (const char *kind : {"reentrant", "fair", "read-write", "mutex", "named"})
        QVERIFY2(kinds.contains(QString::fromLatin1(kind)), kind);
}

void TestInspectCommand::tableIsReadable()
{
    const auto r = run(TestSupport::cliPath(),
                       {"inspect", "--port", QString::number(m_server.port()), "--pattern", "demo:*"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.out.contains(QLatin1String("KEY")));
    QVERIFY(r.out.contains(QLatin1String("DIAGNOSES")));
    QVERIFY(r.out.contains(QLatin1String("demo:inventory")));
    QVERIFY2(r.out.contains(QLatin1String("no-ttl: It has no TTL")), qPrintable(r.out));
    QVERIFY(r.out.contains(QLatin1String("evidence: PTTL -1 read at")));
    // One reading of a lock whose TTL fell does not prove its watchdog stopped (a fixed lease looks the same).
    QVERIFY(!r.out.contains(QLatin1String("watchdog-stalled")));
    // The orphan queue is not found: its key does not match "demo:*" (and its lock key is gone).
    QVERIFY2(r.out.contains(QLatin1String("13 locks and 1 key named like a lock without a lock's shape in")),
             qPrintable(r.out));
    QVERIFY(r.out.contains(QLatin1String("read-only")));
}

void TestInspectCommand::badArguments_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QString>("message");
    QTest::newRow("count text") << QStringList {"--count", "abc"}
                                << QStringLiteral("--count expects a whole number");
    QTest::newRow("count zero") << QStringList {"--count", "0"} << QStringLiteral("SCAN count");
    QTest::newRow("count fraction") << QStringList {"--count", "2.5"} << QStringLiteral("--count");
    QTest::newRow("empty pattern") << QStringList {"--pattern", ""} << QStringLiteral("empty key pattern");
    QTest::newRow("fail-on") << QStringList {"--fail-on", "stuck"}
                             << QStringLiteral("unknown diagnosis 'stuck'");
    QTest::newRow("interval") << QStringList {"--interval", "5"} << QStringLiteral("--interval");
    QTest::newRow("threshold") << QStringList {"--ttl-threshold", "-1"} << QStringLiteral("--ttl-threshold");
    QTest::newRow("extra") << QStringList {"now"} << QStringLiteral("unexpected argument 'now'");
}

void TestInspectCommand::badArguments()
{
    QFETCH(QStringList, arguments);
    QFETCH(QString, message);
    const auto r = run(TestSupport::cliPath(),
                       QStringList {"inspect", "--port", QString::number(m_server.port())} + arguments);
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(message), qPrintable(r.err));
}

void TestInspectCommand::failOnDiagnoses()
{
    const QString port = QString::number(m_server.port());
    QCOMPARE(run(TestSupport::cliPath(), {"inspect", "--port", port, "--fail-on", "no-ttl"}).exitCode, 3);
    QCOMPARE(run(TestSupport::cliPath(),
                 {"inspect", "--port", port, "--pattern", "demo:report", "--fail-on", "any"})
                 .exitCode,
             0);
}

void TestInspectCommand::connectionFailures()
{
    const auto refused
        = run(TestSupport::cliPath(), {"inspect", "--port", QString::number(LoopbackPorts::freePort())});
    QCOMPARE(refused.exitCode, 1);
    QVERIFY(refused.err.contains(QLatin1String("Connection refused")));
    SandboxServer locked(SandboxFixture::withPassword(QStringLiteral("right")));
    LS_START(locked);
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("PW"), QStringLiteral("wrong"));
    const auto wrong
        = run(TestSupport::cliPath(),
              {"inspect", "--port", QString::number(locked.port()), "--password-env", "PW"}, env);
    QCOMPARE(wrong.exitCode, 1);
    QVERIFY2(wrong.err.contains(QLatin1String("Authentication failed")), qPrintable(wrong.err));
}

void TestInspectCommand::readOnlyAclUser()
{
    RedisConnection &admin = m_server.admin();
    QVERIFY(TestSupport::addViewerUser(admin));
    const qint64 writes = TestSupport::writeCommandCalls(admin);
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("PW"), QStringLiteral("pw"));
    const auto r = run(TestSupport::cliPath(),
                       {"inspect", "--port", QString::number(m_server.port()), "--user", "viewer",
                        "--password-env", "PW", "--json"},
                       env);
    QCOMPARE(r.exitCode, 0);
    QCOMPARE(QJsonDocument::fromJson(r.out.toUtf8()).object().value("locks").toArray().size(), 16);
    QCOMPARE(TestSupport::writeCommandCalls(admin), writes);
}

void TestInspectCommand::watchPrintsChangesUntilInterrupted()
{
    SandboxServer server(SandboxFixture::withKeyspaceEvents());
    LS_START(server);
    QProcess cli;
    cli.start(TestSupport::cliPath(),
              {"inspect", "--port", QString::number(server.port()), "--watch", "--json"});
    QVERIFY(cli.waitForStarted());
    QByteArray err;
    QTRY_VERIFY_WITH_TIMEOUT((err += cli.readAllStandardError()).contains("keyspace notifications"), 10000);
    RedisConnection c(server.connectionSettings());
    LS_OPEN(c);
    QVERIFY(SampleLocks::redissonLock(c, "order:1", SampleLocks::redissonClientId(), 3, 30000));
    QByteArray out;
    QTRY_VERIFY_WITH_TIMEOUT((out += cli.readAllStandardOutput()).contains("\"acquired\""), 10000);
    QVERIFY(c.command({"DEL", "order:1"}).ok());
    QTRY_VERIFY_WITH_TIMEOUT((out += cli.readAllStandardOutput()).contains("\"released\""), 10000);
    QList<QByteArray> events;
    for (const QByteArray &line : out.split('\n')) {
        if (line.isEmpty())
            continue;
        const QJsonObject o = QJsonDocument::fromJson(line).object();
        QVERIFY2(!o.isEmpty(), line.constData());
        if (o.value("key").toString() == QStringLiteral("order:1"))
            events << o.value("event").toString().toUtf8();
    }
    QCOMPARE(events.first(), QByteArray("acquired"));
    QCOMPARE(events.last(), QByteArray("released"));
    ::kill(pid_t(cli.processId()), SIGINT);
    QVERIFY(cli.waitForFinished(10000));
    QCOMPARE(cli.exitStatus(), QProcess::NormalExit);
    QCOMPARE(cli.exitCode(), 0);
}

// A server that publishes no key changes: --watch polls, and says that a lock shorter than the time between
// two full rescans can come and go unseen (a quiet watch is not proof that nothing happened).
void TestInspectCommand::watchSaysWhatPollingCannotSee()
{
    RedisConnection &admin = m_server.admin();
    QCOMPARE(admin.command({"CONFIG", "GET", "notify-keyspace-events"}).reply.elements().value(1).bytes(),
             QByteArray());
    QProcess cli;
    cli.start(TestSupport::cliPath(), {"inspect", "--port", QString::number(m_server.port()), "--watch"});
    QVERIFY(cli.waitForStarted());
    QByteArray err;
    QTRY_VERIFY_WITH_TIMEOUT((err += cli.readAllStandardError()).contains("next full rescan (every 30 s)"),
                             10000);
    QVERIFY2(err.contains("Keyspace notifications are off"), err.constData());
    ::kill(pid_t(cli.processId()), SIGINT);
    QVERIFY(cli.waitForFinished(10000));
    QCOMPARE(cli.exitCode(), 0);
}

QTEST_GUILESS_MAIN(TestInspectCommand)
#include "tst_inspectcommand.moc"
