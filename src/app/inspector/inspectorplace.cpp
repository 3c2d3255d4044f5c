// InspectorPlace: wiring only. The network lives in LockMonitor (scans, notifications, polls, rescans) and
// RedisSession (actions), each on threads of their own; this class shows what their signals say.
#include "inspectorplace.h"

#include "common/appsettings.h"

#include "actionconfirmdialog.h"
#include "common/backgroundtask.h"
#include "common/placeheader.h"
#include "common/textformat.h"
#include "formatlistdialog.h"
#include "inspect/inspectclock.h"
#include "inspect/inspectformat.h"
#include "inspect/samplelocks.h"
#include "inspectorscanbar.h"
#include "lockdetailspane.h"
#include "lockfilterproxy.h"
#include "lockrowactions.h"
#include "locktableexport.h"
#include "locktablemodel.h"
#include "redis/redisconnection.h"
#include "redis/redissession.h"
#include "serverpanel.h"
#include "ttlbardelegate.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QEvent>
#include <QFileDialog>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QSplitter>
#include <QStandardPaths>
#include <QTableView>
#include <QVBoxLayout>

namespace {
constexpr int kTickMs = 100; // countdown repaint
constexpr int kMaxPriorityRows = 200; // visible rows read first at each poll
} // namespace

InspectorPlace::InspectorPlace(RedisSession *session, QWidget *parent)
    : QWidget(parent)
    , m_session(session)
    , m_monitor(new LockMonitor(this))
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
        // Until the new connection works, the current one (and its live view) stays.
        setStatus(tr("Connecting to %1…").arg(endpoint));
    });
    connect(session, &RedisSession::failed, this, [this](const RedisError &e) {
        if (m_session->isOpen()) {
            setStatus(tr("Could not connect: %1 Still showing %2.").arg(e.message(), m_settings.endpoint()),
                      true);
            return;
        }
        onLost(e.message());
    });
    connect(session, &RedisSession::connectionLost, this,
            [this](const RedisError &e) { onLost(tr("Connection lost: %1").arg(e.message())); });
    connect(session, &RedisSession::closed, this, [this] {
        m_monitor->stop();
        onLost(tr("Disconnected."));
    });

    connect(m_monitor, &LockMonitor::scanStarted, this, [this] {
        m_scanButton->setText(tr("Stop"));
        showProgress({}, true);
    });
    connect(m_monitor, &LockMonitor::scanProgress, this,
            [this](const ScanProgress &p) { showProgress(p, true); });
    connect(m_monitor, &LockMonitor::scanEnded, this,
            [this](const ScanProgress &p, bool complete, const QString &error) {
                onScanEnded(p,
                            error.isEmpty() ? tr("Scan stopped after %1 keys.").arg(InspectFormat::count(p.scannedKeys))
                                            : tr("Scan failed: %1").arg(error),
                            complete);
            });
    connect(m_monitor, &LockMonitor::updated, this, &InspectorPlace::onUpdated);
    connect(m_monitor, &LockMonitor::gone, this, &InspectorPlace::onGone);
    connect(m_monitor, &LockMonitor::liveChanged, this, &InspectorPlace::onLiveChanged);
    connect(m_monitor, &LockMonitor::watchStateChanged, this, &InspectorPlace::updateLiveState);

    m_tick.setInterval(kTickMs);
    connect(&m_tick, &QTimer::timeout, this, &InspectorPlace::tick);
    m_tick.start();
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
    // Children are destroyed after this body, one by one: a signal the monitor sends while stopping must not
    // reach this half-destroyed place, whose timers may be gone already.
    disconnect(m_monitor, nullptr, this, nullptr);
    m_monitor->stop();
}

void InspectorPlace::buildUi()
{
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(
        new PlaceHeader(QStringLiteral(":/icons/inspector.svg"), tr("Inspector"),
                        tr("Every lock on the connected server: who holds it, for how long, who waits "
                           "— and which look stuck."),
                        this));

    auto *scanBar = new InspectorScanBar(this);
    m_patterns = scanBar->patterns();
    m_lockNames = scanBar->lockNames();
    m_scanButton = scanBar->scanButton();
    m_progress = scanBar->progress();
    m_progressText = scanBar->progressText();
    m_sampleLocks = scanBar->sampleLocksButton();
    m_export = scanBar->exportButton();
    connect(scanBar->formatsButton(), &QPushButton::clicked, this, &InspectorPlace::showFormats);
    layout->addWidget(scanBar);

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
    m_view->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_view, &QWidget::customContextMenuRequested, this, &InspectorPlace::showRowMenu);
    m_view->viewport()->installEventFilter(this);
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
    // The key takes what width there is, so that the Diagnoses column stays in view in a narrow window (at
    // 1024 px it was behind a sideways scroll): a long key is elided, and shown whole in the details.
    header->setSectionResizeMode(LockTableModel::KeyColumn, QHeaderView::Stretch);
    header->setStretchLastSection(false);
    const int em = fontMetrics().horizontalAdvance(u'M');
    header->setMinimumSectionSize(3 * em);
    m_view->setColumnWidth(LockTableModel::KindColumn, 9 * em);
    m_view->setColumnWidth(LockTableModel::OwnerColumn, 9 * em);
    m_view->setColumnWidth(LockTableModel::TtlColumn, 8 * em);
    m_view->setColumnWidth(LockTableModel::WaitersColumn, 6 * em);
    m_view->setColumnWidth(LockTableModel::ProblemsColumn, 11 * em);
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
        if (m_monitor->isScanning()) {
            // Stopped by hand: no automatic rescan either until the user asks for one.
            m_monitor->setAutoRescan(false);
            m_monitor->stopScan();
        } else {
            rescan();
        }
    });
    connect(m_export, &QPushButton::clicked, this, &InspectorPlace::exportWithDialog);
    connect(m_patterns, &QLineEdit::returnPressed, this, &InspectorPlace::rescan);
    connect(m_lockNames, &QLineEdit::returnPressed, this, &InspectorPlace::rescan);
    m_rescanAction = new QAction(tr("Rescan"), this);
    m_rescanAction->setShortcut(QKeySequence::Refresh);
    m_rescanAction->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    connect(m_rescanAction, &QAction::triggered, this, &InspectorPlace::rescan);
    addAction(m_rescanAction);
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
                if (m_selectedKey != m_pinnedGone)
                    unpinGone();
                showSelected();
                updatePriorityKeys();
            });
    connect(m_details, &LockDetailsPane::actionRequested, this, &InspectorPlace::requestAction);
    connect(m_enableNotifications, &QPushButton::clicked, this, &InspectorPlace::enableNotifications);
    connect(m_sampleLocks, &QPushButton::clicked, this, &InspectorPlace::writeSampleLocks);
}

bool InspectorPlace::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_view->viewport()) {
        if (event->type() == QEvent::Enter)
            m_proxy->setOrderHeld(true);
        else if (event->type() == QEvent::Leave)
            m_proxy->setOrderHeld(false);
    }
    return QWidget::eventFilter(watched, event);
}

void InspectorPlace::showFormats()
{
    auto *dialog = new FormatListDialog(this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &FormatListDialog::reloaded, this, &InspectorPlace::rescan); // new options, new catalog
    dialog->open();
}

void InspectorPlace::setSandbox(bool sandbox)
{
    m_sandbox = sandbox;
    m_sampleLocks->setVisible(sandbox);
}

void InspectorPlace::onOpened(const ServerInfo &info)
{
    m_serverPanel->showInfo(info);
    ConnectionSettings s = m_session->settings();
    // A cluster node (given as a cluster or not): every master publishes its own keys' changes.
    s.cluster = s.cluster || info.mode == QLatin1String("cluster");
    const bool sameServer = !m_settings.host.isEmpty() && m_monitor->connectionSettings() == s;
    m_settings = m_session->settings();
    m_connected = true;
    if (!sameServer) {
        m_monitor->stop();
        m_model->clear();
        m_model->setFrozenAt(-1);
        m_selectedKey.clear();
        m_pinnedGone.clear();
        m_details->showNothing();
        m_view->setColumnHidden(LockTableModel::NodeColumn, true);
        m_proxy->clearNodes();
        m_nodeFilter->setVisible(false);
        m_groupByNode->setVisible(false);
        while (m_nodeFilter->count() > 1)
            m_nodeFilter->removeItem(1);
        m_monitor->setConnectionSettings(s); // forgets the other server's locks
    }
    updateActionsAllowed();
    updateLiveState();
    const ScanOptions options = currentOptions();
    if (!options.validate().isEmpty()) {
        setStatus(options.validate(), true);
        return;
    }
    m_monitor->setOptions(options);
    m_monitor->setAutoRescan(true);
    if (!m_monitor->isRunning())
        m_monitor->start(); // scans now
    else
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

void InspectorPlace::setScanSettings(int count, int maxOpsPerSecond, const QStringList &patterns)
{
    m_scanCount = count;
    m_scanMaxOps = maxOpsPerSecond;
    if (!patterns.isEmpty())
        m_patterns->setText(patterns.join(u' '));
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
    options.count = m_scanCount;
    options.maxOpsPerSecond = m_scanMaxOps;
    return options;
}

void InspectorPlace::rescan()
{
    if (!m_connected)
        return;
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
    m_monitor->setAutoRescan(true);
    m_monitor->setOptions(options);
    if (!m_monitor->isRunning())
        m_monitor->start();
    else
        m_monitor->rescan();
    AppSettings settings;
    settings.setValue(QStringLiteral("inspector/patterns"), m_patterns->text());
    settings.setValue(QStringLiteral("inspector/lockNamePatterns"), m_lockNames->text());
    m_scanButton->setText(tr("Stop"));
    showProgress({}, true);
    setStatus(tr("Scanning %1…").arg(m_patterns->text()));
    m_emptyHint->clear();
    updateEmptyHint();
}

void InspectorPlace::onUpdated(const QList<LockRecord> &records)
{
    bool selectedChanged = false;
    for (const LockRecord &r : records) {
        noteNode(r.node);
        selectedChanged |= r.key == m_selectedKey;
        if (r.key == m_pinnedGone)
            m_pinnedGone.clear(); // back again: an ordinary row
    }
    m_model->upsert(records);
    if (selectedChanged)
        showSelected();
}

void InspectorPlace::onGone(const QByteArray &key, const LockRecord &last)
{
    if (key == m_selectedKey) {
        // The lock being watched stays in view, grey and "gone", with its last event, until another is chosen.
        LockRecord pinned = last;
        pinned.type = "none";
        pinned.pttlMs = -2;
        pinned.diagnoses.clear();
        m_model->upsert({pinned});
        m_pinnedGone = key;
        m_details->showGone(m_monitor->history(key));
        return;
    }
    m_model->remove({key});
}

void InspectorPlace::unpinGone()
{
    if (m_pinnedGone.isEmpty())
        return;
    const QByteArray key = std::exchange(m_pinnedGone, QByteArray());
    if (!m_monitor->locks().contains(key))
        m_model->remove({key});
}

void InspectorPlace::onLiveChanged(bool live, const QString &reason)
{
    // Not live: the rows are the last readings; they go grey and stop counting down until the server
    // answers again.
    m_model->setFrozenAt(live ? -1 : InspectClock::monotonicMs());
    m_details->setStale(!live);
    if (!live)
        setStatus(tr("The server cannot be read (%1): the rows show the last readings.").arg(reason), true);
    else
        setStatus(tr("The server answers again; rescanning to see which locks are still there."));
    updateLiveState();
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

void InspectorPlace::onScanEnded(const ScanProgress &progress, const QString &message, bool complete)
{
    m_scanButton->setText(tr("Scan"));
    showProgress(progress, false);
    if (complete) {
        QString text = tr("%1 in %2 scanned (%3).")
                           .arg(TextFormat::count(progress.locks, tr("lock"), tr("locks")),
                                TextFormat::count(progress.scannedKeys, tr("key"), tr("keys")),
                                InspectFormat::duration(progress.elapsedMs));
        if (progress.unreadableKeys > 0)
            text += tr(" %1 keys could not be read (%2): locks among them are not listed, and locks not met "
                       "are not taken for released.")
                        .arg(InspectFormat::count(progress.unreadableKeys),
                             progress.unreadReasons.isEmpty()
                                 ? tr("refused")
                                 : progress.unreadReasons.firstKey());
        if (!progress.missing.isEmpty())
            text += tr(" Partial: %1.").arg(progress.missing.join(QStringLiteral("; ")));
        setStatus(text, progress.unreadableKeys > 0 || !progress.missing.isEmpty());
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
    // The server panel's key count comes from the last INFO, which may predate keys the scan just read
    // ("0 keys" beside "23 keys scanned"): read it again now.
    m_session->refreshInfo();
    if (m_monitor->isScanning())
        return; // a rescan the monitor started at once (the user changed the patterns meanwhile)
    // Show the worst lock straight away rather than an empty details pane.
    if (m_selectedKey.isEmpty() && m_proxy->rowCount() > 0)
        m_view->setCurrentIndex(m_proxy->index(0, 0));
    updatePriorityKeys();
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
    m_progressText->setToolTip(text); // whole, when a narrow window cuts it
}

void InspectorPlace::updatePriorityKeys()
{
    // What the user looks at is read first at each poll: the visible rows and the selection.
    QList<QByteArray> keys;
    if (!m_selectedKey.isEmpty())
        keys << m_selectedKey;
    if (m_proxy->rowCount() > 0) {
        int top = std::max(0, m_view->rowAt(0));
        int bottom = m_view->rowAt(m_view->viewport()->height() - 1);
        if (bottom < 0)
            bottom = m_proxy->rowCount() - 1;
        bottom = std::min(bottom, top + kMaxPriorityRows - 1);
        for (int row = top; row <= bottom; ++row)
            keys << m_proxy->index(row, 0).data(LockTableModel::KeyRole).toByteArray();
    }
    m_monitor->setPriorityKeys(keys);
}

void InspectorPlace::tick()
{
    if (!isVisible())
        return;
    if (m_model->rowCount() > 0)
        m_view->viewport()->update();
    m_details->tick();
    // The cadence sentence ("last renewed 3.2 s ago") and the live line age too; once a second is enough.
    if (++m_ticks % (1000 / kTickMs) == 0) {
        if (m_details->hasLock())
            m_details->refreshHistory(m_monitor->history(m_details->record().key));
        updatePriorityKeys();
        updateLiveState();
    }
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
    if (m_selectedKey == m_pinnedGone) {
        m_details->showGone(m_monitor->history(m_selectedKey));
        return;
    }
    m_details->showLock(*record, m_monitor->history(m_selectedKey), m_model->leaseOf(row));
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
    const KeyspaceWatcher &watcher = m_monitor->watcher();
    const KeyspaceWatcher::State state = watcher.state();
    const bool events = m_monitor->hearsNotifications();
    QString text = watcher.stateText();
    if (state == KeyspaceWatcher::State::Stopped)
        text = m_connected ? tr("Live view stopped.") : tr("Live view starts when connected.");
    if (!m_monitor->isLive())
        text = tr("Not live: %1. Showing the last readings.").arg(m_monitor->notLiveReason());
    // New locks appear with the next full scan when no notification announces them.
    const qint64 lastScan = m_monitor->lastFullScanAtMs();
    if (m_connected && lastScan >= 0) {
        const qint64 ago = (InspectClock::monotonicMs() - lastScan) / 1000;
        const int every = (events ? m_monitor->timing().rescanWithEventsMs : m_monitor->timing().rescanMs) / 1000;
        if (!text.endsWith(u'.'))
            text += u'.';
        text += u' '
            + tr("Last full scan %1 ago; the next within %2 s.")
                  .arg(InspectFormat::duration(ago * 1000))
                  .arg(std::max<qint64>(0, every - ago));
    }
    m_live->setText(text);
    m_live->setToolTip(text);
    const bool readOnly = m_settings.readOnly;
    // On a cluster the setting is per master, and the one-click fix sets it on one server only.
    const bool cluster = m_settings.cluster || m_session->info().mode == QLatin1String("cluster");
    const bool offerable = !cluster && watcher.configReadable()
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
    if (type == LockAction::Type::EnableNotifications) {
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
    const qint64 lease
        = m_model->rowOf(snapshot.key) >= 0 ? m_model->leaseOf(m_model->rowOf(snapshot.key)) : -1;
    auto *dialog = ActionConfirmDialog::forLock(type, snapshot, lease, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    if (!m_productionName.isEmpty())
        dialog->requireTypedName(m_productionName);
    connect(dialog, &QDialog::accepted, this,
            [this, dialog, snapshot] { runAction(dialog->action(), snapshot); });
    dialog->open();
}

void InspectorPlace::enableNotifications()
{
    if (m_settings.readOnly)
        return;
    auto *dialog
        = new ActionConfirmDialog(LockActions::enableNotifications(m_monitor->watcher().flags()), this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    if (!m_productionName.isEmpty())
        dialog->requireTypedName(m_productionName);
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
                m_monitor->watcher().start(m_monitor->connectionSettings());
        } else if (snapshot.isLock()) {
            m_monitor->refreshNow({snapshot});
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
    return m_monitor->isScanning();
}

QList<QAction *> InspectorPlace::rowActions(const QModelIndex &index)
{
    const QByteArray key = index.isValid() ? index.data(LockTableModel::KeyRole).toByteArray() : QByteArray();
    const int source = m_model->rowOf(key);
    if (source < 0)
        return {};
    const bool canWrite = m_connected && !m_settings.readOnly && !m_session->info().readOnly;
    return LockRowActions::build(this, m_model->record(source), m_connected, canWrite,
                                 [this, key](LockAction::Type type) {
                                     if (selectKey(key))
                                         requestAction(type);
                                 });
}

void InspectorPlace::fillMenu(QMenu *menu)
{
    menu->addAction(m_rescanAction);
    menu->addAction(tr("Export Locks…"), this, &InspectorPlace::exportWithDialog);
    menu->addAction(tr("Lock Formats…"), this, &InspectorPlace::showFormats);
    QAction *notifications
        = menu->addAction(tr("Turn On Notifications…"), this, &InspectorPlace::enableNotifications);
    QAction *samples = menu->addAction(tr("Add Sample Locks"), this, &InspectorPlace::writeSampleLocks);
    QAction *selected = menu->addSection(tr("Selected lock"));
    menu->setToolTipsVisible(true);
    // The selected lock's own actions, as its row's menu has them (enabled as they can run now).
    connect(menu, &QMenu::aboutToShow, this, [this, menu, notifications, samples, selected] {
        notifications->setVisible(m_enableNotifications->isVisible());
        samples->setVisible(m_sampleLocks->isVisible());
        qDeleteAll(m_menuRowActions);
        m_menuRowActions = rowActions(m_view->currentIndex());
        selected->setVisible(!m_menuRowActions.isEmpty());
        menu->addActions(m_menuRowActions);
    });
}

void InspectorPlace::showRowMenu(const QPoint &pos)
{
    const QModelIndex index = m_view->indexAt(pos);
    if (!index.isValid())
        return;
    m_view->setCurrentIndex(index);
    QMenu menu(this);
    menu.setToolTipsVisible(true);
    const QList<QAction *> actions = rowActions(index);
    menu.addActions(actions);
    menu.exec(m_view->viewport()->mapToGlobal(pos));
    qDeleteAll(actions);
}

void InspectorPlace::exportWithDialog()
{
    const QString folder = QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation);
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export Locks"), folder + QStringLiteral("/locks.csv"),
        tr("CSV (*.csv);;JSON, as lockscope-cli inspect --json (*.json)"));
    if (path.isEmpty())
        return;
    const QString problem = exportTable(path);
    if (problem.isEmpty())
        setStatus(tr("%1 written (%2).").arg(QDir::toNativeSeparators(path),
                                             TextFormat::count(m_proxy->rowCount(), tr("lock"), tr("locks"))));
    else
        setStatus(problem, true);
}

QString InspectorPlace::exportTable(const QString &path) const
{
    QList<LockRecord> rows;
    for (int row = 0; row < m_proxy->rowCount(); ++row) {
        const int source = m_proxy->mapToSource(m_proxy->index(row, 0)).row();
        if (source >= 0)
            rows << m_model->record(source);
    }
    return LockTableExport::write(path, rows, *m_monitor, m_session->info());
}
