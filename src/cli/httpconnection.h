// One client of `serve`'s HTTP server: reads request heads within HttpLimits, hands each to the handler,
// writes its answer, and keeps the connection for the next request or closes it, as the client asked. Every
// wait has a deadline: the head's (408, then close: the slowloris defence), the idle time between requests,
// the time an answer may take to be read; and nothing is read while an answer is being written, so a client
// that sends without reading fills its own socket buffers, not ours.
#pragma once

#include "httplimits.h"
#include "httprequesthead.h"
#include "httpresponse.h"

#include <QObject>
#include <QTimer>

#include <functional>

class QTcpSocket;

class HttpConnection : public QObject
{
    Q_OBJECT
public:
    // Called once with the answer, now or later (a scrape is written on another thread); a call after the
    // connection closed does nothing.
    using Respond = std::function<void(const HttpResponse &)>;
    using Handler = std::function<void(const HttpRequestHead &, const Respond &)>;

    // Takes `socket` as its child: a connected QTcpSocket, or a QSslSocket starting its server handshake
    // (which the head's deadline covers too).
    HttpConnection(QTcpSocket *socket, const HttpLimits &limits, Handler handler, QObject *parent = nullptr);

    // Requests answered on this connection.
    quint64 answered() const { return m_answered; }

signals:
    // The socket is closed; the connection can be deleted.
    void finished();

private:
    enum class Phase {
        Head, // reading a request head, under the head's deadline
        Idle, // kept alive, waiting for the next request
        Answering, // the handler is preparing the answer; nothing is read meanwhile
        Writing, // an answer is being written; nothing is read meanwhile
        Closing, // the last answer is being written, then the socket closes (half first, over plain TCP)
        Done,
    };

    void readRequests();
    void respond();
    void send(const HttpResponse &response, bool keepAlive, bool headOnly = false);
    void writeProgressed();
    void timedOut();
    void close();
    void halfClose();
    void finish();
    qint64 unwritten() const;
    bool handshakeDone() const;

    QTcpSocket *m_socket;
    HttpLimits m_limits;
    Handler m_handler;
    HttpRequestHead m_head;
    QByteArray m_pending; // read past the last head: the start of the next, pipelined request
    QTimer m_timer; // the deadline of the current phase
    Phase m_phase = Phase::Head;
    quint64 m_answered = 0;
    quint64 m_requests = 0; // heads handed to the handler: a late answer must be for the current one
    qint64 m_discarded = 0; // dropped while closing
    bool m_halfClosed = false;
};
