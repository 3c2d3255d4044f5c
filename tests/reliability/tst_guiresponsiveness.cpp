// The GUI thread never waits on the network: the Inspector keeps its event loop turning while its server is
// frozen (SIGSTOP, longer than the command timeout) and killed (SIGKILL), says what happened, and lists the
// locks again as soon as the server is back.
#include "inspect/samplelocks.h"
#include "inspector/inspectorplace.h"
#include "inspector/locktablemodel.h"
#include "redis/redissession.h"
#include "testsupport.h"

#include <QElapsedTimer>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTimer>

namespace {

// The longest gap between ticks of a 20 ms timer on the GUI thread: a blocking network call there shows as
// a gap as long as its timeout.
class EventLoopGauge
{
public:
    EventLoopGauge()
    {
        QObject::connect(&m_timer, &QTimer::timeout, [this] {
            const qint64 now = m_clock.elapsed();
            m_maxGapMs = std::max(m_maxGapMs, now - m_lastMs);
            m_lastMs = now;
        });
        reset();
        m_timer.start(20);
    }
    void reset()
    {
        m_clock.start();
        m_lastMs = 0;
        m_maxGapMs = 0;
    }
    qint64 maxGapMs() const { return m_maxGapMs; }

private:
    QTimer m_timer;
    QElapsedTimer m_clock;
    qint64 m_lastMs = 0;
    qint64 m_maxGapMs = 0;
};

constexpr int kTimeoutMs = 1500; // the connection's command timeout: a blocked GUI would stall this long

} // namespace

class TestGuiResponsiveness : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void inspectorStaysResponsiveWhileItsServerIsFrozenAndKilled();
};

void TestGuiResponsiveness::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
}

void TestGuiResponsiveness::inspectorStaysResponsiveWhileItsServerIsFrozenAndKilled()
{
    SandboxServer server;
    LS_START(server);
    const auto writeLocks = [&server] {
        RedisConnection c(server.connectionSettings());
        return !c.open() && SampleLocks::writeDemoSet(c);
    };
    QVERIFY(writeLocks());
    ConnectionSettings s = server.connectionSettings();
    s.readOnly = true;
    s.commandTimeoutMs = kTimeoutMs;
    s.connectTimeoutMs = kTimeoutMs;
    RedisSession session;
    InspectorPlace place(&session);
    place.resize(1200, 700);
    place.show();
    QSignalSpy finished(&place, &InspectorPlace::scanFinished);
    session.open(s);
    QVERIFY(finished.wait(20000));
    const int locks = place.model()->rowCount();
    QVERIFY(locks > 5);
    EventLoopGauge gauge;

    // Frozen: the scan times out on the scanner's thread; the GUI keeps turning and says so.
    QVERIFY(server.pause());
    gauge.reset();
    finished.clear();
    place.rescan();
    QVERIFY(finished.wait(30000));
    const qint64 frozenGap = gauge.maxGapMs();
    const QString frozenStatus = place.statusText();
    QVERIFY(server.resume());
    QVERIFY2(frozenStatus.contains(QString::number(kTimeoutMs)), qPrintable(frozenStatus));
    QVERIFY2(frozenGap < kTimeoutMs, qPrintable(QStringLiteral("the GUI stalled %1 ms").arg(frozenGap)));
    finished.clear();
    place.rescan();
    QVERIFY(finished.wait(20000));
    QCOMPARE(place.model()->rowCount(), locks);

    // Killed: the same, with the refusal named.
    gauge.reset();
    server.kill();
    finished.clear();
    place.rescan();
    QVERIFY(finished.wait(30000));
    const qint64 killedGap = gauge.maxGapMs();
    QVERIFY2(killedGap < kTimeoutMs, qPrintable(QStringLiteral("the GUI stalled %1 ms").arg(killedGap)));
    QVERIFY2(place.statusText().contains(QString::number(server.port())), qPrintable(place.statusText()));

    // Back (empty: persistence is off), locks written again: the next scan lists them, within a second.
    QVERIFY2(server.start(), qPrintable(server.errorString()));
    QVERIFY(writeLocks());
    QElapsedTimer back;
    back.start();
    finished.clear();
    place.rescan();
    QVERIFY(finished.wait(20000));
    const qint64 recoveredMs = back.elapsed();
    QCOMPARE(place.model()->rowCount(), locks);
    QVERIFY2(recoveredMs < 1000, qPrintable(QString::number(recoveredMs)));
    qInfo(
        "longest GUI stall: %lld ms frozen, %lld ms killed (timeout %d ms); locks listed again %lld ms after "
        "the server returned",
        frozenGap, killedGap, kTimeoutMs, recoveredMs);
}

QTEST_MAIN(TestGuiResponsiveness)
#include "tst_guiresponsiveness.moc"
