// The Simulator's "Step" tab while stepping through a recorded story: the step's sentence, what the story's
// keys held in Redis at that moment (read during the run, never made up: unread keys say why), and the Lua
// the step ran (or the plain commands, or that it sent none).
#pragma once

#include "sim/scenario.h"
#include "sim/storysnapshot.h"

#include <QWidget>

class QLabel;
class QTabWidget;
class QTableWidget;

class StoryStepPanel : public QWidget
{
    Q_OBJECT
public:
    explicit StoryStepPanel(QWidget *parent = nullptr);

    // Nothing to show (no story, or not stepping): a line saying how to get here.
    void clear();
    // Step `number` of `total` (the scenario's step `stepIndex`); `snapshot` is the keys as read when the
    // next narrated step came due (or at the end), nullptr while the recording has not got there yet.
    void showStep(const Scenario &scenario, int stepIndex, int number, int total, const StorySnapshot *snapshot);

    // What the keys table shows, for tests: one line per key ("server key type ttl value").
    QStringList keyLines() const;
    QStringList scriptNames() const;
    QString headline() const;
    QString scriptsCaption() const; // what the step sends, or why it sends nothing

private:
    void showScripts(const Scenario &scenario, const Scenario::Step &step);

    QLabel *m_headline = nullptr;
    QLabel *m_keysCaption = nullptr;
    QTableWidget *m_keys = nullptr;
    QLabel *m_scriptsCaption = nullptr;
    QTabWidget *m_scripts = nullptr;
    QStringList m_scriptNames;
};
