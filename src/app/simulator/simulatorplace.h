// The Simulator place: the scenario editor, Run / Stop / step mode, the live swimlane timeline, summary
// cards, charts, violations, the event log and the exports. Runs on private sandbox servers by default, or on
// the connected server when it allows writes.
#pragma once

#include "sim/scenario.h"
#include "sim/simulation.h"
#include "timeline/timelinedata.h"

#include <QWidget>

class ChartsPanel;
class EventLogModel;
class EventLogPage;
class ForkDialog;
class ForkPanel;
class QAction;
class QComboBox;
class QProgressBar;
class QSplitter;
class QTabBar;
class QTabWidget;
class QListView;
class QMenu;
class RedisSession;
class ReportPage;
class ScenarioEditor;
class SimulatorExports;
class SimulatorToolbar;
class SimulationController;
class StallMonitor;
class StoryStepPanel;
class SummaryCards;
class TimelinePanel;
class ViolationModel;

class SimulatorPlace : public QWidget
{
    Q_OBJECT
public:
    explicit SimulatorPlace(RedisSession *session, QWidget *parent = nullptr);
    ~SimulatorPlace() override;

    // Loads a preset into the editor (false: no such preset).
    bool loadPreset(const QString &id);
    void loadScenario(const Scenario &scenario);
    // Starts the scenario in the editor; false (and says why) when it cannot.
    bool run();
    void stop();
    // Step mode: stories are walked step by step through their recording (Back and Next), not paused.
    void setStepMode(bool on);
    void nextStep();
    void previousStep();
    void leaveStepping();
    // While stepping a finished story: asks what to change and runs the fork beside the recording (the
    // Fork tab). Returns the dialog (open, not modal), or nullptr when there is nothing to fork.
    ForkDialog *forkFromHere();
    // The narrated step being shown while stepping (1-based); 0 when not stepping.
    int steppingAt() const { return m_stepAt; }

    // Where runs go: the private sandboxes, or the connected server.
    enum class Target { Sandbox, ConnectedServer };
    void setTarget(Target target);
    // The connected server's profile is marked PRODUCTION (its name; empty: it is not): a run on it asks for
    // the name to be typed first.
    void setProductionName(const QString &name) { m_productionName = name; }
    Target target() const;

    // Exports (also reachable from the Export menu).
    bool exportReport(const QString &path, QString *error) const;
    bool exportEvents(const QString &path,
                      QString *error) const; // blocking; the menu runs it in the background
    bool exportTimeline(const QString &path, QString *error) const;
    bool exportCharts(const QString &path, QString *error) const;
    bool exportLog(const QString &path, QString *error) const;

    // For tests and the benchmark.
    SimulationController *controller() const { return m_controller; }
    ScenarioEditor *editor() const { return m_editor; }
    // The window's Simulator menu: every action of the place, with its shortcut.
    void fillMenu(QMenu *menu);
    // Shows or hides the scenario editor beside the timeline, as Ctrl+E does.
    void showEditor(bool shown);
    TimelinePanel *timelinePanel() const { return m_timeline; }
    StoryStepPanel *stepPanel() const { return m_stepPanel; }
    ForkPanel *forkPanel() const { return m_forkPanel; }
    ChartsPanel *charts() const { return m_charts; }
    SummaryCards *cards() const { return m_cards; }
    EventLogModel *eventLog() const { return m_logModel; }
    ViolationModel *violations() const { return m_violationModel; }
    StallMonitor *stallMonitor() const { return m_stalls; }
    int shownRun() const { return m_shown; }
    void showRun(int index);
    QString statusText() const;

signals:
    void runningChanged(bool running);
    // "Try to break it": the explorer's search against the edited scenario's lock.
    void breakRequested(const Scenario &scenario);

protected:
    void hideEvent(QHideEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;

private:
    void buildActions();
    void buildLayout();
    void updateActions();
    void updateTarget();
    void updateStatus();
    void showStats(int index);
    void updateReport();
    // Each variant's tab: its name and, once it ran, what happened to its data (in that colour).
    void updateVariantTabs();
    void updateChecksCard();
    // Stepping: the time the step on screen ends at, up to which every number is shown; kOpen when the
    // whole run (so far) is shown.
    qint64 shownUntil() const;
    // The cards, charts, lists, report and tabs follow shownUntil() when it moved.
    void refreshAsOf();
    // Empties every view of a run (timeline, log, charts, cards, report, step panel): not run yet.
    void clearViews();
    void goToStep(int number);
    // The Fork tab stacks two timelines: while it is shown with a fork in it, it takes most of the height
    // (the splitter's sizes before are given back when another tab is chosen).
    void fitTabsToFork();
    void updateStepping();
    void jumpToViolation(int index);
    void openScenario();
    void saveScenario();
    void saveLayout() const;
    void restoreLayout();

    RedisSession *m_session = nullptr;
    SimulationController *m_controller = nullptr;
    ScenarioEditor *m_editor = nullptr;
    TimelinePanel *m_timeline = nullptr;
    SummaryCards *m_cards = nullptr;
    ChartsPanel *m_charts = nullptr;
    QTabWidget *m_tabs = nullptr;
    QTabBar *m_variants = nullptr;
    ViolationModel *m_violationModel = nullptr;
    QListView *m_violationList = nullptr;
    EventLogModel *m_logModel = nullptr;
    EventLogPage *m_logPage = nullptr;
    ReportPage *m_report = nullptr;
    StoryStepPanel *m_stepPanel = nullptr;
    ForkPanel *m_forkPanel = nullptr;
    QByteArray m_vsplitBeforeFork; // the vertical splitter's state before the Fork tab took the room
    Simulation::Options m_lastOptions; // the last run's server: a fork runs where its recording ran
    QSplitter *m_hsplit = nullptr;
    QSplitter *m_vsplit = nullptr;
    // The user moved the splitter (now or in an earlier session): its sizes are theirs and remembered.
    // Until then each window size gets the default split, and nothing is saved.
    bool m_hsplitMoved = false;
    bool m_vsplitMoved = false;
    QComboBox *m_targetCombo = nullptr;
    QProgressBar *m_progress = nullptr;
    SimulatorToolbar *m_toolbar = nullptr;
    StallMonitor *m_stalls = nullptr;
    QAction *m_runAction = nullptr;
    QAction *m_stopAction = nullptr;
    QAction *m_stepAction = nullptr;
    QAction *m_nextAction = nullptr;
    QAction *m_backAction = nullptr;
    QAction *m_forkAction = nullptr;
    QAction *m_freezeAction = nullptr;
    QAction *m_editorAction = nullptr;
    QAction *m_openAction = nullptr;
    QAction *m_saveAction = nullptr;
    QAction *m_breakAction = nullptr;
    SimulatorExports *m_exports = nullptr;
    int m_shown = -1;
    int m_stepAt = 0; // stepping: the narrated step shown (0: not stepping)
    qint64 m_asOfShown = TimelineData::kOpen; // what refreshAsOf() last showed
    QString m_stepShown; // what the step panel shows now (step, snapshot read), to rebuild it only on change
    bool m_followActive = true; // show each run as it starts (until the user picks another variant)
    bool m_editorWanted = true;
    QString m_scenarioDir;
    QString m_productionName;
    bool m_productionConfirmed = false; // the name was typed for the run being started
};
