// `serve`'s HTTP side: GET /metrics (OpenMetrics or Prometheus text, as the scraper asks), GET /healthz, and a
// short index at /; TLS and basic auth from a WebConfig. The HTTP itself is ours (HttpConnection,
// HttpRequestHead), on QTcpServer and QSslSocket, because an exporter must hold up against any client on its
// network: every connection is bounded in bytes and in time, and the number of them is capped (HttpLimits).
#pragma once

#include "httplimits.h"
#include "metrics/openmetricswriter.h"

#include <QElapsedTimer>
#include <QHostAddress>
#include <QTcpServer>
#include <QThreadPool>

#include <functional>

class HttpRequestHead;
class HttpResponse;
class WebConfig;

class MetricsServer : public QTcpServer
{
    Q_OBJECT
public:
    using Render = std::function<QByteArray(OpenMetricsWriter::Format)>;
    // Runs on the server's thread and returns the work that writes the body, which runs on a thread of its
    // own: a scrape of many series then never holds up what else runs on the server's thread (the polls).
    using Prepare = std::function<std::function<QByteArray()>(OpenMetricsWriter::Format)>;

    // `web` (may be null: plain HTTP, no auth) must outlive the server. `render` runs on the server's thread.
    MetricsServer(const WebConfig *web, Render render, const HttpLimits &limits = {}, QObject *parent = nullptr);
    MetricsServer(const WebConfig *web, Prepare prepare, const HttpLimits &limits = {},
                  QObject *parent = nullptr);
    ~MetricsServer() override;

    // Listens on "HOST:PORT" ("127.0.0.1:9817", "[::1]:9817", ":9817" for every address; port 0: any free
    // one). False with `error` set. port() is then the port taken.
    bool listenOn(const QString &hostPort, QString *error);
    quint16 port() const { return m_port; }
    // "http://127.0.0.1:9817" (https with TLS), for the log.
    QString url() const;
    // Scrapes of /metrics answered so far.
    quint64 scrapes() const { return m_scrapes; }
    // Connections open now, and those refused so far because HttpLimits::maxConnections were open.
    int openConnections() const { return m_open; }
    quint64 refusedConnections() const { return m_refused; }

    // "HOST:PORT" into an address and port; false when it is not one.
    static bool parseListen(const QString &hostPort, QHostAddress *address, quint16 *port);

signals:
    // A line for the log: connections refused over the cap (the first, then at most one line a minute).
    void note(const QString &line);

protected:
    void incomingConnection(qintptr descriptor) override;

private:
    void answer(const HttpRequestHead &head, const std::function<void(const HttpResponse &)> &respond);
    // Every answer but a scrape's.
    HttpResponse answerNow(const HttpRequestHead &head);
    void refuse(qintptr descriptor);

    const WebConfig *m_web;
    Prepare m_prepare;
    HttpLimits m_limits;
    QHostAddress m_address;
    quint16 m_port = 0;
    quint64 m_scrapes = 0;
    int m_open = 0;
    quint64 m_refused = 0;
    quint64 m_refusedNoted = 0;
    QElapsedTimer m_sinceRefusalNote;
    // Last: destroyed first, waiting for the bodies being written (whose answers are then dropped).
    QThreadPool m_writers;
};
