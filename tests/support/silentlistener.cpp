// SilentListener: bind + listen on 127.0.0.1:0, and never accept.
#include "silentlistener.h"

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
    if (m_fd >= 0)
        ::close(m_fd);
}

bool SilentListener::waitForConnection(int timeoutMs) const
{
    pollfd pfd {m_fd, POLLIN, 0}; // a listening socket is readable once a connection is queued
    return m_fd >= 0 && ::poll(&pfd, 1, timeoutMs) == 1;
}
