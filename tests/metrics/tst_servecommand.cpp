// `lockscope-cli serve` as a process, over HTTP: /metrics in both formats, /healthz, 404 and 405, a config
// file with several targets whose passwords come from a file and the environment and never show up in the
// log or the metrics, TLS with basic auth configured as Prometheus exporters configure them, bad command
// lines and config files (the HTTP limits among them) refused with a reason, and SIGTERM ending it cleanly.
#include "inspect/samplelocks.h"
#include "metricstext.h"
#include "processready.h"
#include "testsupport.h"
#include "tlsfixture.h"

#include <QEventLoop>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QProcess>
#include <QRegularExpression>
#include <QSslConfiguration>
#include <QSslSocket>
#include <QTemporaryDir>
#include <QTimer>

#include <csignal>

class TestServeCommand : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void servesMetricsAndHealth();
    void severalTargetsAndNoPasswordInSight();
    void tlsAndBasicAuth();
    void httpLimitsApply();
    void badCommandLinesAreRefused_data();
    void badCommandLinesAreRefused();

private:
    struct Reply
    {
        int status = 0;
        QByteArray body;
        QByteArray contentType;
        QString error;
    };
    // Starts serve with `arguments` (plus --listen 127.0.0.1:0) and returns the URL it serves, from its log.
    QString startServe(QProcess &serve, const QStringList &arguments,
                       const QProcessEnvironment &env = QProcessEnvironment::systemEnvironment());
    Reply get(const QString &url, const QByteArray &accept = "*/*", const QByteArray &authorization = {},
              const QByteArray &method = "GET");
    static void stop(QProcess &serve);

    SandboxServer m_server;
    QTemporaryDir m_dir;
    QNetworkAccessManager m_http;
    QList<QSslCertificate> m_trusted;
    QByteArray m_startLog; // what serve wrote to standard error until it served
};

void TestServeCommand::initTestCase()
{
    QVERIFY(QFileInfo(TestSupport::cliPath()).isExecutable());
    LS_START(m_server);
    RedisConnection admin(m_server.connectionSettings());
    LS_OPEN(admin);
    QVERIFY(SampleLocks::plainLock(admin, "lock:stock", "worker-17", 600000));
    QVERIFY(TestSupport::addReadOnlyUser(admin, "exporter", "s3cret-file-pw"));
    QVERIFY(TestSupport::addReadOnlyUser(admin, "other", "s3cret-env-pw"));
}

QString TestServeCommand::startServe(QProcess &serve, const QStringList &arguments,
                                     const QProcessEnvironment &env)
{
    QRegularExpressionMatch m;
    if (!ProcessReady::start(
            serve, TestSupport::cliPath(), QStringList {"serve", "--listen", "127.0.0.1:0"} + arguments,
            QRegularExpression(QStringLiteral("serving (https?://127\\.0\\.0\\.1:\\d+)/metrics")), env, &m,
            &m_startLog, 20000))
        return {};
    return m.captured(1);
}

TestServeCommand::Reply TestServeCommand::get(const QString &url, const QByteArray &accept,
                                              const QByteArray &authorization, const QByteArray &method)
{
    QNetworkRequest request {QUrl(url)};
    request.setRawHeader("Accept", accept);
    if (!authorization.isEmpty())
        request.setRawHeader("Authorization", authorization);
    if (!m_trusted.isEmpty()) {
        QSslConfiguration ssl = QSslConfiguration::defaultConfiguration();
        ssl.setCaCertificates(m_trusted);
        request.setSslConfiguration(ssl);
    }
    QNetworkReply *reply = m_http.sendCustomRequest(request, method);
    QEventLoop loop;
    connect(reply, &QNetworkReply::finished, &loop, &QEventLoop::quit);
    QTimer::singleShot(15000, &loop, &QEventLoop::quit);
    loop.exec();
    Reply r;
    r.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    r.body = reply->readAll();
    r.contentType = reply->header(QNetworkRequest::ContentTypeHeader).toByteArray();
    r.error = reply->error() == QNetworkReply::NoError ? QString() : reply->errorString();
    reply->deleteLater();
    return r;
}

void TestServeCommand::stop(QProcess &serve)
{
    ::kill(pid_t(serve.processId()), SIGTERM);
    QVERIFY(serve.waitForFinished(15000));
    QCOMPARE(serve.exitStatus(), QProcess::NormalExit);
    QCOMPARE(serve.exitCode(), 0);
}

void TestServeCommand::servesMetricsAndHealth()
{
    QProcess serve;
    const QString url = startServe(serve, {"--port", QString::number(m_server.port())});
    QVERIFY(!url.isEmpty());
    const QString target = m_server.connectionSettings().endpoint();
    // What Prometheus asks for: OpenMetrics, ended by # EOF.
    Reply r;
    QTRY_VERIFY_WITH_TIMEOUT(
        (r = get(url + "/metrics", "application/openmetrics-text;version=1.0.0,*/*;q=0.1"))
            .body.contains("lockscope_lock_ttl_seconds{target=\"" + target.toUtf8()),
        15000);
    QCOMPARE(r.status, 200);
    QVERIFY2(r.contentType.startsWith("application/openmetrics-text; version=1.0.0"),
             r.contentType.constData());
    QVERIFY(r.body.endsWith("# EOF\n"));
    const QList<MetricSample> s = MetricsText::parse(r.body);
    QCOMPARE(MetricsText::value(s, "lockscope_target_up", {{"target", target}}), 1.0);
    // curl and older scrapers: the Prometheus text format.
    r = get(url + "/metrics");
    QVERIFY2(r.contentType.startsWith("text/plain; version=0.0.4"), r.contentType.constData());
    QVERIFY(r.body.contains("# TYPE lockscope_commands_sent_total counter"));
    QVERIFY(!r.body.contains("# EOF"));
    r = get(url + "/healthz");
    QCOMPARE(r.status, 200);
    QCOMPARE(r.body, QByteArray("ok\n"));
    QCOMPARE(get(url + "/nothing").status, 404);
    QCOMPARE(get(url + "/metrics", "*/*", {}, "POST").status, 405);
    stop(serve);
    QVERIFY(serve.readAllStandardError().contains("stopped after"));
}

void TestServeCommand::severalTargetsAndNoPasswordInSight()
{
    QFile passwordFile(m_dir.filePath("exporter.password"));
    QVERIFY(passwordFile.open(QIODevice::WriteOnly));
    passwordFile.write("s3cret-file-pw\n");
    passwordFile.close();
    QVERIFY(passwordFile.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner));
    const QJsonObject config {
        {"max_lock_series", 10},
        {"targets",
         QJsonArray {QJsonObject {{"name", "orders"},
                                  {"port", m_server.port()},
                                  {"user", "exporter"},
                                  {"password_file", passwordFile.fileName()},
                                  {"pattern", QJsonArray {"lock:*"}}},
                     QJsonObject {{"name", "payments"},
                                  {"port", m_server.port()},
                                  {"user", "other"},
                                  {"password_env", "PAYMENTS_PW"}},
                     QJsonObject {{"name", "nowhere"}, {"port", LoopbackPorts::freePort()}}}}};
    QFile configFile(m_dir.filePath("serve.json"));
    QVERIFY(configFile.open(QIODevice::WriteOnly));
    configFile.write(QJsonDocument(config).toJson());
    configFile.close();
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("PAYMENTS_PW", "s3cret-env-pw");
    QProcess serve;
    const QString url = startServe(serve, {"--config", configFile.fileName()}, env);
    QVERIFY(!url.isEmpty());
    QList<MetricSample> s;
    QTRY_VERIFY_WITH_TIMEOUT(
        (s = MetricsText::parse(get(url + "/metrics").body),
         MetricsText::find(s, "lockscope_lock_ttl_seconds", {{"key", "lock:stock"}}).size() == 2),
        15000);
    QCOMPARE(MetricsText::value(s, "lockscope_target_up", {{"target", "orders"}}), 1.0);
    QCOMPARE(MetricsText::value(s, "lockscope_target_up", {{"target", "payments"}}), 1.0);
    // A target that cannot be reached does not stop the others: it is up 0.
    QCOMPARE(MetricsText::value(s, "lockscope_target_up", {{"target", "nowhere"}}), 0.0);
    stop(serve);
    const QByteArray log = m_startLog + serve.readAllStandardError();
    for (const char *secret : {"s3cret-file-pw", "s3cret-env-pw"}) {
        QVERIFY2(!log.contains(secret), log.constData());
        for (const MetricSample &x : std::as_const(s)) {
            for (const QString &v : x.labels)
                QVERIFY(!v.toUtf8().contains(secret));
        }
    }
    QVERIFY2(log.contains("target 'nowhere'"), log.constData());
}

void TestServeCommand::tlsAndBasicAuth()
{
    TlsFixture tls;
    QVERIFY2(tls.create(), qPrintable(tls.errorString()));
    // The hash comes from serve itself, the password from standard input.
    int exitCode = -1;
    const QByteArray hash = ProcessReady::runWithInput(TestSupport::cliPath(), {"serve", "--hash-password"},
                                                       "scrape-pw\n", &exitCode)
                                .trimmed();
    QCOMPARE(exitCode, 0);
    QVERIFY2(hash.startsWith("$2b$10$") && hash.size() == 60, hash.constData());
    const QJsonObject web {
        {"tls_server_config", QJsonObject {{"cert_file", tls.serverCert()}, {"key_file", tls.serverKey()}}},
        {"basic_auth_users", QJsonObject {{"prometheus", QString::fromUtf8(hash)}}}};
    QFile webFile(m_dir.filePath("web.json"));
    QVERIFY(webFile.open(QIODevice::WriteOnly));
    webFile.write(QJsonDocument(web).toJson());
    webFile.close();
    QProcess serve;
    const QString url
        = startServe(serve, {"--port", QString::number(m_server.port()), "--web-config", webFile.fileName()});
    QVERIFY(url.startsWith("https://"));
    m_trusted = QSslCertificate::fromPath(tls.caFile());
    const auto basic = [](const QByteArray &userPassword) { return "Basic " + userPassword.toBase64(); };
    QCOMPARE(get(url + "/metrics").status, 401);
    QCOMPARE(get(url + "/metrics", "*/*", basic("prometheus:wrong")).status, 401);
    QCOMPARE(get(url + "/metrics", "*/*", basic("nobody:scrape-pw")).status, 401);
    Reply r = get(url + "/metrics", "*/*", basic("prometheus:scrape-pw"));
    QVERIFY2(r.status == 200, qPrintable(r.error));
    QVERIFY(r.body.contains("lockscope_target_up"));
    // A client that does not trust the certificate gets nothing.
    m_trusted = QSslCertificate::fromPath(tls.otherCaFile());
    m_http.clearConnectionCache(); // a connection verified before would be reused
    r = get(url + "/metrics", "*/*", basic("prometheus:scrape-pw"));
    QVERIFY(r.status == 0 && !r.error.isEmpty());
    m_trusted.clear();
    stop(serve);
}

void TestServeCommand::httpLimitsApply()
{
    QProcess serve;
    const QString url = startServe(serve, {"--port", QString::number(m_server.port()), "--http-header-timeout",
                                           "0.3", "--http-max-connections", "1"});
    QVERIFY(!url.isEmpty());
    const QUrl u(url);
    // Half a head holds the only connection allowed, until its time is up.
    QTcpSocket half;
    half.connectToHost(u.host(), quint16(u.port()));
    QVERIFY(half.waitForConnected(10000));
    half.write("GET /metrics HTTP/1.1\r\nHost: x\r\n");
    QVERIFY(half.waitForBytesWritten(10000));
    // Accepted (and so counted) before the second one comes: the first answer proves it.
    QTcpSocket second;
    second.connectToHost(u.host(), quint16(u.port()));
    QVERIFY(second.waitForConnected(10000));
    QByteArray busy;
    while (second.waitForReadyRead(10000))
        busy += second.readAll();
    QVERIFY2(busy.startsWith("HTTP/1.1 503 "), busy.constData());
    QByteArray late;
    while (half.waitForReadyRead(10000))
        late += half.readAll();
    QVERIFY2(late.startsWith("HTTP/1.1 408 "), late.constData());
    QCOMPARE(half.state(), QAbstractSocket::UnconnectedState);
    // And the next one is served.
    QCOMPARE(get(url + "/healthz").status, 200);
    stop(serve);
    const QByteArray log = serve.readAllStandardError();
    QVERIFY2(log.contains("--http-max-connections"), log.constData());
}

void TestServeCommand::badCommandLinesAreRefused_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QByteArray>("config");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QString>("message");
    QTest::newRow("listen") << QStringList {"--listen", "somewhere"} << QByteArray() << 2
                            << "--listen somewhere";
    QTest::newRow("read-write") << QStringList {"--read-write"} << QByteArray() << 2 << "only ever reads";
    QTest::newRow("sentinel without master")
        << QStringList {"--sentinel", "127.0.0.1:26379"} << QByteArray() << 2 << "needs --master";
    QTest::newRow("config and host") << QStringList {"--host", "10.0.0.1"} << QByteArray("{}") << 2
                                     << "--host: with --config";
    QTest::newRow("password in config")
        << QStringList() << QByteArray(R"({"targets": [{"port": 6379, "password": "x"}]})") << 2
        << "never written in the config file";
    QTest::newRow("unknown key") << QStringList()
                                 << QByteArray(R"({"targets": [{"port": 6379}], "lisen": "x"})") << 2
                                 << "unknown key \"lisen\"";
    QTest::newRow("unknown target option")
        << QStringList() << QByteArray(R"({"targets": [{"port": 6379, "colour": "red"}]})") << 2
        << "targets[0]";
    QTest::newRow("same name twice") << QStringList()
                                     << QByteArray(R"({"targets": [{"port": 6379}, {"port": 6379}]})") << 2
                                     << "two targets are named '127.0.0.1:6379'";
    QTest::newRow("no targets") << QStringList() << QByteArray(R"({"targets": []})") << 2
                                << "lists no target";
    QTest::newRow("http header timeout") << QStringList {"--http-header-timeout", "0"} << QByteArray() << 2
                                         << "--http-header-timeout 0: expected seconds";
    QTest::newRow("http max connections") << QStringList {"--http-max-connections", "many"} << QByteArray() << 2
                                          << "--http-max-connections many: expected a whole number";
    QTest::newRow("max commands per second") << QStringList {"--max-commands-per-second", "-5"} << QByteArray()
                                             << 2 << "max commands per second: expected a whole number";
    QTest::newRow("max commands per second in config")
        << QStringList() << QByteArray(R"({"targets": [{"port": 6379}], "max_commands_per_second": "x"})") << 2
        << "max commands per second: expected a whole number";
    QTest::newRow("http key in config")
        << QStringList() << QByteArray(R"({"targets": [{"port": 6379}], "http_max_header_bytes": 10})") << 2
        << "\"http_max_header_bytes\": --http-max-header-bytes 10: expected a whole number from 256";
    QTest::newRow("web config with a plain password")
        << QStringList {"--web-config", "WEB"} << QByteArray(R"({"basic_auth_users": {"p": "plain"}})") << 1
        << "not a bcrypt hash";
    QTest::newRow("web config typo") << QStringList {"--web-config", "WEB"}
                                     << QByteArray(R"({"tls_server_config": {"cert": "x"}})") << 1
                                     << "unknown key 'cert'";
}

void TestServeCommand::badCommandLinesAreRefused()
{
    QFETCH(QStringList, arguments);
    QFETCH(QByteArray, config);
    QFETCH(int, exitCode);
    QFETCH(QString, message);
    if (!config.isEmpty()) {
        QFile f(m_dir.filePath("bad.json"));
        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        f.write(config);
        f.close();
        if (arguments.contains("WEB"))
            arguments.replace(arguments.indexOf("WEB"), f.fileName());
        else
            arguments << "--config" << f.fileName();
    }
    const auto r = TestSupport::run(TestSupport::cliPath(), QStringList {"serve"} + arguments);
    QCOMPARE(r.exitCode, exitCode);
    QVERIFY2(r.err.contains(message), qPrintable(r.err));
}

QTEST_GUILESS_MAIN(TestServeCommand)
#include "tst_servecommand.moc"
