// HttpResponse: header values are ours (never the client's), so no escaping is needed; a CR or LF in one
// would still split the answer, and is refused by an assertion in debug builds.
#include "httpresponse.h"

HttpResponse::HttpResponse(int status, QByteArray body, QByteArray contentType)
    : m_status(status)
    , m_body(std::move(body))
    , m_contentType(std::move(contentType))
{
}

void HttpResponse::addHeader(const QByteArray &name, const QByteArray &value)
{
    Q_ASSERT(!name.contains('\r') && !name.contains('\n') && !value.contains('\r') && !value.contains('\n'));
    m_headers.append({name, value});
}

QByteArray HttpResponse::header(const QByteArray &name) const
{
    for (const auto &h : m_headers)
        if (h.first.compare(name, Qt::CaseInsensitive) == 0)
            return h.second;
    return {};
}

QByteArray HttpResponse::reasonPhrase(int status)
{
    switch (status) {
    case 200: return "OK";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 408: return "Request Timeout";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 503: return "Service Unavailable";
    case 505: return "HTTP Version Not Supported";
    default: return "Unknown";
    }
}

QByteArray HttpResponse::serialize(bool keepAlive, bool headOnly) const
{
    QByteArray out;
    out.reserve(160 + (headOnly ? 0 : m_body.size()));
    out += "HTTP/1.1 " + QByteArray::number(m_status) + ' ' + reasonPhrase(m_status) + "\r\n";
    if (!m_contentType.isEmpty())
        out += "Content-Type: " + m_contentType + "\r\n";
    out += "Content-Length: " + QByteArray::number(m_body.size()) + "\r\n";
    out += keepAlive ? "Connection: keep-alive\r\n" : "Connection: close\r\n";
    for (const auto &h : m_headers)
        out += h.first + ": " + h.second + "\r\n";
    out += "\r\n";
    if (!headOnly)
        out += m_body;
    return out;
}
