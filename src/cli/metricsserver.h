// `serve`'s HTTP side, on Qt's own HTTP server (QtHttpServer): GET /metrics (OpenMetrics or Prometheus text,
// as the scraper asks), GET /healthz, and a short index at /; TLS and basic auth from a WebConfig. Only the
// routing and the answers are ours; requests are parsed by Qt.
#pragma once

#include "metrics/openmetricswriter.h"

#include <QAbstractHttpServer>

#include <functional>

class WebConfig;

class MetricsServer : public QAbstractHttpServer
{
    Q_OBJECT
public:
    using Render = std::function<QByteArray(OpenMetricsWriter::Format)>;

    // `web` (may be null: plain HTTP, no auth) must outlive the server.
    MetricsServer(const WebConfig *web, Render render, QObject *parent = nullptr);

    // Listens on "HOST:PORT" ("127.0.0.1:9817", "[::1]:9817", ":9817" for every address; port 0: any free
    // one). False with `error` set. port() is then the port taken.
    bool listenOn(const QString &hostPort, QString *error);
    quint16 port() const { return m_port; }
    // "http://127.0.0.1:9817" (https with TLS), for the log.
    QString url() const;
    // Requests answered so far, and scrapes of /metrics among them.
    quint64 scrapes() const { return m_scrapes; }

    // "HOST:PORT" into an address and port; false when it is not one.
    static bool parseListen(const QString &hostPort, QHostAddress *address, quint16 *port);

protected:
    bool handleRequest(const QHttpServerRequest &request, QTcpSocket *socket) override;
    void missingHandler(const QHttpServerRequest &request, QTcpSocket *socket) override;

private:
    const WebConfig *m_web;
    Render m_render;
    QHostAddress m_address;
    quint16 m_port = 0;
    quint64 m_scrapes = 0;
};
