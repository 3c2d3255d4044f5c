// The addresses a host name resolves to for a TCP connection (getaddrinfo), for the sockets LockScope opens
// itself (TlsBridge, FaultProxy); freed with the object.
#pragma once

#include <QString>

struct addrinfo;

class TcpAddresses
{
public:
    // Resolves now, in the calling thread (a DNS lookup may take a while for a name that is not local).
    TcpAddresses(const QString &host, int port);
    ~TcpAddresses();
    TcpAddresses(const TcpAddresses &) = delete;
    TcpAddresses &operator=(const TcpAddresses &) = delete;

    // The first address, its ai_next the others; null when the name did not resolve.
    const addrinfo *first() const { return m_addresses; }
    // Why it did not resolve (gai_strerror), empty when it did.
    const QString &errorString() const { return m_error; }

private:
    addrinfo *m_addresses = nullptr;
    QString m_error;
};
