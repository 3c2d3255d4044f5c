// LoopbackPorts: asks the kernel for a port by binding it on 127.0.0.1 and closing the socket again.
#include "loopbackports.h"

#include <QtGlobal>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

int LoopbackPorts::bind(int port)
{
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return 0;
    sockaddr_in addr {};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons(quint16(port));
    socklen_t len = sizeof(addr);
    int bound = 0;
    if (::bind(fd, reinterpret_cast<sockaddr *>(&addr), sizeof(addr)) == 0
        && ::getsockname(fd, reinterpret_cast<sockaddr *>(&addr), &len) == 0)
        bound = ntohs(addr.sin_port);
    ::close(fd);
    return bound;
}

int LoopbackPorts::freePort()
{
    return bind(0);
}
