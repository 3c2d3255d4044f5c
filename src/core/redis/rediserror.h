// What went wrong talking to Redis, as a value with a sentence a person can act on.
#pragma once

#include <QByteArray>
#include <QMetaType>
#include <QString>

class RedisError
{
public:
    enum class Code {
        None,
        BadSettings, // the connection settings themselves are invalid
        HostNotFound,
        ConnectionRefused,
        ConnectFailed, // any other failure to open the socket
        Timeout, // no reply within the command timeout
        ConnectionClosed, // the server closed the connection (or died)
        NotConnected,
        Io, // other socket errors
        Protocol, // the bytes received are not RESP
        AuthFailed, // WRONGPASS, or AUTH on a server without a password
        NoAuth, // the server wants a password and none was given
        NoPermission, // ACL: NOPERM
        WrongType,
        NoScript,
        ReadOnlyRefused, // refused by LockScope's read-only guard before sending
        ReplicaReadOnly, // the server is a read-only replica (READONLY)
        Loading,
        Busy,
        Redirect, // cluster MOVED / ASK
        Server, // any other error reply
        BadArgument, // bad call from our own code (e.g. an empty command)
        Interrupted, // interrupted on purpose from another thread
        Tls, // TLS handshake or certificate failure, or a TLS alert from the server
        Tunnel, // the SSH tunnel could not be opened (host key, login, bastion unreachable)
    };

    RedisError() = default;
    RedisError(Code code, const QString &message);

    // Maps a server error reply ("WRONGTYPE Operation against...") to a code and keeps its text.
    static RedisError fromServerReply(const QByteArray &text);

    Code code() const { return m_code; }
    const QString &message() const { return m_message; }
    bool isNone() const { return m_code == Code::None; }
    explicit operator bool() const { return m_code != Code::None; }
    // True when the connection can no longer be used and must be reopened.
    bool breaksConnection() const;
    static QString codeName(Code code);

    bool operator==(const RedisError &other) const = default;

private:
    Code m_code = Code::None;
    QString m_message;
};

Q_DECLARE_METATYPE(RedisError)
