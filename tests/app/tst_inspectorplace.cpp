// The Inspector place on real servers: scans into the table, details, live updates by events and by
// polling, actions through their confirmation dialog (only when writes are allowed), and a read-only ACL
// user that can use all of it without one write. Set LOCKSCOPE_SCREENSHOT_DIR to also save pictures.
#include "inspector/actionconfirmdialog.h"
#include "common/typednameguard.h"
#include "inspector/formatlistdialog.h"
#include "inspect/formatcatalog.h"
#include "inspect/locknames.h"
#include "inspect/lockscanner.h"
#include "inspect/samplelocks.h"
#include "inspector/inspectorplace.h"
#include "inspector/lockdetailspane.h"
#include "inspector/lockfilterproxy.h"
#include "inspector/locktablemodel.h"
#include "redis/clusterconnection.h"
#include "redis/redissession.h"
#include "redis/sandboxcluster.h"
#include "outputfile.h"
#include "sandboxfixture.h"
#include "inspector/serverpanel.h"
#include "testsupport.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QCheckBox>
#include <QComboBox>
#include <QScrollArea>
#include <QScrollBar>
#include <QDateTime>
#include <QDir>
#include <QHeaderView>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScopeGuard>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableView>

class TestInspectorPlace : public QObject
{
    Q_OBJECT
private slots:
    void detailsWrapInANarrowWindow();
    void initTestCase();
    void init();
    void readOnlyByDefault();
    void streamsRowsWithoutResets();
    void liveWithNotifications();
    void liveByPolling();
    void newLocksAppearWithoutNotifications();
    void rowsFreezeWhileTheServerIsDown();
    void aFailedConnectKeepsTheConnection();
    void rowMenuAndExport();
    void rowsHoldStillUnderThePointer();
    void userFormatsAreListedAndUsed();
    void forceUnlockThroughTheDialog();
    void forceUnlockOnProductionWantsTheName();
    void refusedWhenTheLockChanged();
    void readOnlyAclUserSendsNoWrites();
    void screenshots();
    void clusterGroupsByNodeWithoutResets();

private:
    struct Rig
    {
        std::unique_ptr<SandboxFixture> server;
        std::unique_ptr<RedisSession> session;
        std::unique_ptr<InspectorPlace> place;
        QString setupError; // why start() or startWithDemoSet() failed

        // A fresh sandbox (with `options`) and its admin connection, which stays open for the test's own
        // writes. False with setupError.
        bool start(const SandboxServer::Options &options = {});
        // start(), then SampleLocks' demo set (15 locks of every library) written through the admin.
        bool startWithDemoSet(const SandboxServer::Options &options = {});
    };
    static bool open(Rig &rig, const ConnectionSettings &settings);
    // A fresh sandbox holding one plain lock `key` (60 s) of `owner`, shown in a new place (read-only
    // unless `writable`).
    static bool openWithOneLock(Rig &rig, const QByteArray &key, const QByteArray &owner = "worker-1",
                                bool writable = false);
    static ActionConfirmDialog *dialogOf(InspectorPlace &place);
};

void TestInspectorPlace::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
}

void TestInspectorPlace::init()
{
    QSettings().clear(); // the place remembers its patterns; every test starts from the defaults
}

bool TestInspectorPlace::open(Rig &rig, const ConnectionSettings &settings)
{
    rig.session = std::make_unique<RedisSession>();
    rig.place = std::make_unique<InspectorPlace>(rig.session.get());
    rig.place->resize(1300, 800);
    rig.place->show();
    QSignalSpy finished(rig.place.get(), &InspectorPlace::scanFinished);
    rig.session->open(settings);
    return finished.wait(20000);
}

bool TestInspectorPlace::openWithOneLock(Rig &rig, const QByteArray &key, const QByteArray &owner, bool writable)
{
    if (!rig.start()) {
        qWarning() << qPrintable(rig.setupError);
        return false;
    }
    ConnectionSettings settings = rig.server->connectionSettings();
    if (writable)
        settings.readOnly = false;
    return SampleLocks::plainLock(rig.server->admin(), key, owner, 60000) && open(rig, settings);
}

bool TestInspectorPlace::Rig::start(const SandboxServer::Options &options)
{
    server = std::make_unique<SandboxFixture>(options);
    if (!server->startAndConnect()) {
        setupError = server->setupError();
        return false;
    }
    return true;
}

bool TestInspectorPlace::Rig::startWithDemoSet(const SandboxServer::Options &options)
{
    if (!start(options))
        return false;
    if (!SampleLocks::writeDemoSet(server->admin())) {
        setupError = QStringLiteral("writing the demo set failed");
        return false;
    }
    return true;
}

ActionConfirmDialog *TestInspectorPlace::dialogOf(InspectorPlace &place)
{
    return place.findChild<ActionConfirmDialog *>();
}

void TestInspectorPlace::readOnlyByDefault()
{
    Rig rig;
    QVERIFY2(rig.startWithDemoSet(), qPrintable(rig.setupError));
    ConnectionSettings s = rig.server->connectionSettings();
    s.readOnly = true;
    QVERIFY(open(rig, s));
    InspectorPlace &place = *rig.place;
    QAbstractItemModelTester modelTester(place.model(),
                                         QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester proxyTester(place.proxy(),
                                         QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(place.model()->rowCount(), 15);
    QVERIFY2(place.statusText().contains(QLatin1String("15 locks")), qPrintable(place.statusText()));
    QVERIFY(place.serverPanel()->text().contains(QLatin1String("refused (read-only connection)")));
    // The worst lock is selected, and its details are shown.
    QVERIFY(place.details()->hasLock());
    QVERIFY(place.selectKey("demo:inventory"));
    const QString details = place.details()->text();
    QVERIFY2(details.contains(QLatin1String("Redisson fair lock")), qPrintable(details));
    QVERIFY(details.contains(QLatin1String("2 in the fair queue")));
    QVERIFY(details.contains(QLatin1String("left"))); // time left to each waiter's deadline
    QVERIFY(place.details()->manualCommand().startsWith(QLatin1String("EVAL ")));
    // Read-only: every action is off, and says why.
    QVERIFY(!place.details()->forceUnlockButton()->isEnabled());
    QVERIFY(place.details()->forceUnlockButton()->toolTip().contains(QLatin1String("read-only")));
    place.requestAction(LockAction::Type::ForceUnlock);
    QVERIFY(!dialogOf(place));
    // Filters.
    auto *kind = place.findChild<QComboBox *>(QStringLiteral("kindFilter"));
    QVERIFY(kind->findText(QStringLiteral("read-write")) > 0);
    kind->setCurrentIndex(kind->findText(QStringLiteral("read-write")));
    QCOMPARE(place.proxy()->rowCount(), 2);
    kind->setCurrentIndex(0);
    place.findChild<QLineEdit *>(QStringLiteral("filter"))->setText(QStringLiteral("account"));
    QCOMPARE(place.proxy()->rowCount(), 1);
    // Lock-name patterns decide which keys with no lock-shaped data are listed.
    place.setLockNamePatterns(QStringLiteral("*order*"));
    QSignalSpy finished(&place, &InspectorPlace::scanFinished);
    place.rescan();
    QVERIFY(finished.wait(10000));
    QVERIFY(place.model()->rowOf("demo:lock:list") < 0); // a list named like a lock: no longer a lock
    QVERIFY(place.model()->rowOf("demo:lock:payment") < 0); // a uuid token: only under a lock name
    QVERIFY(place.model()->rowOf("demo:lock:broken") >= 0); // Redisson-shaped data: listed whatever its name
    QCOMPARE(place.model()->rowCount(), 13);
    QCOMPARE(QSettings().value(QStringLiteral("inspector/lockNamePatterns")).toString(),
             QStringLiteral("*order*"));
}

// At 1024 px a Redisson owner id (a UUID and a thread) must not widen the details past the pane: the
// diagnoses and their evidence wrap to it, with no sideways scrolling.
void TestInspectorPlace::detailsWrapInANarrowWindow()
{
    Rig rig;
    QVERIFY2(rig.startWithDemoSet(), qPrintable(rig.setupError));
    QVERIFY(open(rig, rig.server->connectionSettings()));
    rig.place->resize(880, 600); // the place's share of a 1024 × 700 window
    QVERIFY(rig.place->selectKey("demo:lock:broken"));
    auto *scroll = rig.place->details()->findChild<QScrollArea *>();
    QVERIFY(scroll);
    QTRY_VERIFY(scroll->widget()->width() <= scroll->viewport()->width());
    QCOMPARE(scroll->horizontalScrollBar()->maximum(), 0);
    QVERIFY2(rig.place->details()->text().contains(QLatin1String("no-ttl")), qPrintable(rig.place->details()->text()));
    // And the table keeps its Diagnoses column in view, wide enough for a code, with no sideways scroll: the
    // key column gives way. (Before: "watchdog-" at the edge and a horizontal scrollbar.)
    QTableView *view = rig.place->view();
    QTRY_COMPARE(view->horizontalScrollBar()->maximum(), 0);
    const int x = view->columnViewportPosition(LockTableModel::ProblemsColumn);
    const int width = view->columnWidth(LockTableModel::ProblemsColumn);
    QVERIFY2(x >= 0 && x + width <= view->viewport()->width(),
             qPrintable(QStringLiteral("Diagnoses at %1 + %2 in a viewport of %3")
                            .arg(x)
                            .arg(width)
                            .arg(view->viewport()->width())));
    QVERIFY(width >= view->fontMetrics().horizontalAdvance(QStringLiteral("watchdog-stalled")));
}

void TestInspectorPlace::streamsRowsWithoutResets()
{
    Rig rig;
    QVERIFY2(rig.start(), qPrintable(rig.setupError));
    QVERIFY(TestSupport::writePlainLocks(rig.server->admin(), 5000));
    rig.session = std::make_unique<RedisSession>();
    rig.place = std::make_unique<InspectorPlace>(rig.session.get());
    rig.place->show();
    QAbstractItemModelTester tester(rig.place->model(),
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy inserted(rig.place->model(), &QAbstractItemModel::rowsInserted);
    QSignalSpy resets(rig.place->model(), &QAbstractItemModel::modelReset);
    QSignalSpy finished(rig.place.get(), &InspectorPlace::scanFinished);
    rig.session->open(rig.server->connectionSettings());
    QVERIFY(finished.wait(30000));
    QCOMPARE(rig.place->model()->rowCount(), 5000);
    QVERIFY2(inserted.count() > 1, "rows arrive page by page while the scan runs");
    // Rescans and refreshes update in place.
    rig.place->rescan();
    QVERIFY(finished.wait(30000));
    QTest::qWait(1500); // at least one poll of the visible rows
    QCOMPARE(resets.count(), 0);
    QCOMPARE(rig.place->model()->rowCount(), 5000);
}

void TestInspectorPlace::liveWithNotifications()
{
    Rig rig;
    QVERIFY2(rig.start(SandboxFixture::withKeyspaceEvents()), qPrintable(rig.setupError));
    QVERIFY(open(rig, rig.server->connectionSettings()));
    InspectorPlace &place = *rig.place;
    QTRY_COMPARE_WITH_TIMEOUT(place.watcher()->state(), KeyspaceWatcher::State::Listening, 10000);
    QCOMPARE(place.model()->rowCount(), 0);
    RedisConnection &c = rig.server->admin();
    const QByteArray client = SampleLocks::redissonClientId();
    QVERIFY(SampleLocks::redissonLock(c, "order:9", client, 3, 30000));
    QTRY_COMPARE_WITH_TIMEOUT(place.model()->rowCount(), 1, 10000);
    QVERIFY(place.selectKey("order:9"));
    QCOMPARE(place.tracker().history("order:9")->events().first().type, LockEvent::Type::Acquired);
    QVERIFY(c.command({"PEXPIRE", "order:9", "30000"}).ok()); // a watchdog renewal
    QTRY_VERIFY_WITH_TIMEOUT(place.tracker().history("order:9")->renewals() >= 1, 10000);
    QVERIFY(c.command({"DEL", "order:9"}).ok());
    // The lock being watched stays in view, grey and gone, with its last event.
    QTRY_VERIFY_WITH_TIMEOUT(!place.model()->find("order:9")->exists(), 10000);
    QCOMPARE(place.tracker().history("order:9")->events().last().type, LockEvent::Type::Released);
    QVERIFY2(place.details()->text().contains(QLatin1String("Gone: released")), qPrintable(place.details()->text()));
    QVERIFY(place.model()->data(place.model()->index(place.model()->rowOf("order:9"), 0), Qt::ForegroundRole)
                .isValid());
    // A lock nobody watches leaves the table when it goes. Its lease is long enough to be read before it
    // runs out even on a slow (sanitizer) build: one that expires before any reading is never listed.
    QVERIFY(SampleLocks::plainLock(c, "lock:short", "me", 1500));
    QTRY_VERIFY_WITH_TIMEOUT(place.model()->rowOf("lock:short") >= 0, 10000);
    QTRY_VERIFY_WITH_TIMEOUT(place.model()->rowOf("lock:short") < 0, 10000);
    QCOMPARE(place.tracker().history("lock:short")->events().last().type, LockEvent::Type::Expired);
    // Choosing another row lets the gone one go.
    QVERIFY(SampleLocks::plainLock(c, "lock:next", "me", 60000));
    QTRY_VERIFY_WITH_TIMEOUT(place.selectKey("lock:next"), 10000);
    QCOMPARE(place.model()->rowOf("order:9"), -1);
    QCOMPARE(place.model()->rowCount(), 1);
}

void TestInspectorPlace::liveByPolling()
{
    Rig rig;
    QVERIFY2(rig.start(), qPrintable(rig.setupError)); // notifications off
    RedisConnection &c = rig.server->admin();
    const QByteArray client = SampleLocks::redissonClientId();
    QVERIFY(SampleLocks::redissonLock(c, "order:1", client, 1, 3000));
    QVERIFY(open(rig, rig.server->connectionSettings()));
    InspectorPlace &place = *rig.place;
    QTRY_COMPARE_WITH_TIMEOUT(place.watcher()->state(), KeyspaceWatcher::State::NotificationsOff, 10000);
    QVERIFY(place.liveText().contains(QLatin1String("polling")));
    // Renew like a watchdog for a while: the poll of visible rows sees the TTL go back up.
    for (int i = 0; i < 4; ++i) {
        QTest::qWait(900);
        QVERIFY(c.command({"PEXPIRE", "order:1", "3000"}).ok());
    }
    QTRY_VERIFY_WITH_TIMEOUT(place.tracker().history("order:1")->renewals() >= 2, 10000);
    QVERIFY(place.selectKey("order:1"));
    QVERIFY2(place.details()->text().contains(QLatin1String("renewed every"), Qt::CaseInsensitive),
             qPrintable(place.details()->text()));
    // Then it stops renewing and expires: still in view (it is selected), as gone, saying how it went.
    QTRY_VERIFY_WITH_TIMEOUT(!place.model()->find("order:1")->exists(), 10000);
    QCOMPARE(place.tracker().history("order:1")->events().last().type, LockEvent::Type::Expired);
    QVERIFY2(place.details()->text().contains(QLatin1String("Gone: expired")), qPrintable(place.details()->text()));
}

void TestInspectorPlace::newLocksAppearWithoutNotifications()
{
    // Notifications off: a lock taken after the scan shows at the next periodic rescan, without F5, and the
    // live line says when the last full scan was.
    Rig rig;
    QVERIFY2(rig.start(), qPrintable(rig.setupError));
    rig.session = std::make_unique<RedisSession>();
    rig.place = std::make_unique<InspectorPlace>(rig.session.get());
    LockMonitor::Timing fast;
    fast.rescanMs = 1500;
    rig.place->monitor()->setTiming(fast);
    rig.place->show();
    QSignalSpy finished(rig.place.get(), &InspectorPlace::scanFinished);
    rig.session->open(rig.server->connectionSettings());
    QVERIFY(finished.wait(20000));
    InspectorPlace &place = *rig.place;
    QTRY_VERIFY_WITH_TIMEOUT(place.liveText().contains(QLatin1String("Last full scan")), 5000);
    QVERIFY(SampleLocks::plainLock(rig.server->admin(), "lock:late", "worker-1", 60000));
    QTRY_VERIFY_WITH_TIMEOUT(place.model()->rowOf("lock:late") >= 0, 10000);
    QVERIFY(place.tracker().history("lock:late"));
}

void TestInspectorPlace::rowsFreezeWhileTheServerIsDown()
{
    Rig rig;
    QVERIFY(openWithOneLock(rig, "lock:a"));
    InspectorPlace &place = *rig.place;
    QVERIFY(place.selectKey("lock:a"));
    QVERIFY(!place.model()->isFrozen());
    QVERIFY(rig.server->pause()); // the process freezes: every read times out
    QTRY_VERIFY_WITH_TIMEOUT(place.model()->isFrozen(), 20000);
    const QModelIndex ttl = place.model()->index(place.model()->rowOf("lock:a"), LockTableModel::TtlColumn);
    // Grey, and the countdown stands still.
    QVERIFY(place.model()->data(ttl, Qt::ForegroundRole).isValid());
    const QString shown = place.model()->data(ttl, Qt::DisplayRole).toString();
    QTest::qWait(1200);
    QCOMPARE(place.model()->data(ttl, Qt::DisplayRole).toString(), shown);
    QVERIFY2(place.liveText().startsWith(QLatin1String("Not live")), qPrintable(place.liveText()));
    QVERIFY2(place.details()->text().contains(QLatin1String("not live")), qPrintable(place.details()->text()));
    // The lock is still there when the server answers again: no release was made up meanwhile.
    QVERIFY(rig.server->resume());
    QTRY_VERIFY_WITH_TIMEOUT(!place.model()->isFrozen(), 20000);
    QVERIFY(place.model()->find("lock:a")->exists());
    for (const LockEvent &e : place.tracker().history("lock:a")->events())
        QVERIFY(e.type != LockEvent::Type::Released && e.type != LockEvent::Type::Lost);
}

void TestInspectorPlace::aFailedConnectKeepsTheConnection()
{
    Rig rig;
    QVERIFY(openWithOneLock(rig, "lock:a"));
    InspectorPlace &place = *rig.place;
    ConnectionSettings nowhere = rig.server->connectionSettings();
    nowhere.port = LoopbackPorts::freePort(); // nothing listens there
    QSignalSpy failed(rig.session.get(), &RedisSession::failed);
    rig.session->open(nowhere);
    QVERIFY(failed.wait(20000));
    QVERIFY(rig.session->isOpen());
    QCOMPARE(rig.session->settings().port, rig.server->port());
    QVERIFY2(place.statusText().contains(QLatin1String("Still showing")), qPrintable(place.statusText()));
    QVERIFY(place.model()->find("lock:a"));
    QVERIFY(!place.model()->isFrozen());
    // The kept connection still works.
    QSignalSpy ran(rig.session.get(), &RedisSession::infoChanged);
    rig.session->refreshInfo();
    QVERIFY(ran.wait(10000));
}

void TestInspectorPlace::rowMenuAndExport()
{
    Rig rig;
    QVERIFY2(rig.startWithDemoSet(), qPrintable(rig.setupError));
    QVERIFY(rig.server->admin()
                .command({"SET", "lock:App\\Jobs\\Send,\"x\"", "owner-1", "PX", "600000"})
                .ok());
    ConnectionSettings readOnly = rig.server->connectionSettings();
    readOnly.readOnly = true;
    QVERIFY(open(rig, readOnly));
    InspectorPlace &place = *rig.place;
    const QByteArray key = "lock:App\\Jobs\\Send,\"x\"";
    QVERIFY(place.selectKey(key));
    const QModelIndex index = place.view()->currentIndex();
    const QList<QAction *> actions = place.rowActions(index);
    const auto action = [&](const QString &name) {
        for (QAction *a : actions)
            if (a->objectName() == name)
                return a;
        return static_cast<QAction *>(nullptr);
    };
    QVERIFY(action("copyKey") && action("copyOwner") && action("copyUnlockCommand") && action("forceUnlock"));
    action("copyKey")->trigger();
    QCOMPARE(QApplication::clipboard()->text().toUtf8(), key); // exact, backslashes and all
    action("copyOwner")->trigger();
    QCOMPARE(QApplication::clipboard()->text(), QStringLiteral("owner-1"));
    action("copyUnlockCommand")->trigger();
    QVERIFY2(QApplication::clipboard()->text().startsWith(QLatin1String("EVAL ")),
             qPrintable(QApplication::clipboard()->text()));
    // Read-only connection: the writes are offered but off, with why.
    QVERIFY(!action("forceUnlock")->isEnabled());
    QVERIFY(action("forceUnlock")->toolTip().contains(QLatin1String("Read-only")));
    QVERIFY(!action("removeOrphanQueue")); // its queue is not orphaned
    qDeleteAll(actions);
    // A fair lock's orphaned queue: removable from its row (it was only at the bottom of the details pane).
    QVERIFY(place.selectKey("demo:orphan"));
    const QList<QAction *> orphanActions = place.rowActions(place.view()->currentIndex());
    QAction *remove = nullptr;
    for (QAction *a : orphanActions)
        remove = a->objectName() == QLatin1String("removeOrphanQueue") ? a : remove;
    QVERIFY(remove);
    QVERIFY(!remove->isEnabled()); // read-only
    QVERIFY(remove->toolTip().contains(QLatin1String("Read-only")));
    qDeleteAll(orphanActions);

    // Export what the filters show.
    place.findChild<QLineEdit *>(QStringLiteral("filter"))->setText(QStringLiteral("App"));
    QCOMPARE(place.proxy()->rowCount(), 1);
    QTemporaryDir dir;
    const QString csv = dir.filePath(QStringLiteral("locks.csv"));
    QCOMPARE(place.exportTable(csv), QString());
    QFile csvFile(csv);
    QVERIFY(csvFile.open(QIODevice::ReadOnly));
    const QList<QByteArray> lines = csvFile.readAll().split('\n');
    QVERIFY(lines.first().startsWith("key,kind,library"));
    QVERIFY2(lines.at(1).startsWith("\"lock:App\\Jobs\\Send,\"\"x\"\"\","), lines.at(1).constData());
    const QString json = dir.filePath(QStringLiteral("locks.json"));
    QCOMPARE(place.exportTable(json), QString());
    QFile jsonFile(json);
    QVERIFY(jsonFile.open(QIODevice::ReadOnly));
    const QJsonObject doc = QJsonDocument::fromJson(jsonFile.readAll()).object();
    QCOMPARE(doc.value(QStringLiteral("locks")).toArray().size(), 1);
    QCOMPARE(doc.value(QStringLiteral("locks")).toArray().first().toObject().value(QStringLiteral("key")).toString().toUtf8(),
             key);
    QVERIFY(doc.value(QStringLiteral("complete")).toBool());
    // A path that cannot be written says so, and leaves nothing.
    QVERIFY(place.exportTable(dir.filePath(QStringLiteral("missing/locks.csv"))).startsWith(QLatin1String("Could not export")));
}

void TestInspectorPlace::rowsHoldStillUnderThePointer()
{
    // Sorted by TTL, a rescan that re-sorted the rows moved the one about to be clicked.
    Rig rig;
    QVERIFY(openWithOneLock(rig, "lock:a"));
    InspectorPlace &place = *rig.place;
    QVERIFY(SampleLocks::plainLock(rig.server->admin(), "lock:b", "worker-2", 30000));
    place.rescan();
    QTRY_VERIFY_WITH_TIMEOUT(place.model()->find("lock:b") && !place.isScanning(), 20000);
    place.view()->sortByColumn(LockTableModel::TtlColumn, Qt::AscendingOrder);
    const auto order = [&] {
        QList<QByteArray> keys;
        for (int row = 0; row < place.proxy()->rowCount(); ++row)
            keys << place.proxy()->index(row, 0).data(LockTableModel::KeyRole).toByteArray();
        return keys;
    };
    QCOMPARE(order(), (QList<QByteArray> {"lock:b", "lock:a"}));
    QEvent enter(QEvent::Enter);
    QApplication::sendEvent(place.view()->viewport(), &enter);
    // lock:b gets a longer lease than lock:a: sorted, it would move below it.
    QVERIFY(rig.server->admin().command({"PEXPIRE", "lock:b", "600000"}).ok());
    place.rescan();
    QTRY_VERIFY_WITH_TIMEOUT(place.model()->find("lock:b")->pttlMs > 100000 && !place.isScanning(), 20000);
    QCOMPARE(order(), (QList<QByteArray> {"lock:b", "lock:a"})); // held while the pointer is there
    QEvent leave(QEvent::Leave);
    QApplication::sendEvent(place.view()->viewport(), &leave);
    QCOMPARE(order(), (QList<QByteArray> {"lock:a", "lock:b"})); // and sorted again when it leaves
}

void TestInspectorPlace::userFormatsAreListedAndUsed()
{
    // The user's folder holds a good format file and a broken one: the dialog lists the good one's format
    // with its file and names the broken file's problem; after Reload the next scan uses the new format.
    QDir folder(FormatCatalog::userFolder());
    QVERIFY(folder.mkpath(QStringLiteral(".")));
    const auto cleanup = qScopeGuard([&] {
        folder.removeRecursively();
        FormatCatalog::reloadStandard();
    });
    const QByteArray acme = R"json({"lockscope_formats": 1, "library": "acme-locks", "formats": [
        {"id": "acme-lock", "name": "Acme lease lock", "kind": "mutex", "type": "string", "shape": "token",
         "key": "acme:lock:(?<name>.+)", "key_contains": "acme:lock:",
         "value": "(?<host>[A-Za-z0-9.-]{1,253})/(?<pid>[0-9]{1,10})/(?<nonce>[0-9a-f]{16})",
         "owner": {"display": "${host} pid ${pid}"}, "ttl": "always"}]})json";
    QVERIFY(OutputFile::writeWhole(folder.filePath(QStringLiteral("acme.json")), acme, nullptr));
    QVERIFY(OutputFile::writeWhole(folder.filePath(QStringLiteral("broken.json")),
                                   R"json({"lockscope_formats": 1, "formats": [{"id": "x", "needs_ttl": "yes"}]})json",
                                   nullptr));
    Rig rig;
    QVERIFY2(rig.start(), qPrintable(rig.setupError));
    QVERIFY(rig.server->admin()
                .command({"SET", "acme:lock:orders", "web-1/4242/0123456789abcdef", "PX", "60000"})
                .ok());
    QVERIFY(open(rig, rig.server->connectionSettings()));
    InspectorPlace &place = *rig.place;
    place.showFormats();
    auto *dialog = place.findChild<FormatListDialog *>();
    QVERIFY(dialog);
    QSignalSpy finished(&place, &InspectorPlace::scanFinished);
    dialog->findChild<QPushButton *>(QStringLiteral("reloadFormats"))->click();
    QVERIFY2(dialog->problemsText().contains(QLatin1String("broken.json")), qPrintable(dialog->problemsText()));
    QList<QTableWidgetItem *> found = dialog->table()->findItems(QStringLiteral("Acme lease lock"), Qt::MatchExactly);
    QCOMPARE(found.size(), 1);
    QVERIFY(dialog->table()->item(found.first()->row(), 5)->text().endsWith(QLatin1String("acme.json")));
    QVERIFY(finished.wait(20000)); // the rescan Reload started
    const LockRecord *lock = place.model()->find("acme:lock:orders");
    QVERIFY(lock);
    QCOMPARE(lock->library, QStringLiteral("acme-locks"));
    QCOMPARE(lock->owners.value(0).display, QStringLiteral("web-1 pid 4242"));
    dialog->close();
}

void TestInspectorPlace::forceUnlockThroughTheDialog()
{
    Rig rig;
    QVERIFY2(rig.start(), qPrintable(rig.setupError));
    RedisConnection &c = rig.server->admin();
    const QByteArray client = SampleLocks::redissonClientId();
    QVERIFY(SampleLocks::redissonLock(c, "order:1", client, 7, 60000));
    ConnectionSettings s = rig.server->connectionSettings();
    s.readOnly = false;
    QVERIFY(open(rig, s));
    InspectorPlace &place = *rig.place;
    QVERIFY(place.selectKey("order:1"));
    QTRY_VERIFY(place.details()->forceUnlockButton()->isEnabled());
    place.details()->forceUnlockButton()->click();
    ActionConfirmDialog *dialog = dialogOf(place);
    QVERIFY(dialog);
    QVERIFY(dialog->commandText().startsWith(QLatin1String("EVAL \"")));
    QVERIFY(dialog->commandText().contains(QLatin1String("order:1")));
    QVERIFY(dialog->commandText().contains(QLatin1String("redisson_lock__channel:{order:1}")));
    QSignalSpy done(&place, &InspectorPlace::actionFinished);
    dialog->sendButton()->click();
    QVERIFY(done.wait(10000));
    QVERIFY2(done.first().at(0).toBool(), qPrintable(done.first().at(1).toString()));
    QCOMPARE(c.command({"EXISTS", "order:1"}).reply.toInteger(), 0);
    QTRY_VERIFY_WITH_TIMEOUT(!place.model()->find("order:1")->exists(), 10000);
    QVERIFY2(place.details()->text().contains(QLatin1String("Gone: released")), qPrintable(place.details()->text()));
}

void TestInspectorPlace::forceUnlockOnProductionWantsTheName()
{
    Rig rig;
    QVERIFY(openWithOneLock(rig, "lock:pay", "owner-a", true));
    RedisConnection &c = rig.server->admin();
    InspectorPlace &place = *rig.place;
    place.setProductionName(QStringLiteral("payments-prod"));
    QVERIFY(place.selectKey("lock:pay"));
    place.requestAction(LockAction::Type::ForceUnlock);
    ActionConfirmDialog *dialog = dialogOf(place);
    QVERIFY(dialog);
    QVERIFY(dialog->typedNameGuard());
    QVERIFY(!dialog->sendButton()->isEnabled()); // the command is right there, but not sendable yet
    dialog->typedNameGuard()->nameEdit()->setText(QStringLiteral("payments"));
    QVERIFY(!dialog->sendButton()->isEnabled());
    dialog->typedNameGuard()->nameEdit()->setText(QStringLiteral("payments-prod"));
    QVERIFY(dialog->sendButton()->isEnabled());
    QSignalSpy done(&place, &InspectorPlace::actionFinished);
    dialog->sendButton()->click();
    QVERIFY(done.wait(10000));
    QVERIFY2(done.first().at(0).toBool(), qPrintable(done.first().at(1).toString()));
    QCOMPARE(c.command({"EXISTS", "lock:pay"}).reply.toInteger(), 0);
}

void TestInspectorPlace::refusedWhenTheLockChanged()
{
    Rig rig;
    QVERIFY2(rig.start(), qPrintable(rig.setupError));
    RedisConnection &c = rig.server->admin();
    QVERIFY(SampleLocks::plainLock(c, "lock:pay", "owner-a", 60000));
    ConnectionSettings s = rig.server->connectionSettings();
    s.readOnly = false;
    QVERIFY(open(rig, s));
    InspectorPlace &place = *rig.place;
    QVERIFY(place.selectKey("lock:pay"));
    // Someone else holds it by the time the user confirms.
    QVERIFY(c.command({"SET", "lock:pay", "owner-b", "PX", "60000"}).ok());
    place.requestAction(LockAction::Type::ForceUnlock);
    ActionConfirmDialog *dialog = dialogOf(place);
    QVERIFY(dialog);
    QVERIFY(dialog->commandText().contains(QLatin1String("owner-a")));
    QSignalSpy done(&place, &InspectorPlace::actionFinished);
    dialog->accept();
    QVERIFY(done.wait(10000));
    QVERIFY(!done.first().at(0).toBool());
    QVERIFY(done.first().at(1).toString().contains(QLatin1String("refused")));
    QCOMPARE(c.command({"GET", "lock:pay"}).reply.bytes(), QByteArray("owner-b"));
    // The table catches up with the new owner.
    QTRY_COMPARE_WITH_TIMEOUT(place.model()->find("lock:pay")->owners.first().id, QByteArray("owner-b"),
                              10000);
}

void TestInspectorPlace::readOnlyAclUserSendsNoWrites()
{
    Rig rig;
    QVERIFY2(rig.startWithDemoSet(SandboxFixture::withKeyspaceEvents()), qPrintable(rig.setupError));
    RedisConnection &admin = rig.server->admin();
    QVERIFY(TestSupport::addViewerUser(admin));
    const qint64 writesBefore = TestSupport::writeCommandCalls(admin);
    ConnectionSettings s = rig.server->connectionSettings();
    s.user = QStringLiteral("viewer");
    s.password = QStringLiteral("pw");
    s.readOnly = true;
    QVERIFY(open(rig, s));
    InspectorPlace &place = *rig.place;
    QCOMPARE(place.model()->rowCount(), 15);
    QTRY_COMPARE_WITH_TIMEOUT(place.watcher()->state(), KeyspaceWatcher::State::ListeningUnconfirmed, 10000);
    QVERIFY(place.liveText().contains(QLatin1String("CONFIG GET is not allowed")));
    QVERIFY(place.selectKey("demo:inventory"));
    // Events still arrive (the server publishes them), and polls run meanwhile.
    QVERIFY(SampleLocks::plainLock(admin, "lock:new", "x", 60000));
    QTRY_VERIFY_WITH_TIMEOUT(place.model()->rowOf("lock:new") >= 0, 10000);
    QTest::qWait(2500);
    place.rescan();
    QSignalSpy finished(&place, &InspectorPlace::scanFinished);
    QVERIFY(finished.wait(10000));
    QCOMPARE(TestSupport::writeCommandCalls(admin), writesBefore + 1); // only the admin's own SET
}

void TestInspectorPlace::screenshots()
{
    const QString dir = qEnvironmentVariable("LOCKSCOPE_SCREENSHOT_DIR");
    if (dir.isEmpty())
        QSKIP("set LOCKSCOPE_SCREENSHOT_DIR to save pictures of the Inspector");
    Rig rig;
    QVERIFY2(rig.startWithDemoSet(SandboxFixture::withKeyspaceEvents()), qPrintable(rig.setupError));
    RedisConnection &c = rig.server->admin();
    ConnectionSettings s = rig.server->connectionSettings();
    s.readOnly = false;
    QVERIFY(open(rig, s));
    InspectorPlace &place = *rig.place;
    // Renew one lock like a watchdog, so its history has a heartbeat.
    for (int i = 0; i < 6; ++i) {
        QTest::qWait(500);
        c.command({"PEXPIRE", "demo:inventory", "30000"});
    }
    QByteArray redlockRow; // named after whichever of its keys the scan met first
    for (const LockRecord &r : place.model()->records()) {
        if (r.format == QLatin1String("node-redlock"))
            redlockRow = r.key;
    }
    for (const QByteArray &key : {QByteArray("demo:inventory"), QByteArray("demo:report"), redlockRow,
                                  QByteArray("demo:orphan"), QByteArray("demo:order:1002")}) {
        QVERIFY2(place.selectKey(key), key.constData());
        QTest::qWait(300);
        QVERIFY(place.grab().save(QDir(dir).filePath(
            QStringLiteral("inspector-%1.png").arg(QString::fromLatin1(key).replace(u':', u'-')))));
    }
    place.requestAction(LockAction::Type::ForceUnlock);
    ActionConfirmDialog *dialog = dialogOf(place);
    QVERIFY(dialog);
    QTest::qWait(200);
    QVERIFY(dialog->grab().save(QDir(dir).filePath(QStringLiteral("inspector-confirm.png"))));
    dialog->reject();
}

void TestInspectorPlace::clusterGroupsByNodeWithoutResets()
{
    SandboxCluster::Options options;
    options.configLines << QStringLiteral("notify-keyspace-events KEA");
    SandboxCluster cluster(options);
    LS_START(cluster);
    ClusterConnection c(cluster.seedSettings());
    LS_OPEN(c);
    QHash<QString, int> perNode;
    for (int i = 0; i < 12; ++i) {
        const QByteArray key = "lock:job:" + QByteArray::number(i);
        QVERIFY(c.command({"SET", key, SampleLocks::randomHex32(), "NX", "PX", "600000"}).ok());
        ++perNode[c.slotMap().masterOfKey(key)->endpoint()];
    }
    QCOMPARE(perNode.size(), 3);
    ConnectionSettings seed = cluster.seedSettings();
    seed.readOnly = true;
    Rig rig;
    QVERIFY(open(rig, seed));
    InspectorPlace &place = *rig.place;
    QAbstractItemModelTester proxyTester(place.proxy(),
                                         QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy modelResets(place.model(), &QAbstractItemModel::modelReset);
    QSignalSpy proxyResets(place.proxy(), &QAbstractItemModel::modelReset);
    QCOMPARE(place.model()->rowCount(), 12);
    auto *nodeFilter = place.findChild<QComboBox *>(QStringLiteral("nodeFilter"));
    auto *group = place.findChild<QCheckBox *>(QStringLiteral("groupByNode"));
    QVERIFY(nodeFilter && group);
    QVERIFY(nodeFilter->isVisible() && group->isVisible());
    QCOMPARE(nodeFilter->count(), 4); // "All nodes" and the three masters, in order
    QVERIFY(nodeFilter->itemText(1) < nodeFilter->itemText(2)
            && nodeFilter->itemText(2) < nodeFilter->itemText(3));

    // Grouped: each master's locks together, masters in order whichever way the table is sorted.
    const auto nodesInViewOrder = [&place] {
        QStringList nodes;
        for (int row = 0; row < place.proxy()->rowCount(); ++row)
            nodes << place.proxy()->index(row, LockTableModel::NodeColumn).data().toString();
        return nodes;
    };
    const auto isGrouped = [](QStringList nodes) {
        QStringList sorted = nodes;
        std::sort(sorted.begin(), sorted.end());
        return nodes == sorted;
    };
    group->setChecked(true);
    QCOMPARE(place.view()->horizontalHeader()->visualIndex(LockTableModel::NodeColumn), 0);
    for (Qt::SortOrder order : {Qt::AscendingOrder, Qt::DescendingOrder}) {
        place.view()->sortByColumn(LockTableModel::KeyColumn, order);
        QVERIFY2(isGrouped(nodesInViewOrder()), qPrintable(nodesInViewOrder().join(u' ')));
    }
    QVERIFY(place.proxy()->index(0, 0).data(Qt::BackgroundRole).isNull()); // first section plain
    QVERIFY(place.proxy()
                ->index(perNode.value(nodeFilter->itemText(1)), 0)
                .data(Qt::BackgroundRole)
                .isValid()); // the second one tinted

    // A lock taken meanwhile arrives live (its master's notification) into its group: rows, not resets.
    const QByteArray fresh = "lock:job:fresh";
    QVERIFY(c.command({"SET", fresh, SampleLocks::randomHex32(), "NX", "PX", "600000"}).ok());
    QTRY_COMPARE_WITH_TIMEOUT(place.model()->rowCount(), 13, 10000);
    QVERIFY(isGrouped(nodesInViewOrder()));
    QCOMPARE(modelResets.count(), 0);
    QCOMPARE(proxyResets.count(), 0);

    // One master only.
    const QString second = nodeFilter->itemText(2);
    nodeFilter->setCurrentIndex(2);
    const QStringList shown = nodesInViewOrder();
    QVERIFY(!shown.isEmpty());
    QCOMPARE(shown.count(second), shown.size());
    QCOMPARE(QSettings().value(QStringLiteral("inspector/groupByNode")).toBool(), true);
    QCOMPARE(QSettings().value(QStringLiteral("inspector/nodeFilter")).toString(), second);

    // Remembered: the next Inspector groups and filters the same way once that master shows up.
    Rig again;
    QVERIFY(open(again, seed));
    QVERIFY(again.place->findChild<QCheckBox *>(QStringLiteral("groupByNode"))->isChecked());
    QCOMPARE(again.place->findChild<QComboBox *>(QStringLiteral("nodeFilter"))->currentText(), second);
    QCOMPARE(again.place->proxy()->rowCount(), shown.size());
}

QTEST_MAIN(TestInspectorPlace)
#include "tst_inspectorplace.moc"
