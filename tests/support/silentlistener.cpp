// SilentListener: bind + listen on 127.0.0.1:0, and never accept.
#include "silentlistener.h"

#include <QFile>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

SilentListener::SilentListener()
{
    m_fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr {};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof(addr);
    if (m_fd >= 0 && ::bind(m_fd, reinterpret_cast<sockaddr *>(&addr), sizeof(addr)) == 0
        && ::listen(m_fd, 8) == 0 && ::getsockname(m_fd, reinterpret_cast<sockaddr *>(&addr), &length) == 0)
        m_port = ntohs(addr.sin_port);
}

SilentListener::~SilentListener()
{
    if (m_fillerFd >= 0)
        ::close(m_fillerFd);
    if (m_fd >= 0)
        ::close(m_fd);
}

bool SilentListener::waitForConnection(int timeoutMs) const
{
    pollfd pfd {m_fd, POLLIN, 0}; // a listening socket is readable once a connection is queued
    return m_fd >= 0 && ::poll(&pfd, 1, timeoutMs) == 1;
}

bool SilentListener::fillAcceptQueue()
{
    // Linux lets listen() change the backlog of a listening socket; with 0 the queue holds one connection.
    if (m_port == 0 || m_fillerFd >= 0 || ::listen(m_fd, 0) != 0)
        return false;
    m_fillerFd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr {};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons(quint16(m_port));
    return m_fillerFd >= 0 && ::connect(m_fillerFd, reinterpret_cast<sockaddr *>(&addr), sizeof(addr)) == 0
        && waitForConnection(5000);
}

bool SilentListener::hasClientInConnect() const
{
    // Lines such as "0: 0100007F:A1B2 0100007F:1F90 02 …": local, remote (hex, this host's byte order for
    // the address), state 02 = SYN-SENT.
    QFile table(QStringLiteral("/proc/net/tcp"));
    if (!table.open(QIODevice::ReadOnly))
        return false;
    const QByteArray remote
        = QByteArray("0100007F:") + QByteArray::number(m_port, 16).toUpper().rightJustified(4, '0');
    for (const QByteArray &line : table.readAll().split('\n')) {
        const QList<QByteArray> fields = line.simplified().split(' ');
        if (fields.size() > 3 && fields.at(2) == remote && fields.at(3) == "02")
            return true;
    }
    return false;
}
