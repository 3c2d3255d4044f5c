// BreakItDialog: the form, the live view and the outcome. What the outcome says is the explorer's report in
// its own words (ExploreResult::summaryOf, the lines `lockscope-cli explore` prints), so the app and the CLI
// can never tell the same search differently; the dialog only adds a headline and the actions.
#include "breakitdialog.h"

#include "explorejob.h"

#include "outputfile.h"
#include "sim/scenariowriter.h"

#include <QChart>
#include <QChartView>
#include <QCheckBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QJsonDocument>
#include <QLabel>
#include <QLineSeries>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSpinBox>
#include <QValueAxis>
#include <QVBoxLayout>

namespace {

// What each fault does, as --faults documents it, for the check boxes' tooltips.
QString faultHelp(const QString &name)
{
    if (name == QLatin1String("pause"))
        return QObject::tr("A stop-the-world pause of one worker (its renewer stops too), up to 3 × the lease.");
    if (name == QLatin1String("crash"))
        return QObject::tr("A worker is killed — also between two commands of one acquire or release.");
    if (name == QLatin1String("delay"))
        return QObject::tr("Every command of one worker waits before it is sent (through the fault proxy), up to the "
                           "lease.");
    if (name == QLatin1String("drop"))
        return QObject::tr("One worker's connections are reset.");
    if (name == QLatin1String("cut"))
        return QObject::tr("One worker is cut off from every server for a while.");
    if (name == QLatin1String("restart"))
        return QObject::tr("A server restarts without persistence: it comes back empty.");
    if (name == QLatin1String("failover"))
        return QObject::tr("A replica that had not yet received the lock is promoted.");
    if (name == QLatin1String("clock-jump"))
        return QObject::tr("One worker's clock is off (where the algorithm reads clocks).");
    return {};
}

} // namespace

BreakItDialog::BreakItDialog(QWidget *parent)
    : QDialog(parent)
    , m_job(new ExploreJob(this))
{
    setWindowTitle(tr("Try to break it"));
    buildLayout();
    connect(m_job, &ExploreJob::progressed, this, &BreakItDialog::showProgress);
    connect(m_job, &ExploreJob::finished, this, &BreakItDialog::showOutcome);
    updateEnabled();
}

BreakItDialog::~BreakItDialog() = default;

void BreakItDialog::buildLayout()
{
    auto *v = new QVBoxLayout(this);
    m_title = new QLabel(this);
    QFont big = m_title->font();
    big.setPointSizeF(big.pointSizeF() * 1.3);
    big.setBold(true);
    m_title->setFont(big);
    v->addWidget(m_title);
    auto *intro = new QLabel(
        tr("The explorer runs this lock on the sandbox Redis, with workers contending for it, and injects faults "
           "at times and lengths it chooses. It looks for two holders inside at once, a lost update, a release "
           "that removed another's lock, or a lock left stuck. A failure is shrunk to its smallest schedule and "
           "rerun; a search that finds nothing proves nothing."),
        this);
    intro->setWordWrap(true);
    v->addWidget(intro);
    m_targetProblem = new QLabel(this);
    m_targetProblem->setWordWrap(true);
    m_targetProblem->setStyleSheet(QStringLiteral("color: #b00020;"));
    m_targetProblem->hide();
    v->addWidget(m_targetProblem);

    auto *settings = new QGroupBox(tr("What to try"), this);
    auto *grid = new QGridLayout(settings);
    auto *faultsLabel = new QLabel(tr("Faults:"), settings);
    grid->addWidget(faultsLabel, 0, 0, Qt::AlignTop);
    auto *faultsRow = new QGridLayout;
    int i = 0;
    for (const QString &name : ScheduledFault::allTypeNames()) {
        auto *box = new QCheckBox(name, settings);
        box->setToolTip(faultHelp(name));
        faultsRow->addWidget(box, i / 4, i % 4);
        m_faultBoxes.insert(name, box);
        connect(box, &QCheckBox::toggled, this, &BreakItDialog::updateEnabled);
        ++i;
    }
    grid->addLayout(faultsRow, 0, 1, 1, 3);
    auto *form = new QHBoxLayout;
    m_lease = new QSpinBox(settings);
    m_lease->setRange(20, 600000);
    m_lease->setValue(500);
    m_lease->setSuffix(tr(" ms"));
    m_lease->setToolTip(tr("The lease; the whole workload scales with it, so a schedule runs in about a second at "
                           "500 ms."));
    m_workers = new QSpinBox(settings);
    m_workers->setRange(2, 8);
    m_workers->setValue(3);
    m_budget = new QSpinBox(settings);
    m_budget->setRange(5, 3600);
    m_budget->setValue(30);
    m_budget->setSuffix(tr(" s"));
    m_budget->setToolTip(tr("How long the search looks; shrinking and confirming a failure come after it."));
    auto *leaseLabel = new QLabel(tr("Lease:"), settings);
    auto *workersLabel = new QLabel(tr("Workers:"), settings);
    auto *budgetLabel = new QLabel(tr("Budget:"), settings);
    leaseLabel->setBuddy(m_lease);
    workersLabel->setBuddy(m_workers);
    budgetLabel->setBuddy(m_budget);
    form->addWidget(leaseLabel);
    form->addWidget(m_lease);
    form->addSpacing(12);
    form->addWidget(workersLabel);
    form->addWidget(m_workers);
    form->addSpacing(12);
    form->addWidget(budgetLabel);
    form->addWidget(m_budget);
    form->addStretch(1);
    grid->addWidget(new QLabel(tr("Workload:"), settings), 1, 0);
    grid->addLayout(form, 1, 1, 1, 3);
    m_bounds = new QLabel(settings);
    m_bounds->setWordWrap(true);
    grid->addWidget(m_bounds, 2, 1, 1, 3);
    const auto updateBounds = [this] {
        const int lease = m_lease->value();
        m_bounds->setText(tr("Pauses and cuts up to %1 ms (3 × the lease), delays up to %2 ms (the lease).")
                              .arg(3 * lease)
                              .arg(lease));
    };
    connect(m_lease, &QSpinBox::valueChanged, this, updateBounds);
    updateBounds();
    v->addWidget(settings);

    auto *buttons = new QHBoxLayout;
    m_start = new QPushButton(QIcon(QStringLiteral(":/icons/run.svg")), tr("Start"), this);
    m_start->setDefault(true);
    m_stop = new QPushButton(QIcon(QStringLiteral(":/icons/stop.svg")), tr("Stop"), this);
    buttons->addWidget(m_start);
    buttons->addWidget(m_stop);
    m_progressBar = new QProgressBar(this);
    m_progressBar->setTextVisible(false);
    buttons->addWidget(m_progressBar, 1);
    v->addLayout(buttons);
    connect(m_start, &QPushButton::clicked, this, &BreakItDialog::start);
    connect(m_stop, &QPushButton::clicked, this, &BreakItDialog::stop);

    m_progress = new QLabel(this);
    m_progress->setWordWrap(true);
    m_progress->setTextInteractionFlags(Qt::TextSelectableByMouse);
    v->addWidget(m_progress);

    // Schedules tried and schedules that broke a property, against the search's seconds.
    auto *chart = new QChart;
    chart->legend()->setAlignment(Qt::AlignTop);
    chart->setMargins(QMargins(0, 0, 0, 0));
    chart->setBackgroundRoundness(0);
    QFont small = font();
    small.setPointSizeF(small.pointSizeF() * 0.85);
    chart->legend()->setFont(small);
    m_triedSeries = new QLineSeries(chart);
    m_triedSeries->setName(tr("schedules tried"));
    m_seenSeries = new QLineSeries(chart);
    m_seenSeries->setName(tr("broke a property"));
    m_seenSeries->setColor(QColor(0xc6, 0x28, 0x28));
    chart->addSeries(m_triedSeries);
    chart->addSeries(m_seenSeries);
    m_timeAxis = new QValueAxis(chart);
    m_timeAxis->setLabelFormat(QStringLiteral("%.0f s"));
    m_timeAxis->setLabelsFont(small);
    m_timeAxis->setTickCount(4);
    m_countAxis = new QValueAxis(chart);
    m_countAxis->setLabelFormat(QStringLiteral("%.0f"));
    m_countAxis->setLabelsFont(small);
    m_countAxis->setTickCount(3);
    chart->addAxis(m_timeAxis, Qt::AlignBottom);
    chart->addAxis(m_countAxis, Qt::AlignLeft);
    for (QLineSeries *s : {m_triedSeries, m_seenSeries}) {
        s->attachAxis(m_timeAxis);
        s->attachAxis(m_countAxis);
    }
    auto *chartView = new QChartView(chart, this);
    chartView->setRenderHint(QPainter::Antialiasing);
    chartView->setMinimumHeight(150);
    chartView->setMaximumHeight(190);
    v->addWidget(chartView);

    m_headline = new QLabel(this);
    m_headline->setFont(big);
    m_headline->setWordWrap(true);
    v->addWidget(m_headline);
    m_result = new QLabel(this);
    m_result->setWordWrap(true);
    m_result->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_result->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    // A report with its coverage and closest call can be long: it scrolls rather than push the buttons off.
    auto *resultScroll = new QScrollArea(this);
    resultScroll->setWidget(m_result);
    resultScroll->setWidgetResizable(true);
    resultScroll->setFrameShape(QFrame::NoFrame);
    v->addWidget(resultScroll, 1);

    auto *after = new QHBoxLayout;
    m_stepThrough = new QPushButton(QIcon(QStringLiteral(":/icons/step.svg")), tr("Step through it in the Simulator"),
                                    this);
    m_stepThrough->setToolTip(tr("The shrunk failure as a story, stepped, with the Lua each step runs; Fork it from "
                                 "there to try fencing or a longer lease."));
    m_fork = new QPushButton(tr("Fork it…"), this);
    m_fork->setToolTip(tr("Run the story again with one thing changed — fencing on, a longer lease, a shorter "
                          "pause — beside the recording (the Simulator's Fork from here)"));
    m_saveStory = new QPushButton(tr("Save the story…"), this);
    m_again = new QPushButton(tr("Try again"), this);
    m_again->setToolTip(tr("Another search with the next seed: other schedules."));
    auto *close = new QPushButton(tr("Close"), this);
    after->addWidget(m_stepThrough);
    after->addWidget(m_fork);
    after->addWidget(m_saveStory);
    after->addWidget(m_again);
    after->addStretch(1);
    after->addWidget(close);
    v->addLayout(after);
    connect(m_stepThrough, &QPushButton::clicked, this, [this] {
        if (m_story)
            emit storyRequested(*m_story);
    });
    connect(m_fork, &QPushButton::clicked, this, [this] {
        if (m_story)
            emit forkRequested(*m_story);
    });
    connect(m_saveStory, &QPushButton::clicked, this, &BreakItDialog::saveStory);
    connect(m_again, &QPushButton::clicked, this, &BreakItDialog::start);
    connect(close, &QPushButton::clicked, this, &QDialog::close);
}

void BreakItDialog::setTarget(const ExploreTarget::Options &target, const QString &title)
{
    stop();
    m_target = target;
    m_titleText = title;
    m_title->setText(tr("Try to break it: %1").arg(title));
    m_story.reset();
    m_found = false;
    m_headline->clear();
    m_result->clear();
    m_progress->clear();
    m_triedSeries->clear();
    m_seenSeries->clear();
    // Which faults this lock can meet: the others are shown, but cannot be chosen.
    QString error;
    const std::optional<ExploreTarget> made = ExploreTarget::make(target, &error);
    m_targetOk = made.has_value();
    m_targetProblem->setVisible(!m_targetOk);
    m_targetProblem->setText(tr("This lock cannot be explored: %1").arg(error));
    for (auto it = m_faultBoxes.begin(); it != m_faultBoxes.end(); ++it) {
        ScheduledFault::Type type;
        const bool known = ScheduledFault::typeFromName(it.key(), &type);
        const bool can = m_targetOk && known && made->canMeet(type);
        it.value()->setEnabled(can);
        it.value()->setChecked(can);
        it.value()->setToolTip(can ? faultHelp(it.key())
                                   : tr("%1 cannot meet this fault (%2)").arg(title, faultHelp(it.key())));
    }
    if (m_targetOk) {
        m_lease->setValue(target.leaseMs);
        m_workers->setValue(target.workers);
    }
    updateEnabled();
}

void BreakItDialog::setFaults(const QStringList &names)
{
    for (auto it = m_faultBoxes.begin(); it != m_faultBoxes.end(); ++it)
        it.value()->setChecked(it.value()->isEnabled() && names.contains(it.key()));
}

QStringList BreakItDialog::faults() const
{
    QStringList names;
    for (auto it = m_faultBoxes.begin(); it != m_faultBoxes.end(); ++it) {
        if (it.value()->isEnabled() && it.value()->isChecked())
            names << it.key();
    }
    return names;
}

void BreakItDialog::setBudgetSeconds(int seconds)
{
    m_budget->setValue(seconds);
}

void BreakItDialog::setLeaseMs(int ms)
{
    m_lease->setValue(ms);
}

bool BreakItDialog::isRunning() const
{
    return m_job->isRunning();
}

QString BreakItDialog::resultText() const
{
    return m_headline->text() + u'\n' + m_result->text();
}

void BreakItDialog::updateEnabled()
{
    const bool running = m_job->isRunning();
    const bool anyFault = !faults().isEmpty();
    m_start->setEnabled(!running && m_targetOk && anyFault);
    m_start->setToolTip(anyFault ? QString() : tr("Choose at least one fault"));
    m_stop->setEnabled(running);
    for (QCheckBox *box : std::as_const(m_faultBoxes))
        box->setAttribute(Qt::WA_TransparentForMouseEvents, running);
    m_lease->setEnabled(!running);
    m_workers->setEnabled(!running);
    m_budget->setEnabled(!running);
    m_stepThrough->setVisible(!running && m_story.has_value());
    m_saveStory->setVisible(!running && m_story.has_value());
    m_fork->setVisible(!running && m_story.has_value());
    m_again->setVisible(!running && !m_headline->text().isEmpty());
}

void BreakItDialog::start()
{
    if (m_job->isRunning() || !m_targetOk)
        return;
    Explorer::Options options;
    options.target = m_target;
    options.target.leaseMs = m_lease->value();
    options.target.workers = m_workers->value();
    for (const QString &name : faults()) {
        ScheduledFault::Type type;
        if (ScheduledFault::typeFromName(name, &type))
            options.faults << type;
    }
    if (options.faults.isEmpty())
        return;
    options.budgetS = m_budget->value();
    // In class the story should be on screen within a minute: the boundary is measured with 5 tries per
    // length instead of the CLI's 10, and the story replayed twice instead of 3 times (the report says how
    // many, as always).
    options.boundaryRuns = 5;
    options.storyRuns = 2;
    // "Try again" looks at other schedules: each search of this dialog has the next seed.
    static quint64 searches = 0;
    options.seed = 1 + searches++;
    options.commandLine = QStringLiteral("the app's Try to break it");
    m_story.reset();
    m_found = false;
    m_headline->clear();
    m_result->clear();
    m_triedSeries->clear();
    m_seenSeries->clear();
    m_triedSeries->append(0, 0); // the lines start at the start, even when the first batch already broke it
    m_seenSeries->append(0, 0);
    m_timeAxis->setRange(0, m_budget->value());
    m_countAxis->setRange(0, 10);
    m_progressBar->setRange(0, m_budget->value());
    m_progressBar->setValue(0);
    m_progress->setText(tr("Starting the sandbox and a run without faults (its holds are where the search aims)…"));
    m_job->start(options);
    updateEnabled();
}

void BreakItDialog::stop()
{
    if (m_job->isRunning()) {
        m_job->stop();
        m_progress->setText(tr("Stopping after the schedules running now…"));
    }
}

void BreakItDialog::showProgress(const Explorer::Progress &p)
{
    const QString phase = p.phase == QLatin1String("search") ? tr("Searching")
        : p.phase == QLatin1String("shrink")                 ? tr("Shrinking the failure to its smallest schedule")
        : p.phase == QLatin1String("confirm")                ? tr("Rerunning it to confirm")
        : p.phase == QLatin1String("boundary")               ? tr("Measuring the boundary")
        : p.phase == QLatin1String("story")                  ? tr("Replaying it as a story")
                                                             : p.phase;
    QString text = tr("%1 · %2 schedules tried · %3 a minute · %4 s")
                       .arg(phase)
                       .arg(p.schedules)
                       .arg(qRound(p.perMinute))
                       .arg(p.seconds, 0, 'f', 0);
    if (!p.best.isEmpty())
        text += u'\n' + (p.violating > 0 ? tr("Worst seen so far: %1") : tr("Closest call so far: %1")).arg(p.best);
    m_progress->setText(text);
    if (p.phase == QLatin1String("search")) {
        m_progressBar->setValue(std::min(m_progressBar->maximum(), int(p.seconds)));
        m_triedSeries->append(p.seconds, double(p.schedules));
        m_seenSeries->append(p.seconds, double(p.violating));
        if (p.seconds > m_timeAxis->max())
            m_timeAxis->setMax(p.seconds);
        if (double(p.schedules) > m_countAxis->max())
            m_countAxis->setMax(double(p.schedules) * 1.3);
    } else {
        m_progressBar->setRange(0, 0); // shrinking and confirming have no known length
    }
}

void BreakItDialog::showOutcome()
{
    const ExploreJob::Outcome &out = m_job->outcome();
    m_progressBar->setRange(0, 1);
    m_progressBar->setValue(1);
    m_progress->clear();
    if (!out.ran) {
        m_headline->setText(tr("The search could not start"));
        m_result->setText(out.error);
        updateEnabled();
        return;
    }
    const QJsonObject report = out.result.toJson();
    m_found = out.result.found;
    m_story = out.story;
    if (out.result.stoppedBecause == QLatin1String("failed") && !m_found)
        m_headline->setText(tr("The search failed: nothing can be said of this lock"));
    else if (m_found)
        m_headline->setText(tr("Broken: %1").arg(out.result.property));
    else if (out.result.stoppedBecause == QLatin1String("interrupted"))
        m_headline->setText(tr("Stopped: no violation in %1 schedules — not a proof").arg(out.result.schedulesTried));
    else
        m_headline->setText(tr("No violation in %1 schedules — not a proof").arg(out.result.schedulesTried));
    m_headline->setStyleSheet(m_found ? QStringLiteral("color: #b00020;") : QString());
    QString text = ExploreResult::summaryOf(report).trimmed();
    if (m_found && !m_story)
        text += u'\n' + tr("No story could be written for it: %1").arg(out.result.storyProblem);
    if (!m_found)
        text += u'\n' + tr("Another fault, a longer budget, more workers or Try again (other schedules) may still break "
                           "it.");
    m_result->setText(text);
    updateEnabled();
}

void BreakItDialog::saveStory()
{
    if (!m_story)
        return;
    const QString path = QFileDialog::getSaveFileName(this, tr("Save the story"),
                                                      m_story->id + QStringLiteral(".json"),
                                                      tr("Scenarios (*.json)"));
    if (path.isEmpty())
        return;
    QString reason;
    if (!OutputFile::writeWhole(path, QJsonDocument(ScenarioWriter::toJson(*m_story)).toJson(QJsonDocument::Indented),
                                &reason))
        QMessageBox::warning(this, tr("Save the story"), tr("Cannot write %1: %2").arg(path, reason));
}
