// SimulationController: the 30 Hz drain, the background jobs (live stats, the final rebuild) and disposal of
// finished simulations off the GUI thread (their destructors stop sandbox servers).
#include "simulationcontroller.h"

#include "common/backgroundtask.h"
#include "logging.h"
#include "sim/scenarioparser.h"

#include <QFutureWatcher>

#include <algorithm>

namespace {

// The library each external worker runs and its processes ("pid 4242", "pids 4242 → 4300" after a restart).
void describeClients(const QList<RunReport::ClientWorker> &clients, TimelineData::Layout *layout)
{
    layout->workerLibraries.clear();
    layout->workerPids.clear();
    for (const RunReport::ClientWorker &c : clients) {
        QStringList pids;
        for (qint64 pid : c.pids)
            pids << QString::number(pid);
        layout->workerLibraries << c.library;
        layout->workerPids << (pids.size() > 1 ? QObject::tr("pids %1") : QObject::tr("pid %1"))
                                  .arg(pids.join(QStringLiteral(" → ")));
    }
}
constexpr int kTickMs = 33;

struct FinalResult
{
    std::shared_ptr<TimelineData> timeline;
    LiveStats stats;
};
} // namespace

SimulationController::SimulationController(QObject *parent)
    : QObject(parent)
{
    m_timer.setInterval(kTickMs);
    connect(&m_timer, &QTimer::timeout, this, &SimulationController::tick);
}

SimulationController::~SimulationController()
{
    for (Run &r : m_runs) {
        if (r.simulation)
            r.simulation->requestStop();
        dispose(std::move(r.simulation));
    }
}

void SimulationController::dispose(std::shared_ptr<Simulation> simulation)
{
    if (!simulation)
        return;
    simulation->requestStop();
    // ~Simulation joins its controller thread and stops its servers: never on the GUI thread.
    BackgroundTask::run([s = std::move(simulation)]() mutable { s.reset(); });
}

bool SimulationController::start(const Scenario &scenario, const Simulation::Options &options, QString *error)
{
    QList<Run> runs;
    if (scenario.variants.isEmpty()) {
        Run r;
        r.scenario = scenario;
        runs << r;
    } else {
        const ScenarioParser parser;
        for (int i = 0; i < scenario.variants.size(); ++i) {
            Run r;
            QStringList errors;
            if (!parser.variant(scenario, i, &r.scenario, &errors)) {
                *error = QStringLiteral("variant %1: %2")
                             .arg(scenario.variants.at(i).name, errors.join(QStringLiteral("; ")));
                return false;
            }
            r.variant = scenario.variants.at(i).name;
            runs << r;
        }
    }
    emit aboutToClear();
    for (Run &r : m_runs)
        dispose(std::move(r.simulation));
    ++m_generation;
    m_runs = runs;
    m_scenario = scenario;
    m_options = options;
    m_error.clear();
    m_stopRequested = false;
    m_running = true;
    m_longestTickMs = 0;
    startRun(0);
    m_timer.start();
    emit stateChanged();
    return true;
}

void SimulationController::startRun(int index)
{
    m_active = index;
    Run &r = m_runs[index];
    Simulation::Options options = m_options;
    // In both modes alike: a run stepped through afterwards is the very run that played straight through.
    options.storySnapshots = true;
    r.simulation = std::make_shared<Simulation>(r.scenario, options);
    r.simulation->start(); // returns at once: servers start on the run's own thread
    m_statsBusy = false;
    m_sinceStats.start();
    qCInfo(lcUi) << "simulation started:" << r.scenario.id << r.variant;
}

void SimulationController::stop()
{
    if (!m_running)
        return;
    m_stopRequested = true;
    if (m_active >= 0 && m_runs.at(m_active).simulation)
        m_runs[m_active].simulation->requestStop();
    emit stateChanged();
}

QList<StorySnapshot> SimulationController::storySnapshots(int index) const
{
    if (index < 0 || index >= m_runs.size() || !m_runs.at(index).simulation)
        return {};
    return m_runs.at(index).simulation->storySnapshots();
}

void SimulationController::tick()
{
    if (m_active < 0 || m_active >= m_runs.size())
        return;
    QElapsedTimer spent;
    spent.start();
    Run &r = m_runs[m_active];
    Simulation &sim = *r.simulation;
    if (!r.finalizing) {
        if (const EventHistory *history = sim.history()) {
            if (!r.timeline) {
                TimelineData::Layout layout;
                layout.workers = sim.workerNames();
                layout.workerProcesses = sim.workerProcesses();
                layout.processes = sim.processNames();
                describeClients(sim.clientWorkers(), &layout);
                layout.locks = sim.lockNames();
                layout.servers = r.scenario.servers.count;
                layout.steps = r.scenario.story.steps;
                r.timeline = std::make_shared<TimelineData>(layout);
                emit runStarted(m_active);
            }
            const QList<HistoryEvent> batch = history->readNew(r.cursor);
            if (!batch.isEmpty())
                r.timeline->append(batch);
            r.timeline->setNowUs(sim.elapsedUs());
            emit runUpdated(m_active);
            if (!m_statsBusy && m_sinceStats.elapsed() >= m_statsIntervalMs && !sim.isFinished())
                requestStats(m_active);
        }
        if (sim.isFinished()) {
            if (sim.state() == Simulation::State::Failed) {
                m_error = r.variant.isEmpty() ? sim.errorString()
                                              : QStringLiteral("%1: %2").arg(r.variant, sim.errorString());
                qCWarning(lcUi) << "simulation failed:" << m_error;
                end();
            } else {
                requestFinal(m_active);
            }
        }
    }
    emit stateChanged();
    m_longestTickMs = std::max(m_longestTickMs, double(spent.nsecsElapsed()) / 1e6);
}

void SimulationController::requestStats(int index)
{
    const Run &r = m_runs.at(index);
    const LiveStats::Input in = statsInput(r, r.simulation->elapsedUs());
    m_statsBusy = true;
    m_sinceStats.restart();
    auto *watcher = new QFutureWatcher<LiveStats>(this);
    const quint64 generation = m_generation;
    connect(watcher, &QFutureWatcher<LiveStats>::finished, this, [this, watcher, index, generation] {
        BackgroundTask::resultsArrived();
        watcher->deleteLater();
        if (generation != m_generation || index >= m_runs.size())
            return;
        m_statsBusy = false;
        m_sinceStats.restart(); // the next one a full interval after this one ended: bounded CPU use
        Run &run = m_runs[index];
        if (run.finished)
            return;
        run.stats = watcher->result();
        if (run.timeline)
            run.timeline->setViolations(run.stats.safety.details);
        emit statsUpdated(index);
    });
    watcher->setFuture(BackgroundTask::run(
        [sim = r.simulation, in] { return LiveStats::compute(sim->history()->events(), in); }));
}

LiveStats::Input SimulationController::statsInput(const Run &r, qint64 nowUs) const
{
    LiveStats::Input in;
    in.workerNames = r.simulation->workerNames();
    in.lockNames = r.simulation->lockNames();
    in.nowUs = nowUs;
    in.bucketUs = LiveStats::bucketFor(std::max(r.simulation->plannedDurationUs(), in.nowUs));
    in.counters = r.scenario.resource.counter ? int(in.lockNames.size()) : 0;
    in.counterInitial = r.scenario.resource.counterInitial;
    return in;
}

const LiveStats &SimulationController::statsUntil(int index, qint64 untilUs) const
{
    static const LiveStats none;
    if (index < 0 || index >= m_runs.size() || !m_runs.at(index).timeline || !m_runs.at(index).simulation)
        return none;
    const Run &r = m_runs.at(index);
    const QString key = QStringLiteral("%1/%2/%3/%4")
                            .arg(m_generation)
                            .arg(index)
                            .arg(untilUs)
                            .arg(r.timeline->events().size());
    if (key == m_statsUntilKey)
        return m_statsUntil;
    // A story's few hundred events: counted here, at once, when a step is shown.
    QList<HistoryEvent> events;
    for (const HistoryEvent &e : r.timeline->events()) {
        if (e.timeUs <= untilUs)
            events.append(e);
    }
    // Drained in batches, the timeline's events may interleave by a few ms across logs; the checker reads
    // them in time order.
    std::stable_sort(events.begin(), events.end(),
                     [](const HistoryEvent &a, const HistoryEvent &b) { return a.timeUs < b.timeUs; });
    m_statsUntil = LiveStats::compute(events, statsInput(r, untilUs));
    m_statsUntilKey = key;
    return m_statsUntil;
}

void SimulationController::requestFinal(int index)
{
    Run &r = m_runs[index];
    r.finalizing = true;
    const RunReport report = r.simulation->report();
    TimelineData::Layout layout = r.timeline ? r.timeline->layout() : TimelineData::Layout();
    describeClients(report.clients, &layout); // a restart added PIDs since the run began
    if (!r.timeline) {
        layout.workers = r.simulation->workerNames();
        layout.workerProcesses = r.simulation->workerProcesses();
        layout.processes = r.simulation->processNames();
        layout.locks = r.simulation->lockNames();
        layout.servers = r.scenario.servers.count;
        layout.steps = r.scenario.story.steps;
    }
    auto *watcher = new QFutureWatcher<FinalResult>(this);
    const quint64 generation = m_generation;
    connect(watcher, &QFutureWatcher<FinalResult>::finished, this,
            [this, watcher, index, generation, report] {
                BackgroundTask::resultsArrived();
                watcher->deleteLater();
                if (generation != m_generation || index >= m_runs.size())
                    return;
                FinalResult result = watcher->result();
                Run &run = m_runs[index];
                const bool hadTimeline = bool(run.timeline);
                std::shared_ptr<TimelineData> old = std::move(run.timeline); // alive until the views switched
                run.timeline = result.timeline;
                run.stats = result.stats;
                run.report = report;
                run.report.scenario = m_scenario.id;
                run.finished = true;
                if (!hadTimeline)
                    emit runStarted(index);
                // A run the servers refused for good (or lost) is no evidence: the whole run failed, with
                // the report's reason, as the CLI says it.
                if (const QString failure = run.report.failure(); !failure.isEmpty())
                    m_error = run.variant.isEmpty() ? failure
                                                    : QStringLiteral("%1: %2").arg(run.variant, failure);
                emit runFinished(index);
                old.reset();
                if (index + 1 < m_runs.size() && !m_stopRequested && m_error.isEmpty()) {
                    startRun(index + 1);
                    emit stateChanged();
                } else {
                    end();
                }
            });
    watcher->setFuture(BackgroundTask::run([sim = r.simulation, layout, report] {
        // The whole history, ordered: the picture then matches the report exactly.
        const QList<HistoryEvent> events = sim->history() ? sim->history()->events() : QList<HistoryEvent>();
        FinalResult result;
        result.timeline = std::make_shared<TimelineData>(layout);
        result.timeline->append(events);
        result.timeline->finish(sim->elapsedUs());
        result.timeline->setViolations(report.safety.details);
        result.stats.metrics = report.metrics;
        result.stats.safety = report.safety;
        result.stats.latencyCounts = LiveStats::latencyHistogram(events);
        result.stats.atUs = sim->elapsedUs();
        result.stats.valid = true;
        result.stats.final = true;
        return result;
    }));
}

void SimulationController::end()
{
    m_running = false;
    m_timer.stop();
    emit finished();
    emit stateChanged();
}

double SimulationController::progress() const
{
    if (m_runs.isEmpty() || m_active < 0)
        return 0;
    const Run &r = m_runs.at(m_active);
    if (!m_running)
        return 1.0;
    const Simulation::State state = r.simulation ? r.simulation->state() : Simulation::State::Idle;
    if (state == Simulation::State::Idle || state == Simulation::State::Starting)
        return -1;
    return (m_active + r.simulation->progress()) / double(m_runs.size());
}

QString SimulationController::stateText() const
{
    if (m_runs.isEmpty() || m_active < 0)
        return tr("Ready");
    const Run &r = m_runs.at(m_active);
    const QString variant = r.variant.isEmpty()
        ? QString()
        : tr(" · %1 (%2/%3)").arg(r.variant).arg(m_active + 1).arg(m_runs.size());
    if (!m_running) {
        if (!m_error.isEmpty())
            return tr("Failed");
        return m_stopRequested ? tr("Stopped") : tr("Finished");
    }
    if (!r.simulation)
        return tr("Starting…");
    switch (r.simulation->state()) {
    case Simulation::State::Idle:
    case Simulation::State::Starting:
        return tr("Starting servers…") + variant;
    case Simulation::State::Running:
        return tr("Running") + variant;
    case Simulation::State::Stopping:
        return tr("Stopping…") + variant;
    case Simulation::State::Finished:
    case Simulation::State::Failed:
        return tr("Checking the history…") + variant;
    }
    return QString();
}

SimulationRunner::Outcome SimulationController::outcome() const
{
    SimulationRunner::Outcome outcome;
    for (const Run &r : m_runs) {
        if (r.finished)
            outcome.runs << SimulationRunner::Run {r.variant, r.report};
    }
    outcome.checks = SimulationRunner::judge(m_scenario, outcome.runs);
    outcome.error = m_error;
    outcome.interrupted = m_stopRequested;
    return outcome;
}

std::function<QString(const HistoryEvent &)> SimulationController::textLookup(int index) const
{
    if (index < 0 || index >= m_runs.size())
        return {};
    std::weak_ptr<Simulation> weak = m_runs.at(index).simulation;
    return [weak](const HistoryEvent &e) {
        const std::shared_ptr<Simulation> sim = weak.lock();
        if (!sim || !sim->history() || e.detail == 0)
            return QString();
        return QString::fromUtf8(sim->history()->text(e));
    };
}
