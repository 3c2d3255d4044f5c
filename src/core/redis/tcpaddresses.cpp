// TcpAddresses: getaddrinfo for a stream socket, any address family.
#include "tcpaddresses.h"

#include <QByteArray>

#include <netdb.h>
#include <sys/socket.h>

TcpAddresses::TcpAddresses(const QString &host, int port)
{
    addrinfo hints {};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    const int resolved = ::getaddrinfo(host.toUtf8().constData(), QByteArray::number(port).constData(),
                                       &hints, &m_addresses);
    if (resolved != 0) {
        m_addresses = nullptr;
        m_error = QString::fromLocal8Bit(gai_strerror(resolved));
    }
}

TcpAddresses::~TcpAddresses()
{
    if (m_addresses)
        ::freeaddrinfo(m_addresses);
}
