// HttpRequestHead: strict where leniency lets two parsers disagree about where a request ends (a bare CR,
// folded lines, whitespace before a colon: the stuff of request smuggling, RFC 9112 §11.2), lenient where
// RFC 9112 allows it (bare LF line ends, blank lines before the request line).
#include "httprequesthead.h"

#include <cstring>

namespace {

// RFC 9110's tchar: what a method or a header name is made of.
bool isToken(const QByteArray &s)
{
    if (s.isEmpty())
        return false;
    for (const char c : s) {
        const bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
        if (!alnum && !std::strchr("!#$%&'*+-.^_`|~", c))
            return false;
    }
    return true;
}

// Whether a comma-separated header value (Connection) lists `token`, ignoring case.
bool listsToken(const QByteArray &value, const char *token)
{
    for (const QByteArray &part : value.split(','))
        if (part.trimmed().compare(token, Qt::CaseInsensitive) == 0)
            return true;
    return false;
}

} // namespace

HttpRequestHead::HttpRequestHead(qsizetype maxBytes)
    : m_maxBytes(maxBytes)
{
}

void HttpRequestHead::reset()
{
    *this = HttpRequestHead(m_maxBytes);
}

void HttpRequestHead::fail(State state, int status, const char *reason)
{
    m_state = state;
    m_errorStatus = status;
    m_errorReason = reason;
    m_line.clear();
}

qsizetype HttpRequestHead::feed(const char *data, qsizetype size)
{
    qsizetype used = 0;
    while (m_state == State::NeedMore && used < size) {
        const void *newline = std::memchr(data + used, '\n', size_t(size - used));
        const qsizetype end = newline ? static_cast<const char *>(newline) - data + 1 : size;
        const qsizetype take = end - used;
        // Counted before anything is kept, so the head never holds more than the limit.
        if (m_bytesRead + take > m_maxBytes) {
            // Taken: up to the first byte past the limit, however the bytes were split.
            const qsizetype over = m_maxBytes + 1 - m_bytesRead;
            m_bytesRead = m_maxBytes + 1;
            fail(State::TooLarge, 431, "request line and headers too large");
            return used + over;
        }
        m_bytesRead += take;
        m_line.append(data + used, newline ? take - 1 : take);
        used = end;
        if (newline) {
            QByteArray line;
            line.swap(m_line);
            takeLine(std::move(line));
        }
    }
    return used;
}

void HttpRequestHead::takeLine(QByteArray line)
{
    if (line.endsWith('\r'))
        line.chop(1);
    // A CR anywhere else may end the line for one parser and not for another.
    if (line.contains('\r') || line.contains('\0')) {
        fail(State::Bad, 400, "a stray CR or NUL in the request head");
        return;
    }
    if (!m_haveRequestLine) {
        if (line.isEmpty())
            return; // RFC 9112 §2.2: blank lines before the request line are ignored (they count to the limit)
        const QList<QByteArray> parts = line.split(' ');
        if (parts.size() != 3 || !isToken(parts.at(0)) || parts.at(1).isEmpty()) {
            fail(State::Bad, 400, "not a request line (METHOD TARGET HTTP/1.1)");
            return;
        }
        const QByteArray &version = parts.at(2);
        if (version == "HTTP/1.1" || version == "HTTP/1.0") {
            m_minorVersion = version.at(7) - '0';
        } else if (version.size() == 8 && version.startsWith("HTTP/") && version.at(6) == '.') {
            fail(State::Bad, 505, "only HTTP/1.0 and HTTP/1.1 are served");
            return;
        } else {
            fail(State::Bad, 400, "not a request line (METHOD TARGET HTTP/1.1)");
            return;
        }
        m_method = parts.at(0);
        m_target = parts.at(1);
        m_haveRequestLine = true;
        return;
    }
    if (line.isEmpty()) {
        m_state = State::Complete;
        return;
    }
    // Obsolete line folding (RFC 9112 §5.2): a server may refuse it, and refusing is the safe choice.
    if (line.startsWith(' ') || line.startsWith('\t')) {
        fail(State::Bad, 400, "folded header lines are not accepted");
        return;
    }
    const qsizetype colon = line.indexOf(':');
    const QByteArray name = colon > 0 ? line.left(colon) : QByteArray();
    // Whitespace before the colon must be refused (RFC 9112 §5.1): isToken refuses it.
    if (!isToken(name)) {
        fail(State::Bad, 400, "not a header line (Name: value)");
        return;
    }
    m_headers.append({name.toLower(), line.mid(colon + 1).trimmed()});
}

QByteArray HttpRequestHead::header(const QByteArray &name) const
{
    for (const auto &h : m_headers)
        if (h.first.compare(name, Qt::CaseInsensitive) == 0)
            return h.second;
    return {};
}

bool HttpRequestHead::hasHeader(const QByteArray &name) const
{
    for (const auto &h : m_headers)
        if (h.first.compare(name, Qt::CaseInsensitive) == 0)
            return true;
    return false;
}

bool HttpRequestHead::keepAlive() const
{
    QByteArray connection;
    for (const auto &h : m_headers)
        if (h.first == "connection")
            connection += h.second + ',';
    if (listsToken(connection, "close"))
        return false;
    return m_minorVersion >= 1 || listsToken(connection, "keep-alive");
}

bool HttpRequestHead::announcesBody() const
{
    if (hasHeader("transfer-encoding"))
        return true;
    for (const auto &h : m_headers)
        if (h.first == "content-length" && h.second != "0")
            return true;
    return false;
}
