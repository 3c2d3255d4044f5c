// MetricsServer: every answer goes through answer(); an unauthorised request learns nothing but 401.
#include "metricsserver.h"

#include "httpconnection.h"
#include "httprequesthead.h"
#include "httpresponse.h"
#include "webconfig.h"

#include <QSslSocket>
#include <QTcpSocket>
#include <QTimer>
#include <QUrl>

#include <unistd.h>

namespace {

// How long a refused connection may take to read its 503.
constexpr int kRefusalLingerMs = 1000;
constexpr qint64 kRefusalNoteEveryMs = 60'000;

} // namespace

MetricsServer::MetricsServer(const WebConfig *web, Render render, const HttpLimits &limits, QObject *parent)
    : MetricsServer(
          web,
          Prepare([render = std::move(render)](OpenMetricsWriter::Format format) {
              const QByteArray body = render(format);
              return std::function<QByteArray()>([body] { return body; });
          }),
          limits, parent)
{
}

MetricsServer::MetricsServer(const WebConfig *web, Prepare prepare, const HttpLimits &limits, QObject *parent)
    : QTcpServer(parent)
    , m_web(web)
    , m_prepare(std::move(prepare))
    , m_limits(limits)
{
    // Two scrapes at once at most are being written; more wait their turn (memory stays bounded).
    m_writers.setMaxThreadCount(2);
}

MetricsServer::~MetricsServer()
{
    m_writers.waitForDone();
}

bool MetricsServer::parseListen(const QString &hostPort, QHostAddress *address, quint16 *port)
{
    const qsizetype colon = hostPort.lastIndexOf(u':');
    if (colon < 0)
        return false;
    QString host = hostPort.left(colon);
    bool ok = false;
    const int p = hostPort.mid(colon + 1).toInt(&ok);
    if (!ok || p < 0 || p > 65535)
        return false;
    if (host.startsWith(u'[') && host.endsWith(u']'))
        host = host.mid(1, host.size() - 2);
    else if (host.contains(u':'))
        return false; // an IPv6 address goes in brackets
    if (host.isEmpty())
        *address = QHostAddress::Any;
    else if (host == QLatin1String("localhost"))
        *address = QHostAddress::LocalHost;
    else if (!address->setAddress(host))
        return false;
    *port = quint16(p);
    return true;
}

bool MetricsServer::listenOn(const QString &hostPort, QString *error)
{
    quint16 port = 0;
    if (!parseListen(hostPort, &m_address, &port)) {
        *error = QStringLiteral("--listen %1: expected HOST:PORT with an IP address").arg(hostPort);
        return false;
    }
    if (!listen(m_address, port)) {
        *error = QStringLiteral("--listen %1: cannot listen there (the port is taken, or the address is not "
                                "this machine's)")
                     .arg(hostPort);
        return false;
    }
    m_port = serverPort();
    return true;
}

QString MetricsServer::url() const
{
    const QString host = m_address.protocol() == QAbstractSocket::IPv6Protocol
        ? QStringLiteral("[%1]").arg(m_address.toString())
        : m_address == QHostAddress::Any ? QStringLiteral("0.0.0.0")
                                         : m_address.toString();
    return QStringLiteral("%1://%2:%3")
        .arg(m_web && m_web->tlsEnabled() ? QStringLiteral("https") : QStringLiteral("http"), host)
        .arg(m_port);
}

void MetricsServer::incomingConnection(qintptr descriptor)
{
    if (m_open >= m_limits.maxConnections) {
        refuse(descriptor);
        return;
    }
    const bool tls = m_web && m_web->tlsEnabled();
    QTcpSocket *socket = tls ? new QSslSocket : new QTcpSocket;
    if (!socket->setSocketDescriptor(descriptor)) {
        delete socket;
        ::close(int(descriptor));
        return;
    }
    if (tls) {
        auto *ssl = static_cast<QSslSocket *>(socket);
        ssl->setSslConfiguration(m_web->sslConfiguration());
        ssl->startServerEncryption();
    }
    ++m_open;
    auto *connection = new HttpConnection(
        socket, m_limits,
        [this](const HttpRequestHead &head, const HttpConnection::Respond &respond) {
            answer(head, respond);
        },
        this);
    connect(connection, &HttpConnection::finished, this, [this, connection] {
        --m_open;
        connection->deleteLater();
    });
}

void MetricsServer::refuse(qintptr descriptor)
{
    ++m_refused;
    if (!m_sinceRefusalNote.isValid() || m_sinceRefusalNote.elapsed() >= kRefusalNoteEveryMs) {
        emit note(QStringLiteral("HTTP: refused %1 connection(s) since the last note: %2 were open already, "
                                 "the most --http-max-connections allows")
                      .arg(m_refused - m_refusedNoted)
                      .arg(m_limits.maxConnections));
        m_refusedNoted = m_refused;
        m_sinceRefusalNote.start();
    }
    // Over TLS a 503 would need a handshake first, the very work the cap saves: those are closed unanswered.
    if (m_web && m_web->tlsEnabled()) {
        ::close(int(descriptor));
        return;
    }
    auto *socket = new QTcpSocket(this);
    if (!socket->setSocketDescriptor(descriptor)) {
        delete socket;
        ::close(int(descriptor));
        return;
    }
    HttpResponse busy(503, QByteArrayLiteral("too many connections; try again\n"));
    busy.addHeader("Retry-After", "1");
    socket->write(busy.serialize(false));
    connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
    QTimer::singleShot(kRefusalLingerMs, socket, &QTcpSocket::abort);
    socket->disconnectFromHost();
}

void MetricsServer::answer(const HttpRequestHead &head,
                           const std::function<void(const HttpResponse &)> &respond)
{
    const QString path = QUrl::fromEncoded(head.target()).path();
    const bool authorized = !m_web || m_web->authorize(head.header("authorization"));
    const bool read = head.method() == "GET" || head.method() == "HEAD";
    if (!authorized || !read || path != QLatin1String("/metrics")) {
        respond(answerNow(head));
        return;
    }
    ++m_scrapes;
    const OpenMetricsWriter::Format format = OpenMetricsWriter::negotiate(head.header("accept"));
    std::function<QByteArray()> write = m_prepare(format);
    // The server outlives the writers (its destructor waits for them), so `this` is safe to post to.
    m_writers.start([this, write = std::move(write), respond, format] {
        const QByteArray body = write();
        QMetaObject::invokeMethod(
            this,
            [respond, body, format] {
                respond(HttpResponse(200, body, OpenMetricsWriter::contentType(format)));
            },
            Qt::QueuedConnection);
    });
}

HttpResponse MetricsServer::answerNow(const HttpRequestHead &head)
{
    if (m_web && !m_web->authorize(head.header("authorization"))) {
        HttpResponse r(401, QByteArrayLiteral("Unauthorized\n"));
        r.addHeader("WWW-Authenticate", "Basic realm=\"lockscope\"");
        return r;
    }
    if (head.method() != "GET" && head.method() != "HEAD") {
        HttpResponse r(405, QByteArrayLiteral("Only GET is served\n"));
        r.addHeader("Allow", "GET, HEAD");
        r.setCloses(true); // a body may follow, which is never read
        return r;
    }
    const QString path = QUrl::fromEncoded(head.target()).path();
    if (path == QLatin1String("/healthz"))
        return HttpResponse(200, QByteArrayLiteral("ok\n"));
    if (path == QLatin1String("/"))
        return HttpResponse(
            200,
            QByteArrayLiteral("<!DOCTYPE html><html><head><title>LockScope exporter</title></head>"
                              "<body><h1>LockScope exporter</h1><p><a href=\"/metrics\">Metrics"
                              "</a> &middot; <a href=\"/healthz\">Health</a></p></body></html>\n"),
            QByteArrayLiteral("text/html; charset=utf-8"));
    return HttpResponse(404, QByteArrayLiteral("Not found: try /metrics\n"));
}
