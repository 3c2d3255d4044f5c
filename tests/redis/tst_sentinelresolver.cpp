// SentinelResolver, RedisConnection through Sentinel and SandboxSentinelGroup on real processes: a master,
// a replica and 3 sentinels started once for this executable; the failover test runs last.
#include "redis/sandboxsentinelgroup.h"
#include "redis/sentinelresolver.h"
#include "redis/sentinelwatch.h"
#include "redis/serverinfo.h"
#include "testsupport.h"

class TestSentinelResolver : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void listsTheMastersTheSentinelsMonitor();
    void resolvesTheMasterAddress();
    void skipsASentinelThatIsDown();
    void explainsAnUnknownMasterName();
    void connectsToTheMasterThroughSentinel();
    void detectsASentinelFromTheServerItself();
    void sentinelsWithTheirOwnPassword();
    void followsAForcedFailover();

private:
    std::unique_ptr<SandboxSentinelGroup> m_group;
};

void TestSentinelResolver::initTestCase()
{
    m_group = std::make_unique<SandboxSentinelGroup>();
    LS_START(*m_group);
}

void TestSentinelResolver::listsTheMastersTheSentinelsMonitor()
{
    RedisError error;
    const QList<SentinelResolver::Master> masters = SentinelResolver::masters(m_group->settings(), &error);
    QVERIFY2(!error, qPrintable(error.message()));
    QCOMPARE(masters.size(), 1);
    QCOMPARE(masters.first().name, m_group->masterName());
    QCOMPARE(masters.first().port, m_group->node(0).port());
    QCOMPARE(masters.first().replicas, 1);
    QCOMPARE(masters.first().otherSentinels, 2);
    QCOMPARE(masters.first().quorum, 2);
    QCOMPARE(masters.first().flags, QStringLiteral("master"));
}

void TestSentinelResolver::resolvesTheMasterAddress()
{
    QString host;
    int port = 0;
    const RedisError e = SentinelResolver::resolve(m_group->settings(), &host, &port);
    QVERIFY2(!e, qPrintable(e.message()));
    QCOMPARE(host, QStringLiteral("127.0.0.1"));
    QCOMPARE(port, m_group->node(0).port());
}

void TestSentinelResolver::skipsASentinelThatIsDown()
{
    ConnectionSettings s = m_group->settings();
    s.connectTimeoutMs = 500;
    s.sentinel.nodes.prepend(QStringLiteral("127.0.0.1:%1").arg(LoopbackPorts::freePort()));
    QString host;
    int port = 0;
    const RedisError e = SentinelResolver::resolve(s, &host, &port);
    QVERIFY2(!e, qPrintable(e.message()));
    QCOMPARE(port, m_group->node(0).port());
}

void TestSentinelResolver::explainsAnUnknownMasterName()
{
    ConnectionSettings s = m_group->settings();
    s.sentinel.masterName = QStringLiteral("nosuchmaster");
    RedisConnection c(s);
    const RedisError e = c.open();
    QVERIFY(e);
    QVERIFY2(e.message().contains(QLatin1String("does not monitor a master named 'nosuchmaster'")),
             qPrintable(e.message()));
    s.sentinel.masterName.clear();
    QVERIFY(s.validate().contains(QLatin1String("--master")));
}

void TestSentinelResolver::connectsToTheMasterThroughSentinel()
{
    RedisConnection c(m_group->settings());
    LS_OPEN(c);
    QCOMPARE(c.endpoint(), m_group->node(0).connectionSettings().endpoint());
    QVERIFY(c.settings().describe().contains(QLatin1String("via sentinel")));
    QVERIFY(c.command({"SET", "sentinel:k", "v"}).ok());
    // Read-only through Sentinel too: the guard holds.
    ConnectionSettings ro = m_group->settings();
    ro.readOnly = true;
    RedisConnection reader(ro);
    LS_OPEN(reader);
    QCOMPARE(reader.command({"GET", "sentinel:k"}).reply.bytes(), QByteArray("v"));
    QCOMPARE(reader.command({"DEL", "sentinel:k"}).error.code(), RedisError::Code::ReadOnlyRefused);
}

void TestSentinelResolver::detectsASentinelFromTheServerItself()
{
    ConnectionSettings s = m_group->sentinel(0).connectionSettings();
    s.readOnly = true;
    RedisConnection c(s);
    LS_OPEN(c);
    RedisError error;
    const ServerInfo info = ServerInfo::fetch(c, &error);
    QVERIFY2(!error, qPrintable(error.message()));
    QCOMPARE(info.mode, QStringLiteral("sentinel"));
}

void TestSentinelResolver::sentinelsWithTheirOwnPassword()
{
    // A sentinel with its own requirepass in front of a master with none: the sentinel password is sent to
    // the sentinel only, and its absence or a wrong one is explained.
    SandboxServer master;
    LS_START(master);
    SandboxServer::Options so;
    so.sentinel = true;
    so.configLines << QStringLiteral("sentinel monitor guarded 127.0.0.1 %1 1").arg(master.port())
                   << QStringLiteral("requirepass sentinel-secret");
    SandboxServer sentinel(so);
    LS_START(sentinel);

    ConnectionSettings s;
    s.sentinel.nodes << QStringLiteral("127.0.0.1:%1").arg(sentinel.port());
    s.sentinel.masterName = QStringLiteral("guarded");
    QString host;
    int port = 0;
    RedisError e = SentinelResolver::resolve(s, &host, &port);
    QVERIFY(e);
    QVERIFY2(e.message().contains(QLatin1String("wants a password of its own")), qPrintable(e.message()));
    QVERIFY2(e.message().contains(QLatin1String("--sentinel-password-env")), qPrintable(e.message()));

    s.sentinel.password = QStringLiteral("wrong");
    e = SentinelResolver::resolve(s, &host, &port);
    QVERIFY(e);
    QVERIFY2(e.message().contains(QLatin1String("refused the sentinel password")), qPrintable(e.message()));
    QVERIFY(!e.message().contains(QLatin1String("wrong")));

    s.sentinel.password = QStringLiteral("sentinel-secret");
    e = SentinelResolver::resolve(s, &host, &port);
    QVERIFY2(!e, qPrintable(e.message()));
    QCOMPARE(port, master.port());
    RedisError listError;
    const QList<SentinelResolver::Master> masters = SentinelResolver::masters(s, &listError);
    QVERIFY2(!listError, qPrintable(listError.message()));
    QCOMPARE(masters.size(), 1);

    // The data connection through the sentinel: the master has no password, so it would refuse the open
    // with "AUTH … called without any password configured" had the sentinel's been sent to it.
    RedisConnection data(s);
    LS_OPEN(data);
    QCOMPARE(data.command({"PING"}).reply.bytes(), QByteArrayLiteral("PONG"));
}

void TestSentinelResolver::followsAForcedFailover()
{
    RedisConnection writer(m_group->settings());
    LS_OPEN(writer);
    ConnectionSettings ro = m_group->settings();
    ro.readOnly = true;
    RedisConnection reader(ro);
    LS_OPEN(reader);
    QVERIFY(writer.command({"SET", "failover:k", "before"}).ok());
    QCOMPARE(writer.command({"WAIT", "1", "2000"}).reply.toInteger(), 1); // on the replica too
    const QString oldMaster = writer.endpoint();

    // Both connections share one +switch-master listener; it hears the switch at once.
    const std::shared_ptr<SentinelWatch> watch = SentinelWatch::acquire(m_group->settings());
    QTRY_VERIFY_WITH_TIMEOUT(watch->isListening(), 5000);
    const quint64 switchesBefore = watch->switches();

    QString error;
    QVERIFY2(m_group->failover(&error), qPrintable(error));
    QTRY_VERIFY_WITH_TIMEOUT(watch->switches() > switchesBefore, 10000);
    const int now = m_group->currentMaster();
    QVERIFY(now > 0);
    const QString newMaster = m_group->node(now).connectionSettings().endpoint();
    QVERIFY(newMaster != oldMaster);

    // After +switch-master the next command asks the sentinels again and reconnects to the promoted replica
    // (without it, a forced failover leaves the old master serving until the sentinels demote it ~8 s later).
    QTRY_VERIFY_WITH_TIMEOUT(reader.command({"GET", "failover:k"}).reply.bytes() == "before"
                                 && reader.endpoint() == newMaster,
                             25000);
    QTRY_VERIFY_WITH_TIMEOUT(
        writer.command({"SET", "failover:k", "after"}).ok() && writer.endpoint() == newMaster, 25000);
    QCOMPARE(writer.endpoint(), newMaster);
    QCOMPARE(writer.command({"ROLE"}).reply.at(0).bytes(), QByteArray("master"));
    QCOMPARE(reader.command({"GET", "failover:k"}).reply.bytes(), QByteArray("after"));
}

QTEST_GUILESS_MAIN(TestSentinelResolver)
#include "tst_sentinelresolver.moc"
