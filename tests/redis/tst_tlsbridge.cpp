// TLS through TlsBridge, tested the way the app uses it (RedisConnection) against real TLS-only
// redis-servers with certificates made in the test: verification on by default, wrong CA, wrong name,
// client certificates, ACL users, timeouts, interrupts, restarts and large pipelines.
#include "redis/tlsbridge.h"
#include "silentlistener.h"
#include "testsupport.h"
#include "tlsfixture.h"

#include <QDeadlineTimer>
#include <QDir>
#include <QElapsedTimer>
#include <thread>

class TestTlsBridge : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void commandsOverTls();
    void verifiesByNameOrAddress();
    void largeValuesAndPipelines();
    void pubSubWaitOverTls();
    void wrongCaIsRejectedWithTheReason();
    void systemTrustStoreDoesNotKnowOurCa();
    void wrongHostnameIsRejected();
    void insecureSkipsVerification();
    void plainPortIsNotTls();
    void handshakeTimeout();
    void refusedTlsPort();
    void clientCertificateRequired();
    void clientCertificateFromAnUntrustedCa();
    void encryptedKeyIsExplained();
    void mismatchedKeyIsExplained();
    void aclUserOverTls();
    void readOnlyGuardOverTls();
    void timeoutOnAPausedServerAndRecovery();
    void reconnectsAfterRestart();
    void serverClosingTheConnection();
    void interruptDuringACommand();
    void interruptDuringTheHandshake();
    void noThreadsLeftBehind();

private:
    ConnectionSettings tlsSettings() const;

    TlsFixture m_certs;
    std::unique_ptr<SandboxServer> m_server; // TLS only, no client certificates needed
    std::unique_ptr<SandboxServer> m_mtls; // TLS only, client certificate required
};

void TestTlsBridge::initTestCase()
{
    QVERIFY2(m_certs.create(), qPrintable(m_certs.errorString()));
    m_server = std::make_unique<SandboxServer>(m_certs.sandboxOptions());
    LS_START(*m_server);
    m_mtls = std::make_unique<SandboxServer>(m_certs.sandboxOptions(true));
    LS_START(*m_mtls);
}

ConnectionSettings TestTlsBridge::tlsSettings() const
{
    ConnectionSettings s = m_server->connectionSettings();
    s.connectTimeoutMs = 2000;
    s.commandTimeoutMs = 2000;
    return s;
}

void TestTlsBridge::commandsOverTls()
{
    RedisConnection c(tlsSettings());
    LS_OPEN(c);
    QVERIFY2(c.tlsProtocol().startsWith(QLatin1String("TLSv1.")), qPrintable(c.tlsProtocol()));
    QCOMPARE(c.command({"SET", "tls:k", "v"}).reply, RedisReply::status("OK"));
    QCOMPARE(c.command({"GET", "tls:k"}).reply, RedisReply::string("v"));
    QVERIFY(c.clientId() > 0);
    // The server really sees a TLS client: the plain port is off and the connection is on the TLS port.
    QCOMPARE(c.command({"CONFIG", "GET", "port"}).reply.at(1).bytes(), QByteArray("0"));
    QCOMPARE(c.command({"CONFIG", "GET", "tls-port"}).reply.at(1).bytes(),
             QByteArray::number(m_server->port()));
    const QByteArray me = c.command({"CLIENT", "INFO"}).reply.bytes();
    QVERIFY2(me.contains("laddr=127.0.0.1:" + QByteArray::number(m_server->port())), me.constData());
    // A plain connection to the TLS port fails instead of hanging.
    ConnectionSettings plain = tlsSettings();
    plain.tls = {};
    plain.connectTimeoutMs = 500;
    plain.commandTimeoutMs = 500;
    RedisConnection p(plain);
    QVERIFY(p.open());
}

void TestTlsBridge::verifiesByNameOrAddress()
{
    ConnectionSettings byName = tlsSettings();
    byName.host = QStringLiteral("localhost"); // checked against DNS:localhost and sent as SNI
    RedisConnection a(byName);
    LS_OPEN(a);
    ConnectionSettings bySni = tlsSettings(); // dial the address, verify the name
    bySni.tls.serverName = QStringLiteral("localhost");
    RedisConnection b(bySni);
    LS_OPEN(b);
    QVERIFY(b.command({"PING"}).ok());
}

void TestTlsBridge::largeValuesAndPipelines()
{
    RedisConnection c(tlsSettings());
    LS_OPEN(c);
    QByteArray big(3 * 1024 * 1024, Qt::Uninitialized); // larger than every buffer on the way
    for (qsizetype i = 0; i < big.size(); ++i)
        big[i] = char((i * 131) & 0xff);
    QVERIFY(c.command({"SET", "tls:big", big}).ok());
    QCOMPARE(c.command({"GET", "tls:big"}).reply.bytes(), big);
    QList<RedisCommand> commands;
    for (int i = 0; i < 5000; ++i)
        commands.append(RedisCommand {"INCR", "tls:counter"});
    const QList<RedisResult> results = c.pipeline(commands);
    QCOMPARE(results.size(), 5000);
    QCOMPARE(results.last().reply.toInteger(), 5000);
    QCOMPARE(c.command({"DEL", "tls:big", "tls:counter"}).reply.toInteger(), 2);
}

void TestTlsBridge::pubSubWaitOverTls()
{
    RedisConnection subscriber(tlsSettings());
    LS_OPEN(subscriber);
    QVERIFY(!subscriber.append({"SUBSCRIBE", "tls:channel"}));
    QCOMPARE(subscriber.readReply(2000).reply.at(0).bytes(), QByteArray("subscribe"));
    // Nothing published: the wait times out and the connection stays usable.
    const RedisResult nothing = subscriber.readReply(100);
    QCOMPARE(nothing.error.code(), RedisError::Code::Timeout);
    QVERIFY(subscriber.isOpen());
    RedisConnection publisher(tlsSettings());
    LS_OPEN(publisher);
    QCOMPARE(publisher.command({"PUBLISH", "tls:channel", "hello"}).reply.toInteger(), 1);
    const RedisResult message = subscriber.readReply(2000);
    QVERIFY2(message.ok(), qPrintable(message.error.message()));
    QCOMPARE(message.reply.at(2).bytes(), QByteArray("hello"));
}

void TestTlsBridge::wrongCaIsRejectedWithTheReason()
{
    ConnectionSettings s = tlsSettings();
    s.tls.caFile = m_certs.otherCaFile();
    RedisConnection c(s);
    const RedisError e = c.open();
    QCOMPARE(e.code(), RedisError::Code::Tls);
    QVERIFY2(e.message().contains(QLatin1String("was rejected")), qPrintable(e.message()));
    // OpenSSL's own reason, whichever way it sees the unknown chain
    QVERIFY2(e.message().contains(QLatin1String("unable to get local issuer certificate"))
                 || e.message().contains(QLatin1String("self-signed certificate in certificate chain")),
             qPrintable(e.message()));
    QVERIFY2(e.message().contains(QLatin1String("LockScope Test CA")), qPrintable(e.message())); // the issuer
    QVERIFY2(e.message().contains(m_certs.otherCaFile()), qPrintable(e.message()));
    QVERIFY(!c.isOpen());
}

void TestTlsBridge::systemTrustStoreDoesNotKnowOurCa()
{
    ConnectionSettings s = tlsSettings();
    s.tls.caFile.clear();
    RedisConnection c(s);
    const RedisError e = c.open();
    QCOMPARE(e.code(), RedisError::Code::Tls);
    QVERIFY2(e.message().contains(QLatin1String("--cacert")), qPrintable(e.message()));
}

void TestTlsBridge::wrongHostnameIsRejected()
{
    ConnectionSettings s = tlsSettings();
    s.tls.serverName = QStringLiteral("redis.example.com");
    RedisConnection c(s);
    const RedisError e = c.open();
    QCOMPARE(e.code(), RedisError::Code::Tls);
    QVERIFY2(e.message().contains(QLatin1String("not valid for the name 'redis.example.com'")),
             qPrintable(e.message()));
    QVERIFY2(e.message().contains(QLatin1String("localhost, 127.0.0.1")), qPrintable(e.message()));

    ConnectionSettings byAddress = tlsSettings();
    byAddress.host = QStringLiteral("127.0.0.2"); // loopback too, but not an address the certificate names
    byAddress.port = m_server->port();
    RedisConnection d(byAddress);
    const RedisError e2 = d.open();
    // redis binds 127.0.0.1 only, so 127.0.0.2 is refused before any certificate is seen; both are clear
    // errors
    QVERIFY2(e2.code() == RedisError::Code::Tls || e2.code() == RedisError::Code::ConnectionRefused,
             qPrintable(e2.message()));
}

void TestTlsBridge::insecureSkipsVerification()
{
    ConnectionSettings s = tlsSettings();
    s.tls.caFile = m_certs.otherCaFile();
    s.tls.serverName = QStringLiteral("redis.example.com");
    s.tls.verifyPeer = false;
    QVERIFY(s.transportDescription().contains(QLatin1String("NOT verified")));
    RedisConnection c(s);
    LS_OPEN(c);
    QVERIFY(c.command({"PING"}).ok());
}

void TestTlsBridge::plainPortIsNotTls()
{
    SandboxServer plain;
    LS_START(plain);
    ConnectionSettings s = plain.connectionSettings();
    s.tls = m_certs.clientTls();
    s.connectTimeoutMs = 1000;
    RedisConnection c(s);
    QElapsedTimer timer;
    timer.start();
    const RedisError e = c.open();
    QVERIFY(e);
    // Redis answers a TLS ClientHello with an error line (not TLS) or waits for more: both end clearly.
    QVERIFY2(
        (e.code() == RedisError::Code::Tls && e.message().contains(QLatin1String("does not speak TLS")))
            || (e.code() == RedisError::Code::Timeout && e.message().contains(QLatin1String("plain port"))),
        qPrintable(e.message()));
    QVERIFY(timer.elapsed() < 5000);
}

void TestTlsBridge::handshakeTimeout()
{
    SilentListener silent;
    QVERIFY(silent.port() > 0);
    ConnectionSettings s = tlsSettings();
    s.port = silent.port();
    s.connectTimeoutMs = 300;
    RedisConnection c(s);
    QElapsedTimer timer;
    timer.start();
    const RedisError e = c.open();
    QCOMPARE(e.code(), RedisError::Code::Timeout);
    QVERIFY2(e.message().contains(QLatin1String("No TLS handshake")), qPrintable(e.message()));
    QVERIFY2(timer.elapsed() >= 250 && timer.elapsed() < 3000, qPrintable(QString::number(timer.elapsed())));
}

void TestTlsBridge::refusedTlsPort()
{
    ConnectionSettings s = tlsSettings();
    s.port = LoopbackPorts::freePort();
    RedisConnection c(s);
    const RedisError e = c.open();
    QCOMPARE(e.code(), RedisError::Code::ConnectionRefused);
    QVERIFY2(e.message().contains(s.endpoint()), qPrintable(e.message()));
}

void TestTlsBridge::clientCertificateRequired()
{
    ConnectionSettings s = m_mtls->connectionSettings();
    s.tls.certFile.clear();
    s.tls.keyFile.clear();
    RedisConnection without(s);
    const RedisError e = without.open();
    QCOMPARE(e.code(), RedisError::Code::Tls);
    QVERIFY2(e.message().contains(QLatin1String("client certificate")), qPrintable(e.message()));

    RedisConnection with(m_mtls->connectionSettings());
    LS_OPEN(with);
    QVERIFY(with.command({"PING"}).ok());
}

void TestTlsBridge::clientCertificateFromAnUntrustedCa()
{
    ConnectionSettings s = m_mtls->connectionSettings();
    s.tls.certFile = m_certs.otherClientCert();
    s.tls.keyFile = m_certs.otherClientKey();
    RedisConnection c(s);
    const RedisError e = c.open();
    QCOMPARE(e.code(), RedisError::Code::Tls);
    QVERIFY2(e.message().contains(QLatin1String("does not trust our client certificate"))
                 || e.message().contains(QLatin1String("rejected our client certificate")),
             qPrintable(e.message()));
}

void TestTlsBridge::encryptedKeyIsExplained()
{
    ConnectionSettings s = m_mtls->connectionSettings();
    s.tls.keyFile = m_certs.encryptedClientKey();
    RedisConnection c(s);
    const RedisError e = c.open(); // must not prompt on the terminal for a passphrase
    QCOMPARE(e.code(), RedisError::Code::Tls);
    QVERIFY2(e.message().contains(QLatin1String("passphrase")), qPrintable(e.message()));
}

void TestTlsBridge::mismatchedKeyIsExplained()
{
    ConnectionSettings s = m_mtls->connectionSettings();
    s.tls.keyFile = m_certs.otherClientKey();
    RedisConnection c(s);
    const RedisError e = c.open();
    QCOMPARE(e.code(), RedisError::Code::Tls);
    QVERIFY2(e.message().contains(QLatin1String("does not belong to the certificate")),
             qPrintable(e.message()));

    ConnectionSettings missing = m_mtls->connectionSettings();
    missing.tls.caFile = QDir::temp().filePath(QStringLiteral("no-such-ca.pem"));
    RedisConnection m(missing);
    const RedisError e2 = m.open();
    QCOMPARE(e2.code(), RedisError::Code::BadSettings);
    QVERIFY2(e2.message().contains(QLatin1String("does not exist")), qPrintable(e2.message()));
}

void TestTlsBridge::aclUserOverTls()
{
    RedisConnection admin(tlsSettings());
    LS_OPEN(admin);
    QVERIFY(TestSupport::addReadOnlyUser(admin, "inspector", "tls-pw", {"+acl|whoami"}));
    ConnectionSettings s = tlsSettings();
    s.user = QStringLiteral("inspector");
    s.password = QStringLiteral("tls-pw");
    s.readOnly = true;
    RedisConnection c(s);
    LS_OPEN(c);
    QCOMPARE(c.command({"ACL", "WHOAMI"}).reply.bytes(), QByteArray("inspector"));
    QCOMPARE(c.command({"SET", "tls:acl", "x"}).error.code(), RedisError::Code::ReadOnlyRefused);
    QVERIFY(c.command({"GET", "tls:k"}).ok());
    ConnectionSettings writer = s;
    writer.readOnly = false;
    RedisConnection w(writer);
    LS_OPEN(w);
    QCOMPARE(w.command({"SET", "tls:acl", "x"}).error.code(), RedisError::Code::NoPermission);
    s.password = QStringLiteral("wrong");
    RedisConnection bad(s);
    QCOMPARE(bad.open().code(), RedisError::Code::AuthFailed);
}

void TestTlsBridge::readOnlyGuardOverTls()
{
    ConnectionSettings s = tlsSettings();
    s.readOnly = true;
    RedisConnection c(s);
    LS_OPEN(c);
    RedisConnection admin(tlsSettings());
    LS_OPEN(admin);
    const qint64 before = TestSupport::writeCommandCalls(admin);
    QCOMPARE(c.command({"DEL", "tls:k"}).error.code(), RedisError::Code::ReadOnlyRefused);
    QCOMPARE(TestSupport::writeCommandCalls(admin), before);
}

void TestTlsBridge::timeoutOnAPausedServerAndRecovery()
{
    SandboxServer server(m_certs.sandboxOptions());
    LS_START(server);
    ConnectionSettings s = server.connectionSettings();
    s.commandTimeoutMs = 200;
    s.connectTimeoutMs = 300;
    RedisConnection c(s);
    LS_OPEN(c);
    QVERIFY(server.pause());
    QElapsedTimer timer;
    timer.start();
    const RedisResult r = c.command({"PING"});
    QCOMPARE(r.error.code(), RedisError::Code::Timeout);
    QVERIFY2(timer.elapsed() < 2000, qPrintable(QString::number(timer.elapsed())));
    // While paused, the reconnect's TLS handshake times out too
    const RedisResult again = c.command({"PING"});
    QCOMPARE(again.error.code(), RedisError::Code::Timeout);
    QVERIFY(server.resume());
    QTRY_VERIFY_WITH_TIMEOUT(c.command({"PING"}).ok(), 5000);
}

void TestTlsBridge::reconnectsAfterRestart()
{
    SandboxServer server(m_certs.sandboxOptions());
    LS_START(server);
    RedisConnection c(server.connectionSettings());
    LS_OPEN(c);
    const qint64 firstId = c.clientId();
    QVERIFY(server.restart());
    const RedisResult first = c.command({"PING"}); // may see the old connection's end
    if (!first.ok())
        QVERIFY2(first.error.breaksConnection(), qPrintable(first.error.message()));
    QVERIFY(c.command({"PING"}).ok());
    QVERIFY(c.clientId() > 0);
    Q_UNUSED(firstId);
}

void TestTlsBridge::serverClosingTheConnection()
{
    RedisConnection admin(tlsSettings());
    LS_OPEN(admin);
    RedisConnection victim(tlsSettings());
    LS_OPEN(victim);
    victim.setAutoReconnect(false);
    QCOMPARE(admin.command({"CLIENT", "KILL", "ID", QByteArray::number(victim.clientId())}).reply.toInteger(),
             1);
    const RedisResult r = victim.command({"PING"});
    QCOMPARE(r.error.code(), RedisError::Code::ConnectionClosed);
    QVERIFY2(r.error.message().contains(victim.settings().endpoint()), qPrintable(r.error.message()));
}

void TestTlsBridge::interruptDuringACommand()
{
    RedisConnection c(tlsSettings());
    LS_OPEN(c);
    c.setCommandTimeout(10000);
    const qint64 id = c.clientId();
    std::thread interrupter([this, &c, id] {
        // Interrupt once the server shows the client blocked in BLPOP (an earlier interrupt would end the
        // command as Interrupted too, but would not test a blocked read).
        RedisConnection admin(tlsSettings());
        const bool adminOpen = !admin.open();
        QDeadlineTimer deadline(5000);
        while (adminOpen && !deadline.hasExpired()
               && !admin.command({"CLIENT", "LIST", "ID", QByteArray::number(id)})
                       .reply.bytes()
                       .contains("cmd=blpop"))
            std::this_thread::yield();
        c.interrupt();
    });
    QElapsedTimer timer;
    timer.start();
    const RedisResult r = c.command({"BLPOP", "tls:nothing", "5"});
    interrupter.join();
    QCOMPARE(r.error.code(), RedisError::Code::Interrupted);
    QVERIFY2(timer.elapsed() < 3000, qPrintable(QString::number(timer.elapsed())));
}

void TestTlsBridge::interruptDuringTheHandshake()
{
    SilentListener silent;
    QVERIFY(silent.port() > 0);
    ConnectionSettings s = tlsSettings();
    s.port = silent.port();
    s.connectTimeoutMs = 10000;
    RedisConnection c(s);
    qint64 elapsed = 0;
    QCOMPARE(TestSupport::openAndInterruptOnceConnected(c, silent, &elapsed).code(),
             RedisError::Code::Interrupted);
    QVERIFY2(elapsed < 3000, qPrintable(QString::number(elapsed))); // not the 10 s timeout
}


void TestTlsBridge::noThreadsLeftBehind()
{
    const int before = TestSupport::threadsOfThisProcess();
    for (int i = 0; i < 20; ++i) {
        RedisConnection c(tlsSettings());
        LS_OPEN(c);
        QVERIFY(c.command({"PING"}).ok());
        if (i % 2)
            c.close();
    }
    ConnectionSettings bad = tlsSettings();
    bad.tls.caFile = m_certs.otherCaFile();
    for (int i = 0; i < 5; ++i) {
        RedisConnection c(bad);
        QVERIFY(c.open());
    }
    QCOMPARE(TestSupport::threadsOfThisProcess(), before);
}

QTEST_GUILESS_MAIN(TestTlsBridge)
#include "tst_tlsbridge.moc"
