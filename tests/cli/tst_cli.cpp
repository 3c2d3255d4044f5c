// The real executables: versions, ping against sandboxes and bad servers, exit codes, no orphan servers.
#include "keychainfixture.h"
#include "profiles/profilestore.h"
#include "profiles/secretstore.h"
#include "inspect/samplelocks.h"
#include "testsupport.h"
#include "tlsfixture.h"
#include "sandboxfixture.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>

#include <csignal>

class TestCli : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void versionAndHelp();
    void appVersionNeedsNoDisplay();
    void pingSandbox();
    void pingGivenServerWithPasswordFromEnvironment();
    void pingRefused();
    void pingWrongPassword();
    void badArguments_data();
    void badArguments();
    void sandboxDiesWithItsOwner();
    void pingOverTlsWithAnAclUser();
    void tlsFailuresAreClear();
    void insecureTlsIsWarnedAbout();
    void pingWithAProfile();
    void inspectScansAsTheProfileSays();
    void pingWithAProfileWhosePasswordIsInTheKeychain();
    void clientsReportTheirLibrariesVersions();
    void clientsSayWhatAJvmAdapterNeeds();
};

using TestSupport::run;

void TestCli::initTestCase()
{
    QVERIFY2(QFileInfo(TestSupport::cliPath()).isExecutable(), "LOCKSCOPE_CLI must point at lockscope-cli");
}

void TestCli::versionAndHelp()
{
    const auto v = run(TestSupport::cliPath(), {"--version"});
    QCOMPARE(v.exitCode, 0);
    QVERIFY2(QRegularExpression(QStringLiteral("^lockscope-cli \\d+\\.\\d+\\.\\d+ \\(Qt 6\\."))
                 .match(v.out)
                 .hasMatch(),
             qPrintable(v.out));
    QVERIFY(v.out.contains(QLatin1String("hiredis 0.14")));
    const auto h = run(TestSupport::cliPath(), {"--help"});
    QCOMPARE(h.exitCode, 0);
    QVERIFY(h.out.contains(QLatin1String("ping")));
    QVERIFY(h.out.contains(QLatin1String("Exit codes")));
    const auto none = run(TestSupport::cliPath(), {});
    QCOMPARE(none.exitCode, 2);
    const auto unknown = run(TestSupport::cliPath(), {"frobnicate"});
    QCOMPARE(unknown.exitCode, 2);
    QVERIFY(unknown.err.contains(QLatin1String("unknown command 'frobnicate'")));
}

void TestCli::appVersionNeedsNoDisplay()
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove(QStringLiteral("DISPLAY"));
    env.remove(QStringLiteral("WAYLAND_DISPLAY"));
    env.remove(QStringLiteral("QT_QPA_PLATFORM"));
    const auto v = run(TestSupport::appPath(), {"--version"}, env);
    QCOMPARE(v.exitCode, 0);
    QVERIFY2(v.out.startsWith(QLatin1String("lockscope ")), qPrintable(v.out + v.err));
    const auto bad = run(TestSupport::appPath(), {"--port", "nope", "--version"}, env);
    QCOMPARE(bad.exitCode, 0); // --version wins, like every GNU tool
    const auto h = run(TestSupport::appPath(), {"--help"}, env);
    QVERIFY(h.out.contains(QLatin1String("--password-env")));
}

void TestCli::pingSandbox()
{
    const auto r = run(TestSupport::cliPath(), {"ping", "--sandbox"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY2(r.out.startsWith(QLatin1String("PONG from 127.0.0.1:")), qPrintable(r.out));
    QVERIFY(r.out.contains(QLatin1String("(sandbox)")));
    QVERIFY(r.out.contains(QLatin1String("standalone")));
    QVERIFY(r.out.contains(QLatin1String("round trip")));
}

void TestCli::pingGivenServerWithPasswordFromEnvironment()
{
    SandboxServer server(SandboxFixture::withPassword(QStringLiteral("from-env")));
    LS_START(server);
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("LS_PW"), QStringLiteral("from-env"));
    const auto r = run(
        TestSupport::cliPath(),
        {"ping", "--port", QString::number(server.port()), "--password-env", "LS_PW", "--count", "2"}, env);
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY(r.out.contains(QLatin1String("read-only")));
    QVERIFY(r.out.contains(QLatin1String("over 2 PINGs")));
}

void TestCli::pingRefused()
{
    const int port = LoopbackPorts::freePort();
    const auto r = run(TestSupport::cliPath(), {"ping", "--port", QString::number(port)});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains(QStringLiteral("Connection refused by 127.0.0.1:%1").arg(port)),
             qPrintable(r.err));
}

void TestCli::pingWrongPassword()
{
    SandboxServer server(SandboxFixture::withPassword(QStringLiteral("right")));
    LS_START(server);
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("LS_PW"), QStringLiteral("wrong-pw-7f3a"));
    const auto r = run(TestSupport::cliPath(),
                       {"ping", "--port", QString::number(server.port()), "--password-env", "LS_PW"}, env);
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains(QLatin1String("Authentication failed")), qPrintable(r.err));
    QVERIFY2(!r.err.contains(QLatin1String("wrong-pw-7f3a")), "a password must never be echoed");
    const auto none = run(TestSupport::cliPath(), {"ping", "--port", QString::number(server.port())});
    QCOMPARE(none.exitCode, 1);
    QVERIFY2(none.err.contains(QLatin1String("requires a password")), qPrintable(none.err));
}

void TestCli::badArguments_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("expected");
    QTest::newRow("bad port") << QStringList {"ping", "--port", "99999"} << "--port 99999";
    QTest::newRow("unset env") << QStringList {"ping", "--password-env", "LS_DEFINITELY_UNSET"}
                               << "is not set";
    QTest::newRow("unknown option") << QStringList {"ping", "--pasword", "x"} << "Unknown option";
    QTest::newRow("bad count") << QStringList {"ping", "--count", "0"} << "--count";
}

void TestCli::badArguments()
{
    QFETCH(QStringList, args);
    QFETCH(QString, expected);
    const auto r = run(TestSupport::cliPath(), args);
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(expected), qPrintable(r.err));
}

void TestCli::sandboxDiesWithItsOwner()
{
    QProcess cli;
    cli.start(TestSupport::cliPath(), {"sandbox", "--seconds", "120"});
    QVERIFY(cli.waitForStarted());
    QRegularExpression pidPattern(QStringLiteral("listening on 127\\.0\\.0\\.1:(\\d+) \\(pid (\\d+)\\)"));
    QString output;
    QRegularExpressionMatch match;
    while (!(match = pidPattern.match(output)).hasMatch()) {
        QVERIFY2(cli.waitForReadyRead(20000), qPrintable(output + cli.readAllStandardError()));
        output += QString::fromUtf8(cli.readAllStandardOutput());
    }
    const pid_t serverPid = pid_t(match.captured(2).toLongLong());
    QVERIFY(TestSupport::processAlive(serverPid));
    ::kill(pid_t(cli.processId()), SIGKILL); // a crash: no destructor runs in the CLI
    QVERIFY(cli.waitForFinished(10000));
    // The kernel delivers the parent-death signal; the server must disappear without our help.
    QTRY_VERIFY_WITH_TIMEOUT(!TestSupport::processAlive(serverPid), 10000);
}

void TestCli::pingOverTlsWithAnAclUser()
{
    TlsFixture certs;
    QVERIFY2(certs.create(), qPrintable(certs.errorString()));
    SandboxFixture server(certs.sandboxOptions());
    LS_SANDBOX(server);
    QVERIFY(TestSupport::addReadOnlyUser(server.admin(), "oncall", "tls-cli-pw"));
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("LS_PW"), QStringLiteral("tls-cli-pw"));
    const auto r = run(TestSupport::cliPath(),
                       {"ping", "--host", "localhost", "--port", QString::number(server.port()), "--cacert",
                        certs.caFile(), "--user", "oncall", "--password-env", "LS_PW"},
                       env);
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY2(r.out.startsWith(QStringLiteral("PONG from localhost:%1 (TLS)").arg(server.port())),
             qPrintable(r.out));
    QVERIFY(r.out.contains(QLatin1String("read-only")));
    QVERIFY2(!r.err.contains(QLatin1String("warning")), qPrintable(r.err));
}

void TestCli::tlsFailuresAreClear()
{
    TlsFixture certs;
    QVERIFY2(certs.create(), qPrintable(certs.errorString()));
    SandboxServer server(certs.sandboxOptions());
    LS_START(server);
    const QString port = QString::number(server.port());
    const auto wrongCa
        = run(TestSupport::cliPath(), {"ping", "--port", port, "--cacert", certs.otherCaFile()});
    QCOMPARE(wrongCa.exitCode, 1);
    QVERIFY2(wrongCa.err.contains(QLatin1String("TLS certificate of 127.0.0.1:") + port
                                  + QLatin1String(" was rejected")),
             qPrintable(wrongCa.err));
    const auto wrongName = run(TestSupport::cliPath(),
                               {"ping", "--port", port, "--cacert", certs.caFile(), "--sni", "db.example"});
    QCOMPARE(wrongName.exitCode, 1);
    QVERIFY2(wrongName.err.contains(QLatin1String("not valid for the name 'db.example'")),
             qPrintable(wrongName.err));
    const auto plain = run(TestSupport::cliPath(),
                           {"ping", "--port", port, "--timeout", "500", "--connect-timeout", "500"});
    QCOMPARE(plain.exitCode, 1); // plain Redis protocol to a TLS port: a clear failure, not a hang
}

void TestCli::insecureTlsIsWarnedAbout()
{
    TlsFixture certs;
    QVERIFY2(certs.create(), qPrintable(certs.errorString()));
    SandboxServer server(certs.sandboxOptions());
    LS_START(server);
    const auto r
        = run(TestSupport::cliPath(), {"ping", "--port", QString::number(server.port()), "--insecure"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY2(r.err.startsWith(QLatin1String("warning: TLS certificate verification is OFF")),
             qPrintable(r.err));
    QVERIFY2(r.out.contains(QLatin1String("NOT verified")), qPrintable(r.out));
}

void TestCli::pingWithAProfile()
{
    SandboxServer server(SandboxFixture::withPassword(QStringLiteral("profile-pw")));
    LS_START(server);
    QTemporaryDir config;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("XDG_CONFIG_HOME"), config.path());
    env.insert(QStringLiteral("LS_PW"), QStringLiteral("profile-pw"));
    ProfileStore store(config.filePath(QStringLiteral("LockScope/connections.conf")));
    ConnectionProfile p = ConnectionProfile::create(QStringLiteral("Staging"));
    p.settings.port = server.port();
    p.passwordStorage = ConnectionProfile::PasswordStorage::Ask;
    QString error;
    QVERIFY2(store.save(p, &error), qPrintable(error));

    const auto asks = run(TestSupport::cliPath(), {"ping", "--profile", "staging"}, env);
    QCOMPARE(asks.exitCode, 1);
    QVERIFY2(
        asks.err.contains(QLatin1String("asks for its password every time: give it with --password-env")),
        qPrintable(asks.err));
    const auto ok
        = run(TestSupport::cliPath(), {"ping", "--profile", "staging", "--password-env", "LS_PW"}, env);
    QVERIFY2(ok.exitCode == 0, qPrintable(ok.err));
    QVERIFY(ok.out.contains(QLatin1String("read-only")));
    const auto missing = run(TestSupport::cliPath(), {"ping", "--profile", "nope"}, env);
    QCOMPARE(missing.exitCode, 2);
    QVERIFY2(missing.err.contains(QLatin1String("no such profile (saved: Staging)")),
             qPrintable(missing.err));
    const auto conflict = run(TestSupport::cliPath(), {"ping", "--profile", "staging", "--host", "x"}, env);
    QCOMPARE(conflict.exitCode, 2);
    QVERIFY(conflict.err.contains(QLatin1String("do not combine it with --host")));
}

void TestCli::inspectScansAsTheProfileSays()
{
    // A profile's patterns, SCAN COUNT and budget are the scan's defaults; the flags override them.
    SandboxFixture server;
    LS_SANDBOX(server);
    RedisConnection &admin = server.admin();
    QVERIFY(SampleLocks::plainLock(admin, "orders:lock:1", "worker-1", 60000));
    QVERIFY(SampleLocks::plainLock(admin, "billing:lock:1", "worker-2", 60000));
    QTemporaryDir config;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("XDG_CONFIG_HOME"), config.path());
    ProfileStore store(config.filePath(QStringLiteral("LockScope/connections.conf")));
    ConnectionProfile p = ConnectionProfile::create(QStringLiteral("orders"));
    p.settings.port = server.port();
    p.lockPatterns = {QStringLiteral("orders:*")};
    p.scanCount = 50;
    p.scanMaxOps = 500;
    QString error;
    QVERIFY2(store.save(p, &error), qPrintable(error));
    const auto profiled = run(TestSupport::cliPath(), {"inspect", "--profile", "orders", "--json"}, env);
    QVERIFY2(profiled.exitCode == 0, qPrintable(profiled.err));
    QVERIFY2(profiled.out.contains(QLatin1String("orders:lock:1")) && !profiled.out.contains(QLatin1String("billing")),
             qPrintable(profiled.out));
    const auto overridden
        = run(TestSupport::cliPath(), {"inspect", "--profile", "orders", "--pattern", "*", "--json"}, env);
    QVERIFY2(overridden.exitCode == 0, qPrintable(overridden.err));
    QVERIFY(overridden.out.contains(QLatin1String("billing:lock:1")));
}

void TestCli::pingWithAProfileWhosePasswordIsInTheKeychain()
{
    KeychainFixture keychain; // this process and the CLI it starts share a private Secret Service
    if (!keychain.start())
        QSKIP(qPrintable(QStringLiteral("no private keychain: ") + keychain.errorString()));
    TlsFixture certs;
    QVERIFY2(certs.create(), qPrintable(certs.errorString()));
    SandboxFixture server(certs.sandboxOptions());
    LS_SANDBOX(server);
    QVERIFY(TestSupport::addReadOnlyUser(server.admin(), "oncall", "kc-cli-pw"));
    QTemporaryDir config;
    ProfileStore store(config.filePath(QStringLiteral("LockScope/connections.conf")));
    ConnectionProfile p = ConnectionProfile::create(QStringLiteral("prod"));
    p.settings = server.connectionSettings();
    p.settings.host = QStringLiteral("localhost");
    p.settings.readOnly = true;
    p.settings.user = QStringLiteral("oncall");
    p.passwordStorage = ConnectionProfile::PasswordStorage::Keychain;
    QString error;
    QVERIFY2(store.save(p, &error), qPrintable(error));
    SecretStore secrets; // the app's own service name
    QVERIFY(secrets.writeNow(p.keychainKey(), QStringLiteral("kc-cli-pw")).ok());
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment(); // now with the private bus
    env.insert(QStringLiteral("XDG_CONFIG_HOME"), config.path());
    const auto r = run(TestSupport::cliPath(), {"ping", "--profile", "prod"}, env);
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY2(r.out.contains(QLatin1String("(TLS)")) && r.out.contains(QLatin1String("read-only")),
             qPrintable(r.out));
    QVERIFY(secrets.removeNow(p.keychainKey()).ok());
    const auto gone = run(TestSupport::cliPath(), {"ping", "--profile", "prod"}, env);
    QCOMPARE(gone.exitCode, 1);
    QVERIFY2(gone.err.contains(QLatin1String("cannot be read"))
                 && gone.err.contains(QLatin1String("--password-env")),
             qPrintable(gone.err));
}

void TestCli::clientsReportTheirLibrariesVersions()
{
    // An installed library's version is what its adapter's version command prints on standard output, run
    // with the adapter's environment (NODE_PATH to the npm packages in LOCKSCOPE_CLIENTS_DIR).
    const auto r = run(TestSupport::cliPath(), {"clients", "--json"});
    QCOMPARE(r.exitCode, 0);
    const QJsonArray adapters = QJsonDocument::fromJson(r.out.toUtf8()).array();
    QVERIFY2(!adapters.isEmpty(), qPrintable(r.out + r.err));
    int versioned = 0;
    for (const QJsonValue &value : adapters) {
        const QJsonObject adapter = value.toObject();
        if (!adapter.value(QLatin1String("library_installed")).toBool())
            continue;
        const QString what = QString::fromUtf8(QJsonDocument(adapter).toJson());
        QVERIFY2(!adapter.contains(QLatin1String("problem")), qPrintable(what));
        const QString version = adapter.value(QLatin1String("version")).toString();
        QVERIFY2(QRegularExpression(QStringLiteral("^\\d+\\.\\d+[^\\s]*$")).match(version).hasMatch(),
                 qPrintable(what));
        if (adapter.contains(QLatin1String("pinned_version")))
            QCOMPARE(version, adapter.value(QLatin1String("pinned_version")).toString());
        ++versioned;
    }
    QVERIFY2(versioned > 0, qPrintable(r.out));
}

// A machine without a JVM, then one with a JVM but without a JDK and Maven: the Redisson adapter can neither
// run nor be built there, and both `clients` and a run say what to install (a fresh clients folder: nothing
// of it is built yet).
void TestCli::clientsSayWhatAJvmAdapterNeeds()
{
    QTemporaryDir clients, bin;
    QVERIFY(clients.isValid() && bin.isValid());
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("LOCKSCOPE_CLIENTS_DIR"), clients.path());
    env.insert(QStringLiteral("PATH"), bin.path());
    const auto state = [&] {
        const auto r = run(TestSupport::cliPath(), {"clients", "--json", "redisson"}, env);
        return r.exitCode == 0 ? QJsonDocument::fromJson(r.out.toUtf8()).array().first().toObject()
                               : QJsonObject {{"failed", r.err}};
    };
    const QJsonObject noJvm = state();
    QCOMPARE(noJvm.value("state").toString(), QStringLiteral("runtime missing"));
    QVERIFY2(noJvm.value("problem").toString().contains("sudo apt-get install openjdk-17-jre-headless"),
             qPrintable(QJsonDocument(noJvm).toJson()));

    for (const char *program : {"java", "redis-server"}) {
        const QString found = QStandardPaths::findExecutable(QString::fromLatin1(program));
        QVERIFY2(!found.isEmpty(), program);
        QVERIFY(QFile::link(found, bin.filePath(QString::fromLatin1(program))));
    }
    const QJsonObject noJdk = state();
    QCOMPARE(noJdk.value("state").toString(), QStringLiteral("library missing"));
    const QString problem = noJdk.value("problem").toString();
    QVERIFY2(problem.contains("mvn (sudo apt-get install maven)")
                 && problem.contains("javac (sudo apt-get install openjdk-17-jdk-headless)"),
             qPrintable(problem));
    const QJsonObject maven = noJdk.value("requires").toObject().value("maven").toObject();
    QCOMPARE(maven.value("org.redisson:redisson").toString(), noJdk.value("pinned_version").toString());

    QTemporaryDir scenarioDir;
    QFile scenario(scenarioDir.filePath("s.json"));
    QVERIFY(scenario.open(QIODevice::WriteOnly));
    scenario.write(R"({"lockscope_scenario": 1, "id": "t", "title": "t", "client": {"adapter": "redisson"},
        "workload": {"processes": 1, "duration_s": 1}})");
    scenario.close();
    const auto simulated = run(TestSupport::cliPath(), {"simulate", scenario.fileName(), "--sandbox"}, env);
    QVERIFY(simulated.exitCode != 0);
    QVERIFY2(simulated.err.contains("the redisson adapter is built on first use and needs")
                 && simulated.err.contains("mvn (sudo apt-get install maven)"),
             qPrintable(simulated.out + simulated.err));
}

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
