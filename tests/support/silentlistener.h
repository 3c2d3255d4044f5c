// A loopback TCP port whose connections the kernel accepts but nobody ever answers: a paused server, a
// firewall that swallows packets, or the wrong kind of service, as far as a client can tell. Once
// fillAcceptQueue() has run, it is a host that does not answer at all: connects hang.
#pragma once

class SilentListener
{
public:
    SilentListener();
    ~SilentListener();
    SilentListener(const SilentListener &) = delete;
    SilentListener &operator=(const SilentListener &) = delete;

    int port() const { return m_port; } // 0 if it could not listen
    // Waits until a client has connected (it sits in the accept queue); false after `timeoutMs`.
    bool waitForConnection(int timeoutMs) const;

    // Makes later connects hang in connect() until the client's own timeout, as to a host whose firewall
    // drops packets: shrinks the accept queue to one connection and fills it with one of its own, after
    // which the kernel drops new SYNs. False if it could not.
    bool fillAcceptQueue();
    // Whether a client is waiting in connect() to this port (its SYN unanswered: SYN-SENT in /proc/net/tcp).
    bool hasClientInConnect() const;

private:
    int m_fd = -1;
    int m_fillerFd = -1; // fillAcceptQueue()'s connection, sitting in the accept queue
    int m_port = 0;
};
