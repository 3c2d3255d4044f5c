// "Try to break it": the explorer's search on one lock — a catalog algorithm, a story's or a scenario's lock,
// a real library through its adapter, or the user's own Lua lock — on the sandbox, from the app. The user picks
// the faults (the names `lockscope-cli explore --faults` takes), the lease, the workers and a budget; the
// dialog shows the search as it goes (schedules tried, their rate, the worst seen so far) and its end: the
// broken property with the shrunk schedule, how many reruns reproduced it and the measured boundary, with the
// story to step through in the Simulator or to save — or "no violation in N schedules" with what was covered
// and the closest call, worded so that nobody takes it for a proof.
#pragma once

#include "explore/explorer.h"

#include <QDialog>
#include <QMap>

#include <optional>

class ExploreJob;
class QCheckBox;
class QLabel;
class QLineSeries;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QTimer;
class QValueAxis;

class BreakItDialog : public QDialog
{
    Q_OBJECT
public:
    explicit BreakItDialog(QWidget *parent = nullptr);
    ~BreakItDialog() override;

    // What to break ("Unconditional DEL", "redis-py", "my-lock"). Stops a search still running.
    void setTarget(const ExploreTarget::Options &target, const QString &title);
    QString title() const { return m_titleText; }

    // The settings (for tests and for the callers that preset them).
    void setFaults(const QStringList &names);
    QStringList faults() const;
    void setBudgetSeconds(int seconds);
    void setLeaseMs(int ms);

    void start();
    void stop();
    bool isRunning() const;

    // Once a search ended: what it says (the report's lines), and the story when it found a violation.
    QString resultText() const;
    std::optional<Scenario> story() const { return m_story; }
    bool found() const { return m_found; }

signals:
    // "Step through it": the shrunk failure, to open in the Simulator, stepped.
    void storyRequested(const Scenario &story);
    // "Fork it…": the same story opened stepped, then Fork from here on it (fencing on, a longer lease…).
    void forkRequested(const Scenario &story);

private:
    void buildLayout();
    void updateEnabled();
    void showProgress(const Explorer::Progress &progress);
    void showOutcome();
    void saveStory();

    ExploreTarget::Options m_target;
    QString m_titleText;
    ExploreJob *m_job = nullptr;
    QLabel *m_title = nullptr;
    QLabel *m_targetProblem = nullptr;
    QMap<QString, QCheckBox *> m_faultBoxes;
    QSpinBox *m_lease = nullptr;
    QSpinBox *m_workers = nullptr;
    QSpinBox *m_budget = nullptr;
    QLabel *m_bounds = nullptr;
    QPushButton *m_start = nullptr;
    QPushButton *m_stop = nullptr;
    QProgressBar *m_progressBar = nullptr;
    QLabel *m_progress = nullptr;
    QLineSeries *m_triedSeries = nullptr;
    QLineSeries *m_seenSeries = nullptr;
    QValueAxis *m_timeAxis = nullptr;
    QValueAxis *m_countAxis = nullptr;
    QLabel *m_headline = nullptr;
    QLabel *m_result = nullptr;
    QPushButton *m_stepThrough = nullptr;
    QPushButton *m_fork = nullptr;
    QPushButton *m_saveStory = nullptr;
    QPushButton *m_again = nullptr;
    std::optional<Scenario> m_story;
    bool m_found = false;
    bool m_targetOk = false;
};
