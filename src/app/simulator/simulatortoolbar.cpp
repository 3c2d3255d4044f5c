// SimulatorToolbar: tool buttons for the place's actions, the presets grouped by kind, the target combo.
#include "simulatortoolbar.h"

#include "sim/presetlibrary.h"

#include <QAction>
#include <QComboBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QProgressBar>
#include <QStandardItemModel>
#include <QStyle>
#include <QToolButton>
#include <QVBoxLayout>

namespace {

QToolButton *toolButton(QAction *action, QWidget *parent, bool iconOnly = false)
{
    auto *b = new QToolButton(parent);
    b->setDefaultAction(action);
    b->setToolButtonStyle(iconOnly ? Qt::ToolButtonIconOnly : Qt::ToolButtonTextBesideIcon);
    b->setAutoRaise(true);
    return b;
}

} // namespace

SimulatorToolbar::SimulatorToolbar(const Actions &actions, QWidget *parent)
    : QWidget(parent)
{
    auto *outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    outer->setSpacing(4);
    auto *bar = new QHBoxLayout;
    bar->setSpacing(2);
    m_presets = new QToolButton(this);
    m_presets->setText(tr("Presets"));
    m_presets->setIcon(QIcon(QStringLiteral(":/icons/learn.svg")));
    m_presets->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    m_presets->setPopupMode(QToolButton::InstantPopup);
    m_presets->setToolTip(tr("Load one of the shipped scenarios"));
    auto *presets = new QMenu(tr("Presets"), m_presets);
    QMenu *stories = presets->addMenu(tr("Stories (scripted)"));
    QMenu *comparisons = presets->addMenu(tr("Comparisons (variants)"));
    QMenu *workloads = presets->addMenu(tr("Workloads"));
    for (const PresetLibrary::Preset &p : PresetLibrary::all()) {
        QMenu *menu = p.scenario.kind == Scenario::Kind::Story ? stories
            : p.scenario.variants.isEmpty()                    ? workloads
                                                               : comparisons;
        QAction *a = menu->addAction(p.scenario.title, this, [this, id = p.id] { emit presetChosen(id); });
        a->setToolTip(p.scenario.summary);
        a->setData(p.id);
    }
    presets->setToolTipsVisible(true);
    m_presets->setMenu(presets);
    bar->addWidget(toolButton(actions.editor, this));
    bar->addWidget(m_presets);
    bar->addWidget(toolButton(actions.open, this, true));
    bar->addWidget(toolButton(actions.save, this, true));
    bar->addSpacing(10);
    bar->addWidget(toolButton(actions.run, this));
    bar->addWidget(toolButton(actions.stop, this));
    bar->addWidget(toolButton(actions.step, this));
    bar->addWidget(toolButton(actions.freeze, this, true));
    if (actions.tryToBreak)
        bar->addWidget(toolButton(actions.tryToBreak, this));
    bar->addSpacing(10);
    bar->addWidget(new QLabel(tr("Run on"), this));
    m_target = new QComboBox(this);
    m_target->setToolTip(tr("Private sandbox redis-servers (started for each run, can be paused, killed "
                            "and failed over), or the server you are connected to"));
    auto *targets = new QStandardItemModel(m_target);
    targets->appendRow(new QStandardItem(tr("sandbox servers")));
    targets->appendRow(new QStandardItem(tr("the connected server")));
    m_target->setModel(targets);
    bar->addWidget(m_target);
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
    m_export = new QToolButton(this);
    m_export->setText(tr("Export"));
    m_export->setIcon(style()->standardIcon(QStyle::SP_DialogSaveButton));
    m_export->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    m_export->setPopupMode(QToolButton::InstantPopup);
    bar->addWidget(m_export);
    outer->addLayout(bar);
    m_progress = new QProgressBar(this);
    m_progress->setRange(0, 1000);
    m_progress->setTextVisible(false);
    // A thin strip under the toolbar, not a widget in its row: the row must fit a 1024 px window.
    m_progress->setMaximumHeight(4);
    outer->addWidget(m_progress);
}

void SimulatorToolbar::setConnectedTarget(const QString &endpoint, const QString &why, bool connected)
{
    QStandardItem *item = qobject_cast<QStandardItemModel *>(m_target->model())->item(1);
    item->setText(why.isEmpty() ? tr("the connected server (%1)").arg(endpoint) : tr("the connected server"));
    item->setEnabled(why.isEmpty());
    item->setToolTip(why.isEmpty() ? tr("Keys go under the scenario's prefix (lockscope:sim:); stories that "
                                        "kill, pause or fail over servers need the sandbox")
                                   : tr("Not available: %1").arg(why));
    if (!why.isEmpty() && m_target->currentIndex() == 1)
        m_target->setCurrentIndex(0);
    m_targetNote->setText(why.isEmpty() || !connected ? QString() : tr("(read-only connection)"));
    m_targetNote->setToolTip(why);
}

void SimulatorToolbar::setStatus(const QString &text)
{
    m_statusText = text;
    m_status->setToolTip(text);
    elide();
}

void SimulatorToolbar::showMessage(const QString &text)
{
    m_status->setText(text);
}

void SimulatorToolbar::elide()
{
    // Elided at its end when the row is narrow: a right-aligned label cut at its start read "ning · fair
    // (2/2)".
    m_status->setText(
        m_status->fontMetrics().elidedText(m_statusText, Qt::ElideRight, std::max(20, m_status->width())));
}

bool SimulatorToolbar::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_status && event->type() == QEvent::Resize)
        elide();
    return QWidget::eventFilter(watched, event);
}
