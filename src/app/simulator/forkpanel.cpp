// ForkPanel: its own SimulationController runs the fork, so the Simulator's recorded runs (and their
// timelines, held here by shared pointer) stay as they are; the two views share one time axis by mirroring
// each other's range.
#include "forkpanel.h"

#include "common/textformat.h"
#include "common/timelinepalette.h"
#include "comparisontable.h"
#include "outputfile.h"
#include "timeline/timelineview.h"

#include <QDir>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QJsonDocument>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QStandardPaths>
#include <QVBoxLayout>

ForkPanel::ForkPanel(QWidget *parent)
    : QWidget(parent)
    , m_controller(new SimulationController(this))
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 4, 0, 0);
    layout->setSpacing(2);
    m_header = new QLabel(this);
    m_header->setObjectName(QStringLiteral("forkHeader"));
    m_header->setWordWrap(true);
    m_header->setTextFormat(Qt::RichText);
    m_header->setText(tr("<p>No fork yet. Step through a finished story (Step by step, then Next), and at "
                         "any step choose <b>Fork from Here…</b> (Ctrl+K): change the lease, fencing, the "
                         "pause or the algorithm and see the story run again beside the recording.</p>"));
    auto *headerRow = new QHBoxLayout;
    headerRow->addWidget(m_header, 1);
    m_export = new QPushButton(tr("Export…"), this);
    m_export->setObjectName(QStringLiteral("exportFork"));
    m_export->setToolTip(tr("Save the recording and the fork side by side (JSON): the change, what each did "
                            "to the lock and the data, and whether the steps before the fork matched"));
    m_export->setEnabled(false);
    connect(m_export, &QPushButton::clicked, this, &ForkPanel::exportWithDialog);
    headerRow->addWidget(m_export, 0, Qt::AlignTop);
    layout->addLayout(headerRow);
    m_recordedLabel = new QLabel(this);
    m_recordedView = new TimelineView(this);
    m_recordedView->setObjectName(QStringLiteral("forkRecordedView"));
    m_forkLabel = new QLabel(this);
    m_forkView = new TimelineView(this);
    m_forkView->setObjectName(QStringLiteral("forkView"));
    for (QLabel *l : {m_recordedLabel, m_forkLabel}) {
        l->setTextFormat(Qt::RichText);
        l->setWordWrap(true);
        l->hide();
    }
    for (TimelineView *v : {m_recordedView, m_forkView}) {
        v->setFollowLive(false);
        v->setMinimumHeight(70);
        v->hide();
    }
    layout->addWidget(m_recordedLabel);
    layout->addWidget(m_recordedView, 1);
    layout->addWidget(m_forkLabel);
    layout->addWidget(m_forkView, 1);
    layout->addStretch(0);

    // One time axis: whatever one view shows, the other shows too.
    const auto mirror = [this](TimelineView *from, TimelineView *to) {
        connect(from, &TimelineView::rangeChanged, this, [this, from, to] {
            if (m_syncing || !to->data())
                return;
            m_syncing = true;
            to->showRange(from->viewStart(), from->viewEnd());
            m_syncing = false;
        });
    };
    mirror(m_recordedView, m_forkView);
    mirror(m_forkView, m_recordedView);

    connect(m_controller, &SimulationController::runStarted, this, &ForkPanel::showFork);
    connect(m_controller, &SimulationController::runUpdated, this, [this] { m_forkView->refresh(); });
    connect(m_controller, &SimulationController::runFinished, this, [this](int index) {
        showFork(index);
        judge();
    });
    connect(m_controller, &SimulationController::finished, this, [this] {
        if (!m_controller->errorString().isEmpty())
            m_header->setText(tr("<p><b>The fork failed:</b> %1</p>")
                                  .arg(m_controller->errorString().toHtmlEscaped()));
        emit finished();
    });
}

ForkPanel::~ForkPanel() = default;

bool ForkPanel::start(const SimulationController::Run &recorded, TimelineRenderer::TextLookup recordedText,
                      int stepIndex, int stepNumber, const StoryFork::Choice &choice,
                      const Simulation::Options &options, QString *error)
{
    if (m_controller->isRunning()) {
        *error = tr("a fork is already running");
        return false;
    }
    Scenario fork;
    if (!StoryFork::apply(recorded.scenario, stepIndex, choice, &fork, error))
        return false;
    clear();
    m_recorded = recorded;
    m_recordedScenario = recorded.scenario;
    m_stepIndex = stepIndex;
    m_stepNumber = stepNumber;
    m_change = StoryFork::describe(recorded.scenario, stepIndex, choice);
    // Where it runs is where the recording ran: the same server given, or sandboxes started afresh.
    m_where = options.server ? tr("on %1, as the recording").arg(options.server->endpoint())
                             : tr("on fresh private sandbox servers, as the recording");
    m_controller->setStepMode(false);
    if (!m_controller->start(fork, options, error)) {
        clear();
        return false;
    }
    m_recordedView->setData(m_recorded.timeline.get(), std::move(recordedText));
    m_recordedView->zoomToFit();
    m_recordedLabel->setText(tr("<b>Recorded</b> · %1").arg(figures(m_recorded.report)));
    m_forkLabel->setText(tr("<b>Fork</b> at step %1 · %2 · running…").arg(stepNumber).arg(m_change.toHtmlEscaped()));
    m_header->setText(tr("<p>Fork at step %1: <b>%2</b>. The story runs again from its start with this "
                         "change, %3…</p>")
                          .arg(stepNumber)
                          .arg(m_change.toHtmlEscaped(), m_where.toHtmlEscaped()));
    for (QWidget *w : std::initializer_list<QWidget *> {m_recordedLabel, m_recordedView, m_forkLabel, m_forkView})
        w->show();
    return true;
}

void ForkPanel::stop()
{
    m_controller->stop();
}

void ForkPanel::clear()
{
    m_recordedView->setMinimumSpanUs(0);
    m_forkView->setMinimumSpanUs(0);
    m_recordedView->setData(nullptr);
    m_forkView->setData(nullptr);
    SimulationController::dispose(std::move(m_recorded.simulation)); // maybe the last reference to it
    m_recorded = {};
    m_divergence = {};
    m_export->setEnabled(false);
    for (QWidget *w : std::initializer_list<QWidget *> {m_recordedLabel, m_recordedView, m_forkLabel, m_forkView})
        w->hide();
}

QString ForkPanel::headerText() const
{
    return m_header->text();
}

void ForkPanel::showFork(int index)
{
    const SimulationController::Run &r = m_controller->run(index);
    if (!r.timeline)
        return;
    if (m_forkView->data() != r.timeline.get())
        m_forkView->setData(r.timeline.get(), m_controller->textLookup(index));
    else
        m_forkView->refresh();
    // The longer of the two runs sets the axis, so both are drawn to one scale.
    const qint64 end = std::max(m_recordedView->totalUs(), m_forkView->totalUs());
    m_recordedView->setMinimumSpanUs(end);
    m_forkView->setMinimumSpanUs(end);
    m_syncing = true;
    m_recordedView->showRange(0, end);
    m_forkView->showRange(0, end);
    m_syncing = false;
}

void ForkPanel::judge()
{
    if (m_controller->runCount() == 0 || !m_recorded.simulation)
        return;
    const SimulationController::Run &fork = m_controller->run(0);
    if (!fork.finished || !fork.simulation || !fork.simulation->history())
        return;
    m_divergence = StoryFork::compare(m_recordedScenario, m_recorded.simulation->history()->events(),
                                      fork.simulation->history()->events(), m_stepIndex);
    m_forkLabel->setText(tr("<b>Fork</b> at step %1 · %2 · %3")
                             .arg(m_stepNumber)
                             .arg(m_change.toHtmlEscaped(), figures(fork.report)));
    QString before;
    if (m_stepNumber <= 1)
        before = tr("The fork is at the first step: the two runs share nothing before it.");
    else if (m_divergence.same)
        before = tr("✓ Steps 1–%1 played out the same in both runs: what differs comes from the change, "
                    "from step %2 on.")
                     .arg(m_stepNumber - 1)
                     .arg(m_stepNumber);
    else
        before = tr("✗ The runs already differed before step %1 (%2): the change acted earlier than the "
                    "fork point.")
                     .arg(m_stepNumber)
                     .arg(m_divergence.what.toHtmlEscaped());
    m_header->setText(tr("<p>Fork at step %1: <b>%2</b>, run again %3. %4</p>")
                          .arg(m_stepNumber)
                          .arg(m_change.toHtmlEscaped(), m_where.toHtmlEscaped(), before));
    m_export->setEnabled(true);
}

QJsonObject ForkPanel::comparisonJson() const
{
    if (m_controller->runCount() == 0 || !m_controller->run(0).finished)
        return {};
    const RunReport &fork = m_controller->run(0).report;
    QJsonObject divergence {{QStringLiteral("same_before_fork"), m_divergence.same}};
    if (!m_divergence.same)
        divergence.insert(QStringLiteral("first_difference"), m_divergence.what);
    return QJsonObject {
        {QStringLiteral("scenario"), m_recordedScenario.id},
        {QStringLiteral("fork_at_step"), m_stepNumber},
        {QStringLiteral("change"), m_change},
        {QStringLiteral("where"), m_where},
        {QStringLiteral("divergence"), divergence},
        {QStringLiteral("comparison"),
         RunComparison::toJson({RunComparison::row(QStringLiteral("recorded"), m_recorded.report),
                                RunComparison::row(QStringLiteral("fork"), fork)})},
        {QStringLiteral("recorded"), m_recorded.report.toJson()},
        {QStringLiteral("fork"), fork.toJson()},
    };
}

bool ForkPanel::exportComparison(const QString &path, QString *error) const
{
    const QJsonObject json = comparisonJson();
    if (json.isEmpty()) {
        *error = tr("The fork has not finished yet.");
        return false;
    }
    QString reason;
    if (!OutputFile::writeWhole(path, QJsonDocument(json).toJson(QJsonDocument::Indented), &reason)) {
        *error = tr("Cannot write %1: %2").arg(path, reason);
        return false;
    }
    return true;
}

void ForkPanel::exportWithDialog()
{
    const QString dir = QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation);
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export the fork"),
        QDir(dir).filePath(m_recordedScenario.id + QStringLiteral("-fork-step%1.json").arg(m_stepNumber)),
        tr("JSON (*.json)"));
    if (path.isEmpty())
        return;
    QString error;
    if (!exportComparison(path, &error))
        QMessageBox::warning(this, tr("Export the fork"), error);
}

QString ForkPanel::figures(const RunReport &report) const
{
    const SafetyChecker::Result &s = report.safety;
    QStringList parts;
    parts << TextFormat::count(s.overlaps, tr("overlap"), tr("overlaps"))
          << TextFormat::count(s.foreignReleases, tr("foreign release"), tr("foreign releases"))
          << TextFormat::count(s.lostUpdates, tr("lost update"), tr("lost updates"));
    if (s.fencingRejections > 0)
        parts << TextFormat::count(s.fencingRejections, tr("write refused by fencing"),
                                   tr("writes refused by fencing"));
    // Coloured by what happened to the data (fencing that kept it safe is not red), and said in words.
    const TimelinePalette tp = TimelinePalette::forPalette(palette());
    const RunComparison::Row row = RunComparison::row(QString(), report);
    return QStringLiteral("<span style='color:%1'>%2 · <b>%3</b></span>")
        .arg(ComparisonTable::verdictColor(row.verdict, tp).name(), parts.join(QStringLiteral(" · ")),
             row.verdictText.toHtmlEscaped());
}
