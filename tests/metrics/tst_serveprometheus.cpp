// End to end with the real Prometheus (Debian's, started here on a loopback port): it scrapes
// `lockscope-cli serve` every second over TLS with basic auth and evaluates resources/monitoring's rules,
// while real libraries hold locks (node-redisson's watchdog, BullMQ's lock extender). Healthy renewers fire
// nothing; a holder frozen with SIGSTOP fires LockScopeRenewerStalled in Prometheus's own /api/v1/alerts
// within two renewal periods plus the rule's `for:`; an ACL user without PTTL gets no TTL sample and a
// nonzero unknown count; every query of the Grafana dashboard runs; a killed server turns
// lockscope_target_up to 0, withdraws its lock series and fires LockScopeTargetDown.
//
// The three minutes of "healthy renewers fire nothing" run beside the other cases, not before them: a
// second server (target "quiet") holds its own renewing locks from the start and is never frozen or killed;
// the last case waits until it has been watched for three minutes, then asks Prometheus whether any alert
// was ever pending or firing for it. The server publishes no key changes, so LockScope polls and rescans
// every 30 s: three minutes hold six full rescans, eighteen renewals of the slowest watchdog (node-redisson's
// 30 s lock, renewed every 10 s) and ninety of the fastest (its 6 s lock, every 2 s).
#include "fixturedriver.h"
#include "processready.h"
#include "testsupport.h"
#include "tlsfixture.h"

#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTimer>
#include <QUrlQuery>

#include <csignal>

class TestServePrometheus : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void healthyRenewersFireNothing();
    void aFrozenHolderFiresRenewerStalled();
    void withoutPttlThereIsNoTtlSample();
    void everyDashboardQueryRuns();
    void aKilledServerIsDownAndFiresTargetDown();
    void healthyRenewersFireNothingInThreeMinutes();
    void cleanupTestCase();

private:
    QJsonObject api(const QString &path, const QUrlQuery &query = {});
    QJsonArray query(const QString &promql);
    QJsonArray alerts(const QString &state = QStringLiteral("firing"));
    QJsonArray alertsButTheBlindScan(const QString &state);
    QString startProcess(QProcess &p, const QString &program, const QStringList &args,
                         const QRegularExpression &ready, const QProcessEnvironment &env);

    const QString m_librariesDir = QStringLiteral(LOCKSCOPE_LIBRARIES_DIR);
    const QString m_monitoringDir = QStringLiteral(LOCKSCOPE_MONITORING_DIR);
    QTemporaryDir m_dir;
    TlsFixture m_tls;
    std::unique_ptr<SandboxServer> m_server;
    std::unique_ptr<SandboxServer> m_quietServer; // never frozen nor killed: three minutes of no alarm
    std::vector<std::unique_ptr<FixtureDriver>> m_drivers; // on m_server; the first is frozen later
    std::vector<std::unique_ptr<FixtureDriver>> m_quietDrivers;
    QElapsedTimer m_quietSince; // since Prometheus first scraped the quiet target up
    QProcess m_serve;
    QProcess m_prometheus;
    QString m_prometheusUrl;
    QNetworkAccessManager m_http;
    QByteArray m_frozenKey;
    qint64 m_renewalPeriodS = 10;
};

namespace {

void writeFile(const QString &path, const QByteArray &content)
{
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write(content);
    f.close();
    QVERIFY(f.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner));
}

QString labelOf(const QJsonValue &alertOrSample, const QString &name)
{
    return alertOrSample.toObject().value("labels").toObject().value(name).toString(
        alertOrSample.toObject().value("metric").toObject().value(name).toString());
}

} // namespace

QString TestServePrometheus::startProcess(QProcess &p, const QString &program, const QStringList &args,
                                          const QRegularExpression &ready, const QProcessEnvironment &env)
{
    QRegularExpressionMatch m;
    return ProcessReady::start(p, program, args, ready, env, &m) ? m.captured(m.lastCapturedIndex())
                                                                 : QString();
}

QJsonObject TestServePrometheus::api(const QString &path, const QUrlQuery &query)
{
    QUrl url(m_prometheusUrl + path);
    url.setQuery(query);
    QNetworkReply *reply = m_http.get(QNetworkRequest(url));
    QEventLoop loop;
    connect(reply, &QNetworkReply::finished, &loop, &QEventLoop::quit);
    QTimer::singleShot(10000, &loop, &QEventLoop::quit);
    loop.exec();
    const QJsonObject o = QJsonDocument::fromJson(reply->readAll()).object();
    reply->deleteLater();
    return o;
}

QJsonArray TestServePrometheus::query(const QString &promql)
{
    QUrlQuery q;
    q.addQueryItem(QStringLiteral("query"), QString::fromUtf8(QUrl::toPercentEncoding(promql)));
    const QJsonObject o = api(QStringLiteral("/api/v1/query"), q);
    if (o.value("status").toString() != QLatin1String("success"))
        qWarning("query %s: %s", qPrintable(promql),
                 QJsonDocument(o).toJson(QJsonDocument::Compact).constData());
    return o.value("data").toObject().value("result").toArray();
}

QJsonArray TestServePrometheus::alerts(const QString &state)
{
    QJsonArray out;
    for (const QJsonValue &a :
         api(QStringLiteral("/api/v1/alerts")).value("data").toObject().value("alerts").toArray()) {
        if (state.isEmpty() || a.toObject().value("state").toString() == state)
            out.append(a);
    }
    return out;
}

// The "blind" target's user may not run PTTL: its scans are rightly incomplete, so LockScopeScanIncomplete is
// pending there (for: 15 m) from its first evaluation. Every other alert is a false one in these cases.
QJsonArray TestServePrometheus::alertsButTheBlindScan(const QString &state)
{
    QJsonArray out;
    for (const QJsonValue &a : alerts(state)) {
        if (labelOf(a, "alertname") != QLatin1String("LockScopeScanIncomplete")
            || labelOf(a, "target") != QLatin1String("blind"))
            out.append(a);
    }
    return out;
}

void TestServePrometheus::initTestCase()
{
    const QString prometheus = QStandardPaths::findExecutable(QStringLiteral("prometheus"));
    QVERIFY2(!prometheus.isEmpty(), "prometheus is not installed (scripts/deps installs Debian's)");
    QVERIFY2(QFileInfo::exists(m_librariesDir + "/node/node_modules/.lockscope-installed"),
             "the Node.js fixtures are not installed: run tests/libraries/setup (scripts/test does)");
    QVERIFY2(m_tls.create(), qPrintable(m_tls.errorString()));
    // The server LockScope follows, as a production server often is: no keyspace notifications, so
    // LockScope polls and rescans; and two users, one of them without PTTL.
    m_server = std::make_unique<SandboxServer>();
    LS_START(*m_server);
    RedisConnection admin(m_server->connectionSettings());
    LS_OPEN(admin);
    QVERIFY(TestSupport::addReadOnlyUser(admin, "exporter", "exporter-pw"));
    QVERIFY(TestSupport::addReadOnlyUser(admin, "nopttl", "nopttl-pw", {"-pttl"}));
    m_quietServer = std::make_unique<SandboxServer>();
    LS_START(*m_quietServer);
    for (const char *name : {"node-redisson", "bullmq"}) {
        for (auto *where : {&m_drivers, &m_quietDrivers}) {
            const bool quiet = where == &m_quietDrivers;
            QString error;
            auto d = FixtureDriver::start(m_librariesDir, QString::fromLatin1(name),
                                          (quiet ? m_quietServer : m_server)->port(),
                                          quiet ? QStringLiteral("quiet:") : QStringLiteral("e2e:"), &error);
            QVERIFY2(d, qPrintable(error));
            where->push_back(std::move(d));
        }
    }
    // node-redisson's lock with the default 30 s watchdog, renewed every 10 s: the one frozen later.
    for (const QJsonObject &m : m_drivers.front()->made) {
        if (m.value("lease_ms").toInt() == 30000)
            m_frozenKey = m.value("key").toString().toUtf8();
    }
    QVERIFY(!m_frozenKey.isEmpty());

    // serve: two targets from a config file, passwords from a file and the environment; TLS and basic auth.
    writeFile(m_dir.filePath("exporter.pw"), "exporter-pw\n");
    writeFile(m_dir.filePath("scrape.pw"), "scrape-pw\n");
    int exitCode = -1;
    const QString hash
        = QString::fromUtf8(ProcessReady::runWithInput(TestSupport::cliPath(), {"serve", "--hash-password"},
                                                       "scrape-pw\n", &exitCode)
                                .trimmed());
    QCOMPARE(exitCode, 0);
    writeFile(m_dir.filePath("web.json"),
              QJsonDocument(QJsonObject {{"tls_server_config",
                                          QJsonObject {{"cert_file", m_tls.serverCert()},
                                                       {"key_file", m_tls.serverKey()}}},
                                         {"basic_auth_users", QJsonObject {{"prometheus", hash}}}})
                  .toJson());
    const QJsonArray targets {
        QJsonObject {{"name", "main"},
                     {"port", m_server->port()},
                     {"user", "exporter"},
                     {"password_file", m_dir.filePath("exporter.pw")}},
        QJsonObject {
            {"name", "blind"}, {"port", m_server->port()}, {"user", "nopttl"}, {"password_env", "NOPTTL_PW"}},
        QJsonObject {{"name", "quiet"}, {"port", m_quietServer->port()}}};
    writeFile(m_dir.filePath("serve.json"),
              QJsonDocument(QJsonObject {{"listen", "127.0.0.1:0"},
                                         {"web_config_file", m_dir.filePath("web.json")},
                                         {"targets", targets}})
                  .toJson());
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("NOPTTL_PW", "nopttl-pw");
    const QString port
        = startProcess(m_serve, TestSupport::cliPath(), {"serve", "--config", m_dir.filePath("serve.json")},
                       QRegularExpression("serving https://127\\.0\\.0\\.1:(\\d+)/metrics"), env);
    QVERIFY(!port.isEmpty());

    // Prometheus: scrapes every second, evaluates the rules every second.
    const int promPort = LoopbackPorts::freePort();
    const QByteArray config = QStringLiteral(R"(global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files:
  - %1/lockscope-rules.yml
scrape_configs:
  - job_name: lockscope
    scheme: https
    tls_config:
      ca_file: %2
    basic_auth:
      username: prometheus
      password_file: %3
    static_configs:
      - targets: ['127.0.0.1:%4']
)")
                                  .arg(m_monitoringDir, m_tls.caFile(), m_dir.filePath("scrape.pw"), port)
                                  .toUtf8();
    writeFile(m_dir.filePath("prometheus.yml"), config);
    m_prometheusUrl = QStringLiteral("http://127.0.0.1:%1").arg(promPort);
    const QString ready = startProcess(
        m_prometheus, prometheus,
        {"--config.file=" + m_dir.filePath("prometheus.yml"), "--storage.tsdb.path=" + m_dir.filePath("data"),
         QStringLiteral("--web.listen-address=127.0.0.1:%1").arg(promPort), "--log.level=info"},
        QRegularExpression("(Server is ready to receive web requests)"),
        QProcessEnvironment::systemEnvironment());
    QVERIFY(!ready.isEmpty());
    // Scraped, and the first scans done.
    QTRY_VERIFY_WITH_TIMEOUT(!query("up{job=\"lockscope\"} == 1").isEmpty(), 30000);
    QTRY_VERIFY_WITH_TIMEOUT(query("lockscope_scan_complete{target=\"main\"}").size() == 1, 30000);
    QTRY_VERIFY_WITH_TIMEOUT(query("lockscope_target_up == 1").size() == 3, 30000);
    m_quietSince.start();
    // A target is up 0 until its server first answered: a LockScopeTargetDown pending from those first
    // seconds is gone at the next evaluation, before any case looks.
    QTRY_VERIFY_WITH_TIMEOUT(alertsButTheBlindScan(QString()).isEmpty(), 10000);
}

void TestServePrometheus::healthyRenewersFireNothing()
{
    QElapsedTimer window;
    window.start();
    QStringList seen;
    while (window.elapsed() < 60000) {
        for (const QJsonValue &a : alertsButTheBlindScan(QString()))
            seen << QStringLiteral("%1 %2 %3 (%4)")
                        .arg(labelOf(a, "alertname"), labelOf(a, "target"), labelOf(a, "key"),
                             a.toObject().value("state").toString());
        QTest::qWait(1000);
    }
    seen.removeDuplicates();
    QVERIFY2(seen.isEmpty(), qPrintable(seen.join(u'\n')));
    // And the renewals were seen: the silence is a judgement, not blindness.
    const QJsonArray renewals = query("sum(increase(lockscope_pattern_renewals_total{target=\"main\"}[1m]))");
    QVERIFY(renewals.size() == 1);
    const double n = renewals.first().toObject().value("value").toArray().at(1).toString().toDouble();
    qInfo("%.0f renewals seen by Prometheus in the last minute", n);
    QVERIFY2(n >= 20, qPrintable(QString::number(n)));
    // The frozen lock's period, as exported.
    const QJsonArray period
        = query(QStringLiteral("lockscope_lock_renewal_period_seconds{target=\"main\",key=\"%1\"}")
                    .arg(QString::fromUtf8(m_frozenKey)));
    QCOMPARE(period.size(), 1);
    m_renewalPeriodS = qRound(period.first().toObject().value("value").toArray().at(1).toString().toDouble());
    QVERIFY2(m_renewalPeriodS >= 9 && m_renewalPeriodS <= 11, qPrintable(QString::number(m_renewalPeriodS)));
}

void TestServePrometheus::aFrozenHolderFiresRenewerStalled()
{
    FixtureDriver &holder = *m_drivers.front();
    QCOMPARE(::kill(pid_t(holder.process->processId()), SIGSTOP), 0);
    QElapsedTimer frozen;
    frozen.start();
    constexpr qint64 kForS = 10; // the rule's for:
    const qint64 limitMs = (2 * m_renewalPeriodS + kForS) * 1000;
    qint64 firedAfterMs = -1;
    while (firedAfterMs < 0 && frozen.elapsed() < limitMs + 15000) {
        for (const QJsonValue &a : alerts()) {
            if (labelOf(a, "alertname") == QLatin1String("LockScopeRenewerStalled")
                && labelOf(a, "key") == QString::fromUtf8(m_frozenKey))
                firedAfterMs = frozen.elapsed();
        }
        QTest::qWait(250);
    }
    // The holder stays dead: its locks are left to expire, as a crashed process leaves them.
    holder.process->kill();
    holder.process->waitForFinished(5000);
    QVERIFY2(firedAfterMs > 0, "LockScopeRenewerStalled never fired for the frozen holder");
    qInfo("LockScopeRenewerStalled fired %lld ms after the freeze (limit: 2 × %lld s + for %lld s = %lld ms)",
          firedAfterMs, m_renewalPeriodS, kForS, limitMs);
    QVERIFY2(firedAfterMs <= limitMs, qPrintable(QString::number(firedAfterMs)));
    // Only for the frozen holder's lock: BullMQ's worker kept renewing.
    for (const QJsonValue &a : alerts()) {
        if (labelOf(a, "alertname") == QLatin1String("LockScopeRenewerStalled"))
            QVERIFY2(labelOf(a, "library") != QLatin1String("BullMQ"), qPrintable(labelOf(a, "key")));
    }
}

void TestServePrometheus::withoutPttlThereIsNoTtlSample()
{
    // The locks are there for the user without PTTL…
    QVERIFY(!query("lockscope_lock_held_at_least_seconds{target=\"blind\"}").isEmpty());
    // …but not one TTL sample (never a 0), and the unknowns counted with their reason.
    QVERIFY(query("lockscope_lock_ttl_seconds{target=\"blind\"}").isEmpty());
    const QJsonArray unknown
        = query("lockscope_unknown_values{target=\"blind\",field=\"pttl_ms\",reason=\"acl\"}");
    QCOMPARE(unknown.size(), 1);
    QVERIFY(unknown.first().toObject().value("value").toArray().at(1).toString().toDouble() > 0);
    QVERIFY(!query("lockscope_lock_ttl_seconds{target=\"main\"}").isEmpty());
    // The scan says it is incomplete, and why, so the alert for it has its evidence.
    const QJsonArray complete = query("lockscope_scan_complete{target=\"blind\"}");
    QCOMPARE(complete.size(), 1);
    QCOMPARE(complete.first().toObject().value("value").toArray().at(1).toString(), QStringLiteral("0"));
    QCOMPARE(query("lockscope_scan_incomplete_reason{target=\"blind\",reason=\"acl\"}").size(), 1);
    bool blindPending = false;
    for (const QJsonValue &a : alerts(QStringLiteral("pending")))
        blindPending |= labelOf(a, "alertname") == QLatin1String("LockScopeScanIncomplete")
            && labelOf(a, "target") == QLatin1String("blind");
    QVERIFY(blindPending);
}

void TestServePrometheus::everyDashboardQueryRuns()
{
    QFile f(m_monitoringDir + "/lockscope-dashboard.json");
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QJsonObject dashboard = QJsonDocument::fromJson(f.readAll()).object();
    int queries = 0, withData = 0;
    QStringList failed;
    for (const QJsonValue &panel : dashboard.value("panels").toArray()) {
        for (const QJsonValue &target : panel.toObject().value("targets").toArray()) {
            // Grafana's variables as Grafana fills them in for "All" and a 1 s scrape interval.
            QString expr = target.toObject().value("expr").toString();
            expr.replace(QLatin1String("$target"), QLatin1String(".*"))
                .replace(QLatin1String("$__rate_interval"), QLatin1String("1m"));
            QUrlQuery q;
            q.addQueryItem("query", QString::fromUtf8(QUrl::toPercentEncoding(expr)));
            const QJsonObject r = api("/api/v1/query", q);
            ++queries;
            if (r.value("status").toString() != QLatin1String("success"))
                failed << QStringLiteral("%1: %2").arg(expr, r.value("error").toString());
            else if (!r.value("data").toObject().value("result").toArray().isEmpty())
                ++withData;
        }
    }
    qInfo("%d dashboard queries ran, %d returned data", queries, withData);
    QVERIFY2(failed.isEmpty(), qPrintable(failed.join(u'\n')));
    QVERIFY(queries >= 20);
}

void TestServePrometheus::aKilledServerIsDownAndFiresTargetDown()
{
    QVERIFY(!query("lockscope_lock_ttl_seconds{target=\"main\"}").isEmpty());
    m_server->kill();
    QElapsedTimer killed;
    killed.start();
    QTRY_VERIFY_WITH_TIMEOUT(query("lockscope_target_up{target=\"main\"} == 0").size() == 1, 15000);
    qInfo("lockscope_target_up went to 0 in Prometheus %lld ms after the kill", killed.elapsed());
    // Its lock series are withdrawn, not frozen at their last values.
    QVERIFY(query("lockscope_lock_ttl_seconds{target=\"main\"}").isEmpty());
    QVERIFY(query("lockscope_locks{target=\"main\"}").isEmpty());
    QTRY_VERIFY_WITH_TIMEOUT(
        [&] {
            for (const QJsonValue &a : alerts()) {
                if (labelOf(a, "alertname") == QLatin1String("LockScopeTargetDown")
                    && labelOf(a, "target") == "main")
                    return true;
            }
            return false;
        }(),
        50000);
    qInfo("LockScopeTargetDown fired %lld ms after the kill (for: 30 s)", killed.elapsed());
}

void TestServePrometheus::healthyRenewersFireNothingInThreeMinutes()
{
    constexpr qint64 kWindowS = 180;
    QStringList seen;
    const auto look = [&] {
        for (const QJsonValue &a : alerts(QString())) {
            if (labelOf(a, "target") == QLatin1String("quiet"))
                seen << QStringLiteral("%1 %2 (%3)")
                            .arg(labelOf(a, "alertname"), labelOf(a, "key"),
                                 a.toObject().value("state").toString());
        }
    };
    while (m_quietSince.elapsed() < kWindowS * 1000) {
        look();
        QTest::qWait(1000);
    }
    look();
    seen.removeDuplicates();
    QVERIFY2(seen.isEmpty(), qPrintable(seen.join(u'\n')));
    // Prometheus's own record agrees: no ALERTS sample (pending or firing) for the quiet target at all.
    const QString window = QStringLiteral("[%1s]").arg(kWindowS);
    QVERIFY(query("count_over_time(ALERTS{target=\"quiet\"}" + window + ")").isEmpty());
    // The same question finds the alerts of the target that was frozen and killed: it can answer yes.
    QVERIFY(!query("count_over_time(ALERTS{target=\"main\"}" + window + ")").isEmpty());
    // The target was read the whole time, and its renewals were seen: the silence is a judgement.
    const QJsonArray down = query("min_over_time(lockscope_target_up{target=\"quiet\"}" + window + ")");
    QCOMPARE(down.size(), 1);
    QCOMPARE(down.first().toObject().value("value").toArray().at(1).toString(), QStringLiteral("1"));
    const QJsonArray renewals
        = query("sum(increase(lockscope_pattern_renewals_total{target=\"quiet\"}" + window + "))");
    QCOMPARE(renewals.size(), 1);
    const double n = renewals.first().toObject().value("value").toArray().at(1).toString().toDouble();
    qInfo("the quiet target: %.0f renewals seen by Prometheus in %lld s, no alert", n, kWindowS);
    QVERIFY2(n >= 60, qPrintable(QString::number(n)));
}

void TestServePrometheus::cleanupTestCase()
{
    for (QProcess *p : {&m_prometheus, &m_serve}) {
        if (p->state() == QProcess::Running) {
            ::kill(pid_t(p->processId()), SIGTERM);
            if (!p->waitForFinished(10000))
                p->kill();
        }
    }
    for (auto *drivers : {&m_drivers, &m_quietDrivers}) {
        for (auto &d : *drivers) {
            if (d->process->state() == QProcess::Running)
                d->stop();
        }
    }
}

QTEST_GUILESS_MAIN(TestServePrometheus)
#include "tst_serveprometheus.moc"
