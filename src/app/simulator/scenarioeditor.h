// The scenario editor (form in ui/scenarioeditor.ui): algorithm with its explanation, lease, watchdog, retry,
// workload, critical section, servers, faults, a story's steps and the expectations. It edits the scenario's
// JSON, so what it produces is checked by the same parser as a file (every error names its field), and the
// fields it does not show (teaching texts, variants, story steps) pass through untouched.
#pragma once

#include "sim/scenario.h"

#include <QHash>
#include <QJsonObject>
#include <QWidget>

#include <memory>

class QCheckBox;

namespace Ui {
class ScenarioEditor;
}

class ScenarioEditor : public QWidget
{
    Q_OBJECT
public:
    explicit ScenarioEditor(QWidget *parent = nullptr);
    ~ScenarioEditor() override;

    void setScenario(const Scenario &scenario);
    // The scenario as edited, in the file format.
    QJsonObject json() const;
    // Parses json(): false with one sentence per problem.
    bool scenario(Scenario *out, QStringList *errors) const;
    bool isValid() const { return m_valid; }
    bool isModified() const { return m_modified; }
    void setModified(bool modified) { m_modified = modified; }
    // While a run goes on the form cannot change it.
    void setLocked(bool locked);

signals:
    void changed();
    void validityChanged(bool valid);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    // Spin boxes and combo boxes take the wheel only once focused: scrolling the form must not change them.
    void guardWheel(QWidget *field);
    // A check box's text cannot wrap: beside a form label a long one was cut at the editor's edge. It moves
    // to a wrapping label beside the box, and a click on the label toggles the box as its own text did.
    void wrapText(QCheckBox *box);
    void fill();
    void fillFaults(const QJsonArray &faults);
    void addFaultRow(const QJsonObject &fault);
    QJsonArray faultsJson() const;
    void updateAlgorithmInfo();
    void updateEnabled();
    // The processes' and threads' maxima and wording for the chosen engine.
    void updateWorkerLimits();
    void onEdited();
    void validate();

    std::unique_ptr<Ui::ScenarioEditor> m_ui;
    QHash<QObject *, QCheckBox *> m_boxOfLabel; // wrapText's labels
    QJsonObject m_base;
    bool m_loading = false;
    bool m_valid = true;
    bool m_modified = false;
};
