// FaultProxy: the listening socket, one I/O thread polling every connection, and the held bytes of delays and
// cuts, sent on in order when their time comes.
#include "faultproxy.h"

#include "logging.h"
#include "redis/tcpaddresses.h"

#include <arpa/inet.h>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <deque>
#include <limits>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

namespace {

constexpr qsizetype kReadSize = 64 * 1024;
constexpr qint64 kNoDeadline = std::numeric_limits<qint64>::max();
// Out of file descriptors: accepting again at once would spin on a listening socket that stays readable.
constexpr qint64 kAcceptPauseNs = 100'000'000;
constexpr int kToServer = 0;
constexpr int kFromServer = 1;

qint64 nowNs()
{
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

void closeFd(int &fd)
{
    if (fd >= 0)
        ::close(fd);
    fd = -1;
}

// SO_LINGER 0: the close sends RST and discards what is unsent, as a crashed peer or a dropped NAT entry
// does.
void resetFd(int &fd)
{
    if (fd < 0)
        return;
    const linger abort {1, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &abort, sizeof(abort));
    closeFd(fd);
}

void setNoDelay(int fd)
{
    const int on = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof(on)); // Redis traffic is small requests
}

// One direction of one connection: what was read from its source and is not sent on yet.
struct Pipe
{
    struct Chunk
    {
        QByteArray bytes;
        qsizetype sent = 0;
        qint64 readNs = 0; // its delay counts from here
    };
    std::deque<Chunk> chunks;
    qint64 held = 0;
    bool ended = false; // the source closed (FIN) or failed: nothing more to read
    bool reset = false; // ... failed (RST): passed on as a reset, not a FIN
    qint64 endedNs = 0; // the end travels with the same delay as the bytes
    bool shut = false; // the end was passed on to the destination
    bool writeBlocked = false; // the destination's send buffer is full: wait for POLLOUT
};

} // namespace

struct FaultProxy::Upstream
{
    sockaddr_storage address {};
    socklen_t length = 0;
    QString name; // "host:port", for the log
};

// A client connection and its own upstream connection.
struct FaultProxy::Link
{
    enum class State {
        Deferred, // accepted during a cut: the upstream connect waits for the heal, as a SYN would
        Connecting,
        Open,
    };
    int clientFd = -1;
    int upstreamFd = -1;
    State state = State::Deferred;
    Pipe pipes[kDirections]; // kToServer: client → upstream; kFromServer: upstream → client
    bool abort = false; // a socket failed: reset both sides
    bool done = false; // closed; removed at the next turn

    int source(int dir) const { return dir == kToServer ? clientFd : upstreamFd; }
    int destination(int dir) const { return dir == kToServer ? upstreamFd : clientFd; }
};

FaultProxy::FaultProxy(const QString &upstreamHost, int upstreamPort)
{
    m_wakeFd = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    setUpstream(upstreamHost, upstreamPort, &m_upstreamError);
}

FaultProxy::~FaultProxy()
{
    stop();
    closeFd(m_wakeFd);
}

QString FaultProxy::directionName(Direction direction)
{
    switch (direction) {
    case Direction::ToServer:
        return QStringLiteral("to-server");
    case Direction::FromServer:
        return QStringLiteral("from-server");
    case Direction::Both:
        break;
    }
    return QStringLiteral("both");
}

bool FaultProxy::setUpstream(const QString &host, int port, QString *error)
{
    const TcpAddresses addresses(host, port);
    if (!addresses.first()) {
        if (error)
            *error = QStringLiteral("Cannot resolve the proxy's upstream '%1': %2")
                         .arg(host, addresses.errorString());
        return false;
    }
    // IPv4 first: "localhost" may list ::1 before 127.0.0.1, where the sandboxes listen.
    const addrinfo *chosen = addresses.first();
    for (const addrinfo *a = addresses.first(); a; a = a->ai_next) {
        if (a->ai_family == AF_INET) {
            chosen = a;
            break;
        }
    }
    auto upstream = std::make_shared<Upstream>();
    std::memcpy(&upstream->address, chosen->ai_addr, chosen->ai_addrlen);
    upstream->length = chosen->ai_addrlen;
    upstream->name = QStringLiteral("%1:%2").arg(host).arg(port);
    std::lock_guard lock(m_upstreamMutex);
    m_upstream = std::move(upstream);
    m_upstreamError.clear();
    return true;
}

bool FaultProxy::start(QString *error)
{
    auto failed = [&](const QString &text) {
        closeFd(m_listenFd);
        if (error)
            *error = text;
        return false;
    };
    if (m_running)
        return true;
    {
        std::lock_guard lock(m_upstreamMutex);
        if (!m_upstream)
            return failed(m_upstreamError);
    }
    if (m_wakeFd < 0)
        return failed(QStringLiteral("Cannot create an eventfd for the proxy: %1").arg(strerror(errno)));
    m_listenFd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (m_listenFd < 0)
        return failed(QStringLiteral("Cannot create the proxy's socket: %1").arg(strerror(errno)));
    sockaddr_in address {};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof(address);
    if (::bind(m_listenFd, reinterpret_cast<sockaddr *>(&address), sizeof(address)) != 0
        || ::listen(m_listenFd, SOMAXCONN) != 0
        || ::getsockname(m_listenFd, reinterpret_cast<sockaddr *>(&address), &length) != 0)
        return failed(QStringLiteral("Cannot listen on 127.0.0.1 for the proxy: %1").arg(strerror(errno)));
    m_port = ntohs(address.sin_port);
    m_stopping = false;
    {
        std::lock_guard lock(m_dropMutex);
        m_running = true;
    }
    m_thread = std::thread([this] { run(); });
    return true;
}

void FaultProxy::stop()
{
    if (!m_thread.joinable())
        return;
    m_stopping = true;
    wake();
    m_thread.join();
    closeFd(m_listenFd);
    m_port = 0;
}

void FaultProxy::wake()
{
    const quint64 one = 1;
    [[maybe_unused]] const ssize_t n = ::write(m_wakeFd, &one, sizeof(one));
}

void FaultProxy::drainWake()
{
    quint64 count = 0;
    [[maybe_unused]] const ssize_t n = ::read(m_wakeFd, &count, sizeof(count));
}

void FaultProxy::setDelay(int ms, Direction direction)
{
    ms = qMax(0, ms);
    if (direction != Direction::FromServer)
        m_delayMs[kToServer] = ms;
    if (direction != Direction::ToServer)
        m_delayMs[kFromServer] = ms;
    wake(); // the next deadline moves
}

int FaultProxy::delay(Direction direction) const
{
    if (direction == Direction::Both)
        return qMax(m_delayMs[kToServer].load(), m_delayMs[kFromServer].load());
    return m_delayMs[index(direction)];
}

void FaultProxy::setCut(Direction direction, bool cut)
{
    if (direction != Direction::FromServer)
        m_cut[kToServer] = cut;
    if (direction != Direction::ToServer)
        m_cut[kFromServer] = cut;
    wake(); // a heal sends what was held
}

bool FaultProxy::isCut(Direction direction) const
{
    if (direction == Direction::Both)
        return m_cut[kToServer] && m_cut[kFromServer];
    return m_cut[index(direction)];
}

void FaultProxy::dropConnections()
{
    std::unique_lock lock(m_dropMutex);
    if (!m_running)
        return;
    const quint64 target = ++m_dropsWanted;
    wake();
    // The I/O thread never blocks but in poll, which the wake ends: this is one turn of its loop.
    m_dropDone.wait(lock, [&] { return m_dropsDone >= target || !m_running; });
}

FaultProxy::Stats FaultProxy::stats() const
{
    Stats s;
    s.connections = m_connections;
    s.accepted = m_accepted;
    s.upstreamFailures = m_upstreamFailures;
    s.bytesToServer = m_forwarded[kToServer];
    s.bytesFromServer = m_forwarded[kFromServer];
    s.heldToServer = quint64(qMax<qint64>(0, m_held[kToServer]));
    s.heldFromServer = quint64(qMax<qint64>(0, m_held[kFromServer]));
    return s;
}

void FaultProxy::acceptAll(Links &links)
{
    for (;;) {
        const int fd = ::accept4(m_listenFd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED)
                continue;
            if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
                qCWarning(lcSim) << "fault proxy on port" << m_port << "cannot accept:" << strerror(errno);
                m_acceptPausedUntilNs = nowNs() + kAcceptPauseNs;
            }
            return;
        }
        setNoDelay(fd);
        auto link = std::make_unique<Link>();
        link->clientFd = fd;
        ++m_accepted;
        // During a cut, in either direction, a real connect() would not complete (its SYN or the SYN-ACK is
        // lost): the upstream side is opened when the cut heals, and the client's bytes wait meanwhile.
        if (!m_cut[kToServer] && !m_cut[kFromServer])
            connectUpstream(*link);
        links.push_back(std::move(link));
    }
}

void FaultProxy::connectUpstream(Link &link)
{
    std::shared_ptr<const Upstream> upstream;
    {
        std::lock_guard lock(m_upstreamMutex);
        upstream = m_upstream;
    }
    const int fd = ::socket(upstream->address.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        qCWarning(lcSim) << "fault proxy cannot create a socket:" << strerror(errno);
        ++m_upstreamFailures;
        link.abort = true;
        return;
    }
    setNoDelay(fd);
    link.upstreamFd = fd;
    if (::connect(fd, reinterpret_cast<const sockaddr *>(&upstream->address), upstream->length) == 0) {
        link.state = Link::State::Open;
    } else if (errno == EINPROGRESS) {
        link.state = Link::State::Connecting;
    } else {
        qCDebug(lcSim) << "fault proxy: upstream" << upstream->name << "refused:" << strerror(errno);
        ++m_upstreamFailures;
        link.abort = true; // the client sees a reset, the nearest thing to a refused connect
    }
}

void FaultProxy::finishConnect(Link &link)
{
    int soError = 0;
    socklen_t length = sizeof(soError);
    if (::getsockopt(link.upstreamFd, SOL_SOCKET, SO_ERROR, &soError, &length) != 0)
        soError = errno;
    if (soError == 0) {
        link.state = Link::State::Open;
        return;
    }
    qCDebug(lcSim) << "fault proxy: upstream connect failed:" << strerror(soError);
    ++m_upstreamFailures;
    link.abort = true;
}

void FaultProxy::readSide(Link &link, int dir)
{
    Pipe &pipe = link.pipes[dir];
    const ssize_t n = ::recv(link.source(dir), m_readBuffer.data(), size_t(m_readBuffer.size()), 0);
    if (n > 0) {
        pipe.chunks.push_back({QByteArray(m_readBuffer.constData(), qsizetype(n)), 0, nowNs()});
        pipe.held += n;
        m_held[dir] += n;
    } else if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
        pipe.ended = true;
        pipe.reset = n < 0;
        pipe.endedNs = nowNs();
    }
}

void FaultProxy::flush(Link &link, int dir, qint64 nowNs, qint64 *nextDueNs)
{
    Pipe &pipe = link.pipes[dir];
    // The cut is read after every read of this turn: a byte sent after setCut() returned is surely held.
    if (pipe.shut || pipe.writeBlocked || m_cut[dir])
        return;
    const qint64 delayNs = qint64(m_delayMs[dir]) * 1'000'000;
    const int fd = link.destination(dir);
    while (!pipe.chunks.empty()) {
        Pipe::Chunk &chunk = pipe.chunks.front();
        const qint64 dueNs = chunk.readNs + delayNs;
        if (dueNs > nowNs) {
            *nextDueNs = qMin(*nextDueNs, dueNs);
            return;
        }
        // Counted as sent before the send, and corrected after: a client that got the bytes and then reads
        // stats() never finds them still held.
        const qsizetype remaining = chunk.bytes.size() - chunk.sent;
        m_held[dir] -= remaining;
        m_forwarded[dir] += quint64(remaining);
        const ssize_t n = ::send(fd, chunk.bytes.constData() + chunk.sent, size_t(remaining),
                                 MSG_NOSIGNAL | MSG_DONTWAIT);
        const qsizetype sent = qMax<qsizetype>(0, n);
        m_held[dir] += remaining - sent;
        m_forwarded[dir] -= quint64(remaining - sent);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                pipe.writeBlocked = true;
            else
                link.abort = true; // the destination is gone (EPIPE, ECONNRESET)
            return;
        }
        chunk.sent += sent;
        pipe.held -= sent;
        if (chunk.sent == chunk.bytes.size())
            pipe.chunks.pop_front();
    }
    if (!pipe.ended)
        return;
    const qint64 dueNs = pipe.endedNs + delayNs;
    if (dueNs > nowNs) {
        *nextDueNs = qMin(*nextDueNs, dueNs);
        return;
    }
    if (pipe.reset) {
        link.abort = true;
        return;
    }
    // Half-close: the other direction keeps flowing until its own source ends.
    ::shutdown(fd, SHUT_WR);
    pipe.shut = true;
}

void FaultProxy::service(Link &link, qint64 nowNs, qint64 *nextDueNs)
{
    if (link.state == Link::State::Deferred && link.pipes[kToServer].ended) {
        // The client gave up before the cut healed: the server never hears of it, as with a lost SYN.
        closeLink(link, false);
        return;
    }
    if (link.state == Link::State::Open && !link.abort) {
        flush(link, kToServer, nowNs, nextDueNs);
        if (!link.abort)
            flush(link, kFromServer, nowNs, nextDueNs);
    }
    if (link.abort)
        closeLink(link, true);
    else if (link.pipes[kToServer].shut && link.pipes[kFromServer].shut)
        closeLink(link, false);
}

void FaultProxy::closeLink(Link &link, bool abrupt)
{
    if (abrupt) {
        resetFd(link.clientFd);
        resetFd(link.upstreamFd);
    } else {
        closeFd(link.clientFd);
        closeFd(link.upstreamFd);
    }
    for (int dir = 0; dir < kDirections; ++dir) {
        m_held[dir] -= link.pipes[dir].held;
        link.pipes[dir] = Pipe();
    }
    link.done = true;
}

void FaultProxy::dropAll(Links &links)
{
    for (const auto &link : links)
        closeLink(*link, true);
    links.clear();
    m_connections = 0;
}

void FaultProxy::run()
{
    Links links;
    std::vector<pollfd> fds;
    std::vector<std::pair<Link *, bool>> owners; // per pollfd past the first two: its link, upstream side?
    quint64 dropsDone = 0;
    {
        std::lock_guard lock(m_dropMutex);
        dropsDone = m_dropsDone;
    }
    m_readBuffer.resize(kReadSize);
    m_acceptPausedUntilNs = 0;
    auto wants = [](const Pipe &in, const Pipe &out) {
        short events = 0;
        if (!in.ended && in.held < kHoldLimit)
            events |= POLLIN;
        if (out.writeBlocked)
            events |= POLLOUT;
        return events;
    };

    while (!m_stopping) {
        quint64 dropsWanted = 0;
        {
            std::lock_guard lock(m_dropMutex);
            dropsWanted = m_dropsWanted;
        }
        if (dropsWanted != dropsDone) {
            acceptAll(links); // a client whose connect() completed before the drop is dropped too
            dropAll(links);
            dropsDone = dropsWanted;
            {
                std::lock_guard lock(m_dropMutex);
                m_dropsDone = dropsDone;
            }
            m_dropDone.notify_all();
        }

        const bool anyCut = m_cut[kToServer] || m_cut[kFromServer];
        const qint64 now = nowNs();
        qint64 nextDue = kNoDeadline;
        for (const auto &link : links) {
            if (link->state == Link::State::Deferred && !anyCut && !link->pipes[kToServer].ended)
                connectUpstream(*link);
            service(*link, now, &nextDue);
        }
        std::erase_if(links, [](const auto &link) { return link->done; });
        m_connections = int(links.size());

        fds.clear();
        owners.clear();
        const bool acceptPaused = m_acceptPausedUntilNs > now;
        if (acceptPaused)
            nextDue = qMin(nextDue, m_acceptPausedUntilNs);
        fds.push_back({m_wakeFd, POLLIN, 0});
        fds.push_back({acceptPaused ? -1 : m_listenFd, POLLIN, 0});
        for (const auto &link : links) {
            // Sockets with nothing to wait for are left out: their errors are found when next used, and an
            // idle socket that hung up cannot make poll return over and over.
            if (const short events = wants(link->pipes[kToServer], link->pipes[kFromServer])) {
                fds.push_back({link->clientFd, events, 0});
                owners.emplace_back(link.get(), false);
            }
            short events = 0;
            if (link->state == Link::State::Connecting)
                events = POLLOUT;
            else if (link->state == Link::State::Open)
                events = wants(link->pipes[kFromServer], link->pipes[kToServer]);
            if (events) {
                fds.push_back({link->upstreamFd, events, 0});
                owners.emplace_back(link.get(), true);
            }
        }

        timespec timeout {};
        timespec *timeoutPointer = nullptr;
        if (nextDue != kNoDeadline) {
            const qint64 waitNs = qMax<qint64>(0, nextDue - nowNs());
            timeout.tv_sec = time_t(waitNs / 1'000'000'000);
            timeout.tv_nsec = long(waitNs % 1'000'000'000);
            timeoutPointer = &timeout;
        }
        if (::ppoll(fds.data(), nfds_t(fds.size()), timeoutPointer, nullptr) < 0) {
            if (errno != EINTR)
                qCWarning(lcSim) << "fault proxy: poll failed:" << strerror(errno);
            continue;
        }
        if (fds[0].revents)
            drainWake();
        if (fds[1].revents)
            acceptAll(links);
        for (size_t i = 2; i < fds.size(); ++i) {
            const short revents = fds[i].revents;
            if (!revents)
                continue;
            auto [link, upstream] = owners[i - 2];
            if (upstream && link->state == Link::State::Connecting) {
                finishConnect(*link);
                continue;
            }
            const int in = upstream ? kFromServer : kToServer;
            const int out = upstream ? kToServer : kFromServer;
            if ((fds[i].events & POLLIN) && (revents & (POLLIN | POLLHUP | POLLERR)))
                readSide(*link, in);
            // An error also unblocks the writer, whose next send then finds out what happened.
            if (revents & (POLLOUT | POLLHUP | POLLERR))
                link->pipes[out].writeBlocked = false;
        }
    }

    dropAll(links);
    {
        std::lock_guard lock(m_dropMutex);
        m_running = false;
        m_dropsDone = m_dropsWanted;
    }
    m_dropDone.notify_all();
}
