// RedisError: mapping of server error replies and codes to readable text.
#include "rediserror.h"

RedisError::RedisError(Code code, const QString &message)
    : m_code(code)
    , m_message(message)
{
}

RedisError RedisError::fromServerReply(const QByteArray &text)
{
    const QString message = QString::fromUtf8(text);
    const QByteArray prefix = text.left(text.indexOf(' '));
    if (prefix == "WRONGTYPE")
        return {Code::WrongType, message};
    if (prefix == "NOAUTH")
        return {Code::NoAuth, message};
    if (prefix == "WRONGPASS")
        return {Code::AuthFailed, message};
    if (prefix == "NOPERM")
        return {Code::NoPermission, message};
    if (prefix == "NOSCRIPT")
        return {Code::NoScript, message};
    if (prefix == "READONLY")
        return {Code::ReplicaReadOnly, message};
    if (prefix == "LOADING")
        return {Code::Loading, message};
    if (prefix == "BUSY")
        return {Code::Busy, message};
    if (prefix == "MOVED" || prefix == "ASK")
        return {Code::Redirect, message};
    return {Code::Server, message};
}

bool RedisError::breaksConnection() const
{
    switch (m_code) {
    case Code::HostNotFound:
    case Code::ConnectionRefused:
    case Code::ConnectFailed:
    case Code::Timeout:
    case Code::ConnectionClosed:
    case Code::NotConnected:
    case Code::Io:
    case Code::Protocol:
    case Code::Interrupted:
    case Code::Tls:
    case Code::Tunnel:
        return true;
    default:
        return false;
    }
}

QString RedisError::codeName(Code code)
{
    switch (code) {
    case Code::None:
        return QStringLiteral("none");
    case Code::BadSettings:
        return QStringLiteral("bad-settings");
    case Code::HostNotFound:
        return QStringLiteral("host-not-found");
    case Code::ConnectionRefused:
        return QStringLiteral("connection-refused");
    case Code::ConnectFailed:
        return QStringLiteral("connect-failed");
    case Code::Timeout:
        return QStringLiteral("timeout");
    case Code::ConnectionClosed:
        return QStringLiteral("connection-closed");
    case Code::NotConnected:
        return QStringLiteral("not-connected");
    case Code::Io:
        return QStringLiteral("io");
    case Code::Protocol:
        return QStringLiteral("protocol");
    case Code::AuthFailed:
        return QStringLiteral("auth-failed");
    case Code::NoAuth:
        return QStringLiteral("noauth");
    case Code::NoPermission:
        return QStringLiteral("noperm");
    case Code::WrongType:
        return QStringLiteral("wrongtype");
    case Code::NoScript:
        return QStringLiteral("noscript");
    case Code::ReadOnlyRefused:
        return QStringLiteral("read-only-refused");
    case Code::ReplicaReadOnly:
        return QStringLiteral("replica-read-only");
    case Code::Loading:
        return QStringLiteral("loading");
    case Code::Busy:
        return QStringLiteral("busy");
    case Code::Redirect:
        return QStringLiteral("redirect");
    case Code::Server:
        return QStringLiteral("server");
    case Code::BadArgument:
        return QStringLiteral("bad-argument");
    case Code::Interrupted:
        return QStringLiteral("interrupted");
    case Code::Tls:
        return QStringLiteral("tls");
    case Code::Tunnel:
        return QStringLiteral("tunnel");
    }
    return QStringLiteral("?");
}
