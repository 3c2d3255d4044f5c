// A real TCP proxy on loopback between Redis clients and one server, so that network faults (latency, a cut
// in one or both directions, dropped connections) reach every byte a client exchanges: commands, replies,
// pub/sub and keyspace notifications alike, whatever the client library.
#pragma once

#include <QByteArray>
#include <QString>

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

class FaultProxy
{
public:
    enum class Direction {
        Both,
        ToServer, // client → server: commands
        FromServer, // server → client: replies, pub/sub messages, keyspace events
    };

    struct Stats
    {
        int connections = 0; // client connections open now (each paired with its own upstream one)
        quint64 accepted = 0; // client connections accepted since start()
        quint64 upstreamFailures = 0; // upstream connects refused or failed (their clients were reset)
        quint64 bytesToServer = 0; // forwarded so far
        quint64 bytesFromServer = 0;
        quint64 heldToServer = 0; // read but not sent on yet (delayed or cut), over all connections
        quint64 heldFromServer = 0;
    };

    // Past this many bytes held in one direction of one connection, the proxy stops reading that socket:
    // TCP flow control then stops the sender, as a real network's window would, and memory stays bounded.
    static constexpr qint64 kHoldLimit = 1 << 20;

    // Each side's close is passed on after the bytes before it, with the same delay (a half-close: the other
    // direction keeps flowing until its own side closes). A reset, an upstream that refuses or a send that
    // fails resets both sides.
    FaultProxy(const QString &upstreamHost, int upstreamPort);
    ~FaultProxy(); // stop()
    FaultProxy(const FaultProxy &) = delete;
    FaultProxy &operator=(const FaultProxy &) = delete;

    // Listens on 127.0.0.1 on a port the kernel picks and starts the I/O thread. False with *error when the
    // upstream cannot be resolved or the socket cannot be set up. Again after stop(): a new port; the
    // upstream, delays and cuts set are kept across stop() and start().
    bool start(QString *error);
    // Resets every connection (RST, what was held is lost), stops listening and joins the thread.
    void stop();
    bool isRunning() const { return m_running; }

    QString host() const { return QStringLiteral("127.0.0.1"); }
    int port() const { return m_port; } // 0 until started

    // Connections opened upstream from now on go to host:port (a restarted server, a promoted replica);
    // open ones stay where they are. Resolves the name here, so the I/O thread never waits on DNS. False
    // with *error when it does not resolve (the previous upstream stays).
    bool setUpstream(const QString &host, int port, QString *error = nullptr);

    // Every chunk read in that direction is sent on `ms` after it was read (the delay in force when it
    // is sent, so 0 releases what waits at once); order is kept. Both: each way, a round trip gets 2 × ms.
    void setDelay(int ms, Direction direction = Direction::Both);
    int delay(Direction direction) const; // Both: the larger of the two
    // A partition: nothing is forwarded that way while cut, connections stay open without FIN or RST, and
    // what was read meanwhile (a close included) is delivered in order when it heals, as TCP retransmission
    // would. Effective when this returns: bytes sent afterwards are held. A client that connects during a
    // cut (either way) is accepted, as the kernel completes a connect() to a listening port, but its
    // upstream connection is opened only when the cut heals (a SYN or its SYN-ACK would be lost): its bytes
    // wait, and if it closes first the server never hears of it.
    void setCut(Direction direction, bool cut);
    bool isCut(Direction direction) const; // Both: both ways cut
    // Resets every client connection and its upstream one (SO_LINGER 0: RST, what was held is lost), then
    // returns; connections arriving later are served as usual. Waits only for the I/O thread's next turn.
    void dropConnections();

    Stats stats() const;

    // "both", "to-server", "from-server": the words of docs/client-protocol.md.
    static QString directionName(Direction direction);

private:
    struct Upstream;
    struct Link;
    using Links = std::vector<std::unique_ptr<Link>>;
    static constexpr int kDirections = 2; // index 0: to-server, 1: from-server

    static int index(Direction direction) { return direction == Direction::FromServer ? 1 : 0; }
    void run();
    void wake();
    void drainWake();
    void acceptAll(Links &links);
    void connectUpstream(Link &link);
    void finishConnect(Link &link);
    void readSide(Link &link, int dir);
    void flush(Link &link, int dir, qint64 nowNs, qint64 *nextDueNs);
    void service(Link &link, qint64 nowNs, qint64 *nextDueNs);
    void closeLink(Link &link, bool abrupt);
    void dropAll(Links &links);

    std::thread m_thread;
    int m_listenFd = -1;
    int m_wakeFd = -1; // eventfd: controls and stop() wake the I/O thread out of its poll
    std::atomic_int m_port = 0;
    std::atomic_bool m_stopping = false;
    std::atomic_bool m_running = false; // changed under m_dropMutex (dropConnections() waits on it)
    // The I/O thread's own: the buffer every read goes through, and a pause after running out of fds.
    QByteArray m_readBuffer;
    qint64 m_acceptPausedUntilNs = 0;

    // The upstream address, resolved; the I/O thread takes it for each new upstream connection.
    mutable std::mutex m_upstreamMutex;
    std::shared_ptr<const Upstream> m_upstream; // guarded by m_upstreamMutex
    QString m_upstreamError; // why the constructor's upstream did not resolve; start() reports it

    std::atomic_int m_delayMs[kDirections] = {0, 0};
    std::atomic_bool m_cut[kDirections] = {false, false};

    // dropConnections(): the caller raises m_dropsWanted and waits until the I/O thread has done as many.
    std::mutex m_dropMutex;
    std::condition_variable m_dropDone;
    quint64 m_dropsWanted = 0; // guarded by m_dropMutex
    quint64 m_dropsDone = 0; // guarded by m_dropMutex

    std::atomic_int m_connections = 0;
    std::atomic<quint64> m_accepted = 0;
    std::atomic<quint64> m_upstreamFailures = 0;
    std::atomic<quint64> m_forwarded[kDirections] = {0, 0};
    std::atomic<qint64> m_held[kDirections] = {0, 0};
};
