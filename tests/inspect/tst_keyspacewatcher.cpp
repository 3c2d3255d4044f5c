// KeyspaceWatcher: events when notifications are on, a clear "off" when not, graceful when CONFIG is
// denied by ACL, and recovery after the server dies; on a Redis Cluster, events from every master.
#include "inspect/keyspacewatcher.h"
#include "redis/clusterconnection.h"
#include "redis/sandboxcluster.h"
#include "sandboxfixture.h"
#include "silentlistener.h"
#include "testsupport.h"

#include <QSignalSpy>

class TestKeyspaceWatcher : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void flags();
    void deliversLockEvents();
    void notificationsOff();
    void configDeniedByAcl();
    void recoversAfterServerDies();
    void stopIsPrompt();
    void stopIsPromptDuringConnect();
    void nothingArrivesAfterStop();
    void clusterEventsFromEveryMaster();
    void clusterWithAMasterSilentSaysSo();
};

namespace {

QList<QByteArray> eventsFor(const QSignalSpy &spy, const QByteArray &key)
{
    QList<QByteArray> out;
    for (const auto &args : spy) {
        for (const KeyspaceEvent &e : args.at(0).value<QList<KeyspaceEvent>>()) {
            if (e.key == key)
                out << e.event;
        }
    }
    return out;
}

} // namespace

void TestKeyspaceWatcher::initTestCase()
{
    qRegisterMetaType<QList<KeyspaceEvent>>();
}

void TestKeyspaceWatcher::flags()
{
    QCOMPARE(KeyspaceWatcher::flagsWithInspectorNeeds(QString()), QStringLiteral("Kg$hlzx"));
    QCOMPARE(KeyspaceWatcher::flagsWithInspectorNeeds(QStringLiteral("KEA")), QStringLiteral("KEA"));
    QCOMPARE(KeyspaceWatcher::flagsWithInspectorNeeds(QStringLiteral("Ex")), QStringLiteral("ExKg$hlz"));
    QVERIFY(KeyspaceWatcher::flagsSuffice(QStringLiteral("KA")));
    QString missing;
    QVERIFY(!KeyspaceWatcher::flagsSuffice(QStringLiteral("Kg"), &missing));
    QVERIFY(missing.contains(u'x'));
    QVERIFY(!KeyspaceWatcher::flagsSuffice(QString()));
}

void TestKeyspaceWatcher::deliversLockEvents()
{
    SandboxFixture server(SandboxFixture::withKeyspaceEvents());
    LS_SANDBOX(server);
    KeyspaceWatcher watcher;
    QSignalSpy events(&watcher, &KeyspaceWatcher::events);
    watcher.start(server.connectionSettings());
    QTRY_COMPARE_WITH_TIMEOUT(watcher.state(), KeyspaceWatcher::State::Listening, 10000);
    QVERIFY(watcher.configReadable());
    QCOMPARE(watcher.flags(), QStringLiteral("AKE"));
    RedisConnection &c = server.admin();
    QVERIFY(c.command({"SET", "lock:a", "owner", "NX", "PX", "60000"}).ok());
    QVERIFY(c.command({"PEXPIRE", "lock:a", "30000"}).ok());
    QVERIFY(c.command({"DEL", "lock:a"}).ok());
    QVERIFY(c.command({"SET", "lock:short", "owner", "PX", "20"}).ok());
    QVERIFY(c.command({"SET", "lock:\xff", "x"}).ok());
    QTRY_VERIFY_WITH_TIMEOUT(eventsFor(events, "lock:a").contains("del"), 10000);
    QCOMPARE(eventsFor(events, "lock:a").mid(0, 1), QList<QByteArray> {"set"});
    QVERIFY(eventsFor(events, "lock:a").contains("expire"));
    // Expiry events come when Redis deletes the key (on access or by its active cycle).
    QTRY_VERIFY_WITH_TIMEOUT(eventsFor(events, "lock:short").contains("expired"), 10000);
    QVERIFY(eventsFor(events, "lock:\xff").contains("set"));
    QVERIFY(watcher.hasReceivedEvents());
}

void TestKeyspaceWatcher::notificationsOff()
{
    SandboxFixture server;
    LS_SANDBOX(server);
    KeyspaceWatcher watcher;
    watcher.start(server.connectionSettings());
    QTRY_COMPARE_WITH_TIMEOUT(watcher.state(), KeyspaceWatcher::State::NotificationsOff, 10000);
    QVERIFY(watcher.configReadable());
    QVERIFY(watcher.stateText().contains(QLatin1String("polling")));
    // Turned on later, the watcher notices on its own.
    QVERIFY(server.admin().command({"CONFIG", "SET", "notify-keyspace-events", "KA"}).ok());
    QTRY_COMPARE_WITH_TIMEOUT(watcher.state(), KeyspaceWatcher::State::Listening, 15000);
}

void TestKeyspaceWatcher::configDeniedByAcl()
{
    SandboxFixture server(SandboxFixture::withKeyspaceEvents());
    LS_SANDBOX(server);
    RedisConnection &admin = server.admin();
    QVERIFY(TestSupport::addViewerUser(admin));
    const qint64 writesBefore = TestSupport::writeCommandCalls(admin);
    ConnectionSettings s = server.connectionSettings();
    s.user = QStringLiteral("viewer");
    s.password = QStringLiteral("pw");
    KeyspaceWatcher watcher;
    QSignalSpy events(&watcher, &KeyspaceWatcher::events);
    watcher.start(s);
    QTRY_COMPARE_WITH_TIMEOUT(watcher.state(), KeyspaceWatcher::State::ListeningUnconfirmed, 10000);
    QVERIFY(!watcher.configReadable());
    QVERIFY2(watcher.stateText().contains(QLatin1String("CONFIG GET is not allowed")),
             qPrintable(watcher.stateText()));
    QVERIFY(admin.command({"SET", "lock:x", "1"}).ok());
    QTRY_VERIFY_WITH_TIMEOUT(eventsFor(events, "lock:x").contains("set"), 10000);
    // Subscribed to both channels for lack of knowledge, yet each change arrives once.
    QCOMPARE(eventsFor(events, "lock:x").count("set"), 1);
    QCOMPARE(TestSupport::writeCommandCalls(admin), writesBefore + 1); // only the admin's SET
}

void TestKeyspaceWatcher::recoversAfterServerDies()
{
    SandboxServer server(SandboxFixture::withKeyspaceEvents());
    LS_START(server);
    KeyspaceWatcher watcher;
    QSignalSpy events(&watcher, &KeyspaceWatcher::events);
    watcher.start(server.connectionSettings());
    QTRY_COMPARE_WITH_TIMEOUT(watcher.state(), KeyspaceWatcher::State::Listening, 10000);
    server.kill();
    QTRY_COMPARE_WITH_TIMEOUT(watcher.state(), KeyspaceWatcher::State::Failed, 10000);
    QVERIFY(watcher.stateText().contains(QLatin1String("retrying")));
    LS_START(server);
    QTRY_COMPARE_WITH_TIMEOUT(watcher.state(), KeyspaceWatcher::State::Listening, 15000);
    RedisConnection c(server.connectionSettings());
    LS_OPEN(c);
    QVERIFY(c.command({"SET", "lock:back", "1"}).ok());
    QTRY_VERIFY_WITH_TIMEOUT(eventsFor(events, "lock:back").contains("set"), 10000);
}

void TestKeyspaceWatcher::stopIsPrompt()
{
    SandboxServer server(SandboxFixture::withKeyspaceEvents());
    LS_START(server);
    // Timeouts far longer than the bounds below: returning within them proves the read was interrupted.
    ConnectionSettings s = server.connectionSettings();
    s.commandTimeoutMs = 30000;
    KeyspaceWatcher watcher;
    watcher.start(s);
    QTRY_COMPARE_WITH_TIMEOUT(watcher.state(), KeyspaceWatcher::State::Listening, 10000);
    QElapsedTimer timer;
    timer.start();
    watcher.stop();
    QCOMPARE(watcher.state(), KeyspaceWatcher::State::Stopped);
    QVERIFY2(timer.elapsed() < 10000, "stop interrupts the blocking read instead of waiting it out");
    // Stopping a watcher whose server is paused must not wait for a command timeout either.
    watcher.start(s);
    QTRY_COMPARE_WITH_TIMEOUT(watcher.state(), KeyspaceWatcher::State::Listening, 10000);
    QVERIFY(server.pause());
    timer.restart();
    watcher.stop();
    QVERIFY(server.resume());
    QVERIFY(timer.elapsed() < 10000);
}

void TestKeyspaceWatcher::stopIsPromptDuringConnect()
{
    // Declared first, destroyed last: by then the port is gone, so the abandoned connect fails at its next
    // SYN instead of holding the destructor until its timeout.
    KeyspaceWatcher watcher;
    SilentListener unanswered; // the kernel drops SYNs: a connect there cannot end but by its timeout
    QVERIFY(unanswered.fillAcceptQueue());
    ConnectionSettings s;
    s.host = QStringLiteral("127.0.0.1");
    s.port = unanswered.port();
    s.connectTimeoutMs = 30000; // far longer than the bounds below
    watcher.start(s);
    QTRY_VERIFY_WITH_TIMEOUT(unanswered.hasClientInConnect(), 10000);
    QCOMPARE(watcher.state(), KeyspaceWatcher::State::Connecting);
    QElapsedTimer timer;
    timer.start();
    watcher.stop();
    QVERIFY2(timer.elapsed() < 10000, "stop abandons the connect instead of waiting it out");
    QCOMPARE(watcher.state(), KeyspaceWatcher::State::Stopped);
    QVERIFY(unanswered.hasClientInConnect()); // still there, on its own

    // Started again, it listens while the abandoned connect still hangs: it does not queue behind it.
    SandboxServer server(SandboxFixture::withKeyspaceEvents());
    LS_START(server);
    watcher.start(server.connectionSettings());
    QTRY_COMPARE_WITH_TIMEOUT(watcher.state(), KeyspaceWatcher::State::Listening, 10000);
    QVERIFY(unanswered.hasClientInConnect());
}

void TestKeyspaceWatcher::nothingArrivesAfterStop()
{
    SandboxServer server(SandboxFixture::withKeyspaceEvents());
    LS_START(server);
    KeyspaceWatcher watcher;
    KeyspaceWatcher witness; // keeps listening: once it has heard a change, the stopped one would have too
    QSignalSpy events(&watcher, &KeyspaceWatcher::events);
    QSignalSpy states(&watcher, &KeyspaceWatcher::stateChanged);
    QSignalSpy witnessed(&witness, &KeyspaceWatcher::events);
    watcher.start(server.connectionSettings());
    witness.start(server.connectionSettings());
    QTRY_COMPARE_WITH_TIMEOUT(watcher.state(), KeyspaceWatcher::State::Listening, 10000);
    QTRY_COMPARE_WITH_TIMEOUT(witness.state(), KeyspaceWatcher::State::Listening, 10000);
    RedisConnection c(server.connectionSettings());
    LS_OPEN(c);
    QVERIFY(c.command({"SET", "lock:before", "1"}).ok());
    QTRY_VERIFY_WITH_TIMEOUT(eventsFor(events, "lock:before").contains("set"), 10000);

    // A burst the watcher is still reading, or has already sent this thread, when it stops: none of it may
    // arrive, nor anything after.
    QList<RedisCommand> burst;
    for (int i = 0; i < 500; ++i)
        burst << RedisCommand {"SET", "lock:burst:" + QByteArray::number(i), "1"};
    for (const RedisResult &r : c.pipeline(burst))
        QVERIFY(r.ok());
    watcher.stop();
    const qsizetype seen = events.count();
    states.clear();
    QVERIFY(c.command({"SET", "lock:after", "1"}).ok());
    QTRY_VERIFY_WITH_TIMEOUT(eventsFor(witnessed, "lock:after").contains("set"), 10000);
    QVERIFY(eventsFor(witnessed, "lock:burst:499").contains("set"));
    QCOMPARE(events.count(), seen);
    QCOMPARE(states.count(), 0);
    QCOMPARE(watcher.state(), KeyspaceWatcher::State::Stopped);
    QVERIFY(!watcher.hasReceivedEvents());
}

void TestKeyspaceWatcher::clusterEventsFromEveryMaster()
{
    SandboxCluster::Options options;
    options.configLines << QStringLiteral("notify-keyspace-events KEA");
    SandboxCluster cluster(options);
    LS_START(cluster);
    KeyspaceWatcher watcher;
    QSignalSpy spy(&watcher, &KeyspaceWatcher::events);
    ConnectionSettings seed = cluster.seedSettings();
    seed.readOnly = true; // as the inspector connects
    watcher.start(seed);
    QTRY_COMPARE_WITH_TIMEOUT(watcher.state(), KeyspaceWatcher::State::Listening, 10000);
    QVERIFY2(watcher.stateText().contains(QLatin1String("on all 3 masters")),
             qPrintable(watcher.stateText()));
    QVERIFY(KeyspaceWatcher::flagsSuffice(watcher.flags()));

    // A lock taken and released on each master: each master publishes its own key's events.
    ClusterConnection c(cluster.seedSettings());
    LS_OPEN(c);
    QHash<QByteArray, QString> nodeOf;
    for (int master = 0; master < cluster.masterCount(); ++master) {
        const QString endpoint = cluster.master(master).connectionSettings().endpoint();
        for (int n = 0; n < 1000; ++n) {
            const QByteArray key = "lock:watched:" + QByteArray::number(n);
            if (c.slotMap().masterOfKey(key)->endpoint() == endpoint) {
                nodeOf.insert(key, endpoint);
                break;
            }
        }
    }
    QCOMPARE(nodeOf.size(), 3);
    for (auto it = nodeOf.cbegin(); it != nodeOf.cend(); ++it) {
        QVERIFY(c.command({"SET", it.key(), "owner", "NX", "PX", "30000"}).ok());
        QVERIFY(c.command({"DEL", it.key()}).ok());
    }
    for (auto it = nodeOf.cbegin(); it != nodeOf.cend(); ++it) {
        QTRY_COMPARE_WITH_TIMEOUT(eventsFor(spy, it.key()), (QList<QByteArray> {"set", "expire", "del"}),
                                  5000);
        for (const auto &args : spy) {
            for (const KeyspaceEvent &e : args.at(0).value<QList<KeyspaceEvent>>()) {
                if (e.key == it.key())
                    QCOMPARE(e.node, it.value()); // the master that holds the key published it
            }
        }
    }
    QVERIFY(watcher.hasReceivedEvents());
    watcher.stop();
    QCOMPARE(watcher.state(), KeyspaceWatcher::State::Stopped);
}

void TestKeyspaceWatcher::clusterWithAMasterSilentSaysSo()
{
    // Notifications on two masters only: the watcher must not claim the whole cluster is live.
    SandboxCluster cluster;
    LS_START(cluster);
    for (int master = 0; master < 2; ++master) {
        RedisConnection admin(cluster.master(master).connectionSettings());
        LS_OPEN(admin);
        QVERIFY(admin.command({"CONFIG", "SET", "notify-keyspace-events", "KEA"}).ok());
    }
    KeyspaceWatcher watcher;
    watcher.start(cluster.seedSettings());
    QTRY_COMPARE_WITH_TIMEOUT(watcher.state(), KeyspaceWatcher::State::NotificationsOff, 10000);
    const QString silent = cluster.master(2).connectionSettings().endpoint();
    QVERIFY2(watcher.stateText().startsWith(silent), qPrintable(watcher.stateText()));
    QVERIFY2(watcher.stateText().contains(QLatin1String("2 of 3 masters listening")),
             qPrintable(watcher.stateText()));
}

QTEST_GUILESS_MAIN(TestKeyspaceWatcher)
#include "tst_keyspacewatcher.moc"
