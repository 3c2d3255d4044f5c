// SSH tunnels: the ssh command line, ssh's errors in plain words, and real tunnels through a private sshd
// (started by the test as the current user) to real redis-servers, plain and TLS.
#include "redis/sshtunnel.h"
#include "redis/sshtunnelpool.h"
#include "silentlistener.h"
#include "sshdfixture.h"
#include "testsupport.h"
#include "tlsfixture.h"

#include <QElapsedTimer>

#include <csignal>
#include <thread>

class TestSshTunnel : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void commandLine();
    void commandLineForSocketsAndIpv6();
    void errorsFromSshsOwnWords_data();
    void errorsFromSshsOwnWords();
    void settingsValidation();
    void redisThroughTheTunnel();
    void oneTunnelIsShared();
    void tlsThroughTheTunnel();
    void unknownHostKey();
    void permissionDenied();
    void noSshServer();
    void bastionCannotReachRedis();
    void sshKilledThenReconnect();
    void silentBastionTimesOut();
    void interruptWhileOpening();

private:
    ConnectionSettings throughSshd(const ConnectionSettings &redis) const;
    bool sshdUp();

    SshdFixture m_sshd;
    bool m_sshdStarted = false;
    QString m_whyNoSshd;
    SandboxServer m_redis;
};

void TestSshTunnel::initTestCase()
{
    LS_START(m_redis);
    m_sshdStarted = m_sshd.start();
    if (!m_sshdStarted)
        m_whyNoSshd = m_sshd.errorString();
}

bool TestSshTunnel::sshdUp()
{
    return m_sshdStarted;
}

#define NEED_SSHD() \
    do { \
        if (!sshdUp()) \
            QSKIP(qPrintable(QStringLiteral("no local sshd: ") + m_whyNoSshd)); \
    } while (false)

ConnectionSettings TestSshTunnel::throughSshd(const ConnectionSettings &redis) const
{
    ConnectionSettings s = redis;
    s.ssh = m_sshd.tunnel();
    s.connectTimeoutMs = 5000;
    return s;
}

void TestSshTunnel::commandLine()
{
    ConnectionSettings s;
    s.host = QStringLiteral("redis.internal");
    s.port = 6380;
    s.ssh.enabled = true;
    s.ssh.host = QStringLiteral("bastion.example.com");
    s.ssh.port = 2222;
    s.ssh.user = QStringLiteral("ops");
    s.ssh.identityFile = QStringLiteral("/home/ops/.ssh/id_ed25519");
    s.ssh.jumpHosts = QStringLiteral("jump1.example.com");
    s.ssh.configFile = QStringLiteral("/home/ops/.ssh/config.work");
    const QStringList args = SshTunnel::command(QStringLiteral("/usr/bin/ssh"), s, 40123, 3000);
    QCOMPARE(args.first(), QStringLiteral("/usr/bin/ssh"));
    QVERIFY(args.contains(QStringLiteral("-N")));
    const qsizetype l = args.indexOf(QStringLiteral("-L"));
    QVERIFY(l > 0);
    QCOMPARE(args.at(l + 1), QStringLiteral("127.0.0.1:40123:redis.internal:6380")); // loopback only
    for (const char *option : {"ExitOnForwardFailure=yes", "BatchMode=yes", "ConnectTimeout=3",
                               "ControlMaster=no", "ControlPath=none"}) {
        const qsizetype at = args.indexOf(QString::fromLatin1(option));
        QVERIFY2(at > 0 && args.at(at - 1) == QLatin1String("-o"), option);
    }
    QCOMPARE(args.at(args.indexOf(QStringLiteral("-p")) + 1), QStringLiteral("2222"));
    QCOMPARE(args.at(args.indexOf(QStringLiteral("-i")) + 1), s.ssh.identityFile);
    QCOMPARE(args.at(args.indexOf(QStringLiteral("-J")) + 1), s.ssh.jumpHosts);
    QCOMPARE(args.at(args.indexOf(QStringLiteral("-F")) + 1), s.ssh.configFile);
    QCOMPARE(args.at(args.indexOf(QStringLiteral("-l")) + 1), QStringLiteral("ops"));
    // The destination comes last, after "--", so it can never be read as an option.
    QCOMPARE(args.mid(args.size() - 2),
             (QStringList {QStringLiteral("--"), QStringLiteral("bastion.example.com")}));
    QCOMPARE(s.ssh.destination(), QStringLiteral("ops@bastion.example.com:2222"));

    ConnectionSettings minimal = s; // the user's own config decides port, user and keys
    minimal.ssh.port = 0;
    minimal.ssh.user.clear();
    minimal.ssh.identityFile.clear();
    minimal.ssh.jumpHosts.clear();
    minimal.ssh.configFile.clear();
    const QStringList plain = SshTunnel::command(QStringLiteral("ssh"), minimal, 40123, 500);
    for (const char *absent : {"-p", "-i", "-J", "-F", "-l"})
        QVERIFY2(!plain.contains(QString::fromLatin1(absent)), absent);
    QVERIFY(plain.contains(QStringLiteral("ConnectTimeout=1"))); // rounded up, never 0 (which means none)
}

void TestSshTunnel::commandLineForSocketsAndIpv6()
{
    ConnectionSettings s;
    s.ssh.enabled = true;
    s.ssh.host = QStringLiteral("bastion");
    s.host = QStringLiteral("fd00::5");
    s.port = 6379;
    QStringList args = SshTunnel::command(QStringLiteral("ssh"), s, 5000, 3000);
    QCOMPARE(args.at(args.indexOf(QStringLiteral("-L")) + 1),
             QStringLiteral("127.0.0.1:5000:[fd00::5]:6379"));
    s.socketPath = QStringLiteral("/run/redis/redis.sock");
    args = SshTunnel::command(QStringLiteral("ssh"), s, 5000, 3000);
    QCOMPARE(args.at(args.indexOf(QStringLiteral("-L")) + 1),
             QStringLiteral("127.0.0.1:5000:/run/redis/redis.sock"));
}

void TestSshTunnel::errorsFromSshsOwnWords_data()
{
    QTest::addColumn<QString>("log");
    QTest::addColumn<int>("code");
    QTest::addColumn<QString>("says");
    QTest::newRow("host key") << "Host key verification failed.\n"
                              << int(RedisError::Code::Tunnel) << "run `ssh ops@bastion` once";
    QTest::newRow("changed key")
        << "@@@@@\n@    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @\nHost key "
           "verification failed.\n"
        << int(RedisError::Code::Tunnel) << "CHANGED";
    QTest::newRow("auth") << "ops@bastion: Permission denied (publickey).\n"
                          << int(RedisError::Code::Tunnel) << "cannot type a password";
    QTest::newRow("refused") << "ssh: connect to host bastion port 22: Connection refused\n"
                             << int(RedisError::Code::ConnectionRefused) << "no SSH server";
    QTest::newRow("timeout") << "ssh: connect to host bastion port 22: Connection timed out\n"
                             << int(RedisError::Code::Timeout) << "in time";
    QTest::newRow("dns") << "ssh: Could not resolve hostname bastion: Name or service not known\n"
                         << int(RedisError::Code::HostNotFound) << "cannot resolve";
    QTest::newRow("other")
        << "Warning: Permanently added 'x' (ED25519) to the list of known hosts.\nkex_exchange_"
           "identification: read: Connection reset by peer\n"
        << int(RedisError::Code::Tunnel) << "kex_exchange_identification";
    QTest::newRow("silent") << "" << int(RedisError::Code::Tunnel) << "without saying why";
}

void TestSshTunnel::errorsFromSshsOwnWords()
{
    QFETCH(QString, log);
    QFETCH(int, code);
    QFETCH(QString, says);
    ConnectionSettings s;
    s.ssh.enabled = true;
    s.ssh.host = QStringLiteral("bastion");
    s.ssh.user = QStringLiteral("ops");
    const RedisError e = SshTunnel::errorFromLog(log, s);
    QCOMPARE(int(e.code()), code);
    QVERIFY2(e.message().contains(says), qPrintable(e.message()));
    QVERIFY(!e.message().contains(QLatin1String("Permanently added")));
}

void TestSshTunnel::settingsValidation()
{
    ConnectionSettings s;
    s.ssh.enabled = true;
    QVERIFY(s.validate().contains(QLatin1String("bastion")));
    s.ssh.host = QStringLiteral("-oProxyCommand=evil");
    QVERIFY(s.validate().contains(QLatin1String("must not start with '-'")));
    s.ssh.host = QStringLiteral("ops@bastion");
    QVERIFY(s.validate().contains(QLatin1String("own field")));
    s.ssh.host = QStringLiteral("bastion");
    s.ssh.identityFile = QStringLiteral("/nonexistent/key");
    QVERIFY(s.validate().contains(QLatin1String("does not exist")));
    s.ssh.identityFile.clear();
    QVERIFY2(s.validate().isEmpty(), qPrintable(s.validate()));
    QCOMPARE(s.describe(), QStringLiteral("127.0.0.1:6379 (via ssh bastion)"));
}

void TestSshTunnel::redisThroughTheTunnel()
{
    NEED_SSHD();
    qint64 sshPid = -1;
    {
        RedisConnection c(throughSshd(m_redis.connectionSettings()));
        LS_OPEN(c);
        QCOMPARE(c.command({"SET", "ssh:k", "through the bastion"}).reply, RedisReply::status("OK"));
        RedisConnection direct(m_redis.connectionSettings());
        LS_OPEN(direct);
        QCOMPARE(direct.command({"GET", "ssh:k"}).reply.bytes(), QByteArray("through the bastion"));
        // sshd is the one connected to Redis: the client list shows two clients, one of them via sshd
        QCOMPARE(SshTunnelPool::openTunnels(), 1);
        RedisError e;
        const std::shared_ptr<SshTunnel> tunnel = SshTunnelPool::acquire(c.settings(), nullptr, &e);
        QVERIFY(tunnel);
        sshPid = tunnel->pid();
        QVERIFY(sshPid > 0);
        QVERIFY(::kill(pid_t(sshPid), 0) == 0);
    }
    // The last connection is gone: so is ssh.
    QCOMPARE(SshTunnelPool::openTunnels(), 0);
    QVERIFY(::kill(pid_t(sshPid), 0) != 0);
}

void TestSshTunnel::oneTunnelIsShared()
{
    NEED_SSHD();
    const ConnectionSettings s = throughSshd(m_redis.connectionSettings());
    std::vector<std::unique_ptr<RedisConnection>> connections;
    std::vector<std::thread> threads;
    std::atomic_int opened = 0;
    for (int i = 0; i < 4; ++i)
        connections.push_back(std::make_unique<RedisConnection>(s));
    for (auto &c : connections) // concurrent opens, like a simulation's workers: they wait for one ssh
        threads.emplace_back([&c, &opened] {
            if (!c->open() && c->command({"PING"}).ok())
                ++opened;
        });
    for (std::thread &t : threads)
        t.join();
    QCOMPARE(opened.load(), 4);
    QCOMPARE(SshTunnelPool::openTunnels(), 1);
    connections.clear();
    QCOMPARE(SshTunnelPool::openTunnels(), 0);
}

void TestSshTunnel::tlsThroughTheTunnel()
{
    NEED_SSHD();
    TlsFixture certs;
    QVERIFY2(certs.create(), qPrintable(certs.errorString()));
    SandboxServer tlsRedis(certs.sandboxOptions());
    LS_START(tlsRedis);
    ConnectionSettings s = throughSshd(tlsRedis.connectionSettings());
    s.host = QStringLiteral("localhost"); // as the bastion resolves it, and the name the certificate carries
    RedisConnection c(s);
    LS_OPEN(c);
    QVERIFY(!c.tlsProtocol().isEmpty());
    QVERIFY(c.command({"PING"}).ok());
    // The name is checked against the real server's name, not the tunnel's 127.0.0.1 end
    s.tls.serverName = QStringLiteral("redis.example.com");
    RedisConnection wrong(s);
    const RedisError e = wrong.open();
    QCOMPARE(e.code(), RedisError::Code::Tls);
    QVERIFY2(e.message().contains(QLatin1String("redis.example.com")), qPrintable(e.message()));
    QVERIFY2(e.message().contains(QLatin1String("localhost:")), qPrintable(e.message())); // the real endpoint
}

void TestSshTunnel::unknownHostKey()
{
    NEED_SSHD();
    ConnectionSettings s = throughSshd(m_redis.connectionSettings());
    s.ssh.configFile = m_sshd.configWithoutHostKey();
    RedisConnection c(s);
    const RedisError e = c.open();
    QCOMPARE(e.code(), RedisError::Code::Tunnel);
    QVERIFY2(e.message().contains(QLatin1String("host key"))
                 && e.message().contains(QLatin1String("not known")),
             qPrintable(e.message()));
    QCOMPARE(SshTunnelPool::openTunnels(), 0);
}

void TestSshTunnel::permissionDenied()
{
    NEED_SSHD();
    ConnectionSettings s = throughSshd(m_redis.connectionSettings());
    s.ssh.identityFile = m_sshd.strangerKey();
    RedisConnection c(s);
    const RedisError e = c.open();
    QCOMPARE(e.code(), RedisError::Code::Tunnel);
    QVERIFY2(e.message().contains(QLatin1String("was refused"))
                 && e.message().contains(QLatin1String("publickey")),
             qPrintable(e.message()));
}

void TestSshTunnel::noSshServer()
{
    NEED_SSHD(); // needs the client config only, but keeps the environment the same as the others
    ConnectionSettings s = throughSshd(m_redis.connectionSettings());
    s.ssh.port = LoopbackPorts::freePort();
    RedisConnection c(s);
    const RedisError e = c.open();
    QCOMPARE(e.code(), RedisError::Code::ConnectionRefused);
    QVERIFY2(e.message().contains(QLatin1String("no SSH server")), qPrintable(e.message()));
}

void TestSshTunnel::bastionCannotReachRedis()
{
    NEED_SSHD();
    ConnectionSettings target = m_redis.connectionSettings();
    target.port = LoopbackPorts::freePort(); // nothing listens there
    RedisConnection c(throughSshd(target));
    const RedisError e = c.open();
    QCOMPARE(e.code(), RedisError::Code::Tunnel);
    QVERIFY2(e.message().contains(QLatin1String("could not reach Redis"))
                 && e.message().contains(QLatin1String("refused")),
             qPrintable(e.message()));
}

void TestSshTunnel::sshKilledThenReconnect()
{
    NEED_SSHD();
    RedisConnection c(throughSshd(m_redis.connectionSettings()));
    LS_OPEN(c);
    RedisError e;
    qint64 pid = -1;
    {
        const std::shared_ptr<SshTunnel> tunnel = SshTunnelPool::acquire(c.settings(), nullptr, &e);
        QVERIFY(tunnel);
        pid = tunnel->pid();
    }
    QVERIFY(::kill(pid_t(pid), SIGKILL) == 0); // the bastion connection dies
    const RedisResult broken = c.command({"PING"});
    if (!broken.ok())
        QVERIFY2(broken.error.breaksConnection(), qPrintable(broken.error.message()));
    // Reconnecting starts a new ssh
    QTRY_VERIFY_WITH_TIMEOUT(c.command({"PING"}).ok(), 10000);
    const std::shared_ptr<SshTunnel> again = SshTunnelPool::acquire(c.settings(), nullptr, &e);
    QVERIFY(again && again->pid() != pid);
}

void TestSshTunnel::silentBastionTimesOut()
{
    NEED_SSHD();
    // sshd paused: TCP connects (the kernel accepts), but no SSH banner ever comes.
    ConnectionSettings s = throughSshd(m_redis.connectionSettings());
    s.connectTimeoutMs = 700;
    SilentListener silent;
    QVERIFY(silent.port() > 0);
    s.ssh.port = silent.port();
    RedisConnection c(s);
    QElapsedTimer timer;
    timer.start();
    const RedisError e = c.open();
    QCOMPARE(e.code(), RedisError::Code::Timeout);
    QVERIFY2(e.message().contains(QLatin1String("SSH")), qPrintable(e.message()));
    QVERIFY2(timer.elapsed() < 5000, qPrintable(QString::number(timer.elapsed())));
    QCOMPARE(SshTunnelPool::openTunnels(), 0);
}

void TestSshTunnel::interruptWhileOpening()
{
    NEED_SSHD();
    ConnectionSettings s = throughSshd(m_redis.connectionSettings());
    s.connectTimeoutMs = 20000;
    SilentListener silent; // a bastion that never says a word: ssh waits for its banner
    QVERIFY(silent.port() > 0);
    s.ssh.port = silent.port();
    RedisConnection c(s);
    qint64 elapsed = 0;
    QCOMPARE(TestSupport::openAndInterruptOnceConnected(c, silent, &elapsed).code(),
             RedisError::Code::Interrupted);
    QVERIFY2(elapsed < 5000, qPrintable(QString::number(elapsed))); // not the 20 s timeout
    QCOMPARE(SshTunnelPool::openTunnels(), 0);
}

QTEST_GUILESS_MAIN(TestSshTunnel)
#include "tst_sshtunnel.moc"
