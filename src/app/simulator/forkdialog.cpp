// ForkDialog: one editor per change in a stack; the OK button stays disabled while StoryFork::apply would
// refuse the choice (the reason is shown) or a production name is still to be typed.
#include "forkdialog.h"

#include "common/typednameguard.h"

#include "locks/lockcatalog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLabel>
#include <QPushButton>
#include <QStackedWidget>
#include <QVBoxLayout>

ForkDialog::ForkDialog(const Scenario &recorded, int stepIndex, int stepNumber, const QString &where,
                       const QString &productionName, QWidget *parent)
    : QDialog(parent)
    , m_recorded(recorded)
    , m_stepIndex(stepIndex)
    , m_changes(StoryFork::changesAt(recorded, stepIndex))
{
    setObjectName(QStringLiteral("forkDialog"));
    setWindowTitle(tr("Fork from Step %1").arg(stepNumber));
    auto *layout = new QVBoxLayout(this);
    const QString note = recorded.story.steps.value(stepIndex).note;
    auto *intro = new QLabel(
        tr("<p><b>Step %1:</b> %2</p><p>Change one thing and run the story again on %3. The two runs are "
           "shown one above the other on one time axis.</p><p><small>A lock already held cannot take "
           "another lease or algorithm halfway, so the fork runs the story from its start with the change; "
           "LockScope then checks that the steps before step %1 played out the same in both runs, and "
           "says so.</small></p>")
            .arg(stepNumber)
            .arg(note.toHtmlEscaped(), where.toHtmlEscaped()),
        this);
    intro->setWordWrap(true);
    layout->addWidget(intro);

    auto *form = new QFormLayout;
    m_change = new QComboBox(this);
    m_change->setObjectName(QStringLiteral("forkChange"));
    m_editors = new QStackedWidget(this);
    for (StoryFork::Change c : std::as_const(m_changes)) {
        const QString was = StoryFork::currentValue(recorded, stepIndex, c);
        switch (c) {
        case StoryFork::Change::Lease:
            m_change->addItem(tr("Lease (now %1)").arg(was));
            m_lease = new QDoubleSpinBox(this);
            m_lease->setObjectName(QStringLiteral("forkLease"));
            m_lease->setRange(0.1, 600);
            m_lease->setDecimals(1);
            m_lease->setSuffix(tr(" s"));
            m_lease->setValue(std::min(600.0, 2.0 * recorded.algorithm.leaseMs / 1000.0));
            m_editors->addWidget(m_lease);
            break;
        case StoryFork::Change::Fencing:
            m_change->addItem(tr("Fencing (now %1)").arg(was));
            m_fencing = new QComboBox(this);
            m_fencing->setObjectName(QStringLiteral("forkFencing"));
            m_fencing->addItem(tr("On: the store refuses writes with an older token"), true);
            m_fencing->addItem(tr("Off"), false);
            m_fencing->setCurrentIndex(recorded.resource.fencedStore ? 1 : 0);
            m_editors->addWidget(m_fencing);
            break;
        case StoryFork::Change::PauseLength:
            m_change->addItem(tr("Pause length (now %1)").arg(was));
            m_pause = new QDoubleSpinBox(this);
            m_pause->setObjectName(QStringLiteral("forkPause"));
            m_pause->setRange(0, 600);
            m_pause->setDecimals(1);
            m_pause->setSuffix(tr(" s"));
            for (int i = stepIndex; i < recorded.story.steps.size(); ++i) {
                if (recorded.story.steps.at(i).action == Scenario::Step::Action::Pause) {
                    m_pause->setValue(recorded.story.steps.at(i).ms / 2000.0);
                    break;
                }
            }
            m_editors->addWidget(m_pause);
            break;
        case StoryFork::Change::Algorithm:
            m_change->addItem(tr("Algorithm (now %1)").arg(was));
            m_algorithm = new QComboBox(this);
            m_algorithm->setObjectName(QStringLiteral("forkAlgorithm"));
            for (const LockAlgorithmInfo &a : LockCatalog::all()) {
                if (a.id != recorded.algorithm.id)
                    m_algorithm->addItem(QStringLiteral("%1 — %2").arg(a.id, a.title), a.id);
            }
            m_editors->addWidget(m_algorithm);
            break;
        }
    }
    form->addRow(tr("Change:"), m_change);
    form->addRow(tr("To:"), m_editors);
    layout->addLayout(form);
    m_problem = new QLabel(this);
    m_problem->setObjectName(QStringLiteral("forkProblem"));
    m_problem->setWordWrap(true);
    layout->addWidget(m_problem);
    if (!productionName.isEmpty()) {
        m_guard = new TypedNameGuard(productionName, tr("run the fork on it"), this);
        layout->addWidget(m_guard);
        connect(m_guard, &TypedNameGuard::satisfiedChanged, this, &ForkDialog::updateState);
    }
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Cancel, this);
    m_go = buttons->addButton(tr("Run the Fork"), QDialogButtonBox::AcceptRole);
    m_go->setObjectName(QStringLiteral("forkRun"));
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);

    connect(m_change, &QComboBox::currentIndexChanged, m_editors, &QStackedWidget::setCurrentIndex);
    connect(m_change, &QComboBox::currentIndexChanged, this, &ForkDialog::updateState);
    for (QDoubleSpinBox *s : {m_lease, m_pause}) {
        if (s)
            connect(s, &QDoubleSpinBox::valueChanged, this, &ForkDialog::updateState);
    }
    for (QComboBox *c : {m_fencing, m_algorithm}) {
        if (c)
            connect(c, &QComboBox::currentIndexChanged, this, &ForkDialog::updateState);
    }
    updateState();
}

StoryFork::Choice ForkDialog::choice() const
{
    StoryFork::Choice c;
    c.change = m_changes.value(m_change->currentIndex());
    switch (c.change) {
    case StoryFork::Change::Lease:
        c.ms = qRound64(m_lease->value() * 1000);
        break;
    case StoryFork::Change::Fencing:
        c.fencing = m_fencing->currentData().toBool();
        break;
    case StoryFork::Change::PauseLength:
        c.ms = qRound64(m_pause->value() * 1000);
        break;
    case StoryFork::Change::Algorithm:
        c.algorithmId = m_algorithm->currentData().toString();
        break;
    }
    return c;
}

void ForkDialog::setChoice(const StoryFork::Choice &choice)
{
    const int index = int(m_changes.indexOf(choice.change));
    if (index < 0)
        return;
    m_change->setCurrentIndex(index);
    switch (choice.change) {
    case StoryFork::Change::Lease:
        m_lease->setValue(double(choice.ms) / 1000.0);
        break;
    case StoryFork::Change::Fencing:
        m_fencing->setCurrentIndex(m_fencing->findData(choice.fencing));
        break;
    case StoryFork::Change::PauseLength:
        m_pause->setValue(double(choice.ms) / 1000.0);
        break;
    case StoryFork::Change::Algorithm:
        m_algorithm->setCurrentIndex(m_algorithm->findData(choice.algorithmId));
        break;
    }
}

void ForkDialog::updateState()
{
    Scenario fork;
    QString error;
    const bool ok = StoryFork::apply(m_recorded, m_stepIndex, choice(), &fork, &error);
    m_problem->setText(ok ? QString() : tr("<b>This fork cannot run:</b> %1").arg(error.toHtmlEscaped()));
    m_problem->setVisible(!ok);
    m_go->setEnabled(ok && (!m_guard || m_guard->isSatisfied()));
}
