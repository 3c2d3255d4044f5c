// Asks what to change when forking a recorded story at one of its steps: the lease, fencing on or off, the
// pause's length or the algorithm — one thing, with the recording's value beside it — and, on a server
// marked PRODUCTION, for the profile's name, since the fork writes lock keys there again.
#pragma once

#include "sim/storyfork.h"

#include <QDialog>

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QPushButton;
class QStackedWidget;
class TypedNameGuard;

class ForkDialog : public QDialog
{
    Q_OBJECT
public:
    // `stepIndex`: the scenario index of the step forked at; `stepNumber`: its number as the story shows
    // it. `where`: the server the fork runs on, in words. `productionName`: non-empty on a PRODUCTION profile.
    ForkDialog(const Scenario &recorded, int stepIndex, int stepNumber, const QString &where,
               const QString &productionName, QWidget *parent = nullptr);

    StoryFork::Choice choice() const;
    // Selects a change (and, for tests, its value) without the mouse.
    void setChoice(const StoryFork::Choice &choice);

private:
    void updateState();

    Scenario m_recorded;
    int m_stepIndex = 0;
    QList<StoryFork::Change> m_changes;
    QComboBox *m_change = nullptr;
    QStackedWidget *m_editors = nullptr;
    QDoubleSpinBox *m_lease = nullptr;
    QComboBox *m_fencing = nullptr;
    QDoubleSpinBox *m_pause = nullptr;
    QComboBox *m_algorithm = nullptr;
    QLabel *m_problem = nullptr;
    TypedNameGuard *m_guard = nullptr;
    QPushButton *m_go = nullptr;
};
