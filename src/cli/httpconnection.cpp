// HttpConnection: the socket's read buffer is capped, so bytes the connection does not ask for stay in the
// kernel, whose window then stops the sender; reads are in chunks, and the head parser keeps at most its limit.
#include "httpconnection.h"

#include <QPointer>
#include <QSslSocket>
#include <QTcpSocket>

#include <sys/socket.h>

namespace {

constexpr qint64 kReadChunk = 16 * 1024;
// What a closing connection still reads (and drops) from a client that keeps sending, so that the answer
// reaches it before the close: more, and the close is abrupt.
constexpr qint64 kLingerBytes = 64 * 1024;

} // namespace

HttpConnection::HttpConnection(QTcpSocket *socket, const HttpLimits &limits, Handler handler, QObject *parent)
    : QObject(parent)
    , m_socket(socket)
    , m_limits(limits)
    , m_handler(std::move(handler))
    , m_head(limits.maxHeaderBytes)
{
    m_socket->setParent(this);
    m_socket->setReadBufferSize(4 * kReadChunk);
    m_timer.setSingleShot(true);
    connect(&m_timer, &QTimer::timeout, this, &HttpConnection::timedOut);
    connect(m_socket, &QTcpSocket::readyRead, this, &HttpConnection::readRequests);
    connect(m_socket, &QTcpSocket::bytesWritten, this, &HttpConnection::writeProgressed);
    if (auto *ssl = qobject_cast<QSslSocket *>(m_socket))
        connect(ssl, &QSslSocket::encryptedBytesWritten, this, &HttpConnection::writeProgressed);
    connect(m_socket, &QTcpSocket::disconnected, this, &HttpConnection::finish);
    connect(m_socket, &QTcpSocket::errorOccurred, this, [this] {
        // A reset, a failed handshake: nothing more can be said to this client.
        m_socket->abort();
        finish();
    });
    m_timer.start(m_limits.headerTimeoutMs);
    if (m_socket->state() != QAbstractSocket::ConnectedState)
        QTimer::singleShot(0, this, &HttpConnection::finish);
}

qint64 HttpConnection::unwritten() const
{
    qint64 n = m_socket->bytesToWrite();
    if (auto *ssl = qobject_cast<QSslSocket *>(m_socket))
        n += ssl->encryptedBytesToWrite();
    return n;
}

bool HttpConnection::handshakeDone() const
{
    auto *ssl = qobject_cast<QSslSocket *>(m_socket);
    return !ssl || ssl->isEncrypted();
}

void HttpConnection::readRequests()
{
    if (m_phase == Phase::Closing) {
        // The answer is out or going: what the client still sends is of no use.
        m_discarded += m_socket->skip(m_socket->bytesAvailable());
        if (m_discarded > kLingerBytes) {
            m_socket->abort();
            finish();
        }
        return;
    }
    while (m_phase == Phase::Head || m_phase == Phase::Idle) {
        QByteArray chunk;
        if (!m_pending.isEmpty())
            chunk.swap(m_pending);
        else if (m_socket->bytesAvailable() > 0)
            chunk = m_socket->read(kReadChunk);
        if (chunk.isEmpty())
            return;
        if (m_phase == Phase::Idle) {
            // The next request has begun: from now on its head has a deadline of its own.
            m_phase = Phase::Head;
            m_timer.start(m_limits.headerTimeoutMs);
        }
        const qsizetype used = m_head.feed(chunk);
        switch (m_head.state()) {
        case HttpRequestHead::State::NeedMore:
            break;
        case HttpRequestHead::State::Complete:
            m_pending = chunk.mid(used);
            respond();
            return;
        case HttpRequestHead::State::TooLarge:
        case HttpRequestHead::State::Bad:
            send(HttpResponse(m_head.errorStatus(), m_head.errorReason() + '\n'), false);
            return;
        }
    }
}

void HttpConnection::respond()
{
    m_timer.stop();
    const bool headOnly = m_head.method() == "HEAD";
    if ((m_head.method() == "GET" || headOnly) && m_head.announcesBody()) {
        // A body on a GET has no meaning here, and reading past it would need a body parser: refuse it.
        send(HttpResponse(400, QByteArrayLiteral("a GET request has no body\n")), false);
        return;
    }
    m_phase = Phase::Answering;
    m_timer.start(m_limits.idleTimeoutMs); // an answer that never comes does not hold the connection forever
    const quint64 request = ++m_requests;
    QPointer<HttpConnection> self(this);
    m_handler(m_head, [self, request, headOnly](const HttpResponse &response) {
        if (!self || self->m_phase != Phase::Answering || self->m_requests != request)
            return;
        self->m_timer.stop();
        // A body we do not read would be taken for the next request: such a connection ends with its answer.
        const HttpRequestHead &head = self->m_head;
        const bool keepAlive = head.keepAlive() && !response.closes() && !head.announcesBody();
        self->send(response, keepAlive, headOnly);
    });
}

void HttpConnection::send(const HttpResponse &response, bool keepAlive, bool headOnly)
{
    if (!handshakeDone()) {
        // Nothing can be said over TLS before its handshake.
        m_socket->abort();
        finish();
        return;
    }
    m_socket->write(response.serialize(keepAlive, headOnly));
    ++m_answered;
    if (!keepAlive) {
        close();
        return;
    }
    m_phase = Phase::Writing;
    m_timer.start(m_limits.idleTimeoutMs); // the time the client has to read the answer
}

void HttpConnection::writeProgressed()
{
    if (m_phase == Phase::Closing && unwritten() == 0 && !m_halfClosed && !qobject_cast<QSslSocket *>(m_socket))
        halfClose();
    if (m_phase != Phase::Writing || unwritten() > 0)
        return;
    m_head.reset();
    m_phase = Phase::Idle;
    m_timer.start(m_limits.idleTimeoutMs);
    readRequests(); // a pipelined request, already read or waiting in the socket
}

void HttpConnection::timedOut()
{
    switch (m_phase) {
    case Phase::Head:
        send(HttpResponse(408, QByteArrayLiteral("the request head did not arrive in time\n")), false);
        break;
    case Phase::Idle:
        close();
        break;
    case Phase::Answering:
    case Phase::Writing:
    case Phase::Closing:
        // The client does not read what it asked for.
        m_socket->abort();
        finish();
        break;
    case Phase::Done:
        break;
    }
}

void HttpConnection::close()
{
    m_phase = Phase::Closing;
    // Bounded too: a client that reads nothing would keep a closing socket forever.
    m_timer.start(m_limits.headerTimeoutMs);
    if (qobject_cast<QSslSocket *>(m_socket)) {
        // TLS ends with its own close_notify, which Qt sends after what is still buffered.
        m_socket->disconnectFromHost();
        if (m_socket->state() == QAbstractSocket::UnconnectedState)
            finish();
        return;
    }
    if (unwritten() == 0)
        halfClose();
    readRequests(); // drops what already came
}

void HttpConnection::halfClose()
{
    // A close with unread bytes from the client would reset the connection, and a reset can destroy the
    // answer before the client reads it (a 431 to a client still sending its header). So: the answer, then
    // our FIN, and the client's bytes dropped until it closes too (bounded by kLingerBytes and the timer).
    m_halfClosed = true;
    if (::shutdown(int(m_socket->socketDescriptor()), SHUT_WR) != 0) {
        m_socket->abort();
        finish();
    }
}

void HttpConnection::finish()
{
    if (m_phase == Phase::Done)
        return;
    m_phase = Phase::Done;
    m_timer.stop();
    emit finished();
}
