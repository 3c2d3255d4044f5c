// A loopback TCP port whose connections the kernel accepts but nobody ever answers: a paused server, a
// firewall that swallows packets, or the wrong kind of service, as far as a client can tell.
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

private:
    int m_fd = -1;
    int m_port = 0;
};
