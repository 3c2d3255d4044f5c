// MetricsServer: every answer goes through one responder; an unauthorised request learns nothing but 401.
#include "metricsserver.h"

#include "webconfig.h"

#include <QHttpServerRequest>
#include <QHttpServerResponder>

MetricsServer::MetricsServer(const WebConfig *web, Render render, QObject *parent)
    : QAbstractHttpServer(parent)
    , m_web(web)
    , m_render(std::move(render))
{
    if (m_web && m_web->tlsEnabled())
        sslSetup(m_web->sslConfiguration());
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
    m_port = listen(m_address, port);
    if (m_port == 0) {
        *error = QStringLiteral("--listen %1: cannot listen there (the port is taken, or the address is not "
                                "this machine's)")
                     .arg(hostPort);
        return false;
    }
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

bool MetricsServer::handleRequest(const QHttpServerRequest &request, QTcpSocket *socket)
{
    QHttpServerResponder responder = makeResponder(request, socket);
    using Status = QHttpServerResponder::StatusCode;
    if (m_web && !m_web->authorize(request.value("Authorization"))) {
        responder.write(QByteArrayLiteral("Unauthorized\n"),
                        {{"Content-Type", "text/plain; charset=utf-8"},
                         {"WWW-Authenticate", "Basic realm=\"lockscope\""}},
                        Status::Unauthorized);
        return true;
    }
    const QString path = request.url().path();
    if (request.method() != QHttpServerRequest::Method::Get) {
        responder.write(QByteArrayLiteral("Only GET is served\n"),
                        {{"Content-Type", "text/plain; charset=utf-8"}, {"Allow", "GET"}},
                        Status::MethodNotAllowed);
        return true;
    }
    if (path == QLatin1String("/metrics")) {
        ++m_scrapes;
        const OpenMetricsWriter::Format format = OpenMetricsWriter::negotiate(request.value("Accept"));
        responder.write(m_render(format), {{"Content-Type", OpenMetricsWriter::contentType(format)}});
        return true;
    }
    if (path == QLatin1String("/healthz")) {
        responder.write(QByteArrayLiteral("ok\n"), {{"Content-Type", "text/plain; charset=utf-8"}});
        return true;
    }
    if (path == QLatin1String("/")) {
        responder.write(
            QByteArrayLiteral("<!DOCTYPE html><html><head><title>LockScope exporter</title></head>"
                              "<body><h1>LockScope exporter</h1><p><a href=\"/metrics\">Metrics"
                              "</a> &middot; <a href=\"/healthz\">Health</a></p></body></html>\n"),
            {{"Content-Type", "text/html; charset=utf-8"}});
        return true;
    }
    return false;
}

void MetricsServer::missingHandler(const QHttpServerRequest &request, QTcpSocket *socket)
{
    makeResponder(request, socket)
        .write(QByteArrayLiteral("Not found: try /metrics\n"),
               {{"Content-Type", "text/plain; charset=utf-8"}}, QHttpServerResponder::StatusCode::NotFound);
}
