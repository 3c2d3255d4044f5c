// The Simulator's Fork tab: a recorded story and its fork (the same story run again with one change) one
// above the other on one time axis — zoom or scroll either and both follow — with what each run did to the
// lock and the data, and whether the steps before the fork point played out the same.
#pragma once

#include "simulationcontroller.h"
#include "timeline/timelinerenderer.h"

#include "sim/storyfork.h"

#include <QJsonObject>
#include <QWidget>

class QLabel;
class QPushButton;
class TimelineView;

class ForkPanel : public QWidget
{
    Q_OBJECT
public:
    explicit ForkPanel(QWidget *parent = nullptr);
    ~ForkPanel() override;

    // Runs the fork of `recorded` (a finished run) at step `stepIndex` (`stepNumber` as the story numbers
    // it) with `choice`, with the recorded run's `options` (the same server). False with `error` when it
    // cannot start.
    bool start(const SimulationController::Run &recorded, TimelineRenderer::TextLookup recordedText,
               int stepIndex, int stepNumber, const StoryFork::Choice &choice,
               const Simulation::Options &options, QString *error);
    void stop();
    // Forgets both runs (a new run of the Simulator started).
    void clear();
    bool isRunning() const { return m_controller->isRunning(); }
    bool hasFork() const { return m_recorded.timeline != nullptr; }

    // For tests and the status line.
    const SimulationController &controller() const { return *m_controller; }
    const StoryFork::Divergence &divergence() const { return m_divergence; }
    QString headerText() const;
    // The recording and the fork side by side as JSON: the change, where the fork ran, whether the steps
    // before it played out the same, both runs' comparison rows and reports. False with `error`.
    bool exportComparison(const QString &path, QString *error) const;
    QJsonObject comparisonJson() const;
    TimelineView *recordedView() const { return m_recordedView; }
    TimelineView *forkView() const { return m_forkView; }

signals:
    void finished();

private:
    void showFork(int index);
    void judge();
    QString figures(const RunReport &report) const;
    void exportWithDialog();

    SimulationController *m_controller = nullptr;
    SimulationController::Run m_recorded; // shared with the Simulator's controller, kept alive here
    Scenario m_recordedScenario;
    QString m_change;
    int m_stepIndex = -1;
    int m_stepNumber = 0;
    StoryFork::Divergence m_divergence;
    QString m_where; // "fresh private sandbox servers", or the server the recording ran on
    QLabel *m_header = nullptr;
    QPushButton *m_export = nullptr;
    QLabel *m_recordedLabel = nullptr;
    QLabel *m_forkLabel = nullptr;
    TimelineView *m_recordedView = nullptr;
    TimelineView *m_forkView = nullptr;
    bool m_syncing = false;
};
