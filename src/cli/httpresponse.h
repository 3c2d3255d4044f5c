// One HTTP/1.1 answer as bytes: status line, Content-Type, Content-Length, Connection, any extra headers, and
// the body (left out for HEAD). Every answer has a length, so a kept-alive connection always knows where it
// ends.
#pragma once

#include <QByteArray>
#include <QList>
#include <QPair>

class HttpResponse
{
public:
    explicit HttpResponse(int status = 200, QByteArray body = {},
                          QByteArray contentType = QByteArrayLiteral("text/plain; charset=utf-8"));

    int status() const { return m_status; }
    const QByteArray &body() const { return m_body; }
    // Added after the standard headers, in this order. Not Content-Length or Connection: those are ours.
    void addHeader(const QByteArray &name, const QByteArray &value);
    QByteArray header(const QByteArray &name) const;
    // Whether the connection must close after this answer, whatever the client asked.
    bool closes() const { return m_close; }
    void setCloses(bool close) { m_close = close; }

    // The bytes to send. `keepAlive`: whether the connection stays open after it (the Connection header says
    // so); `headOnly`: an answer to HEAD, its Content-Length that of the body it leaves out.
    QByteArray serialize(bool keepAlive, bool headOnly = false) const;

    static QByteArray reasonPhrase(int status);

private:
    int m_status;
    QByteArray m_body;
    QByteArray m_contentType;
    QList<QPair<QByteArray, QByteArray>> m_headers;
    bool m_close = false;
};
