// `serve`'s HTTP server in-process (a real MetricsServer on a free loopback port), spoken to byte by byte:
// keep-alive and pipelining, Connection: close and HTTP/1.0, a head sent half (408, then closed: slowloris),
// an endless header of 64 MB (431 or closed, with the process's memory barely moved), bad and body-carrying
// requests, the connection cap (503), basic auth (401) and TLS.
#include "httplimits.h"
#include "metricsserver.h"
#include "tlsfixture.h"
#include "webconfig.h"

#include <QDeadlineTimer>
#include <QEventLoop>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QSslSocket>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <memory>

namespace {

struct Response
{
    int status = 0;
    QByteArray head;
    QByteArray body;

    QByteArray header(const QByteArray &name) const
    {
        for (const QByteArray &line : head.split('\n')) {
            const qsizetype colon = line.indexOf(':');
            if (colon > 0 && line.left(colon).trimmed().compare(name, Qt::CaseInsensitive) == 0)
                return line.mid(colon + 1).trimmed();
        }
        return {};
    }
};

// A raw client: what it received so far, and a socket that may be a QSslSocket.
struct Client
{
    std::unique_ptr<QTcpSocket> socket;
    QByteArray in;

    bool closed() const { return socket->state() == QAbstractSocket::UnconnectedState; }
    // Whatever came, into `in` (a socket closed by an error is no longer open).
    void drain()
    {
        if (socket->isOpen())
            in += socket->readAll();
    }
};

// Runs the event loop until `done` is true or `ms` pass; whether it became true.
template<class Done>
bool waitFor(QAbstractSocket &socket, Done done, int ms)
{
    QDeadlineTimer deadline(ms);
    while (!done()) {
        if (deadline.hasExpired())
            return false;
        QEventLoop loop;
        QObject::connect(&socket, &QIODevice::readyRead, &loop, &QEventLoop::quit);
        QObject::connect(&socket, &QAbstractSocket::stateChanged, &loop, &QEventLoop::quit);
        QObject::connect(&socket, &QIODevice::bytesWritten, &loop, &QEventLoop::quit);
        QTimer::singleShot(int(qBound(qint64(1), deadline.remainingTime(), qint64(200))), &loop, &QEventLoop::quit);
        loop.exec();
    }
    return true;
}

// Takes one whole answer from what the client received (waiting for it); false when none comes.
bool takeResponse(Client &c, Response *r, bool headOnly = false, int ms = 15000)
{
    qsizetype end = -1;
    qsizetype length = 0;
    const auto complete = [&] {
        c.drain();
        end = c.in.indexOf("\r\n\r\n");
        if (end < 0)
            return false;
        Response probe;
        probe.head = c.in.left(end);
        length = headOnly ? 0 : probe.header("Content-Length").toLongLong();
        return c.in.size() >= end + 4 + length;
    };
    if (!waitFor(*c.socket, [&] { return complete() || (c.closed() && c.socket->bytesAvailable() == 0); }, ms)
        || !complete())
        return false;
    r->head = c.in.left(end);
    r->body = c.in.mid(end + 4, length);
    r->status = r->head.mid(9, 3).toInt();
    c.in.remove(0, end + 4 + length);
    return r->head.startsWith("HTTP/1.1 ");
}

qint64 residentKb()
{
    QFile status(QStringLiteral("/proc/self/status"));
    if (!status.open(QIODevice::ReadOnly))
        return -1;
    for (const QByteArray &line : status.readAll().split('\n'))
        if (line.startsWith("VmRSS:"))
            return line.mid(6).trimmed().split(' ').value(0).toLongLong();
    return -1;
}

} // namespace

class TestServeHttp : public QObject
{
    Q_OBJECT
private slots:
    void init();
    void cleanup();
    void keepAliveAndPipelining();
    void routesAndMethods();
    void connectionCloseIsHonoured();
    void halfSentHeadTimesOut();
    void idleKeptAliveConnectionCloses();
    void endlessHeaderKeepsMemoryBounded();
    void headerLimitIsExact();
    void badRequestsAreRefused_data();
    void badRequestsAreRefused();
    void connectionCap();
    void basicAuth();
    void tls();

private:
    // A server with these limits (and web config) on a free loopback port.
    void start(const HttpLimits &limits = {}, const WebConfig *web = nullptr);
    Client connectTo(bool tls = false);
    QByteArray exchange(Client &c, const QByteArray &request, Response *r);
    std::optional<WebConfig> webConfig(const QJsonObject &json);

    std::unique_ptr<MetricsServer> m_server;
    QTemporaryDir m_dir;
    QList<QSslCertificate> m_trusted;
    int m_renders = 0;
};

void TestServeHttp::init()
{
    m_renders = 0;
    m_trusted.clear();
}

void TestServeHttp::cleanup()
{
    m_server.reset();
}

void TestServeHttp::start(const HttpLimits &limits, const WebConfig *web)
{
    m_server = std::make_unique<MetricsServer>(
        web,
        [this](OpenMetricsWriter::Format format) {
            ++m_renders;
            return format == OpenMetricsWriter::Format::OpenMetrics ? QByteArray("up 1\n# EOF\n")
                                                                     : QByteArray("up 1\n");
        },
        limits);
    QString error;
    QVERIFY2(m_server->listenOn(QStringLiteral("127.0.0.1:0"), &error), qPrintable(error));
    QVERIFY(m_server->port() != 0);
}

Client TestServeHttp::connectTo(bool tls)
{
    Client c;
    if (tls) {
        auto *ssl = new QSslSocket;
        QSslConfiguration config = QSslConfiguration::defaultConfiguration();
        config.setCaCertificates(m_trusted);
        ssl->setSslConfiguration(config);
        c.socket.reset(ssl);
        ssl->connectToHostEncrypted(QStringLiteral("127.0.0.1"), m_server->port());
        waitFor(*ssl, [ssl] { return ssl->isEncrypted() || ssl->state() == QAbstractSocket::UnconnectedState; },
                15000);
    } else {
        c.socket = std::make_unique<QTcpSocket>();
        c.socket->connectToHost(QHostAddress::LocalHost, m_server->port());
        waitFor(*c.socket, [&c] { return c.socket->state() != QAbstractSocket::ConnectingState
                                        && c.socket->state() != QAbstractSocket::HostLookupState; },
                15000);
    }
    return c;
}

std::optional<WebConfig> TestServeHttp::webConfig(const QJsonObject &json)
{
    QFile f(m_dir.filePath(QStringLiteral("web.json")));
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate))
        return std::nullopt;
    f.write(QJsonDocument(json).toJson());
    f.close();
    QString error;
    std::optional<WebConfig> web = WebConfig::load(f.fileName(), &error);
    if (!web)
        qWarning("%s", qPrintable(error));
    return web;
}

void TestServeHttp::keepAliveAndPipelining()
{
    start();
    Client c = connectTo();
    QCOMPARE(c.socket->state(), QAbstractSocket::ConnectedState);
    c.socket->write("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
    Response r;
    QVERIFY(takeResponse(c, &r));
    QCOMPARE(r.status, 200);
    QCOMPARE(r.body, QByteArray("ok\n"));
    QCOMPARE(r.header("Connection"), QByteArray("keep-alive"));
    // The second request on the same connection: what Prometheus does every scrape.
    c.socket->write("GET /metrics HTTP/1.1\r\nHost: x\r\n"
                    "Accept: application/openmetrics-text;version=1.0.0,*/*;q=0.1\r\n\r\n");
    QVERIFY(takeResponse(c, &r));
    QCOMPARE(r.status, 200);
    QVERIFY2(r.header("Content-Type").startsWith("application/openmetrics-text"), r.head.constData());
    QCOMPARE(r.body, QByteArray("up 1\n# EOF\n"));
    QCOMPARE(m_server->scrapes(), quint64(1));
    // Three pipelined in one write, answered in order.
    c.socket->write("GET /metrics HTTP/1.1\r\n\r\nHEAD /healthz HTTP/1.1\r\n\r\nGET /nothing HTTP/1.1\r\n\r\n");
    QVERIFY(takeResponse(c, &r));
    QCOMPARE(r.status, 200);
    QVERIFY2(r.header("Content-Type").startsWith("text/plain; version=0.0.4"), r.head.constData());
    QVERIFY(takeResponse(c, &r, true));
    QCOMPARE(r.status, 200);
    QCOMPARE(r.header("Content-Length"), QByteArray("3"));
    QVERIFY(r.body.isEmpty());
    QVERIFY(takeResponse(c, &r));
    QCOMPARE(r.status, 404);
    QCOMPARE(c.socket->state(), QAbstractSocket::ConnectedState);
    QCOMPARE(m_server->openConnections(), 1);
    c.socket->disconnectFromHost();
    QTRY_COMPARE_WITH_TIMEOUT(m_server->openConnections(), 0, 10000);
}

void TestServeHttp::routesAndMethods()
{
    start();
    Client c = connectTo();
    Response r;
    c.socket->write("GET / HTTP/1.1\r\n\r\n");
    QVERIFY(takeResponse(c, &r));
    QCOMPARE(r.status, 200);
    QVERIFY(r.header("Content-Type").startsWith("text/html"));
    QVERIFY(r.body.contains("/metrics"));
    // An absolute target, as a proxy sends it.
    c.socket->write("GET http://127.0.0.1/healthz HTTP/1.1\r\n\r\n");
    QVERIFY(takeResponse(c, &r));
    QCOMPARE(r.body, QByteArray("ok\n"));
    // Anything but GET and HEAD: 405, and the connection ends (a body may follow it, unread).
    c.socket->write("POST /metrics HTTP/1.1\r\nContent-Length: 4\r\n\r\nabcd");
    QVERIFY(takeResponse(c, &r));
    QCOMPARE(r.status, 405);
    QCOMPARE(r.header("Allow"), QByteArray("GET, HEAD"));
    QCOMPARE(r.header("Connection"), QByteArray("close"));
    QVERIFY(waitFor(*c.socket, [&c] { return c.closed(); }, 10000));
}

void TestServeHttp::connectionCloseIsHonoured()
{
    start();
    for (const QByteArray &request : {QByteArray("GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n"),
                                      QByteArray("GET /healthz HTTP/1.0\r\n\r\n")}) {
        Client c = connectTo();
        c.socket->write(request);
        Response r;
        QVERIFY(takeResponse(c, &r));
        QCOMPARE(r.status, 200);
        QCOMPARE(r.header("Connection"), QByteArray("close"));
        QVERIFY2(waitFor(*c.socket, [&c] { return c.closed(); }, 10000), request.constData());
    }
    // HTTP/1.0 asking for keep-alive keeps it.
    Client c = connectTo();
    c.socket->write("GET /healthz HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
    Response r;
    QVERIFY(takeResponse(c, &r));
    QCOMPARE(r.header("Connection"), QByteArray("keep-alive"));
    c.socket->write("GET /healthz HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
    QVERIFY(takeResponse(c, &r));
    QCOMPARE(r.status, 200);
    QTRY_COMPARE_WITH_TIMEOUT(m_server->openConnections(), 1, 10000);
}

void TestServeHttp::halfSentHeadTimesOut()
{
    HttpLimits limits;
    limits.headerTimeoutMs = 300;
    start(limits);
    // Half a head, then nothing: answered 408 and closed once the head's time is up.
    Client c = connectTo();
    c.socket->write("GET /metrics HTTP/1.1\r\nHost: x\r\nAcc");
    Response r;
    QVERIFY(takeResponse(c, &r));
    QCOMPARE(r.status, 408);
    QVERIFY(waitFor(*c.socket, [&c] { return c.closed(); }, 10000));
    // Sending a byte now and then does not extend it: the deadline is the head's, not the last byte's.
    Client drip = connectTo();
    QSignalSpy closed(drip.socket.get(), &QAbstractSocket::disconnected);
    const QByteArray head = "GET /metrics HTTP/1.1\r\nHost: x\r\n";
    qsizetype sent = 0;
    QTimer dripper;
    connect(&dripper, &QTimer::timeout, this, [&] {
        if (sent < head.size() && drip.socket->state() == QAbstractSocket::ConnectedState)
            drip.socket->write(head.mid(sent++, 1));
    });
    dripper.start(20);
    QVERIFY(takeResponse(drip, &r));
    QCOMPARE(r.status, 408);
    QTRY_COMPARE_WITH_TIMEOUT(closed.count(), 1, 10000);
    dripper.stop();
    // A connection that sends nothing at all is closed the same way.
    Client silent = connectTo();
    QVERIFY(takeResponse(silent, &r));
    QCOMPARE(r.status, 408);
    QVERIFY(waitFor(*silent.socket, [&silent] { return silent.closed(); }, 10000));
    QTRY_COMPARE_WITH_TIMEOUT(m_server->openConnections(), 0, 10000);
}

void TestServeHttp::idleKeptAliveConnectionCloses()
{
    HttpLimits limits;
    limits.idleTimeoutMs = 300;
    start(limits);
    Client c = connectTo();
    c.socket->write("GET /healthz HTTP/1.1\r\n\r\n");
    Response r;
    QVERIFY(takeResponse(c, &r));
    QCOMPARE(r.status, 200);
    // Idle between requests: closed quietly, with no answer to a request that never came.
    QVERIFY(waitFor(*c.socket, [&c] { return c.closed(); }, 10000));
    c.drain();
    QCOMPARE(c.in, QByteArray());
    QTRY_COMPARE_WITH_TIMEOUT(m_server->openConnections(), 0, 10000);
}

void TestServeHttp::endlessHeaderKeepsMemoryBounded()
{
    start();
    const qint64 before = residentKb();
    QVERIFY(before > 0);
    Client c = connectTo();
    const QByteArray chunk(64 * 1024, 'a');
    constexpr qint64 kTotal = 64LL * 1024 * 1024;
    qint64 sent = 0;
    const auto pump = [&] {
        // Never more than a few chunks waiting on our side: the test must not be the one that grows.
        while (sent < kTotal && c.socket->state() == QAbstractSocket::ConnectedState
               && c.socket->bytesToWrite() < 4 * chunk.size()) {
            c.socket->write(chunk);
            sent += chunk.size();
        }
    };
    connect(c.socket.get(), &QIODevice::bytesWritten, this, pump);
    c.socket->write("GET /metrics HTTP/1.1\r\nX-Endless: ");
    pump();
    QVERIFY(waitFor(*c.socket, [&] {
        c.drain();
        return c.closed() || sent >= kTotal;
    }, 120000));
    // Refused at the limit: closed long before the 64 MB are sent, having said 431 if it had the time.
    QVERIFY2(waitFor(*c.socket, [&c] { return c.closed(); }, 15000), qPrintable(QString::number(sent)));
    c.drain();
    QVERIFY2(c.in.isEmpty() || c.in.startsWith("HTTP/1.1 431 "), c.in.left(100).constData());
    QVERIFY2(sent < kTotal, qPrintable(QString::number(sent)));
    const qint64 after = residentKb();
    qInfo("sent %lld bytes before the close; resident memory %lld kB before, %lld kB after; answer: %s", sent,
          before, after, c.in.left(40).simplified().constData());
    QVERIFY2(after - before < 32 * 1024,
             qPrintable(QStringLiteral("resident memory grew from %1 kB to %2 kB").arg(before).arg(after)));
    QTRY_COMPARE_WITH_TIMEOUT(m_server->openConnections(), 0, 10000);
    QCOMPARE(m_renders, 0);
}

void TestServeHttp::headerLimitIsExact()
{
    HttpLimits limits;
    limits.maxHeaderBytes = 1024;
    start(limits);
    const QByteArray start = "GET /healthz HTTP/1.1\r\nX-Pad: ";
    const QByteArray end = "\r\n\r\n";
    const QByteArray exact = start + QByteArray(1024 - start.size() - end.size(), 'p') + end;
    QCOMPARE(exact.size(), 1024);
    Client c = connectTo();
    Response r;
    c.socket->write(exact);
    QVERIFY(takeResponse(c, &r));
    QCOMPARE(r.status, 200);
    // The limit is the head's, not the connection's: the next request has all of it again.
    c.socket->write(exact);
    QVERIFY(takeResponse(c, &r));
    QCOMPARE(r.status, 200);
    c.socket->write(start + QByteArray(1024 - start.size() - end.size() + 1, 'p') + end);
    QVERIFY(takeResponse(c, &r));
    QCOMPARE(r.status, 431);
    QVERIFY(waitFor(*c.socket, [&c] { return c.closed(); }, 10000));
}

void TestServeHttp::badRequestsAreRefused_data()
{
    QTest::addColumn<QByteArray>("request");
    QTest::addColumn<int>("status");
    QTest::newRow("not http") << QByteArray("hello\r\n") << 400;
    QTest::newRow("folded") << QByteArray("GET / HTTP/1.1\r\nX-A: 1\r\n 2\r\n\r\n") << 400;
    QTest::newRow("http/2 preface") << QByteArray("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n") << 505;
    QTest::newRow("GET with a body") << QByteArray("GET /metrics HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc")
                                     << 400;
    QTest::newRow("GET chunked") << QByteArray("GET /metrics HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n")
                                 << 400;
    QTest::newRow("too large") << QByteArray("GET / HTTP/1.1\r\nX-A: " + QByteArray(20000, 'a') + "\r\n\r\n")
                               << 431;
}

void TestServeHttp::badRequestsAreRefused()
{
    QFETCH(QByteArray, request);
    QFETCH(int, status);
    start();
    Client c = connectTo();
    c.socket->write(request);
    Response r;
    QVERIFY(takeResponse(c, &r));
    QCOMPARE(r.status, status);
    QCOMPARE(r.header("Connection"), QByteArray("close"));
    QVERIFY(waitFor(*c.socket, [&c] { return c.closed(); }, 10000));
    QCOMPARE(m_renders, 0);
}

void TestServeHttp::connectionCap()
{
    HttpLimits limits;
    limits.maxConnections = 2;
    start(limits);
    QSignalSpy notes(m_server.get(), &MetricsServer::note);
    Client a = connectTo();
    Client b = connectTo();
    Response r;
    for (Client *c : {&a, &b}) {
        c->socket->write("GET /healthz HTTP/1.1\r\n\r\n");
        QVERIFY(takeResponse(*c, &r));
        QCOMPARE(r.status, 200);
    }
    QCOMPARE(m_server->openConnections(), 2);
    // A third is told to come back, and closed.
    Client third = connectTo();
    QVERIFY(takeResponse(third, &r));
    QCOMPARE(r.status, 503);
    QVERIFY(waitFor(*third.socket, [&third] { return third.closed(); }, 10000));
    QCOMPARE(m_server->refusedConnections(), quint64(1));
    QCOMPARE(notes.count(), 1);
    QVERIFY(notes.at(0).at(0).toString().contains("--http-max-connections"));
    // The ones served are not disturbed; once one leaves, a newcomer is served.
    a.socket->write("GET /healthz HTTP/1.1\r\n\r\n");
    QVERIFY(takeResponse(a, &r));
    QCOMPARE(r.status, 200);
    b.socket->disconnectFromHost();
    QTRY_COMPARE_WITH_TIMEOUT(m_server->openConnections(), 1, 10000);
    Client d = connectTo();
    d.socket->write("GET /healthz HTTP/1.1\r\n\r\n");
    QVERIFY(takeResponse(d, &r));
    QCOMPARE(r.status, 200);
}

void TestServeHttp::basicAuth()
{
    QString error;
    const QByteArray hash = WebConfig::hashBcrypt("scrape-pw", &error);
    QVERIFY2(!hash.isEmpty(), qPrintable(error));
    const std::optional<WebConfig> web
        = webConfig({{"basic_auth_users", QJsonObject {{"prometheus", QString::fromUtf8(hash)}}}});
    QVERIFY(web);
    start({}, &*web);
    Client c = connectTo();
    Response r;
    c.socket->write("GET /metrics HTTP/1.1\r\n\r\n");
    QVERIFY(takeResponse(c, &r));
    QCOMPARE(r.status, 401);
    QCOMPARE(r.header("WWW-Authenticate"), QByteArray("Basic realm=\"lockscope\""));
    c.socket->write("GET /metrics HTTP/1.1\r\nAuthorization: Basic " + QByteArray("prometheus:wrong").toBase64()
                    + "\r\n\r\n");
    QVERIFY(takeResponse(c, &r));
    QCOMPARE(r.status, 401);
    // Even a method we refuse learns nothing before it is authorised.
    c.socket->write("POST /metrics HTTP/1.1\r\n\r\n");
    QVERIFY(takeResponse(c, &r));
    QCOMPARE(r.status, 401);
    c.socket->write("GET /metrics HTTP/1.1\r\nauthorization: Basic "
                    + QByteArray("prometheus:scrape-pw").toBase64() + "\r\n\r\n");
    QVERIFY(takeResponse(c, &r));
    QCOMPARE(r.status, 200);
    QCOMPARE(r.body, QByteArray("up 1\n"));
    QCOMPARE(m_renders, 1);
}

void TestServeHttp::tls()
{
    TlsFixture certificates;
    QVERIFY2(certificates.create(), qPrintable(certificates.errorString()));
    const std::optional<WebConfig> web = webConfig(
        {{"tls_server_config",
          QJsonObject {{"cert_file", certificates.serverCert()}, {"key_file", certificates.serverKey()}}}});
    QVERIFY(web);
    HttpLimits limits;
    limits.headerTimeoutMs = 2000; // a handshake on a loaded machine must fit in it, a stalled one must not
    start(limits, &*web);
    QVERIFY(m_server->url().startsWith("https://"));
    m_trusted = QSslCertificate::fromPath(certificates.caFile());
    Client c = connectTo(true);
    QVERIFY(static_cast<QSslSocket *>(c.socket.get())->isEncrypted());
    Response r;
    for (int i = 0; i < 2; ++i) {
        c.socket->write("GET /healthz HTTP/1.1\r\n\r\n");
        QVERIFY(takeResponse(c, &r));
        QCOMPARE(r.status, 200);
        QCOMPARE(r.body, QByteArray("ok\n"));
    }
    c.socket->write("GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n");
    QVERIFY(takeResponse(c, &r));
    QVERIFY(waitFor(*c.socket, [&c] { return c.closed(); }, 10000));
    // A connection that never finishes its handshake is closed when the head's time is up, unanswered.
    Client stalled = connectTo();
    QVERIFY(waitFor(*stalled.socket, [&stalled] { return stalled.closed(); }, 10000));
    // Plain HTTP to the TLS port gets no answer in plain text.
    Client plain = connectTo();
    plain.socket->write("GET /healthz HTTP/1.1\r\n\r\n");
    QVERIFY(waitFor(*plain.socket, [&plain] {
        plain.drain();
        return plain.closed();
    }, 10000));
    QVERIFY(!plain.in.startsWith("HTTP/"));
    QTRY_COMPARE_WITH_TIMEOUT(m_server->openConnections(), 0, 10000);
}

QTEST_GUILESS_MAIN(TestServeHttp)
#include "tst_servehttp.moc"
