// The Simulator's toolbar row: the editor toggle, presets, open and save, run, stop, step by step and
// freeze, where runs go ("Run on"), the run's state (elided, whole in its tooltip) and Export; a thin
// progress strip under it. Laid out to fit a 1024 px window; the place owns the actions and what they do.
#pragma once

#include <QWidget>

class QAction;
class QComboBox;
class QLabel;
class QProgressBar;
class QToolButton;

class SimulatorToolbar : public QWidget
{
    Q_OBJECT
public:
    struct Actions
    {
        QAction *editor = nullptr;
        QAction *open = nullptr;
        QAction *save = nullptr;
        QAction *run = nullptr;
        QAction *stop = nullptr;
        QAction *step = nullptr;
        QAction *freeze = nullptr;
        QAction *tryToBreak = nullptr;
    };
    SimulatorToolbar(const Actions &actions, QWidget *parent = nullptr);

    QToolButton *presetsButton() const { return m_presets; }
    QToolButton *exportButton() const { return m_export; }
    QComboBox *targetCombo() const { return m_target; }
    QLabel *targetNote() const { return m_targetNote; }
    QProgressBar *progress() const { return m_progress; }
    // Whether runs can go to the connected server at `endpoint`, and why not (`whyNot`, empty when they can);
    // `connected`: a server is connected at all. Falls back to the sandbox when it cannot.
    void setConnectedTarget(const QString &endpoint, const QString &whyNot, bool connected);
    // The run's state: elided at its end when the row is narrow, whole in the tooltip and statusText().
    void setStatus(const QString &text);
    QString statusText() const { return m_statusText; }
    // A passing message ("Saved report.json"), shown until the next state.
    void showMessage(const QString &text);

signals:
    void presetChosen(const QString &id);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override; // the status re-elides when resized

private:
    void elide();

    QToolButton *m_presets = nullptr;
    QToolButton *m_export = nullptr;
    QComboBox *m_target = nullptr;
    QLabel *m_targetNote = nullptr;
    QLabel *m_status = nullptr;
    QProgressBar *m_progress = nullptr;
    QString m_statusText;
};
