// SimulatorPlace: wires the editor, the controller and the views together; actions, stepping, saved layout.
#include "simulatorplace.h"

#include "common/appsettings.h"

#include "chartspanel.h"
#include "comparisontable.h"
#include "eventlogmodel.h"
#include "eventlogpage.h"
#include "forkdialog.h"
#include "forkpanel.h"
#include "productionrundialog.h"
#include "redis/redissession.h"
#include "reportpage.h"
#include "scenarioeditor.h"
#include "scenariofiles.h"
#include "sim/presetlibrary.h"
#include "sim/scenarioparser.h"
#include "simulationcontroller.h"
#include "simulatorexports.h"
#include "simulatortoolbar.h"
#include "stallmonitor.h"
#include "storysteppanel.h"
#include "summarycards.h"
#include "timeline/timelinepanel.h"
#include "timeline/timelineview.h"
#include "violationmodel.h"

#include <QAction>
#include <QComboBox>
#include <QDialog>
#include <QEvent>
#include <QHBoxLayout>
#include <QListView>
#include <QMenu>
#include <QProgressBar>
#include <QScrollArea>
#include <QSplitter>
#include <QStyle>
#include <QTabBar>
#include <QTabWidget>
#include <QToolButton>
#include <QVBoxLayout>

namespace {
const QString kDefaultPreset = QStringLiteral("gc-pause");

// The scenario's index of its `number`-th narrated step (a step with a note), or -1.
int narratedStep(const Scenario &scenario, int number)
{
    for (int i = 0, n = 0; i < scenario.story.steps.size(); ++i) {
        if (!scenario.story.steps.at(i).note.isEmpty() && ++n == number)
            return i;
    }
    return -1;
}
constexpr int kCompactBelowHeight = 760; // the place's height under which the cards go compact

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
        // While stepping, the reader's place is theirs: the next variant starting does not take them away.
        if (m_shown < 0 || (m_followActive && m_stepAt == 0))
            showRun(index);
    });
    connect(m_controller, &SimulationController::runUpdated, this, [this](int index) {
        if (index != m_shown || m_freezeAction->isChecked())
            return;
        m_timeline->refresh();
        if (m_stepAt > 0)
            updateStepping(); // the recording reached further: Next may be possible now
        m_logPage->refresh();
    });
    connect(m_controller, &SimulationController::statsUpdated, this, [this](int index) {
        if (index == m_shown && !m_freezeAction->isChecked())
            showStats(index);
    });
    connect(m_controller, &SimulationController::runFinished, this, [this](int index) {
        updateVariantTabs();
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
        updateChecksCard();
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
    // Ctrl+L ("load"): Ctrl+Shift+O is the window's Connection Profiles…, and two actions on one key inside
    // the Simulator made the key do nothing there.
    m_openAction = action(style()->standardIcon(QStyle::SP_DialogOpenButton), tr("Open Scenario…"),
                          QKeySequence(Qt::CTRL | Qt::Key_L), tr("Open a scenario JSON file"));
    connect(m_openAction, &QAction::triggered, this, &SimulatorPlace::openScenario);
    m_breakAction = action(QIcon(), tr("Try to Break It…"), QKeySequence(Qt::CTRL | Qt::Key_B),
                           tr("Search fault schedules against the edited scenario's lock on the sandbox until it "
                              "breaks, then shrink the failure to a story"));
    m_breakAction->setIconText(tr("Break it…"));
    connect(m_breakAction, &QAction::triggered, this, [this] {
        Scenario scenario;
        QStringList errors;
        if (m_editor->scenario(&scenario, &errors))
            emit breakRequested(scenario);
        else
            m_toolbar->showMessage(tr("The scenario has problems: %1").arg(errors.join(QStringLiteral("; "))));
    });
    m_saveAction = action(style()->standardIcon(QStyle::SP_DialogSaveButton), tr("Save Scenario…"),
                          QKeySequence::Save, tr("Save the scenario as JSON"));
    connect(m_saveAction, &QAction::triggered, this, &SimulatorPlace::saveScenario);
}

void SimulatorPlace::buildLayout()
{
    auto *layout = new QVBoxLayout(this);
    // No title strip here: the timeline needs the height, and the places bar already says where we are.
    layout->setContentsMargins(6, 4, 6, 6);
    layout->setSpacing(4);

    const SimulatorToolbar::Actions toolbarActions {m_editorAction, m_openAction, m_saveAction,  m_runAction,
                                                    m_stopAction,   m_stepAction, m_freezeAction, m_breakAction};
    m_toolbar = new SimulatorToolbar(toolbarActions, this);
    connect(m_toolbar, &SimulatorToolbar::presetChosen, this, &SimulatorPlace::loadPreset);
    m_targetCombo = m_toolbar->targetCombo();
    m_progress = m_toolbar->progress();
    layout->addWidget(m_toolbar);

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
    m_variants->setObjectName(QStringLiteral("variantTabs"));
    m_variants->setDocumentMode(true);
    m_variants->setToolTip(tr("Each variant of a comparison runs in turn; pick one to look at it"));
    connect(m_variants, &QTabBar::tabBarClicked, this, [this](int index) {
        if (index < 0 || index >= m_controller->runCount() || !m_controller->run(index).timeline)
            return;
        m_followActive = index == m_controller->activeRun();
        showRun(index);
    });
    rightLayout->addWidget(m_variants);
    m_vsplit = new QSplitter(Qt::Vertical, right);
    m_vsplit->setObjectName(QStringLiteral("simulatorVSplit"));
    // Neither side disappears when the other is enlarged: dragged up to give the timeline the room, the
    // cards and the tabs (the Step tab the reader follows) used to vanish.
    m_vsplit->setChildrenCollapsible(false);
    connect(m_vsplit, &QSplitter::splitterMoved, this, [this] { m_vsplitMoved = true; });
    m_vsplit->addWidget(m_timeline);

    // The cards sit with the tabs, under the splitter's handle: on a 700 px screen they take two rows, and
    // above the handle they left the timeline's lanes about 60 px whatever the split.
    auto *bottom = new QWidget(m_vsplit);
    auto *bottomLayout = new QVBoxLayout(bottom);
    bottomLayout->setContentsMargins(0, 0, 0, 0);
    bottomLayout->setSpacing(4);
    bottomLayout->addWidget(m_cards);
    m_tabs = new QTabWidget(bottom);
    m_tabs->setObjectName(QStringLiteral("simulatorTabs"));
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

    m_logPage = new EventLogPage(m_logModel, m_tabs);
    m_exports = new SimulatorExports({m_controller, m_timeline, m_charts, m_logPage}, this);
    m_toolbar->exportButton()->setMenu(m_exports->menu());
    connect(m_logPage, &EventLogPage::exportRequested, m_exports, &SimulatorExports::exportLogWithDialog);
    connect(m_exports, &SimulatorExports::saved, m_toolbar, &SimulatorToolbar::showMessage);
    connect(m_exports, &SimulatorExports::busyChanged, this, [this](bool busy) {
        m_progress->setRange(0, 0);
        m_progress->setVisible(busy);
        updateActions();
    });
    connect(m_logPage, &EventLogPage::timeClicked, this, [this](qint64 t) {
        TimelineView *view = m_timeline->view();
        if (view->data() && view->data()->isFinished())
            view->setCursorTime(t);
        view->revealTime(t);
    });
    m_tabs->addTab(m_logPage, tr("Event log"));

    m_report = new ReportPage(m_tabs);
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

void SimulatorPlace::fillMenu(QMenu *menu)
{
    // The same actions (and shortcuts) as the toolbar: the menu is where they are found.
    menu->addAction(m_editorAction);
    menu->addMenu(m_toolbar->presetsButton()->menu());
    menu->addAction(m_openAction);
    menu->addAction(m_saveAction);
    menu->addSeparator();
    menu->addAction(m_runAction);
    menu->addAction(m_stopAction);
    menu->addAction(m_freezeAction);
    menu->addSeparator();
    menu->addAction(m_stepAction);
    menu->addAction(m_backAction);
    menu->addAction(m_nextAction);
    menu->addAction(m_forkAction);
    menu->addAction(m_breakAction);
    menu->addSeparator();
    menu->addMenu(m_exports->menu());
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
    m_asOfShown = TimelineData::kOpen;
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
    const bool open = m_session && m_session->isOpen();
    QString why;
    if (!open) {
        why = tr("no server is connected");
    } else if (m_session->settings().readOnly || m_session->info().readOnly) {
        why = tr("the connection to %1 is read-only, and the simulator writes lock keys and a counter. "
                 "Reconnect with writes allowed to run there.")
                  .arg(m_session->settings().endpoint());
    }
    m_toolbar->setConnectedTarget(m_session ? m_session->settings().endpoint() : QString(), why, open);
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
            auto *dialog = new ProductionRunDialog(scenario.workload.keyPrefix,
                                                   m_session->settings().endpoint(), m_productionName, this);
            dialog->setAttribute(Qt::WA_DeleteOnClose);
            connect(dialog, &ProductionRunDialog::confirmed, this, [this] {
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
    refreshAsOf();
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
    const int index = narratedStep(run.scenario, m_stepAt);
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
        m_stepPanel->showStep(run.scenario, narratedStep(run.scenario, m_stepAt), m_stepAt, total, snapshot);
    }
    refreshAsOf();
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
        m_logPage->setRunLayout(r.timeline.get());
    showStats(index);
    if (m_stepAt > 0)
        updateStepping();
}

qint64 SimulatorPlace::shownUntil() const
{
    if (m_stepAt <= 0 || m_shown < 0 || m_shown >= m_controller->runCount())
        return TimelineData::kOpen;
    const TimelineData *d = m_controller->run(m_shown).timeline.get();
    const qint64 cursor = m_timeline->view()->cursorTime();
    // The last step shows everything recorded so far (a finished run: its final numbers, as the report).
    return !d || cursor >= d->nowUs() ? TimelineData::kOpen : cursor;
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
    // Stepping: every number as it stood at the step on screen, not the run's ending.
    const qint64 until = index == m_shown ? shownUntil() : TimelineData::kOpen;
    const LiveStats &stats = until == TimelineData::kOpen ? r.stats : m_controller->statsUntil(index, until);
    const bool whole = until == TimelineData::kOpen;
    m_cards->setStats(stats, whole ? r.timeline->expiries() : r.timeline->expiriesUntil(until));
    const qint64 planned = r.simulation ? r.simulation->plannedDurationUs() : 0;
    m_charts->setStats(stats, r.timeline->layout().workers,
                       until != TimelineData::kOpen   ? until
                           : r.timeline->isFinished() ? r.timeline->nowUs()
                                                      : std::max(planned, r.timeline->nowUs()));
    m_violationModel->setViolations(stats.safety.details);
    r.timeline->setViolations(stats.safety.details);
    const int count = stats.safety.violations();
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
    m_toolbar->presetsButton()->setEnabled(!running);
    const bool anyFinished = m_controller->runCount() > 0 && m_controller->run(0).finished;
    m_exports->setAvailable(m_shown >= 0, anyFinished && !running);
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
    m_toolbar->setStatus(m_controller->stateText());
    if (m_controller->isRunning())
        updateActions();
}

QString SimulatorPlace::statusText() const
{
    return m_toolbar->statusText();
}

void SimulatorPlace::updateReport()
{
    m_report->showOutcome(m_controller->outcome(), m_controller->scenario(), !m_controller->isRunning(),
                          shownUntil() != TimelineData::kOpen);
}

void SimulatorPlace::updateVariantTabs()
{
    // Stepping: the other runs' endings would give this one's away.
    const bool stepping = shownUntil() != TimelineData::kOpen;
    for (int i = 0; i < m_variants->count() && i < m_controller->runCount(); ++i) {
        const SimulationController::Run &r = m_controller->run(i);
        ComparisonTable::labelTab(m_variants, i, r.variant, r.finished && !stepping ? &r.report : nullptr);
    }
}

void SimulatorPlace::updateChecksCard()
{
    if (m_controller->isRunning() || m_controller->runCount() == 0 || !m_controller->run(0).finished)
        return;
    if (shownUntil() != TimelineData::kOpen)
        m_cards->setChecksPending(tr("shown at the last step"));
    else
        m_cards->setChecks(m_controller->outcome().checks, !m_controller->wasStopped());
}

void SimulatorPlace::refreshAsOf()
{
    const qint64 until = shownUntil();
    if (until == m_asOfShown)
        return;
    m_asOfShown = until;
    if (m_shown >= 0)
        showStats(m_shown);
    updateReport();
    updateVariantTabs();
    updateChecksCard();
}

void SimulatorPlace::openScenario()
{
    Scenario scenario;
    if (ScenarioFiles::open(this, &m_scenarioDir, &scenario))
        loadScenario(scenario);
}

void SimulatorPlace::saveScenario()
{
    ScenarioFiles::save(this, &m_scenarioDir, m_editor);
}

bool SimulatorPlace::exportReport(const QString &path, QString *error) const
{
    return m_exports->writeReport(path, error);
}

bool SimulatorPlace::exportEvents(const QString &path, QString *error) const
{
    return m_exports->writeEvents(path, error);
}

bool SimulatorPlace::exportTimeline(const QString &path, QString *error) const
{
    return m_exports->writeTimeline(path, error);
}

bool SimulatorPlace::exportCharts(const QString &path, QString *error) const
{
    return m_exports->writeCharts(path, error);
}

bool SimulatorPlace::exportLog(const QString &path, QString *error) const
{
    return m_exports->writeLog(path, error);
}

void SimulatorPlace::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    // A short window (a projector's 700 px): the cards go to one row of captions and values, so that the
    // timeline's lanes and the tabs keep the room.
    m_cards->setCompact(height() < kCompactBelowHeight);
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
