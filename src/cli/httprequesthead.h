// The head of one HTTP/1.x request (request line and headers), read incrementally from whatever bytes the
// socket gives, never holding more than its byte limit: the bound that QtHttpServer 6.4 does not have.
#pragma once

#include "httplimits.h"

#include <QByteArray>
#include <QList>
#include <QPair>

class HttpRequestHead
{
public:
    enum class State {
        NeedMore, // feed more bytes
        Complete, // the blank line after the headers was read
        TooLarge, // the head would pass the limit: answer 431 and close
        Bad, // not an HTTP/1.x request head: answer status() and close
    };

    explicit HttpRequestHead(qsizetype maxBytes = HttpLimits::kDefaultMaxHeaderBytes);

    // Reads from `data` up to the end of the head and returns how many bytes it took: the rest belongs to the
    // next request (pipelining). Takes nothing more once the state is no longer NeedMore.
    qsizetype feed(const char *data, qsizetype size);
    qsizetype feed(const QByteArray &data) { return feed(data.constData(), data.size()); }
    // Ready for the next request on the same connection.
    void reset();

    State state() const { return m_state; }
    // The status to answer a TooLarge (431) or Bad (400, or 505 for an HTTP version other than 1.x) head.
    int errorStatus() const { return m_errorStatus; }
    // Why it is bad, for the answer's body.
    const QByteArray &errorReason() const { return m_errorReason; }
    // Bytes taken so far for this head (0: the next request has not started).
    qsizetype bytesRead() const { return m_bytesRead; }

    const QByteArray &method() const { return m_method; }
    const QByteArray &target() const { return m_target; } // as sent: "/metrics?x=1", or an absolute URL
    int minorVersion() const { return m_minorVersion; } // HTTP/1.0 or HTTP/1.1
    // The first value of a header, by case-insensitive name; empty when absent.
    QByteArray header(const QByteArray &name) const;
    bool hasHeader(const QByteArray &name) const;
    // Names in lower case, values without surrounding whitespace, in the order sent.
    const QList<QPair<QByteArray, QByteArray>> &headers() const { return m_headers; }
    // Whether the client wants the connection kept after the answer: HTTP/1.1 unless "Connection: close",
    // HTTP/1.0 only with "Connection: keep-alive".
    bool keepAlive() const;
    // Whether a header announces a body (Transfer-Encoding, or a Content-Length other than 0).
    bool announcesBody() const;

private:
    void takeLine(QByteArray line);
    void fail(State state, int status, const char *reason);

    qsizetype m_maxBytes;
    State m_state = State::NeedMore;
    int m_errorStatus = 0;
    QByteArray m_errorReason;
    qsizetype m_bytesRead = 0;
    QByteArray m_line; // the line being read, without its end
    bool m_haveRequestLine = false;
    QByteArray m_method;
    QByteArray m_target;
    int m_minorVersion = 1;
    QList<QPair<QByteArray, QByteArray>> m_headers;
};
