// FaultProxy between RedisConnections and real redis-servers: plain forwarding, many connections, delays,
// cuts each way (pub/sub included), dropped connections, a new upstream, flow control, half-close and stop.
#include "sandboxfixture.h"
#include "sim/faultproxy.h"
#include "testsupport.h"

#include <QDir>
#include <QElapsedTimer>

#include <algorithm>
#include <arpa/inet.h>
#include <atomic>
#include <netinet/in.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

namespace {

int entriesIn(const char *directory)
{
    return int(
        QDir(QString::fromLatin1(directory)).entryList(QDir::AllEntries | QDir::NoDotAndDotDot).size());
}

// A bare TCP client, for what RedisConnection does not let a test do: send without waiting for the
// handshake's replies, and half-close.
class RawClient
{
public:
    explicit RawClient(int port)
    {
        m_fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_in address {};
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        address.sin_port = htons(quint16(port));
        if (m_fd >= 0 && ::connect(m_fd, reinterpret_cast<sockaddr *>(&address), sizeof(address)) != 0) {
            ::close(m_fd);
            m_fd = -1;
        }
    }
    ~RawClient()
    {
        if (m_fd >= 0)
            ::close(m_fd);
    }
    bool isOpen() const { return m_fd >= 0; }
    bool send(const QByteArray &bytes) const
    {
        return ::send(m_fd, bytes.constData(), size_t(bytes.size()), MSG_NOSIGNAL) == bytes.size();
    }
    void shutdownWrite() const { ::shutdown(m_fd, SHUT_WR); }
    // What arrives within `timeoutMs`, up to `want` bytes; *eof when the peer closed.
    QByteArray receive(qsizetype want, int timeoutMs, bool *eof = nullptr) const
    {
        QByteArray received;
        QElapsedTimer clock;
        clock.start();
        if (eof)
            *eof = false;
        while (received.size() < want && clock.elapsed() < timeoutMs) {
            pollfd pfd {m_fd, POLLIN, 0};
            if (::poll(&pfd, 1, int(timeoutMs - clock.elapsed())) <= 0)
                break;
            char buffer[4096];
            const ssize_t n = ::recv(m_fd, buffer, sizeof(buffer), 0);
            if (n <= 0) {
                if (eof)
                    *eof = true;
                break;
            }
            received.append(buffer, qsizetype(n));
        }
        return received;
    }

private:
    int m_fd = -1;
};

} // namespace

class TestFaultProxy : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void init();
    void cleanup();
    void forwardsCommands();
    void concurrentConnectionsGetTheirOwnAnswers();
    void delayHoldsEachDirection();
    void delayKeepsOrderAndZeroReleasesAtOnce();
    void cutBothWaysHoldsUntilTheHeal();
    void fromServerCutAppliesButDoesNotAnswer();
    void toServerCutAppliesOnlyAfterTheHeal();
    void pubSubIsCutToo();
    void newConnectionDuringACutWaitsForTheHeal();
    void heldBytesAreBoundedByFlowControl();
    void dropConnectionsResetsClients();
    void setUpstreamSendsNewConnectionsElsewhere();
    void refusedUpstreamClosesTheClient();
    void halfCloseIsPassedOn();
    void idleProxyDoesNotSpin();
    void stopWithHeldDataLeavesNothingBehind();
    void addedLatencyFigures(); // a measurement, run with LOCKSCOPE_PROXY_BENCH=1

private:
    // Settings for m_server through `proxy` (by default m_proxy).
    ConnectionSettings throughProxy(int commandTimeoutMs = 3000, const FaultProxy *proxy = nullptr) const;
    RedisReply direct(const RedisCommand &command);
    qint64 connectedClients();

    SandboxFixture m_server; // its admin() goes straight to it, bypassing the proxy
    SandboxServer m_other;
    std::unique_ptr<FaultProxy> m_proxy;
};

void TestFaultProxy::initTestCase()
{
    LS_SANDBOX(m_server);
    LS_START(m_other);
}

void TestFaultProxy::init()
{
    QVERIFY(direct({"FLUSHALL"}).isStatus());
    m_proxy = std::make_unique<FaultProxy>(m_server.host(), m_server.port());
    QString error;
    QVERIFY2(m_proxy->start(&error), qPrintable(error));
    QVERIFY(m_proxy->port() > 0);
}

void TestFaultProxy::cleanup()
{
    m_proxy.reset();
}

ConnectionSettings TestFaultProxy::throughProxy(int commandTimeoutMs, const FaultProxy *proxy) const
{
    if (!proxy)
        proxy = m_proxy.get();
    ConnectionSettings s = m_server.connectionSettings();
    s.host = proxy->host();
    s.port = proxy->port();
    s.connectTimeoutMs = 3000;
    s.commandTimeoutMs = commandTimeoutMs;
    return s;
}

RedisReply TestFaultProxy::direct(const RedisCommand &command)
{
    return m_server.admin().command(command).reply;
}

qint64 TestFaultProxy::connectedClients()
{
    const QByteArray info = direct({"INFO", "clients"}).bytes();
    const qsizetype at = info.indexOf("connected_clients:");
    return at < 0 ? -1 : info.mid(at + 18, info.indexOf('\r', at) - at - 18).toLongLong();
}

void TestFaultProxy::forwardsCommands()
{
    RedisConnection c(throughProxy());
    LS_OPEN(c);
    QCOMPARE(c.command({"PING"}).reply, RedisReply::status("PONG"));
    QCOMPARE(c.command({"SET", "fp:k", "through"}).reply, RedisReply::status("OK"));
    QCOMPARE(c.command({"GET", "fp:k"}).reply, RedisReply::string("through"));
    QCOMPARE(direct({"GET", "fp:k"}), RedisReply::string("through"));
    // The server sees the proxy's upstream connection, not the client's.
    const QByteArray me = c.command({"CLIENT", "INFO"}).reply.bytes();
    QVERIFY2(me.contains("laddr=127.0.0.1:" + QByteArray::number(m_server.port())), me.constData());
    QVERIFY2(!me.contains("addr=127.0.0.1:" + QByteArray::number(m_proxy->port())), me.constData());
    const FaultProxy::Stats s = m_proxy->stats();
    QCOMPARE(s.connections, 1);
    QCOMPARE(s.accepted, quint64(1));
    QVERIFY(s.bytesToServer > 30 && s.bytesFromServer > 20);
    QCOMPARE(s.heldToServer + s.heldFromServer, quint64(0));
}

void TestFaultProxy::concurrentConnectionsGetTheirOwnAnswers()
{
    constexpr int kClients = 20;
    constexpr int kRounds = 100;
    std::atomic_int wrong = 0;
    std::atomic_int failed = 0;
    std::vector<std::thread> clients;
    const ConnectionSettings settings = throughProxy();
    for (int i = 0; i < kClients; ++i) {
        clients.emplace_back([&, i] {
            RedisConnection c(settings);
            if (c.open()) {
                ++failed;
                return;
            }
            for (int round = 0; round < kRounds; ++round) {
                const QByteArray key = "fp:c" + QByteArray::number(i);
                const QByteArray value = QByteArray::number(i) + ":" + QByteArray::number(round);
                const RedisResult set = c.command({"SET", key, value});
                const RedisResult get = c.command({"GET", key});
                if (!set.ok() || !get.ok())
                    ++failed;
                else if (get.reply.bytes() != value)
                    ++wrong;
            }
        });
    }
    QTRY_COMPARE_WITH_TIMEOUT(m_proxy->stats().accepted, quint64(kClients), 10000);
    for (std::thread &t : clients)
        t.join();
    QCOMPARE(failed.load(), 0);
    QCOMPARE(wrong.load(), 0);
    for (int i = 0; i < kClients; ++i)
        QCOMPARE(direct({"GET", "fp:c" + QByteArray::number(i)}).bytes(),
                 QByteArray::number(i) + ":" + QByteArray::number(kRounds - 1));
    QTRY_COMPARE_WITH_TIMEOUT(m_proxy->stats().connections, 0, 5000); // every client closed: links gone
}

void TestFaultProxy::delayHoldsEachDirection()
{
    RedisConnection c(throughProxy());
    LS_OPEN(c);
    auto roundTripMs = [&c] {
        QElapsedTimer clock;
        clock.start();
        const RedisResult r = c.command({"PING"});
        return r.reply == RedisReply::status("PONG") ? clock.elapsed() : -1;
    };
    m_proxy->setDelay(120, FaultProxy::Direction::ToServer);
    QCOMPARE(m_proxy->delay(FaultProxy::Direction::ToServer), 120);
    QCOMPARE(m_proxy->delay(FaultProxy::Direction::FromServer), 0);
    qint64 ms = roundTripMs();
    QVERIFY2(ms >= 120, qPrintable(QString::number(ms)));
    m_proxy->setDelay(80, FaultProxy::Direction::FromServer);
    ms = roundTripMs();
    QVERIFY2(ms >= 200, qPrintable(QString::number(ms))); // 120 on the way there, 80 back
    m_proxy->setDelay(150); // both ways
    ms = roundTripMs();
    QVERIFY2(ms >= 300, qPrintable(QString::number(ms)));
    // Removed: a round trip is far below one delay again (a generous bound, the machine may be busy).
    m_proxy->setDelay(0);
    qint64 fastest = -1;
    for (int i = 0; i < 5; ++i) {
        ms = roundTripMs();
        QVERIFY(ms >= 0);
        fastest = fastest < 0 ? ms : qMin(fastest, ms);
    }
    QVERIFY2(fastest < 150, qPrintable(QString::number(fastest)));
}

void TestFaultProxy::delayKeepsOrderAndZeroReleasesAtOnce()
{
    RedisConnection c(throughProxy());
    LS_OPEN(c);
    m_proxy->setDelay(30);
    // Many small writes, each read as its own chunk with its own deadline: the replies come in order.
    RawClient raw(m_proxy->port());
    QByteArray expected;
    for (int i = 1; i <= 100; ++i) {
        QVERIFY(raw.send("INCR fp:order\r\n"));
        expected += ':' + QByteArray::number(i) + "\r\n";
    }
    QCOMPARE(raw.receive(expected.size(), 10000), expected);
    QCOMPARE(direct({"GET", "fp:order"}).bytes(), QByteArray("100"));

    // A long delay, then none: what waits is released at once rather than after its delay.
    m_proxy->setDelay(5000, FaultProxy::Direction::ToServer);
    QElapsedTimer clock;
    clock.start();
    QVERIFY(!c.append({"SET", "fp:late", "1"}));
    QCOMPARE(c.readReply(200).error.code(), RedisError::Code::Timeout);
    QVERIFY(direct({"GET", "fp:late"}).isNil());
    QVERIFY(m_proxy->stats().heldToServer > 0);
    m_proxy->setDelay(0);
    const RedisResult r = c.readReply(5000);
    QCOMPARE(r.reply, RedisReply::status("OK"));
    QVERIFY2(clock.elapsed() < 4500, qPrintable(QString::number(clock.elapsed())));
    QCOMPARE(m_proxy->stats().heldToServer, quint64(0));
}

void TestFaultProxy::cutBothWaysHoldsUntilTheHeal()
{
    RedisConnection c(throughProxy());
    LS_OPEN(c);
    RedisConnection timingOut(throughProxy(300));
    LS_OPEN(timingOut);
    m_proxy->setCut(FaultProxy::Direction::Both, true);
    QVERIFY(m_proxy->isCut(FaultProxy::Direction::Both));
    // The connection's own command timeout fires: nothing comes back.
    const RedisResult lost = timingOut.command({"SET", "fp:timedout", "1"});
    QCOMPARE(lost.error.code(), RedisError::Code::Timeout);
    // A command left waiting on a connection that stays open.
    QVERIFY(!c.append({"SET", "fp:held", "1"}));
    QCOMPARE(c.readReply(300).error.code(), RedisError::Code::Timeout);
    QVERIFY(direct({"GET", "fp:held"}).isNil());
    QVERIFY(direct({"GET", "fp:timedout"}).isNil());
    QVERIFY(m_proxy->stats().heldToServer > 0);
    QCOMPARE(m_proxy->stats().connections, 2); // no FIN, no RST: both still there

    m_proxy->setCut(FaultProxy::Direction::Both, false);
    QVERIFY(!m_proxy->isCut(FaultProxy::Direction::ToServer));
    QCOMPARE(c.readReply(5000).reply, RedisReply::status("OK")); // delivered as TCP would
    QCOMPARE(direct({"GET", "fp:held"}), RedisReply::string("1"));
    QCOMPARE(c.command({"PING"}).reply, RedisReply::status("PONG"));
    // The timed-out client closed its connection, but its SET had left: it arrives after the heal.
    QTRY_COMPARE_WITH_TIMEOUT(direct({"GET", "fp:timedout"}), RedisReply::string("1"), 5000);
    QCOMPARE(timingOut.command({"PING"}).reply, RedisReply::status("PONG")); // reconnects
}

void TestFaultProxy::fromServerCutAppliesButDoesNotAnswer()
{
    RedisConnection c(throughProxy(400));
    LS_OPEN(c);
    m_proxy->setCut(FaultProxy::Direction::FromServer, true);
    QVERIFY(!m_proxy->isCut(FaultProxy::Direction::Both));
    const RedisResult r = c.command({"SET", "fp:unknown", "applied"});
    QCOMPARE(r.error.code(), RedisError::Code::Timeout); // the client does not know...
    QCOMPARE(direct({"GET", "fp:unknown"}), RedisReply::string("applied")); // ...but it happened
    QVERIFY(m_proxy->stats().heldFromServer > 0);
    m_proxy->setCut(FaultProxy::Direction::FromServer, false);
    QCOMPARE(c.command({"GET", "fp:unknown"}).reply, RedisReply::string("applied"));
}

void TestFaultProxy::toServerCutAppliesOnlyAfterTheHeal()
{
    RedisConnection c(throughProxy());
    LS_OPEN(c);
    m_proxy->setCut(FaultProxy::Direction::ToServer, true);
    const quint64 forwarded = m_proxy->stats().bytesToServer;
    QVERIFY(!c.append({"SET", "fp:waiting", "1"}));
    QCOMPARE(c.readReply(400).error.code(), RedisError::Code::Timeout);
    QVERIFY(direct({"GET", "fp:waiting"}).isNil());
    QCOMPARE(m_proxy->stats().bytesToServer, forwarded);
    QVERIFY(m_proxy->stats().heldToServer > 0);
    m_proxy->setCut(FaultProxy::Direction::ToServer, false);
    QCOMPARE(c.readReply(5000).reply, RedisReply::status("OK"));
    QCOMPARE(direct({"GET", "fp:waiting"}), RedisReply::string("1"));
}

void TestFaultProxy::pubSubIsCutToo()
{
    RedisConnection sub(throughProxy());
    LS_OPEN(sub);
    const RedisResult subscribed = sub.command({"SUBSCRIBE", "fp:channel"});
    QVERIFY2(subscribed.ok(), qPrintable(subscribed.error.message()));
    QCOMPARE(subscribed.reply.at(0).bytes(), QByteArray("subscribe"));
    QCOMPARE(direct({"PUBLISH", "fp:channel", "before"}).toInteger(), 1);
    QCOMPARE(sub.readReply(3000).reply.at(2).bytes(), QByteArray("before"));

    m_proxy->setCut(FaultProxy::Direction::FromServer, true);
    QCOMPARE(direct({"PUBLISH", "fp:channel", "during"}).toInteger(), 1); // the server sent it
    QCOMPARE(sub.readReply(400).error.code(), RedisError::Code::Timeout);
    m_proxy->setCut(FaultProxy::Direction::FromServer, false);
    const RedisResult message = sub.readReply(5000);
    QVERIFY2(message.ok(), qPrintable(message.error.message()));
    QCOMPARE(message.reply.at(0).bytes(), QByteArray("message"));
    QCOMPARE(message.reply.at(2).bytes(), QByteArray("during"));
}

void TestFaultProxy::newConnectionDuringACutWaitsForTheHeal()
{
    const qint64 before = connectedClients();
    m_proxy->setCut(FaultProxy::Direction::Both, true);
    RawClient raw(m_proxy->port());
    QVERIFY(raw.isOpen()); // the proxy accepts, as the kernel would complete a connect() it has queued
    QVERIFY(raw.send("PING\r\n"));
    QVERIFY(raw.receive(7, 300).isEmpty());
    QTRY_COMPARE_WITH_TIMEOUT(m_proxy->stats().connections, 1, 5000);
    QCOMPARE(connectedClients(), before); // no upstream connection yet: the server knows nothing
    m_proxy->setCut(FaultProxy::Direction::Both, false);
    QCOMPARE(raw.receive(7, 5000), QByteArray("+PONG\r\n"));
    QCOMPARE(connectedClients(), before + 1);

    // A client that gives up before the heal never reaches the server.
    m_proxy->setCut(FaultProxy::Direction::ToServer, true);
    {
        RawClient quitter(m_proxy->port());
        QVERIFY(quitter.send("SET fp:never 1\r\n"));
        QTRY_COMPARE_WITH_TIMEOUT(m_proxy->stats().connections, 2, 5000);
    }
    QTRY_COMPARE_WITH_TIMEOUT(m_proxy->stats().connections, 1, 5000);
    m_proxy->setCut(FaultProxy::Direction::ToServer, false);
    QVERIFY(raw.send("PING\r\n"));
    QCOMPARE(raw.receive(7, 5000), QByteArray("+PONG\r\n")); // after the quitter's would-be SET
    QVERIFY(direct({"GET", "fp:never"}).isNil());
}

void TestFaultProxy::heldBytesAreBoundedByFlowControl()
{
    constexpr qsizetype kValueSize = 16 * 1024 * 1024; // far more than the limit and the socket buffers
    RedisConnection c(throughProxy(30000));
    LS_OPEN(c);
    m_proxy->setCut(FaultProxy::Direction::ToServer, true);
    RedisResult result;
    std::thread writer([&] { result = c.command({"SET", "fp:big", QByteArray(kValueSize, 'x')}); });
    QTRY_VERIFY_WITH_TIMEOUT(m_proxy->stats().heldToServer >= quint64(FaultProxy::kHoldLimit), 10000);
    // Whenever it is read, the held amount is at most the limit plus one read.
    for (int i = 0; i < 20; ++i)
        QVERIFY2(m_proxy->stats().heldToServer <= quint64(FaultProxy::kHoldLimit + 64 * 1024),
                 qPrintable(QString::number(m_proxy->stats().heldToServer)));
    m_proxy->setCut(FaultProxy::Direction::ToServer, false);
    writer.join();
    QVERIFY2(result.ok(), qPrintable(result.error.message()));
    QCOMPARE(direct({"STRLEN", "fp:big"}).toInteger(), kValueSize);
    QCOMPARE(m_proxy->stats().heldToServer, quint64(0));
}

void TestFaultProxy::dropConnectionsResetsClients()
{
    RedisConnection a(throughProxy());
    LS_OPEN(a);
    RedisConnection b(throughProxy());
    LS_OPEN(b);
    QCOMPARE(m_proxy->stats().connections, 2);
    m_proxy->dropConnections();
    QCOMPARE(m_proxy->stats().connections, 0); // done when the call returns
    for (RedisConnection *c : {&a, &b}) {
        const RedisResult r = c->command({"PING"});
        QVERIFY2(r.error.code() == RedisError::Code::ConnectionClosed
                     || r.error.code() == RedisError::Code::Io,
                 qPrintable(RedisError::codeName(r.error.code()) + u' ' + r.error.message()));
        QCOMPARE(c->command({"PING"}).reply, RedisReply::status("PONG")); // reconnected through the proxy
    }
    QCOMPARE(m_proxy->stats().connections, 2);
    QCOMPARE(m_proxy->stats().accepted, quint64(4));
    // While data is held, too: what was held is lost, as on a real reset.
    m_proxy->setCut(FaultProxy::Direction::ToServer, true);
    QVERIFY(!a.append({"SET", "fp:dropped", "1"}));
    QCOMPARE(a.readReply(100).error.code(), RedisError::Code::Timeout); // sent, and held
    QTRY_VERIFY_WITH_TIMEOUT(m_proxy->stats().heldToServer > 0, 5000);
    m_proxy->dropConnections();
    QCOMPARE(m_proxy->stats().heldToServer, quint64(0));
    m_proxy->setCut(FaultProxy::Direction::ToServer, false);
    QVERIFY(a.readReply(3000).error.breaksConnection());
    QCOMPARE(a.command({"PING"}).reply, RedisReply::status("PONG"));
    QVERIFY(direct({"GET", "fp:dropped"}).isNil());
}

void TestFaultProxy::setUpstreamSendsNewConnectionsElsewhere()
{
    RedisConnection other(m_other.connectionSettings());
    LS_OPEN(other);
    QVERIFY(direct({"SET", "fp:who", "first"}).isStatus());
    QVERIFY(other.command({"SET", "fp:who", "second"}).ok());
    RedisConnection before(throughProxy());
    LS_OPEN(before);
    QCOMPARE(before.command({"GET", "fp:who"}).reply, RedisReply::string("first"));
    QString error;
    QVERIFY2(m_proxy->setUpstream(m_other.host(), m_other.port(), &error), qPrintable(error));
    RedisConnection after(throughProxy());
    LS_OPEN(after);
    QCOMPARE(after.command({"GET", "fp:who"}).reply, RedisReply::string("second"));
    QCOMPARE(before.command({"GET", "fp:who"}).reply, RedisReply::string("first")); // left where it was
    QVERIFY(!m_proxy->setUpstream(QStringLiteral("no-such-host.invalid"), 1, &error));
    QVERIFY2(error.contains(QLatin1String("no-such-host.invalid")), qPrintable(error));
    RedisConnection still(throughProxy());
    LS_OPEN(still); // the failed change left the upstream as it was
    QCOMPARE(still.command({"GET", "fp:who"}).reply, RedisReply::string("second"));
    QVERIFY(other.command({"DEL", "fp:who"}).ok());
}

void TestFaultProxy::refusedUpstreamClosesTheClient()
{
    FaultProxy nowhere(QStringLiteral("127.0.0.1"), LoopbackPorts::freePort());
    QString error;
    QVERIFY2(nowhere.start(&error), qPrintable(error));
    RedisConnection c(throughProxy(3000, &nowhere));
    QElapsedTimer clock;
    clock.start();
    const RedisError e = c.open();
    QVERIFY2(e.breaksConnection(), qPrintable(e.message()));
    QVERIFY2(e.code() != RedisError::Code::Timeout, qPrintable(e.message())); // told, not left waiting
    QVERIFY(nowhere.stats().upstreamFailures >= 1);
    QTRY_COMPARE_WITH_TIMEOUT(nowhere.stats().connections, 0, 5000);

    FaultProxy unresolvable(QStringLiteral("no-such-host.invalid"), 6379);
    QVERIFY(!unresolvable.start(&error));
    QVERIFY2(error.contains(QLatin1String("no-such-host.invalid")), qPrintable(error));
    QVERIFY(!unresolvable.isRunning());
}

void TestFaultProxy::halfCloseIsPassedOn()
{
    RawClient raw(m_proxy->port());
    QVERIFY(raw.send("SET fp:half 1\r\nGET fp:half\r\n"));
    raw.shutdownWrite(); // the server gets a FIN after the commands and still answers them
    bool eof = false;
    QCOMPARE(raw.receive(100, 5000, &eof), QByteArray("+OK\r\n$1\r\n1\r\n"));
    QVERIFY(eof); // redis closed on the FIN, after its replies: the client sees the close too
    QTRY_COMPARE_WITH_TIMEOUT(m_proxy->stats().connections, 0, 5000);
}

void TestFaultProxy::idleProxyDoesNotSpin()
{
    // The states where a poll loop could spin: held bytes behind a cut, at the hold limit, a client gone
    // while its reply is held, a half-closed client, idle connections.
    RedisConnection idle(throughProxy());
    LS_OPEN(idle);
    RawClient halfClosed(m_proxy->port());
    QVERIFY(halfClosed.send("SUBSCRIBE fp:idle\r\n"));
    QVERIFY(!halfClosed.receive(10, 3000).isEmpty());
    halfClosed.shutdownWrite();
    auto gone = std::make_unique<RedisConnection>(throughProxy(200));
    LS_OPEN(*gone);
    RedisConnection big(throughProxy(200));
    LS_OPEN(big);
    m_proxy->setCut(FaultProxy::Direction::FromServer, true);
    QCOMPARE(gone->command({"SET", "fp:gone", QByteArray(2 * FaultProxy::kHoldLimit, 'g')}).error.code(),
             RedisError::Code::Timeout);
    gone.reset();
    QVERIFY(!big.append({"GETRANGE", "fp:gone", "0", "-1"})); // a reply above the hold limit, held
    QCOMPARE(big.readReply(100).error.code(), RedisError::Code::Timeout);
    QTRY_VERIFY_WITH_TIMEOUT(m_proxy->stats().heldFromServer >= quint64(FaultProxy::kHoldLimit), 5000);

    rusage before {};
    ::getrusage(RUSAGE_SELF, &before);
    QTest::qSleep(500); // the measurement itself: what the process burns while nobody does anything
    rusage after {};
    ::getrusage(RUSAGE_SELF, &after);
    auto cpuUs = [](const rusage &r) {
        return qint64(r.ru_utime.tv_sec + r.ru_stime.tv_sec) * 1'000'000 + r.ru_utime.tv_usec
            + r.ru_stime.tv_usec;
    };
    const qint64 spentUs = cpuUs(after) - cpuUs(before);
    QVERIFY2(spentUs < 100'000, qPrintable(QStringLiteral("%1 µs of CPU in 500 ms").arg(spentUs)));
    m_proxy->setCut(FaultProxy::Direction::FromServer, false);
    QCOMPARE(big.readReply(5000).reply.bytes().size(), 2 * FaultProxy::kHoldLimit);
}

void TestFaultProxy::stopWithHeldDataLeavesNothingBehind()
{
    m_proxy.reset();
    const int threadsBefore = entriesIn("/proc/self/task");
    const int fdsBefore = entriesIn("/proc/self/fd");
    {
        FaultProxy proxy(m_server.host(), m_server.port());
        QString error;
        QVERIFY2(proxy.start(&error), qPrintable(error));
        QCOMPARE(entriesIn("/proc/self/task"), threadsBefore + 1);
        ConnectionSettings s = throughProxy(3000, &proxy);
        std::vector<std::unique_ptr<RedisConnection>> clients;
        for (int i = 0; i < 5; ++i) {
            clients.push_back(std::make_unique<RedisConnection>(s));
            LS_OPEN(*clients.back());
        }
        proxy.setDelay(60000, FaultProxy::Direction::FromServer);
        proxy.setCut(FaultProxy::Direction::ToServer, true);
        for (auto &c : clients) {
            QVERIFY(!c->append({"SET", "fp:stop", QByteArray(100000, 'v')}));
            QCOMPARE(c->readReply(50).error.code(), RedisError::Code::Timeout); // sent, and held
        }
        QTRY_VERIFY_WITH_TIMEOUT(proxy.stats().heldToServer >= 5 * 100000, 5000);
        QElapsedTimer clock;
        clock.start();
        proxy.stop();
        QVERIFY2(clock.elapsed() < 2000, qPrintable(QString::number(clock.elapsed())));
        QVERIFY(!proxy.isRunning());
        QCOMPARE(proxy.port(), 0);
        QCOMPARE(entriesIn("/proc/self/task"), threadsBefore);
        for (auto &c : clients)
            QVERIFY(c->readReply(3000).error.breaksConnection());
        proxy.dropConnections(); // stopped: returns at once
        // Started again: a new port, the faults as they were set.
        proxy.setCut(FaultProxy::Direction::Both, false);
        proxy.setDelay(0);
        QVERIFY2(proxy.start(&error), qPrintable(error));
        s.port = proxy.port();
        RedisConnection again(s);
        LS_OPEN(again);
        QVERIFY(again.command({"PING"}).ok());
    }
    QCOMPARE(entriesIn("/proc/self/task"), threadsBefore);
    QCOMPARE(entriesIn("/proc/self/fd"), fdsBefore);
    QVERIFY(direct({"GET", "fp:stop"}).isNil());
}

void TestFaultProxy::addedLatencyFigures()
{
    if (qEnvironmentVariableIntValue("LOCKSCOPE_PROXY_BENCH") != 1)
        QSKIP("a measurement: LOCKSCOPE_PROXY_BENCH=1 runs it");
    constexpr int kPings = 10000;
    auto measure = [](RedisConnection &c, const char *name) {
        std::vector<qint64> ns;
        ns.reserve(kPings);
        QElapsedTimer clock;
        for (int i = 0; i < kPings; ++i) {
            clock.start();
            if (!c.command({"PING"}).ok())
                return;
            ns.push_back(clock.nsecsElapsed());
        }
        std::sort(ns.begin(), ns.end());
        qInfo("%s: %d PINGs, median %.1f µs, p99 %.1f µs", name, kPings, ns[ns.size() / 2] / 1000.0,
              ns[ns.size() * 99 / 100] / 1000.0);
    };
    RedisConnection direct(m_server.connectionSettings());
    LS_OPEN(direct);
    RedisConnection proxied(throughProxy());
    LS_OPEN(proxied);
    for (int round = 0; round < 2; ++round) {
        measure(direct, "direct");
        measure(proxied, "through the proxy");
    }
}

QTEST_GUILESS_MAIN(TestFaultProxy)
#include "tst_faultproxy.moc"
