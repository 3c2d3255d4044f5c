// SimulatorPlace: wires the editor, the controller and the views together; actions, exports, saved layout.
#include "simulatorplace.h"

#include "common/appsettings.h"

#include "common/textformat.h"

#include "common/backgroundtask.h"
#include "chartspanel.h"
#include "eventlogmodel.h"
#include "forkdialog.h"
#include "forkpanel.h"
#include "outputfile.h"
#include "redis/redissession.h"
#include "runexporter.h"
#include "scenarioeditor.h"
#include "sim/presetlibrary.h"
#include "sim/scenarioparser.h"
#include "simulationcontroller.h"
#include "stallmonitor.h"
#include "storysteppanel.h"
#include "summarycards.h"
#include "timeline/timelinepanel.h"
#include "timeline/timelineview.h"
#include "common/typednameguard.h"
#include "violationmodel.h"

#include <QAction>
#include <QBuffer>
#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QEvent>
#include <QFileDialog>
#include <QFutureWatcher>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QJsonDocument>
#include <QLabel>
#include <QListView>
#include <QMenu>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSplitter>
#include <QStandardItemModel>
#include <QStandardPaths>
#include <QStyle>
#include <QTabBar>
#include <QTabWidget>
#include <QTableView>
#include <QTextBrowser>
#include <QToolButton>
#include <QVBoxLayout>

namespace {
const QString kDefaultPreset = QStringLiteral("gc-pause");

QToolButton *toolButton(QAction *action, QWidget *parent)
{
    auto *b = new QToolButton(parent);
    b->setDefaultAction(action);
    b->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    b->setAutoRaise(true);
    return b;
}
} // namespace

SimulatorPlace::SimulatorPlace(RedisSession *session, QWidget *parent)
    : QWidget(parent)
    , m_session(session)
    , m_controller(new SimulationController(this))
    , m_editor(new ScenarioEditor(this))
    , m_timeline(new TimelinePanel(this))
    , m_cards(new SummaryCards(this))
    , m_charts(new ChartsPanel(this))
    , m_violationModel(new ViolationModel(this))
    , m_logModel(new EventLogModel(this))
    , m_stalls(new StallMonitor(this))
{
    setObjectName(QStringLiteral("simulatorPlace"));
    buildActions();
    buildLayout();

    connect(m_controller, &SimulationController::aboutToClear, this, &SimulatorPlace::clearViews);
    connect(m_controller, &SimulationController::runStarted, this, [this](int index) {
        if (m_followActive || m_shown < 0)
            showRun(index);
    });
    connect(m_controller, &SimulationController::runUpdated, this, [this](int index) {
        if (index != m_shown || m_freezeAction->isChecked())
            return;
        m_timeline->refresh();
        if (m_stepAt > 0)
            updateStepping(); // the recording reached further: Next may be possible now
        QScrollBar *bar = m_log->verticalScrollBar();
        const bool atBottom = bar->value() >= bar->maximum() - 2;
        m_logModel->refresh();
        if (atBottom && m_log->isVisible())
            m_log->scrollToBottom();
    });
    connect(m_controller, &SimulationController::statsUpdated, this, [this](int index) {
        if (index == m_shown && !m_freezeAction->isChecked())
            showStats(index);
    });
    connect(m_controller, &SimulationController::runFinished, this, [this](int index) {
        const SimulationController::Run &r = m_controller->run(index);
        if (index < m_variants->count()) {
            const int v = r.report.safety.violations();
            m_variants->setTabText(
                index,
                v > 0 ? tr("%1 — %2").arg(r.variant, TextFormat::count(v, tr("violation"), tr("violations")))
                      : tr("%1 — safe").arg(r.variant));
        }
        if (index == m_shown)
            showRun(index); // the final picture, exactly as the report saw it
        updateReport();
    });
    connect(m_controller, &SimulationController::finished, this, [this] {
        m_stalls->stop();
        if (!m_controller->errorString().isEmpty())
            m_timeline->setMessage(
                tr("<b>The run failed:</b> %1").arg(m_controller->errorString().toHtmlEscaped()), true);
        updateReport();
        m_cards->setChecks(m_controller->outcome().checks, !m_controller->wasStopped());
        m_editor->setLocked(false);
        updateActions();
        emit runningChanged(false);
    });
    connect(m_controller, &SimulationController::stateChanged, this, &SimulatorPlace::updateStatus);

    connect(m_timeline, &TimelinePanel::nextRequested, this, &SimulatorPlace::nextStep);
    connect(m_timeline, &TimelinePanel::backRequested, this, &SimulatorPlace::previousStep);
    connect(m_timeline, &TimelinePanel::leaveSteppingRequested, this, &SimulatorPlace::leaveStepping);
    connect(m_timeline, &TimelinePanel::forkRequested, this, &SimulatorPlace::forkFromHere);
    connect(m_timeline->view(), &TimelineView::violationClicked, this,
            [this](int index) { m_violationList->setCurrentIndex(m_violationModel->index(index)); });
    connect(m_cards, &SummaryCards::violationsClicked, this, [this] {
        m_tabs->setCurrentIndex(1);
        if (m_violationModel->rowCount() > 0)
            jumpToViolation(0);
    });
    connect(m_cards, &SummaryCards::expectationsClicked, this, [this] { m_tabs->setCurrentIndex(3); });
    connect(m_editor, &ScenarioEditor::validityChanged, this, &SimulatorPlace::updateActions);

    if (m_session) {
        for (auto signal : {&RedisSession::closed})
            connect(m_session, signal, this, &SimulatorPlace::updateTarget);
        connect(m_session, &RedisSession::opened, this, &SimulatorPlace::updateTarget);
        connect(m_session, &RedisSession::infoChanged, this, &SimulatorPlace::updateTarget);
        connect(m_session, &RedisSession::failed, this, &SimulatorPlace::updateTarget);
        connect(m_session, &RedisSession::connectionLost, this, &SimulatorPlace::updateTarget);
    }
    updateTarget();
    restoreLayout();
    updateActions();
    updateStatus();
}

SimulatorPlace::~SimulatorPlace()
{
    saveLayout();
}

void SimulatorPlace::buildActions()
{
    const auto action
        = [this](const QIcon &icon, const QString &text, const QKeySequence &key, const QString &tip) {
              auto *a = new QAction(icon, text, this);
              a->setShortcut(key);
              a->setToolTip(QStringLiteral("%1 (%2)").arg(tip, key.toString(QKeySequence::NativeText)));
              a->setShortcutContext(Qt::WidgetWithChildrenShortcut);
              addAction(a);
              return a;
          };
    m_runAction
        = action(QIcon(QStringLiteral(":/icons/run.svg")), tr("Run"), QKeySequence(Qt::CTRL | Qt::Key_R),
                 tr("Run the scenario (each variant in turn) and watch it live"));
    m_runAction->setShortcuts({QKeySequence(Qt::CTRL | Qt::Key_R), QKeySequence(Qt::Key_F5)});
    connect(m_runAction, &QAction::triggered, this, &SimulatorPlace::run);
    m_stopAction
        = action(QIcon(QStringLiteral(":/icons/stop.svg")), tr("Stop"), QKeySequence(Qt::SHIFT | Qt::Key_F5),
                 tr("Stop the run; what ran so far is checked and kept"));
    connect(m_stopAction, &QAction::triggered, this, &SimulatorPlace::stop);
    m_stepAction = action(QIcon(QStringLiteral(":/icons/step.svg")), tr("Step by step"),
                          QKeySequence(Qt::CTRL | Qt::Key_T),
                          tr("Stories: walk the run step by step, Back and Next. The run itself goes on at "
                             "Redis' own pace and is recorded, so your reading time cannot change it"));
    m_stepAction->setCheckable(true);
    connect(m_stepAction, &QAction::toggled, this, &SimulatorPlace::setStepMode);
    m_nextAction = action(style()->standardIcon(QStyle::SP_MediaSeekForward), tr("Next step"),
                          QKeySequence(Qt::Key_F8), tr("Stepping: show the next step of the recorded story"));
    connect(m_nextAction, &QAction::triggered, this, &SimulatorPlace::nextStep);
    m_backAction = action(style()->standardIcon(QStyle::SP_MediaSeekBackward), tr("Previous step"),
                          QKeySequence(Qt::SHIFT | Qt::Key_F8),
                          tr("Stepping: show the previous step of the recorded story"));
    connect(m_backAction, &QAction::triggered, this, &SimulatorPlace::previousStep);
    m_forkAction = action(QIcon(), tr("Fork from Here…"), QKeySequence(Qt::CTRL | Qt::Key_K),
                          tr("Stepping a finished story: run it again with one thing changed (the lease, "
                             "fencing, the pause, the algorithm) beside the recording"));
    m_forkAction->setEnabled(false);
    connect(m_forkAction, &QAction::triggered, this, &SimulatorPlace::forkFromHere);
    m_freezeAction = action(QIcon(QStringLiteral(":/icons/freeze.svg")), tr("Freeze display"),
                            QKeySequence(Qt::CTRL | Qt::Key_D),
                            tr("Hold the picture still while the run goes on; uncheck to catch up"));
    m_freezeAction->setCheckable(true);
    connect(m_freezeAction, &QAction::toggled, this, [this](bool frozen) {
        if (!frozen && m_shown >= 0)
            showRun(m_shown);
    });
    m_editorAction = action(QIcon(), tr("Scenario editor"), QKeySequence(Qt::CTRL | Qt::Key_E),
                            tr("Show or hide the scenario editor"));
    m_editorAction->setCheckable(true);
    m_editorAction->setChecked(true);
    // The toolbar button's text: a tool button takes its action's icon text again whenever the action
    // changes, so a text set on the button alone came back as "Scenario editor" and widened the row.
    m_editorAction->setIconText(tr("Editor"));
    // Only the user's own choice is remembered; a run hides the editor for the timeline's sake.
    connect(m_editorAction, &QAction::triggered, this, [this](bool on) { m_editorWanted = on; });
}

void SimulatorPlace::buildLayout()
{
    auto *layout = new QVBoxLayout(this);
    // No title strip here: the timeline needs the height, and the places bar already says where we are.
    layout->setContentsMargins(6, 4, 6, 6);
    layout->setSpacing(4);

    // The toolbar row.
    auto *bar = new QHBoxLayout;
    bar->setSpacing(2);
    m_presetsButton = new QToolButton(this);
    m_presetsButton->setText(tr("Presets"));
    m_presetsButton->setIcon(QIcon(QStringLiteral(":/icons/learn.svg")));
    m_presetsButton->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    m_presetsButton->setPopupMode(QToolButton::InstantPopup);
    m_presetsButton->setToolTip(tr("Load one of the shipped scenarios"));
    auto *presets = new QMenu(m_presetsButton);
    QMenu *stories = presets->addMenu(tr("Stories (scripted)"));
    QMenu *comparisons = presets->addMenu(tr("Comparisons (variants)"));
    QMenu *workloads = presets->addMenu(tr("Workloads"));
    for (const PresetLibrary::Preset &p : PresetLibrary::all()) {
        QMenu *menu = p.scenario.kind == Scenario::Kind::Story ? stories
            : p.scenario.variants.isEmpty()                    ? workloads
                                                               : comparisons;
        QAction *a = menu->addAction(p.scenario.title, this, [this, id = p.id] { loadPreset(id); });
        a->setToolTip(p.scenario.summary);
        a->setData(p.id);
    }
    presets->setToolTipsVisible(true);
    m_presetsButton->setMenu(presets);
    auto *editorButton = toolButton(m_editorAction, this);
    bar->addWidget(editorButton);
    bar->addWidget(m_presetsButton);
    auto *open = new QAction(style()->standardIcon(QStyle::SP_DialogOpenButton), tr("Open…"), this);
    // Ctrl+L ("load"): Ctrl+Shift+O is the window's Connection Profiles…, and two actions on one key inside
    // the Simulator made the key do nothing there.
    open->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_L));
    open->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    open->setToolTip(tr("Open a scenario JSON file (Ctrl+L)"));
    addAction(open);
    connect(open, &QAction::triggered, this, &SimulatorPlace::openScenario);
    auto *save = new QAction(style()->standardIcon(QStyle::SP_DialogSaveButton), tr("Save…"), this);
    save->setShortcut(QKeySequence::Save);
    save->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    save->setToolTip(tr("Save the scenario as JSON (Ctrl+S)"));
    addAction(save);
    connect(save, &QAction::triggered, this, &SimulatorPlace::saveScenario);
    for (QAction *a : {open, save}) {
        QToolButton *b = toolButton(a, this);
        b->setToolButtonStyle(Qt::ToolButtonIconOnly);
        bar->addWidget(b);
    }
    bar->addSpacing(10);
    bar->addWidget(toolButton(m_runAction, this));
    bar->addWidget(toolButton(m_stopAction, this));
    bar->addWidget(toolButton(m_stepAction, this));
    QToolButton *freeze = toolButton(m_freezeAction, this);
    freeze->setToolButtonStyle(Qt::ToolButtonIconOnly);
    bar->addWidget(freeze);
    bar->addSpacing(10);
    auto *targetLabel = new QLabel(tr("Run on"), this);
    bar->addWidget(targetLabel);
    m_targetCombo = new QComboBox(this);
    m_targetCombo->setToolTip(tr("Private sandbox redis-servers (started for each run, can be paused, killed "
                                 "and failed over), or the server you are connected to"));
    auto *targets = new QStandardItemModel(m_targetCombo);
    targets->appendRow(new QStandardItem(tr("sandbox servers")));
    targets->appendRow(new QStandardItem(tr("the connected server")));
    m_targetCombo->setModel(targets);
    bar->addWidget(m_targetCombo);
    m_targetNote = new QLabel(this);
    m_targetNote->setWordWrap(false);
    m_targetNote->setForegroundRole(QPalette::PlaceholderText);
    bar->addWidget(m_targetNote);
    bar->addStretch(1);
    m_status = new QLabel(this);
    m_status->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_status->setMinimumWidth(60);
    m_status->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
    m_status->installEventFilter(this);
    bar->addWidget(m_status, 2);
    m_progress = new QProgressBar(this);
    m_progress->setRange(0, 1000);
    m_progress->setTextVisible(false);
    // A thin strip under the toolbar, not a widget in its row: the row must fit a 1024 px window.
    m_progress->setMaximumHeight(4);
    m_exportButton = new QToolButton(this);
    m_exportButton->setText(tr("Export"));
    m_exportButton->setIcon(style()->standardIcon(QStyle::SP_DialogSaveButton));
    m_exportButton->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    m_exportButton->setPopupMode(QToolButton::InstantPopup);
    auto *exports = new QMenu(m_exportButton);
    m_exportActions << exports->addAction(tr("Report (JSON)…"), this, [this] {
        exportWith(tr("Export the report"), tr("JSON (*.json)"), QStringLiteral("json"),
                   &SimulatorPlace::exportReport);
    });
    m_exportActions << exports->addAction(tr("Every event (CSV)…"), this,
                                          &SimulatorPlace::exportEventsInBackground);
    exports->addSeparator();
    m_exportActions << exports->addAction(tr("Timeline as PNG…"), this, [this] {
        exportWith(tr("Export the timeline"), tr("PNG image (*.png)"), QStringLiteral("png"),
                   &SimulatorPlace::exportTimeline);
    });
    m_exportActions << exports->addAction(tr("Timeline as SVG…"), this, [this] {
        exportWith(tr("Export the timeline"), tr("SVG image (*.svg)"), QStringLiteral("svg"),
                   &SimulatorPlace::exportTimeline);
    });
    m_exportActions << exports->addAction(tr("Charts as PNG…"), this, [this] {
        exportWith(tr("Export the charts"), tr("PNG image (*.png)"), QStringLiteral("png"),
                   &SimulatorPlace::exportCharts);
    });
    m_exportActions << exports->addAction(tr("Charts as SVG…"), this, [this] {
        exportWith(tr("Export the charts"), tr("SVG image (*.svg)"), QStringLiteral("svg"),
                   &SimulatorPlace::exportCharts);
    });
    m_exportButton->setMenu(exports);
    bar->addWidget(m_exportButton);
    layout->addLayout(bar);
    layout->addWidget(m_progress);

    // Editor | (timeline / cards / tabs).
    m_hsplit = new QSplitter(Qt::Horizontal, this);
    m_hsplit->setObjectName(QStringLiteral("simulatorHSplit"));
    m_hsplit->setChildrenCollapsible(true);
    connect(m_hsplit, &QSplitter::splitterMoved, this, [this] { m_hsplitMoved = true; });
    auto *editorScroll = new QScrollArea(m_hsplit);
    editorScroll->setWidget(m_editor);
    editorScroll->setWidgetResizable(true);
    editorScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    editorScroll->setMinimumWidth(280);
    m_hsplit->addWidget(editorScroll);
    connect(m_editorAction, &QAction::toggled, editorScroll, &QWidget::setVisible);

    auto *right = new QWidget(m_hsplit);
    auto *rightLayout = new QVBoxLayout(right);
    rightLayout->setContentsMargins(0, 0, 0, 0);
    rightLayout->setSpacing(4);
    m_variants = new QTabBar(right);
    m_variants->setDocumentMode(true);
    m_variants->setToolTip(
        tr("The variants of a comparison run one after the other; pick one to look at it"));
    connect(m_variants, &QTabBar::tabBarClicked, this, [this](int index) {
        if (index < 0 || index >= m_controller->runCount() || !m_controller->run(index).timeline)
            return;
        m_followActive = index == m_controller->activeRun();
        showRun(index);
    });
    rightLayout->addWidget(m_variants);
    m_vsplit = new QSplitter(Qt::Vertical, right);
    m_vsplit->setObjectName(QStringLiteral("simulatorVSplit"));
    connect(m_vsplit, &QSplitter::splitterMoved, this, [this] { m_vsplitMoved = true; });
    auto *top = new QWidget(m_vsplit);
    auto *topLayout = new QVBoxLayout(top);
    topLayout->setContentsMargins(0, 0, 0, 0);
    topLayout->setSpacing(4);
    topLayout->addWidget(m_timeline, 1);
    m_vsplit->addWidget(top);

    // The cards sit with the tabs, under the splitter's handle: on a 700 px screen they take two rows, and
    // above the handle they left the timeline's lanes about 60 px whatever the split.
    auto *bottom = new QWidget(m_vsplit);
    auto *bottomLayout = new QVBoxLayout(bottom);
    bottomLayout->setContentsMargins(0, 0, 0, 0);
    bottomLayout->setSpacing(4);
    bottomLayout->addWidget(m_cards);
    m_tabs = new QTabWidget(bottom);
    m_tabs->setDocumentMode(true);
    m_tabs->addTab(m_charts, tr("Charts"));
    m_violationList = new QListView(m_tabs);
    m_violationList->setModel(m_violationModel);
    m_violationList->setWordWrap(true);
    m_violationList->setAlternatingRowColors(true);
    m_violationList->setUniformItemSizes(false);
    connect(m_violationList, &QListView::clicked, this,
            [this](const QModelIndex &i) { jumpToViolation(i.row()); });
    connect(m_violationList, &QListView::activated, this,
            [this](const QModelIndex &i) { jumpToViolation(i.row()); });
    m_tabs->addTab(m_violationList, tr("Violations"));

    auto *logPage = new QWidget(m_tabs);
    auto *logLayout = new QVBoxLayout(logPage);
    logLayout->setContentsMargins(0, 4, 0, 0);
    auto *filters = new QHBoxLayout;
    m_logWorker = new QComboBox(logPage);
    m_logLock = new QComboBox(logPage);
    m_logKind = new QComboBox(logPage);
    m_logWorker->setToolTip(tr("Only this worker's events (and its process's faults)"));
    m_logLock->setToolTip(tr("Only events on this lock key"));
    m_logKind->setToolTip(tr("Only this kind of event"));
    m_logKind->addItem(tr("All kinds"), -1);
    for (int k = 0; k <= int(HistoryEvent::Kind::Round); ++k)
        m_logKind->addItem(HistoryEvent::kindName(HistoryEvent::Kind(k)), k);
    filters->addWidget(new QLabel(tr("Filter:"), logPage));
    filters->addWidget(m_logWorker);
    filters->addWidget(m_logLock);
    filters->addWidget(m_logKind);
    filters->addStretch(1);
    auto *exportLog = new QToolButton(logPage);
    exportLog->setText(tr("Export shown rows…"));
    exportLog->setToolTip(tr("Save the rows shown (filters applied) as CSV"));
    connect(exportLog, &QToolButton::clicked, this, [this] {
        exportWith(tr("Export the event log"), tr("CSV (*.csv)"), QStringLiteral("csv"),
                   &SimulatorPlace::exportLog);
    });
    filters->addWidget(exportLog);
    logLayout->addLayout(filters);
    for (QComboBox *c : {m_logWorker, m_logLock, m_logKind})
        connect(c, &QComboBox::currentIndexChanged, this, &SimulatorPlace::applyLogFilter);
    m_log = new QTableView(logPage);
    m_log->setModel(m_logModel);
    m_log->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_log->setAlternatingRowColors(true);
    m_log->verticalHeader()->hide();
    m_log->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    m_log->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 4);
    m_log->horizontalHeader()->setStretchLastSection(true);
    m_log->setWordWrap(false);
    for (int c = 0; c < EventLogModel::Detail; ++c)
        m_log->setColumnWidth(c, c == EventLogModel::Lock ? 150 : c == EventLogModel::Time ? 90 : 70);
    connect(m_log, &QTableView::clicked, this, [this](const QModelIndex &index) {
        const qint64 t = index.data(EventLogModel::TimeUsRole).toLongLong();
        TimelineView *view = m_timeline->view();
        if (view->data() && view->data()->isFinished())
            view->setCursorTime(t);
        view->revealTime(t);
    });
    logLayout->addWidget(m_log, 1);
    m_tabs->addTab(logPage, tr("Event log"));

    m_report = new QTextBrowser(m_tabs);
    m_report->setOpenLinks(false);
    m_tabs->addTab(m_report, tr("Report"));
    m_stepPanel = new StoryStepPanel(m_tabs);
    m_tabs->addTab(m_stepPanel, tr("Step"));
    m_forkPanel = new ForkPanel(m_tabs);
    m_tabs->addTab(m_forkPanel, tr("Fork"));
    connect(m_forkPanel, &ForkPanel::finished, this, &SimulatorPlace::updateActions);
    connect(m_tabs, &QTabWidget::currentChanged, this, &SimulatorPlace::fitTabsToFork);
    bottomLayout->addWidget(m_tabs, 1);
    m_vsplit->addWidget(bottom);
    // The timeline first; the user's own split is remembered (saveLayout).
    m_vsplit->setStretchFactor(0, 3);
    m_vsplit->setStretchFactor(1, 2);
    m_vsplit->setSizes({480, 400});
    rightLayout->addWidget(m_vsplit, 1);
    m_hsplit->addWidget(right);
    m_hsplit->setStretchFactor(0, 0);
    m_hsplit->setStretchFactor(1, 1);
    m_hsplit->setSizes({330, 900});
    layout->addWidget(m_hsplit, 1);
}

void SimulatorPlace::showEditor(bool shown)
{
    m_editorWanted = shown;
    m_editorAction->setChecked(shown);
}

bool SimulatorPlace::loadPreset(const QString &id)
{
    const PresetLibrary::Preset *p = PresetLibrary::find(id);
    if (!p)
        return false;
    loadScenario(p->scenario);
    AppSettings().setValue(QStringLiteral("simulator/preset"), id);
    return true;
}

void SimulatorPlace::loadScenario(const Scenario &scenario)
{
    if (m_controller->isRunning())
        stop();
    m_editor->setScenario(scenario);
    m_timeline->setMessage(QString(), false);
    // The previous run's picture under a newly loaded scenario would pass for this one's.
    clearViews();
    updateActions();
}

void SimulatorPlace::clearViews()
{
    m_shown = -1;
    m_stepAt = 0;
    m_timeline->setData(nullptr, {}, 0);
    m_timeline->setStepping({});
    m_stepShown.clear();
    m_stepPanel->clear();
    m_forkPanel->stop(); // a fork belongs to the recording it was made from
    m_forkPanel->clear();
    fitTabsToFork();
    m_logModel->setUntil(TimelineData::kOpen);
    m_logModel->setRun(nullptr);
    m_violationModel->setViolations({});
    m_charts->clear();
    m_cards->clear();
    m_report->setHtml(tr("<p>Not run yet: the report appears here when a run is over.</p>"));
    while (m_variants->count() > 0)
        m_variants->removeTab(0);
    m_variants->hide();
}

void SimulatorPlace::setTarget(Target target)
{
    m_targetCombo->setCurrentIndex(target == Target::ConnectedServer ? 1 : 0);
}

SimulatorPlace::Target SimulatorPlace::target() const
{
    return m_targetCombo->currentIndex() == 1 ? Target::ConnectedServer : Target::Sandbox;
}

void SimulatorPlace::updateTarget()
{
    auto *model = qobject_cast<QStandardItemModel *>(m_targetCombo->model());
    QStandardItem *connected = model->item(1);
    QString why;
    if (!m_session || !m_session->isOpen()) {
        why = tr("no server is connected");
    } else if (m_session->settings().readOnly || m_session->info().readOnly) {
        why = tr("the connection to %1 is read-only, and the simulator writes lock keys and a counter. "
                 "Reconnect "
                 "with writes allowed to run there.")
                  .arg(m_session->settings().endpoint());
    }
    const QString endpoint = m_session ? m_session->settings().endpoint() : QString();
    connected->setText(why.isEmpty() ? tr("the connected server (%1)").arg(endpoint)
                                     : tr("the connected server"));
    connected->setEnabled(why.isEmpty());
    connected->setToolTip(why.isEmpty()
                              ? tr("Keys go under the scenario's prefix (lockscope:sim:); stories that "
                                   "kill, pause or fail over servers need the sandbox")
                              : tr("Not available: %1").arg(why));
    if (!why.isEmpty() && m_targetCombo->currentIndex() == 1)
        m_targetCombo->setCurrentIndex(0);
    m_targetNote->setText(why.isEmpty() || !m_session || !m_session->isOpen() ? QString()
                                                                              : tr("(read-only connection)"));
    m_targetNote->setToolTip(why);
}

bool SimulatorPlace::run()
{
    if (m_controller->isRunning())
        return false;
    Scenario scenario;
    QStringList errors;
    if (!m_editor->scenario(&scenario, &errors)) {
        m_timeline->setMessage(
            tr("<b>The scenario cannot run:</b> %1").arg(errors.join(QStringLiteral("; ")).toHtmlEscaped()),
            true);
        return false;
    }
    Simulation::Options options;
    if (target() == Target::ConnectedServer) {
        if (!m_session || !m_session->isOpen()) {
            m_timeline->setMessage(
                tr("No server is connected: connect first, or run on the private sandbox servers."), true);
            return false;
        }
        if (m_session->settings().readOnly) {
            m_timeline->setMessage(
                tr("The connection to %1 is read-only: the simulator writes lock keys and a counter "
                   "(under %2). Reconnect with writes allowed, or run on the private sandbox servers.")
                    .arg(m_session->settings().endpoint(), scenario.workload.keyPrefix.toHtmlEscaped()),
                true);
            return false;
        }
        if (!m_productionName.isEmpty() && !m_productionConfirmed) {
            // A server marked PRODUCTION: the run writes lock keys and a counter there. Ask first, without
            // blocking (the run starts when the name is typed and confirmed).
            auto *dialog = new QDialog(this);
            dialog->setObjectName(QStringLiteral("productionRunDialog"));
            dialog->setAttribute(Qt::WA_DeleteOnClose);
            dialog->setWindowTitle(tr("Run on a production server?"));
            auto *layout = new QVBoxLayout(dialog);
            auto *what = new QLabel(tr("The simulation writes lock keys and a counter under <code>%1</code> on "
                                       "<b>%2</b>, and deletes them when it is done.")
                                        .arg(scenario.workload.keyPrefix.toHtmlEscaped(),
                                             m_session->settings().endpoint().toHtmlEscaped()),
                                    dialog);
            what->setWordWrap(true);
            layout->addWidget(what);
            auto *guard = new TypedNameGuard(m_productionName, tr("run the simulation on it"), dialog);
            layout->addWidget(guard);
            auto *buttons = new QDialogButtonBox(QDialogButtonBox::Cancel, dialog);
            QPushButton *go = buttons->addButton(tr("Run on %1").arg(m_productionName), QDialogButtonBox::AcceptRole);
            go->setEnabled(false);
            buttons->button(QDialogButtonBox::Cancel)->setDefault(true);
            connect(guard, &TypedNameGuard::satisfiedChanged, go, &QPushButton::setEnabled);
            connect(buttons, &QDialogButtonBox::accepted, dialog, &QDialog::accept);
            connect(buttons, &QDialogButtonBox::rejected, dialog, &QDialog::reject);
            layout->addWidget(buttons);
            connect(dialog, &QDialog::accepted, this, [this, guard] {
                if (!guard->isSatisfied())
                    return;
                m_productionConfirmed = true;
                run();
                m_productionConfirmed = false;
            });
            m_timeline->setMessage(tr("Waiting for the production server's name before running."), false);
            dialog->open();
            return false;
        }
        options.server = m_session->settings();
        options.server->clientName = QStringLiteral("lockscope-sim");
    }
    m_controller->setStepMode(m_stepAction->isChecked());
    m_followActive = true;
    m_stepAt = 0;
    QString error;
    if (!m_controller->start(scenario, options, &error)) {
        m_timeline->setMessage(tr("<b>The scenario cannot run:</b> %1").arg(error.toHtmlEscaped()), true);
        return false;
    }
    m_lastOptions = options;
    m_timeline->setMessage(QString(), false);
    for (int i = 0; i < m_controller->runCount(); ++i)
        m_variants->addTab(m_controller->run(i).variant);
    m_variants->setVisible(m_controller->runCount() > 1);
    m_editor->setLocked(true);
    m_editorAction->setChecked(false); // the picture needs the width while it runs (Ctrl+E brings it back)
    m_report->setHtml(tr("<p>The report appears here when the run is over.</p>"));
    if (m_stepAction->isChecked() && scenario.kind == Scenario::Kind::Story) {
        m_tabs->setCurrentWidget(m_stepPanel);
        goToStep(1);
    }
    m_stalls->start();
    updateActions();
    emit runningChanged(true);
    return true;
}

void SimulatorPlace::stop()
{
    m_controller->stop();
    updateActions();
}

void SimulatorPlace::setStepMode(bool on)
{
    if (m_stepAction->isChecked() != on)
        m_stepAction->setChecked(on);
    m_controller->setStepMode(on);
    // A story already on screen (running or finished) can be stepped through at once.
    const bool story = m_shown >= 0 && m_controller->run(m_shown).scenario.kind == Scenario::Kind::Story;
    if (on && story && m_stepAt == 0) {
        m_tabs->setCurrentWidget(m_stepPanel);
        goToStep(1);
    } else if (!on && m_stepAt > 0) {
        leaveStepping();
    }
    updateActions();
}

void SimulatorPlace::nextStep()
{
    if (m_stepAt > 0)
        goToStep(m_stepAt + 1);
}

void SimulatorPlace::previousStep()
{
    if (m_stepAt > 1)
        goToStep(m_stepAt - 1);
}

void SimulatorPlace::leaveStepping()
{
    m_stepAt = 0;
    m_stepShown.clear();
    m_timeline->setStepping({});
    m_timeline->view()->clearCursor();
    m_logModel->setUntil(TimelineData::kOpen);
    m_stepPanel->clear();
    if (m_stepAction->isChecked()) {
        m_stepAction->blockSignals(true); // not a new choice of mode: only this run is shown whole
        m_stepAction->setChecked(false);
        m_stepAction->blockSignals(false);
        m_controller->setStepMode(false);
    }
    updateActions();
}

void SimulatorPlace::fitTabsToFork()
{
    const bool forkShown = m_tabs->currentWidget() == m_forkPanel && m_forkPanel->hasFork();
    if (forkShown && m_vsplitBeforeFork.isEmpty()) {
        m_vsplitBeforeFork = m_vsplit->saveState();
        const QList<int> sizes = m_vsplit->sizes();
        const int total = sizes.value(0) + sizes.value(1);
        m_vsplit->setSizes({total / 4, total - total / 4});
    } else if (!forkShown && !m_vsplitBeforeFork.isEmpty()) {
        m_vsplit->restoreState(m_vsplitBeforeFork);
        m_vsplitBeforeFork.clear();
    }
    // The two runs' timelines need the room more than the recording's cards do (each run's own count of
    // violations is above its timeline): at 1024 × 700 the cards left them only their story lanes.
    m_cards->setVisible(!forkShown);
}

ForkDialog *SimulatorPlace::forkFromHere()
{
    if (m_stepAt <= 0 || m_shown < 0 || m_shown >= m_controller->runCount() || m_controller->isRunning()
        || m_forkPanel->isRunning())
        return nullptr;
    const SimulationController::Run &run = m_controller->run(m_shown);
    if (!run.finished || run.scenario.kind != Scenario::Kind::Story)
        return nullptr;
    int index = -1; // the scenario's index of the m_stepAt-th narrated step
    for (int i = 0, n = 0; i < run.scenario.story.steps.size() && index < 0; ++i) {
        if (!run.scenario.story.steps.at(i).note.isEmpty() && ++n == m_stepAt)
            index = i;
    }
    if (index < 0)
        return nullptr;
    const bool onServer = m_lastOptions.server.has_value();
    const QString where = onServer ? m_lastOptions.server->endpoint() : tr("fresh private sandbox servers");
    auto *dialog = new ForkDialog(run.scenario, index, m_stepAt, where, onServer ? m_productionName : QString(),
                                  this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    const int shown = m_shown;
    const int number = m_stepAt;
    connect(dialog, &QDialog::accepted, this, [this, dialog, shown, index, number] {
        if (shown >= m_controller->runCount())
            return;
        QString error;
        if (!m_forkPanel->start(m_controller->run(shown), m_controller->textLookup(shown), index, number,
                                dialog->choice(), m_lastOptions, &error)) {
            m_timeline->setMessage(tr("<b>The fork cannot run:</b> %1").arg(error.toHtmlEscaped()), true);
            return;
        }
        m_tabs->setCurrentWidget(m_forkPanel);
        fitTabsToFork();
        updateActions();
    });
    dialog->open();
    return dialog;
}

void SimulatorPlace::goToStep(int number)
{
    m_stepAt = std::max(1, number);
    updateStepping();
    updateActions();
}

// Puts every view at the end of step m_stepAt's span (just before the next narrated step, or the run's end):
// the timeline's cursor, the event log's last row, the Redis keys read at that moment, the step's Lua.
void SimulatorPlace::updateStepping()
{
    if (m_stepAt <= 0 || m_shown < 0 || m_shown >= m_controller->runCount())
        return;
    const SimulationController::Run &run = m_controller->run(m_shown);
    const TimelineData *d = run.timeline.get();
    int total = 0;
    for (const Scenario::Step &s : run.scenario.story.steps)
        total += s.note.isEmpty() ? 0 : 1;
    m_stepAt = std::min(m_stepAt, std::max(1, total));
    QList<const TimelineData::Step *> recorded; // the narrated steps the run has carried out so far
    if (d) {
        for (const TimelineData::Step &s : d->steps()) {
            if (s.number > 0)
                recorded << &s;
        }
    }
    // Not beyond what the run has carried out so far (nor past a stopped run's last step).
    m_stepAt = std::min(m_stepAt, std::max(1, int(recorded.size())));
    const bool finished = run.finished;
    TimelinePanel::Stepping stepping;
    stepping.on = true;
    stepping.recording = !finished;
    stepping.canBack = m_stepAt > 1;
    stepping.canNext = m_stepAt < int(recorded.size());
    stepping.canFork = finished && !m_controller->isRunning() && !m_forkPanel->isRunning();
    qint64 cursor = 0;
    const TimelineData::Step *step = m_stepAt <= recorded.size() ? recorded.at(m_stepAt - 1) : nullptr;
    const TimelineData::Step *next = m_stepAt < recorded.size() ? recorded.at(m_stepAt) : nullptr;
    if (step)
        cursor = next ? next->timeUs - 1 : (d->isFinished() ? m_timeline->view()->totalUs() : d->nowUs());
    if (d) {
        m_timeline->view()->setCursorTime(cursor);
        // At the live end of a run still being recorded the log shows everything so far, growing as usual:
        // a time limit that moved with every update would rebuild the whole log 30 times a second.
        const bool liveEnd = step && !next && !d->isFinished();
        m_logModel->setUntil(liveEnd ? TimelineData::kOpen : cursor);
    }
    m_timeline->setStepping(stepping);
    m_nextAction->setEnabled(stepping.canNext);
    m_backAction->setEnabled(stepping.canBack);
    m_forkAction->setEnabled(stepping.canFork);

    // The keys as read when the next narrated step came due, or at the story's end.
    const QList<StorySnapshot> snapshots = m_controller->storySnapshots(m_shown);
    const StorySnapshot *snapshot = nullptr;
    for (const StorySnapshot &s : snapshots) {
        if (step && ((next && s.stepIndex == next->index) || (!next && finished && s.stepIndex < 0)))
            snapshot = &s;
    }
    const QString shown = QStringLiteral("%1/%2/%3/%4")
                              .arg(m_shown)
                              .arg(m_stepAt)
                              .arg(step ? step->index : -1)
                              .arg(snapshot ? snapshot->readUs : -1);
    if (shown != m_stepShown) {
        m_stepShown = shown;
        int index = -1; // the scenario's index of the m_stepAt-th narrated step
        for (int i = 0, n = 0; i < run.scenario.story.steps.size() && index < 0; ++i) {
            if (!run.scenario.story.steps.at(i).note.isEmpty() && ++n == m_stepAt)
                index = i;
        }
        m_stepPanel->showStep(run.scenario, index, m_stepAt, total, snapshot);
    }
}

void SimulatorPlace::showRun(int index)
{
    if (index < 0 || index >= m_controller->runCount())
        return;
    const SimulationController::Run &r = m_controller->run(index);
    if (!r.timeline)
        return;
    const bool switching = index != m_shown;
    m_shown = index;
    if (m_variants->count() > index)
        m_variants->setCurrentIndex(index);
    m_timeline->setData(r.timeline.get(), m_controller->textLookup(index),
                        r.simulation ? r.simulation->plannedDurationUs() : 0);
    m_logModel->setRun(r.timeline.get(), m_controller->textLookup(index));
    if (switching)
        updateLogFilters();
    showStats(index);
    if (m_stepAt > 0)
        updateStepping();
}

void SimulatorPlace::showStats(int index)
{
    const SimulationController::Run &r = m_controller->run(index);
    if (!r.stats.valid || !r.timeline) {
        m_cards->clear();
        m_charts->clear();
        m_violationModel->setViolations({});
        m_tabs->setTabText(1, tr("Violations"));
        return;
    }
    m_cards->setStats(r.stats, r.timeline->expiries());
    const qint64 planned = r.simulation ? r.simulation->plannedDurationUs() : 0;
    m_charts->setStats(r.stats, r.timeline->layout().workers,
                       r.timeline->isFinished() ? r.timeline->nowUs()
                                                : std::max(planned, r.timeline->nowUs()));
    m_violationModel->setViolations(r.stats.safety.details);
    r.timeline->setViolations(r.stats.safety.details);
    const int count = r.stats.safety.violations();
    m_tabs->setTabText(1, count > 0 ? tr("Violations (%1)").arg(count) : tr("Violations"));
    m_tabs->tabBar()->setTabTextColor(
        1, count > 0 ? TimelinePalette::forPalette(palette()).stale : palette().color(QPalette::WindowText));
    m_timeline->view()->viewport()->update();
}

void SimulatorPlace::jumpToViolation(int index)
{
    m_timeline->view()->selectViolation(index);
    m_violationList->setCurrentIndex(m_violationModel->index(index));
}

void SimulatorPlace::updateLogFilters()
{
    const TimelineData *d = m_shown >= 0 ? m_controller->run(m_shown).timeline.get() : nullptr;
    for (QComboBox *c : {m_logWorker, m_logLock})
        c->blockSignals(true);
    m_logWorker->clear();
    m_logWorker->addItem(tr("All workers"), -1);
    m_logLock->clear();
    m_logLock->addItem(tr("All lock keys"), -1);
    if (d) {
        for (int w = 0; w < d->workerCount(); ++w)
            m_logWorker->addItem(d->layout().workers.at(w), w);
        for (int l = 0; l < d->lockCount(); ++l)
            m_logLock->addItem(d->layout().locks.at(l), l);
    }
    for (QComboBox *c : {m_logWorker, m_logLock})
        c->blockSignals(false);
    applyLogFilter();
}

void SimulatorPlace::applyLogFilter()
{
    m_logModel->setFilter(m_logWorker->currentData().toInt(), m_logLock->currentData().toInt(),
                          m_logKind->currentData().toInt());
}

void SimulatorPlace::updateActions()
{
    const bool running = m_controller->isRunning();
    m_runAction->setEnabled(!running && m_editor->isValid());
    m_stopAction->setEnabled(running);
    if (m_stepAt == 0) { // while stepping, updateStepping() knows what is recorded
        m_nextAction->setEnabled(false);
        m_backAction->setEnabled(false);
        m_forkAction->setEnabled(false);
    } else {
        updateStepping();
    }
    m_presetsButton->setEnabled(!running);
    const bool anyFinished = m_controller->runCount() > 0 && m_controller->run(0).finished;
    for (QAction *a : m_exportActions)
        a->setEnabled(m_shown >= 0 && !m_exporting);
    m_exportActions.first()->setEnabled(anyFinished && !running && !m_exporting);
    m_exportActions.at(1)->setEnabled(anyFinished && !running && !m_exporting);
    m_targetCombo->setEnabled(!running);
}

void SimulatorPlace::updateStatus()
{
    const double progress = m_controller->progress();
    if (progress < 0) {
        m_progress->setRange(0, 0); // busy: servers are starting
    } else {
        m_progress->setRange(0, 1000);
        m_progress->setValue(int(progress * 1000));
    }
    m_progress->setVisible(m_controller->isRunning());
    // Elided at its end when the row is narrow: a right-aligned label cut at its start read "ning · fair
    // (2/2)". The whole text stays in the tooltip and statusText().
    const QString state = m_controller->stateText();
    m_status->setToolTip(state);
    m_status->setText(m_status->fontMetrics().elidedText(state, Qt::ElideRight, std::max(20, m_status->width())));
    if (m_controller->isRunning())
        updateActions();
}

QString SimulatorPlace::statusText() const
{
    return m_status->toolTip();
}

void SimulatorPlace::updateReport()
{
    const SimulationRunner::Outcome outcome = m_controller->outcome();
    const Scenario &s = m_controller->scenario();
    QString html = QStringLiteral("<h3>%1</h3>").arg(s.title.toHtmlEscaped());
    if (!s.teaching.isEmpty())
        html += QStringLiteral("<p>%1</p>").arg(s.teaching.toHtmlEscaped());
    const TimelinePalette tp = TimelinePalette::forPalette(palette());
    // First, before any verdict: a run that failed (a server refusing it for good…) proves nothing.
    if (!outcome.error.isEmpty())
        html += tr("<p style='color:%1'><b>The run failed:</b> %2</p>")
                    .arg(tp.stale.name(), outcome.error.toHtmlEscaped());
    if (!outcome.checks.isEmpty()) {
        html += tr("<h4>Expectations</h4><ul>");
        // While variants are still to run, an expectation over them is not judged yet: a red ✘ then would be
        // a verdict on runs that have not happened.
        const bool judged = !m_controller->isRunning();
        for (const Expectation::Check &c : outcome.checks) {
            if (!judged)
                html += tr("<li style='color:%1'>◌ %2 <small>(judged when every variant has run)</small></li>")
                            .arg(tp.mutedText.name(), c.expectation.toHtmlEscaped());
            else
                html += QStringLiteral("<li style='color:%1'>%2 %3 <small>(actual %4)</small></li>")
                            .arg((c.passed ? tp.renewOk : tp.stale).name(),
                                 c.passed ? QStringLiteral("✔") : QStringLiteral("✘"),
                                 c.expectation.toHtmlEscaped())
                            .arg(c.actual);
        }
        html += QStringLiteral("</ul>");
    }
    html += QStringLiteral("<pre>%1</pre>").arg(outcome.summaryText().toHtmlEscaped());
    m_report->setHtml(html);
}

void SimulatorPlace::openScenario()
{
    const QString path
        = QFileDialog::getOpenFileName(this, tr("Open a scenario"), m_scenarioDir, tr("Scenarios (*.json)"));
    if (path.isEmpty())
        return;
    m_scenarioDir = QFileInfo(path).absolutePath();
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        QMessageBox::warning(this, tr("Cannot open the scenario"),
                             tr("Cannot read %1: %2").arg(path, file.errorString()));
        return;
    }
    Scenario scenario;
    QStringList errors;
    if (!ScenarioParser().parse(file.readAll(), &scenario, &errors)) {
        QMessageBox box(
            QMessageBox::Warning, tr("Not a valid scenario"),
            tr("%1 is not a valid scenario; nothing was changed.").arg(QFileInfo(path).fileName()),
            QMessageBox::Ok, this);
        box.setDetailedText(errors.join(u'\n'));
        box.setInformativeText(errors.mid(0, 5).join(u'\n'));
        box.exec();
        return;
    }
    loadScenario(scenario);
}

void SimulatorPlace::saveScenario()
{
    Scenario scenario;
    QStringList errors;
    const bool valid = m_editor->scenario(&scenario, &errors);
    const QString suggested
        = QDir(m_scenarioDir.isEmpty() ? QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation)
                                       : m_scenarioDir)
              .filePath((scenario.id.isEmpty() ? QStringLiteral("scenario") : scenario.id)
                        + QStringLiteral(".json"));
    const QString path
        = QFileDialog::getSaveFileName(this, tr("Save the scenario"), suggested, tr("Scenarios (*.json)"));
    if (path.isEmpty())
        return;
    m_scenarioDir = QFileInfo(path).absolutePath();
    QString reason;
    if (!OutputFile::writeWhole(path, QJsonDocument(m_editor->json()).toJson(QJsonDocument::Indented),
                                &reason)) {
        QMessageBox::warning(this, tr("Cannot save"), tr("Cannot write %1: %2").arg(path, reason));
        return;
    }
    m_editor->setModified(false);
    if (!valid)
        QMessageBox::information(this, tr("Saved with problems"),
                                 tr("Saved, but the scenario cannot run yet:\n%1").arg(errors.join(u'\n')));
}

void SimulatorPlace::exportWith(const QString &title, const QString &filter, const QString &suffix,
                                bool (SimulatorPlace::*write)(const QString &, QString *) const)
{
    const QString base
        = m_controller->scenario().id.isEmpty() ? QStringLiteral("lockscope") : m_controller->scenario().id;
    const QString dir = QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation);
    const QString path
        = QFileDialog::getSaveFileName(this, title, QDir(dir).filePath(base + u'.' + suffix), filter);
    if (path.isEmpty())
        return;
    QString error;
    if (!(this->*write)(path, &error))
        QMessageBox::warning(this, title, error);
    else
        m_status->setText(tr("Saved %1").arg(QFileInfo(path).fileName()));
}

bool SimulatorPlace::exportReport(const QString &path, QString *error) const
{
    return RunExporter::writeReportJson(path, m_controller->outcome(), error);
}

bool SimulatorPlace::exportEvents(const QString &path, QString *error) const
{
    QList<RunExporter::Events> runs;
    for (int i = 0; i < m_controller->runCount(); ++i)
        runs << RunExporter::Events {m_controller->run(i).variant, m_controller->run(i).simulation};
    return RunExporter::writeEventsCsv(path, runs, error) >= 0;
}

void SimulatorPlace::exportEventsInBackground()
{
    const QString base
        = m_controller->scenario().id.isEmpty() ? QStringLiteral("lockscope") : m_controller->scenario().id;
    const QString dir = QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation);
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export every event"), QDir(dir).filePath(base + QStringLiteral("-events.csv")),
        tr("CSV (*.csv)"));
    if (path.isEmpty())
        return;
    QList<RunExporter::Events> runs;
    for (int i = 0; i < m_controller->runCount(); ++i)
        runs << RunExporter::Events {m_controller->run(i).variant, m_controller->run(i).simulation};
    m_exporting = true;
    updateActions();
    m_status->setText(tr("Writing %1…").arg(QFileInfo(path).fileName()));
    m_progress->setRange(0, 0);
    m_progress->show();
    struct Result
    {
        qint64 rows = -1;
        QString error;
    };
    auto *watcher = new QFutureWatcher<Result>(this);
    connect(watcher, &QFutureWatcher<Result>::finished, this, [this, watcher, path] {
        BackgroundTask::resultsArrived();
        watcher->deleteLater();
        const Result r = watcher->result();
        m_exporting = false;
        m_progress->hide();
        updateActions();
        if (r.rows < 0)
            QMessageBox::warning(this, tr("Export every event"), r.error);
        else
            m_status->setText(
                tr("Saved %1 (%2)")
                    .arg(QFileInfo(path).fileName(), TextFormat::count(r.rows, tr("event"), tr("events"))));
    });
    watcher->setFuture(BackgroundTask::run([path, runs] {
        Result r;
        r.rows = RunExporter::writeEventsCsv(path, runs, &r.error);
        return r;
    }));
}

bool SimulatorPlace::exportTimeline(const QString &path, QString *error) const
{
    const TimelineView *view = m_timeline->view();
    if (!view->data()) {
        *error = tr("There is no run to export yet.");
        return false;
    }
    const QSize size = view->exportSize(std::max(1200, view->width()));
    return RunExporter::writePicture(
        path, size, m_controller->scenario().title, [view, size](QPainter &p) { view->paintExport(p, size); },
        error);
}

bool SimulatorPlace::exportCharts(const QString &path, QString *error) const
{
    const QSize size = m_charts->exportSize();
    return RunExporter::writePicture(
        path, size, m_controller->scenario().title,
        [this, size](QPainter &p) { m_charts->paintExport(p, size); }, error);
}

bool SimulatorPlace::exportLog(const QString &path, QString *error) const
{
    // The log is formatted in memory, then written whole: the file is unbuffered.
    QBuffer csv;
    csv.open(QIODevice::WriteOnly);
    QString reason;
    if (m_logModel->writeCsv(csv) < 0 || !OutputFile::writeWhole(path, csv.data(), &reason)) {
        *error = tr("Cannot write %1: %2")
                     .arg(path, reason.isEmpty() ? tr("the log could not be formatted") : reason);
        return false;
    }
    return true;
}

bool SimulatorPlace::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_status && event->type() == QEvent::Resize)
        updateStatus();
    return QWidget::eventFilter(watched, event);
}

void SimulatorPlace::hideEvent(QHideEvent *event)
{
    saveLayout();
    QWidget::hideEvent(event);
}

void SimulatorPlace::saveLayout() const
{
    AppSettings settings;
    // Only splits the user chose: a default one saved at one window size would be restored at another.
    if (m_hsplitMoved)
        settings.setValue(QStringLiteral("simulator/hsplit"), m_hsplit->saveState());
    else
        settings.remove(QStringLiteral("simulator/hsplit"));
    // The user's layout, not the room the Fork tab took for a while.
    if (m_vsplitMoved)
        settings.setValue(QStringLiteral("simulator/vsplit"),
                          m_vsplitBeforeFork.isEmpty() ? m_vsplit->saveState() : m_vsplitBeforeFork);
    else
        settings.remove(QStringLiteral("simulator/vsplit"));
    settings.setValue(QStringLiteral("simulator/tab"), m_tabs->currentIndex());
    settings.setValue(QStringLiteral("simulator/editor"), m_editorWanted);
    settings.setValue(QStringLiteral("simulator/scenarioDir"), m_scenarioDir);
}

void SimulatorPlace::restoreLayout()
{
    AppSettings settings;
    m_hsplitMoved = m_hsplit->restoreState(settings.value(QStringLiteral("simulator/hsplit")).toByteArray());
    m_vsplitMoved = m_vsplit->restoreState(settings.value(QStringLiteral("simulator/vsplit")).toByteArray());
    m_tabs->setCurrentIndex(settings.value(QStringLiteral("simulator/tab"), 0).toInt());
    m_editorWanted = settings.value(QStringLiteral("simulator/editor"), true).toBool();
    m_editorAction->setChecked(m_editorWanted);
    m_scenarioDir = settings.value(QStringLiteral("simulator/scenarioDir")).toString();
    // A sensible first screen: a preset ready to run.
    if (!loadPreset(settings.value(QStringLiteral("simulator/preset"), kDefaultPreset).toString()))
        loadPreset(kDefaultPreset);
}
