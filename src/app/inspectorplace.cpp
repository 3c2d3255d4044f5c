// InspectorPlace: wiring only. The network lives in LockScanner (scans, refreshes), KeyspaceWatcher (events)
// and RedisSession (actions), each on its own thread; this class reacts to their signals.
#include "inspectorplace.h"

#include "appsettings.h"

#include "actionconfirmdialog.h"
#include "backgroundtask.h"
#include "inspect/inspectclock.h"
#include "inspect/inspectformat.h"
#include "inspect/lockscanner.h"
#include "inspect/samplelocks.h"
#include "lockdetailspane.h"
#include "lockfilterproxy.h"
#include "locktablemodel.h"
#include "placeheader.h"
#include "redis/redisconnection.h"
#include "redis/redissession.h"
#include "serverpanel.h"
#include "textformat.h"
#include "ttlbardelegate.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

namespace {
constexpr int kTickMs = 100; // countdown repaint
constexpr int kPollMs = 1000; // TTL refresh without notifications
constexpr int kPollWithEventsMs = 5000; // with notifications: only a safety net
constexpr int kFlushMs = 100; // keyspace events are coalesced this long
constexpr int kMaxRefreshRows = 200;
constexpr int kMaxProbeKeys = 1000;
} // namespace

InspectorPlace::InspectorPlace(RedisSession *session, QWidget *parent)
    : QWidget(parent)
    , m_session(session)
    , m_scanner(new LockScanner(this))
    , m_watcher(new KeyspaceWatcher(this))
    , m_model(new LockTableModel(this))
    , m_proxy(new LockFilterProxy(this))
{
    m_proxy->setSourceModel(m_model);
    buildUi();

    connect(session, &RedisSession::opened, this, &InspectorPlace::onOpened);
    connect(session, &RedisSession::infoChanged, this, [this](const ServerInfo &info) {
        m_serverPanel->showInfo(info);
        updateActionsAllowed();
    });
    connect(session, &RedisSession::opening, this, [this](const QString &endpoint) {
        // A new connection: stop following the old one (never waiting on the network).
        m_connected = false;
        m_watcher->stop();
        m_scanner->cancel();
        m_serverPanel->showMessage(tr("Connecting to %1…").arg(endpoint));
    });
    connect(session, &RedisSession::failed, this, [this](const RedisError &e) { onLost(e.message()); });
    connect(session, &RedisSession::connectionLost, this,
            [this](const RedisError &e) { onLost(tr("Connection lost: %1").arg(e.message())); });
    connect(session, &RedisSession::closed, this, [this] {
        m_watcher->stop();
        m_scanner->cancel();
        onLost(tr("Disconnected."));
    });

    connect(m_scanner, &LockScanner::pageReady, this, &InspectorPlace::onPage);
    connect(m_scanner, &LockScanner::scanFinished, this,
            [this](const ScanProgress &p) { onScanEnded(p, QString(), true); });
    connect(m_scanner, &LockScanner::scanCancelled, this, [this](const ScanProgress &p) {
        onScanEnded(p, tr("Scan stopped after %1 keys.").arg(InspectFormat::count(p.scannedKeys)), false);
    });
    connect(m_scanner, &LockScanner::scanFailed, this, [this](const RedisError &e, const ScanProgress &p) {
        onScanEnded(p, tr("Scan failed: %1").arg(e.message()), false);
    });
    connect(m_scanner, &LockScanner::probed, this, &InspectorPlace::onProbed);
    connect(m_scanner, &LockScanner::probeFailed, this,
            [this](const RedisError &e) { setStatus(tr("Refresh failed: %1").arg(e.message()), true); });
    connect(m_watcher, &KeyspaceWatcher::events, this, &InspectorPlace::onKeyEvents);
    connect(m_watcher, &KeyspaceWatcher::stateChanged, this, &InspectorPlace::updateLiveState);

    m_tick.setInterval(kTickMs);
    connect(&m_tick, &QTimer::timeout, this, &InspectorPlace::tick);
    m_tick.start();
    m_poll.setInterval(kPollMs);
    connect(&m_poll, &QTimer::timeout, this, &InspectorPlace::pollVisibleRows);
    m_poll.start();
    m_flush.setSingleShot(true);
    m_flush.setInterval(kFlushMs);
    connect(&m_flush, &QTimer::timeout, this, &InspectorPlace::flushDirtyKeys);
    connect(&m_sampleWriter, &QFutureWatcher<bool>::finished, this, [this] {
        BackgroundTask::resultsArrived();
        if (m_sampleWriter.result()) {
            setStatus(tr("Sample locks written to the sandbox (demo:*)."));
            rescan();
        } else {
            setStatus(tr("Could not write sample locks to the sandbox."), true);
        }
    });
    updateLiveState();
    updateActionsAllowed();
}

InspectorPlace::~InspectorPlace()
{
    m_sampleWriter.waitForFinished();
    // Children are destroyed after this body, one by one: a signal the watcher or scanner sends while
    // stopping (stateChanged) must not reach this half-destroyed place, whose timers may be gone already.
    disconnect(m_watcher, nullptr, this, nullptr);
    disconnect(m_scanner, nullptr, this, nullptr);
}

void InspectorPlace::buildUi()
{
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(
        new PlaceHeader(QStringLiteral(":/icons/inspector.svg"), tr("Inspector"),
                        tr("Every lock on the connected server: who holds it, for how long, who waits "
                           "— and which look stuck."),
                        this));

    auto *scanRow = new QHBoxLayout;
    scanRow->addWidget(new QLabel(tr("Keys:"), this));
    m_patterns = new QLineEdit(QStringLiteral("*"), this);
    m_patterns->setObjectName(QStringLiteral("patterns"));
    m_patterns->setPlaceholderText(tr("*  (every key)"));
    m_patterns->setToolTip(tr(
        "SCAN MATCH patterns, separated by spaces. \"*\" scans every key and lists those that look like "
        "locks "
        "(by their data, or a name with lock/mutex in it); any other pattern lists every key it matches."));
    m_patterns->setMaximumWidth(260);
    scanRow->addWidget(m_patterns, 1);
    scanRow->addWidget(new QLabel(tr("Lock names:"), this));
    QStringList lockNames;
    for (const QByteArray &p : ScanOptions::defaultLockNamePatterns())
        lockNames << QString::fromUtf8(p);
    m_lockNames = new QLineEdit(lockNames.join(u' '), this);
    m_lockNames->setObjectName(QStringLiteral("lockNamePatterns"));
    m_lockNames->setToolTip(
        tr("With \"*\", keys whose name matches one of these patterns are listed even when their "
           "data fits no lock format (as \"unknown\", with why). Separated by spaces."));
    m_lockNames->setMaximumWidth(300);
    scanRow->addWidget(m_lockNames, 1);
    // The patterns are remembered between sessions (they describe the user's naming conventions).
    AppSettings settings;
    m_patterns->setText(settings.value(QStringLiteral("inspector/patterns"), m_patterns->text()).toString());
    m_lockNames->setText(
        settings.value(QStringLiteral("inspector/lockNamePatterns"), m_lockNames->text()).toString());
    m_scanButton = new QPushButton(tr("Scan"), this);
    m_scanButton->setObjectName(QStringLiteral("scanButton"));
    m_scanButton->setToolTip(tr("Scan the server again (F5); SCAN with COUNT 1000, never KEYS"));
    scanRow->addWidget(m_scanButton);
    m_progress = new QProgressBar(this);
    m_progress->setRange(0, 1000);
    m_progress->setTextVisible(false);
    m_progress->setFixedWidth(140);
    scanRow->addWidget(m_progress);
    m_progressText = new QLabel(this);
    scanRow->addWidget(m_progressText, 2);
    m_sampleLocks = new QPushButton(tr("Add Sample Locks"), this);
    m_sampleLocks->setToolTip(tr("Write a few locks of every kind (demo:*) into the sandbox server"));
    m_sampleLocks->setVisible(false);
    scanRow->addWidget(m_sampleLocks);
    layout->addLayout(scanRow);

    auto *filterRow = new QHBoxLayout;
    m_filter = new QLineEdit(this);
    m_filter->setObjectName(QStringLiteral("filter"));
    m_filter->setPlaceholderText(tr("Filter by key, owner, kind or library"));
    m_filter->setClearButtonEnabled(true);
    filterRow->addWidget(m_filter, 2);
    m_kind = new QComboBox(this);
    m_kind->setObjectName(QStringLiteral("kindFilter"));
    m_kind->addItem(tr("All kinds"));
    for (LockKind k : LockKinds::all()) {
        m_kind->addItem(LockKinds::label(k), int(k));
        m_kind->setItemData(m_kind->count() - 1, LockKinds::description(k), Qt::ToolTipRole);
    }
    filterRow->addWidget(m_kind);
    m_problemsOnly = new QCheckBox(tr("Only with diagnoses"), this);
    filterRow->addWidget(m_problemsOnly);
    m_nodeFilter = new QComboBox(this);
    m_nodeFilter->setObjectName(QStringLiteral("nodeFilter"));
    m_nodeFilter->addItem(tr("All nodes"));
    m_nodeFilter->setToolTip(tr("Only the locks on one master of the cluster"));
    m_nodeFilter->setVisible(false);
    filterRow->addWidget(m_nodeFilter);
    m_groupByNode = new QCheckBox(tr("Group by node"), this);
    m_groupByNode->setObjectName(QStringLiteral("groupByNode"));
    m_groupByNode->setToolTip(tr("Keep each cluster master's locks together (masters in order), sorted by "
                                 "the chosen column within each"));
    m_groupByNode->setVisible(false);
    filterRow->addWidget(m_groupByNode);
    filterRow->addStretch(1);
    m_live = new QLabel(this);
    m_live->setObjectName(QStringLiteral("liveState"));
    m_live->setWordWrap(true);
    filterRow->addWidget(m_live, 3);
    m_enableNotifications = new QPushButton(tr("Turn On Notifications…"), this);
    m_enableNotifications->setToolTip(
        tr("CONFIG SET notify-keyspace-events, so changes show as they happen"));
    filterRow->addWidget(m_enableNotifications);
    layout->addLayout(filterRow);

    auto *splitter = new QSplitter(Qt::Horizontal, this);
    m_view = new QTableView(splitter);
    m_view->setObjectName(QStringLiteral("lockTable"));
    m_view->setModel(m_proxy);
    m_view->setSortingEnabled(true);
    m_view->sortByColumn(LockTableModel::ProblemsColumn, Qt::DescendingOrder);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->setAlternatingRowColors(true);
    m_view->setWordWrap(false);
    m_view->verticalHeader()->hide();
    m_emptyHint = new QLabel(m_view->viewport());
    m_emptyHint->setWordWrap(true);
    m_emptyHint->setAlignment(Qt::AlignCenter);
    m_emptyHint->setForegroundRole(QPalette::PlaceholderText);
    m_emptyHint->setMinimumWidth(360);
    m_emptyHint->setMaximumWidth(460);
    m_emptyHint->hide();
    auto *hintLayout = new QVBoxLayout(m_view->viewport());
    hintLayout->addWidget(m_emptyHint, 0, Qt::AlignCenter);
    for (const auto signal : {&QAbstractItemModel::rowsInserted, &QAbstractItemModel::rowsRemoved})
        connect(m_model, signal, this, &InspectorPlace::updateEmptyHint);
    connect(m_model, &QAbstractItemModel::modelReset, this, &InspectorPlace::updateEmptyHint);
    m_view->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    m_view->setItemDelegateForColumn(LockTableModel::TtlColumn, new TtlBarDelegate(m_view));
    QHeaderView *header = m_view->horizontalHeader();
    header->setSectionResizeMode(QHeaderView::Interactive);
    header->setStretchLastSection(true);
    const int em = fontMetrics().horizontalAdvance(u'M');
    m_view->setColumnWidth(LockTableModel::KeyColumn, 15 * em);
    m_view->setColumnWidth(LockTableModel::KindColumn, 12 * em);
    m_view->setColumnWidth(LockTableModel::OwnerColumn, 10 * em);
    m_view->setColumnWidth(LockTableModel::TtlColumn, 9 * em);
    m_view->setColumnWidth(LockTableModel::WaitersColumn, 6 * em);
    m_view->setColumnHidden(LockTableModel::NodeColumn, true); // shown when a cluster's locks arrive

    auto *right = new QWidget(splitter);
    auto *rightLayout = new QVBoxLayout(right);
    rightLayout->setContentsMargins(6, 0, 0, 0);
    auto *serverBox = new QGroupBox(tr("Server"), right);
    auto *serverLayout = new QVBoxLayout(serverBox);
    m_serverPanel = new ServerPanel(serverBox);
    serverLayout->addWidget(m_serverPanel);
    rightLayout->addWidget(serverBox);
    m_details = new LockDetailsPane(right);
    rightLayout->addWidget(m_details, 1);
    splitter->addWidget(m_view);
    splitter->addWidget(right);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);
    splitter->setSizes({62 * em, 38 * em});
    layout->addWidget(splitter, 1);

    m_status = new QLabel(this);
    m_status->setObjectName(QStringLiteral("inspectorStatus"));
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_status);

    connect(m_scanButton, &QPushButton::clicked, this, [this] {
        if (m_scanner->isScanning()) {
            m_rescanPending = false;
            m_scanner->cancel();
        } else {
            rescan();
        }
    });
    connect(m_patterns, &QLineEdit::returnPressed, this, &InspectorPlace::rescan);
    connect(m_lockNames, &QLineEdit::returnPressed, this, &InspectorPlace::rescan);
    auto *rescanAction = new QAction(tr("Rescan"), this);
    rescanAction->setShortcut(QKeySequence::Refresh);
    rescanAction->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    connect(rescanAction, &QAction::triggered, this, &InspectorPlace::rescan);
    addAction(rescanAction);
    connect(m_filter, &QLineEdit::textChanged, m_proxy, &LockFilterProxy::setText);
    connect(m_kind, &QComboBox::currentIndexChanged, this, [this](int index) {
        const QVariant data = m_kind->itemData(index);
        m_proxy->setKind(data.isValid() ? std::optional<LockKind>(LockKind(data.toInt())) : std::nullopt);
    });
    connect(m_problemsOnly, &QCheckBox::toggled, m_proxy, &LockFilterProxy::setProblemsOnly);
    connect(m_nodeFilter, &QComboBox::currentIndexChanged, this, [this](int index) {
        const QString node = index > 0 ? m_nodeFilter->itemText(index) : QString();
        m_proxy->setNode(node);
        if (m_nodeFilter->isVisible()) // not while the list is rebuilt for another server
            AppSettings().setValue(QStringLiteral("inspector/nodeFilter"), node);
    });
    connect(m_groupByNode, &QCheckBox::toggled, this, [this](bool on) {
        AppSettings().setValue(QStringLiteral("inspector/groupByNode"), on);
        setGrouped(on);
    });
    m_groupByNode->setChecked(AppSettings().value(QStringLiteral("inspector/groupByNode"), false).toBool());
    connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex &current) {
                m_selectedKey
                    = current.isValid() ? current.data(LockTableModel::KeyRole).toByteArray() : QByteArray();
                showSelected();
            });
    connect(m_details, &LockDetailsPane::actionRequested, this, &InspectorPlace::requestAction);
    connect(m_enableNotifications, &QPushButton::clicked, this, &InspectorPlace::enableNotifications);
    connect(m_sampleLocks, &QPushButton::clicked, this, &InspectorPlace::writeSampleLocks);
}

void InspectorPlace::setSandbox(bool sandbox)
{
    m_sandbox = sandbox;
    m_sampleLocks->setVisible(sandbox);
}

void InspectorPlace::onOpened(const ServerInfo &info)
{
    m_serverPanel->showInfo(info);
    const ConnectionSettings s = m_session->settings();
    const bool sameServer = s.endpoint() == m_settings.endpoint() && s.db == m_settings.db
        && s.user == m_settings.user && !m_settings.host.isEmpty() && m_scanner->connectionSettings() == s;
    m_settings = s;
    m_connected = true;
    if (!sameServer) {
        m_model->clear();
        m_tracker.clear();
        m_dirty.clear();
        m_selectedKey.clear();
        m_details->showNothing();
        m_view->setColumnHidden(LockTableModel::NodeColumn, true);
        m_proxy->clearNodes();
        m_nodeFilter->setVisible(false);
        m_groupByNode->setVisible(false);
        while (m_nodeFilter->count() > 1)
            m_nodeFilter->removeItem(1);
        m_scanner->setConnectionSettings(s);
    }
    if (!sameServer || m_watcher->state() == KeyspaceWatcher::State::Stopped) {
        // A cluster node (given as a cluster or not): every master publishes its own keys' changes.
        ConnectionSettings watched = s;
        watched.cluster = s.cluster || info.mode == QLatin1String("cluster");
        m_watcher->start(watched);
    }
    updateActionsAllowed();
    updateLiveState();
    rescan();
}

void InspectorPlace::onLost(const QString &message)
{
    m_connected = false;
    m_serverPanel->showMessage(message);
    setStatus(message, true);
    updateActionsAllowed();
}

void InspectorPlace::setPatterns(const QString &patterns)
{
    m_patterns->setText(patterns);
}

void InspectorPlace::setLockNamePatterns(const QString &patterns)
{
    m_lockNames->setText(patterns);
}

ScanOptions InspectorPlace::currentOptions() const
{
    const auto split = [](const QString &text) {
        QList<QByteArray> out;
        for (const QString &p : text.split(QRegularExpression(QStringLiteral("\\s+")), Qt::SkipEmptyParts))
            out << p.toUtf8();
        return out;
    };
    ScanOptions options;
    options.patterns = split(m_patterns->text());
    if (options.patterns.isEmpty())
        options.patterns << "*";
    options.lockNamePatterns = split(m_lockNames->text());
    return options;
}

void InspectorPlace::rescan()
{
    if (!m_connected)
        return;
    if (m_scanner->isScanning()) {
        m_rescanPending = true;
        m_scanner->cancel();
        return;
    }
    startScan();
}

void InspectorPlace::startScan()
{
    const ScanOptions options = currentOptions();
    const QString problem = options.validate();
    if (!problem.isEmpty()) {
        setStatus(problem, true);
        return;
    }
    m_seenThisScan.clear();
    if (!m_scanner->start(options))
        return;
    AppSettings settings;
    settings.setValue(QStringLiteral("inspector/patterns"), m_patterns->text());
    settings.setValue(QStringLiteral("inspector/lockNamePatterns"), m_lockNames->text());
    m_scanButton->setText(tr("Stop"));
    showProgress({}, true);
    setStatus(tr("Scanning %1…").arg(m_patterns->text()));
    m_emptyHint->clear();
    updateEmptyHint();
}

void InspectorPlace::applyRecords(const QList<LockRecord> &records, LockTracker::Source source)
{
    if (records.isEmpty())
        return;
    const ScanOptions options = currentOptions();
    DiagnosticContext base;
    base.ttlThresholdMs = options.ttlThresholdMs;
    QList<LockRecord> processed = records;
    bool selectedChanged = false;
    for (LockRecord &r : processed) {
        noteNode(r.node);
        m_tracker.observeAndDiagnose(r, source, base);
        selectedChanged |= r.key == m_selectedKey;
    }
    m_model->upsert(processed);
    if (selectedChanged)
        showSelected();
}

void InspectorPlace::noteNode(const QString &node)
{
    if (node.isEmpty() || m_proxy->nodes().contains(node))
        return;
    if (m_proxy->nodes().isEmpty()) // the first cluster lock: room for "127.0.0.1:40000"
        m_view->setColumnWidth(LockTableModel::NodeColumn,
                               m_view->fontMetrics().horizontalAdvance(node)
                                   + 3 * fontMetrics().horizontalAdvance(u'M'));
    m_proxy->addNode(node);
    m_view->setColumnHidden(LockTableModel::NodeColumn, false);
    m_nodeFilter->setVisible(true);
    m_groupByNode->setVisible(true);
    // Masters in order in the list, as in the grouped table.
    const QStringList nodes = m_proxy->nodes();
    m_nodeFilter->insertItem(int(nodes.indexOf(node)) + 1, node);
    if (node == AppSettings().value(QStringLiteral("inspector/nodeFilter")).toString())
        m_nodeFilter->setCurrentIndex(m_nodeFilter->findText(node));
    setGrouped(m_groupByNode->isChecked()); // the Node column is shown now: put it first when grouped
}

void InspectorPlace::setGrouped(bool grouped)
{
    m_proxy->setGroupByNode(grouped);
    // Grouped, the node is the first thing a row says; ungrouped, the column goes back to its place.
    QHeaderView *header = m_view->horizontalHeader();
    const int from = header->visualIndex(LockTableModel::NodeColumn);
    const int to = grouped ? 0 : int(LockTableModel::NodeColumn);
    if (from != to)
        header->moveSection(from, to);
}

void InspectorPlace::onPage(const QList<LockRecord> &records, const ScanProgress &progress)
{
    for (const LockRecord &r : records)
        m_seenThisScan.insert(r.key);
    applyRecords(records, LockTracker::Source::Scan);
    showProgress(progress, true);
}

void InspectorPlace::onScanEnded(const ScanProgress &progress, const QString &message, bool complete)
{
    m_scanButton->setText(tr("Scan"));
    if (complete) {
        // Locks listed before but not found by this scan were released meanwhile.
        const qint64 now = InspectClock::monotonicMs();
        for (const QByteArray &key : m_model->retainOnly(m_seenThisScan)) {
            m_tracker.observeGone(key, now);
            if (key == m_selectedKey)
                m_details->showGone(m_tracker.history(key));
        }
    }
    showProgress(progress, false);
    if (complete) {
        QString text = tr("%1 in %2 scanned (%3).")
                           .arg(TextFormat::count(progress.locks, tr("lock"), tr("locks")),
                                TextFormat::count(progress.scannedKeys, tr("key"), tr("keys")),
                                InspectFormat::duration(progress.elapsedMs));
        if (progress.unreadableKeys > 0)
            text += tr(" %1 keys could not be read: the ACL does not allow it.")
                        .arg(InspectFormat::count(progress.unreadableKeys));
        setStatus(text);
        m_emptyHint->setText(
            m_sandbox
                ? tr("No locks on this sandbox server yet. Press Add Sample Locks to see one of every kind, "
                     "or run a story from Learn and scan again while it runs.")
                : tr("No lock found among the %1 keys matching %2. If your locks use other names, add "
                     "their patterns under Lock names.")
                      .arg(InspectFormat::count(progress.scannedKeys), m_patterns->text()));
        updateEmptyHint();
    } else {
        setStatus(message, !message.startsWith(tr("Scan stopped")));
    }
    if (m_rescanPending) {
        m_rescanPending = false;
        startScan();
        return;
    }
    // Show the worst lock straight away rather than an empty details pane.
    if (m_selectedKey.isEmpty() && m_proxy->rowCount() > 0)
        m_view->setCurrentIndex(m_proxy->index(0, 0));
    emit scanFinished();
}

void InspectorPlace::showProgress(const ScanProgress &p, bool running)
{
    m_progress->setValue(running ? int(p.fraction * 1000) : (p.finished ? 1000 : m_progress->value()));
    QString text = p.dbSize >= 0
        ? tr("%1 of ~%2 · %3")
              .arg(InspectFormat::count(p.scannedKeys), TextFormat::count(p.dbSize, tr("key"), tr("keys")),
                   TextFormat::count(p.locks, tr("lock"), tr("locks")))
        : tr("%1 · %2").arg(TextFormat::count(p.scannedKeys, tr("key"), tr("keys")),
                            TextFormat::count(p.locks, tr("lock"), tr("locks")));
    if (p.elapsedMs > 0)
        text += QStringLiteral(" · ") + InspectFormat::duration(p.elapsedMs);
    m_progressText->setText(text);
}

void InspectorPlace::onProbed(const QList<LockRecord> &records, const QList<QByteArray> &gone)
{
    applyRecords(records, LockTracker::Source::Live);
    const qint64 now = InspectClock::monotonicMs();
    QList<QByteArray> removed;
    for (const QByteArray &key : gone) {
        if (m_model->rowOf(key) < 0)
            continue;
        m_tracker.observeGone(key, now);
        removed.append(key);
        if (key == m_selectedKey)
            m_details->showGone(m_tracker.history(key));
    }
    m_model->remove(removed);
}

void InspectorPlace::onKeyEvents(const QList<KeyspaceEvent> &events)
{
    for (const KeyspaceEvent &e : events) {
        m_tracker.noteNotification(e.key, e.event, e.atMs);
        m_dirty.insert(e.key);
    }
    if (!m_flush.isActive())
        m_flush.start();
}

void InspectorPlace::flushDirtyKeys()
{
    if (m_dirty.isEmpty() || !m_connected)
        return;
    QList<QByteArray> keys;
    for (auto it = m_dirty.begin(); it != m_dirty.end() && keys.size() < kMaxProbeKeys;) {
        keys.append(*it);
        it = m_dirty.erase(it);
    }
    if (!m_scanner->probeKeys(keys)) {
        for (const QByteArray &k : keys)
            m_dirty.insert(k); // the scanner is busy: try again shortly
    }
    if (!m_dirty.isEmpty())
        m_flush.start();
}

void InspectorPlace::pollVisibleRows()
{
    if (!m_connected || !isVisible() || m_proxy->rowCount() == 0 || m_scanner->refreshesInFlight() > 0)
        return;
    int top = m_view->rowAt(0);
    int bottom = m_view->rowAt(m_view->viewport()->height() - 1);
    if (top < 0)
        top = 0;
    if (bottom < 0)
        bottom = m_proxy->rowCount() - 1;
    bottom = std::min(bottom, top + kMaxRefreshRows - 1);
    QList<LockRecord> records;
    bool selectedIncluded = false;
    for (int row = top; row <= bottom; ++row) {
        const int source = m_proxy->mapToSource(m_proxy->index(row, 0)).row();
        if (source < 0)
            continue;
        records.append(m_model->record(source));
        selectedIncluded |= records.last().key == m_selectedKey;
    }
    if (!selectedIncluded) {
        if (const LockRecord *selected = m_model->find(m_selectedKey))
            records.append(*selected);
    }
    if (!records.isEmpty())
        m_scanner->refresh(records);
}

void InspectorPlace::tick()
{
    if (!isVisible())
        return;
    if (m_model->rowCount() > 0)
        m_view->viewport()->update();
    m_details->tick();
    // The cadence sentence ("last renewed 3.2 s ago") ages too; once a second is enough for it.
    if (++m_ticks % (1000 / kTickMs) == 0 && m_details->hasLock())
        m_details->refreshHistory(m_tracker.history(m_details->record().key));
}

void InspectorPlace::showSelected()
{
    const LockRecord *record = m_model->find(m_selectedKey);
    if (!record) {
        if (m_selectedKey.isEmpty())
            m_details->showNothing();
        return;
    }
    const int row = m_model->rowOf(m_selectedKey);
    m_details->showLock(*record, m_tracker.history(m_selectedKey), m_model->leaseOf(row));
}

bool InspectorPlace::selectKey(const QByteArray &key)
{
    const int source = m_model->rowOf(key);
    if (source < 0)
        return false;
    const QModelIndex index = m_proxy->mapFromSource(m_model->index(source, 0));
    if (!index.isValid())
        return false;
    m_view->setCurrentIndex(index);
    m_view->scrollTo(index);
    return true;
}

void InspectorPlace::updateLiveState()
{
    const KeyspaceWatcher::State state = m_watcher->state();
    const bool events
        = state == KeyspaceWatcher::State::Listening && KeyspaceWatcher::flagsSuffice(m_watcher->flags());
    // setInterval() restarts a running timer: only touch it when the interval really changes, or frequent
    // state updates would keep postponing the poll forever.
    const int interval = events ? kPollWithEventsMs : kPollMs;
    if (m_poll.interval() != interval)
        m_poll.setInterval(interval);
    QString text = m_watcher->stateText();
    if (state == KeyspaceWatcher::State::Stopped)
        text = tr("Live view starts when connected.");
    m_live->setText(text);
    m_live->setToolTip(text);
    const bool readOnly = m_settings.readOnly;
    // On a cluster the setting is per master, and the one-click fix sets it on one server only.
    const bool cluster = m_settings.cluster || m_session->info().mode == QLatin1String("cluster");
    const bool offerable = !cluster && m_watcher->configReadable()
        && (state == KeyspaceWatcher::State::NotificationsOff
            || (state == KeyspaceWatcher::State::Listening && !events));
    m_enableNotifications->setVisible(offerable && !readOnly && m_connected);
}

void InspectorPlace::updateActionsAllowed()
{
    const bool readOnly = m_settings.readOnly || m_session->info().readOnly;
    const bool allowed = m_connected && !readOnly;
    m_details->setActionsAllowed(
        allowed,
        !m_connected
            ? tr("Not connected.")
            : tr("This connection is read-only (the default), so actions are off. Reconnect with "
                 "“Read-only” unticked to force-unlock, set a TTL or remove an orphan queue — or copy the "
                 "command above into redis-cli with a user allowed to write."));
    updateLiveState();
}

void InspectorPlace::requestAction(LockAction::Type type)
{
    if (!m_details->hasLock())
        return;
    // The snapshot is exactly what the details pane shows: the action compares against it.
    const LockRecord snapshot = m_details->record();
    LockAction action;
    switch (type) {
    case LockAction::Type::ForceUnlock:
        action = LockActions::forceUnlock(snapshot);
        break;
    case LockAction::Type::ExtendTtl:
        action = LockActions::extendTtl(snapshot, 60000);
        break;
    case LockAction::Type::RemoveOrphanQueue:
        action = LockActions::removeOrphanQueue(snapshot);
        break;
    case LockAction::Type::EnableNotifications:
        enableNotifications();
        return;
    }
    if (!snapshot.node.isEmpty() && snapshot.node != m_settings.endpoint()) {
        // The app's session talks to one node; the action's compare-and-set must run on the lock's master.
        setStatus(tr("This lock lives on the cluster master %1, and actions on another master than the one "
                     "connected to are not supported yet: nothing was sent. Connect to %1 to act on it.")
                      .arg(snapshot.node),
                  true);
        return;
    }
    if (m_settings.readOnly) {
        setStatus(tr("This connection is read-only: nothing was sent."), true);
        return;
    }
    auto *dialog = new ActionConfirmDialog(action, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    if (type == LockAction::Type::ExtendTtl) {
        const qint64 lease
            = m_model->rowOf(snapshot.key) >= 0 ? m_model->leaseOf(m_model->rowOf(snapshot.key)) : -1;
        dialog->setTtlEditor(std::max<qint64>(lease, 60000),
                             [snapshot](qint64 ms) { return LockActions::extendTtl(snapshot, ms); });
    }
    connect(dialog, &QDialog::accepted, this,
            [this, dialog, snapshot] { runAction(dialog->action(), snapshot); });
    dialog->open();
}

void InspectorPlace::enableNotifications()
{
    if (m_settings.readOnly)
        return;
    auto *dialog = new ActionConfirmDialog(LockActions::enableNotifications(m_watcher->flags()), this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QDialog::accepted, this, [this, dialog] { runAction(dialog->action(), LockRecord()); });
    dialog->open();
}

void InspectorPlace::runAction(const LockAction &action, const LockRecord &snapshot)
{
    if (!action.isAvailable())
        return;
    setStatus(tr("Sending: %1…").arg(action.title));
    m_session->run(action.command, this, [this, action, snapshot](const RedisResult &result) {
        const LockActionOutcome outcome = LockActions::interpret(action, result);
        setStatus(outcome.message, !outcome.done);
        if (!outcome.done) {
            auto *box = new QMessageBox(QMessageBox::Information, action.title, outcome.message,
                                        QMessageBox::Ok, this);
            box->setAttribute(Qt::WA_DeleteOnClose);
            box->open();
        }
        if (action.type == LockAction::Type::EnableNotifications) {
            if (outcome.done)
                m_watcher->start(m_settings);
        } else if (snapshot.isLock()) {
            m_scanner->refresh({snapshot});
        }
        emit actionFinished(outcome.done, outcome.message);
    });
}

void InspectorPlace::writeSampleLocks()
{
    if (!m_sandbox || !m_connected || m_sampleWriter.isRunning())
        return;
    const ConnectionSettings settings = m_settings;
    m_sampleWriter.setFuture(BackgroundTask::run([settings] {
        RedisConnection c(settings);
        if (c.open())
            return false;
        return SampleLocks::writeDemoSet(c);
    }));
}

void InspectorPlace::updateEmptyHint()
{
    m_emptyHint->setVisible(!m_emptyHint->text().isEmpty() && m_model->rowCount() == 0); // not the filter's
}

void InspectorPlace::setStatus(const QString &text, bool error)
{
    m_status->setText(text);
    m_status->setStyleSheet(error ? QStringLiteral("color:#c62828") : QString());
}

QString InspectorPlace::statusText() const
{
    return m_status->text();
}

QString InspectorPlace::liveText() const
{
    return m_live->text();
}

bool InspectorPlace::isScanning() const
{
    return m_scanner->isScanning();
}
