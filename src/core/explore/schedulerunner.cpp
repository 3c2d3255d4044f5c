// ScheduleRunner: a bounded pool of simulations, each under its own keys.
#include "schedulerunner.h"

#include "redis/sandboxserver.h"
#include "sim/simulation.h"

#include <QCoreApplication>

#include <chrono>
#include <thread>

ScheduleRunner::ScheduleRunner(const ExploreTarget &target, const Options &options)
    : m_target(target)
    , m_options(options)
{
    m_options.parallel = std::clamp(m_options.parallel, 1, 32);
}

ScheduleRunner::~ScheduleRunner() = default;

bool ScheduleRunner::start(QString *error)
{
    if (m_options.server)
        return true;
    SandboxServer::Options o;
    o.name = QStringLiteral("explore sandbox");
    m_sandbox = std::make_unique<SandboxServer>(o);
    if (!m_sandbox->start()) {
        *error = QStringLiteral("cannot start the explorer's sandbox redis-server: %1").arg(m_sandbox->errorString());
        return false;
    }
    return true;
}

ConnectionSettings ScheduleRunner::sharedServer() const
{
    return m_options.server ? *m_options.server : m_sandbox->connectionSettings();
}

QString ScheduleRunner::serverDescription() const
{
    if (m_options.server)
        return m_options.server->endpoint();
    return m_sandbox ? QStringLiteral("sandbox 127.0.0.1:%1").arg(m_sandbox->port()) : QString();
}

QList<ScheduleVerdict> ScheduleRunner::run(const QList<Job> &jobs, const std::function<bool()> &cancelled)
{
    QList<ScheduleVerdict> verdicts(jobs.size());
    struct Running
    {
        qsizetype job = -1;
        std::unique_ptr<Simulation> simulation;
    };
    std::vector<Running> running;
    qsizetype next = 0;
    while (next < jobs.size() || !running.empty()) {
        const bool stop = cancelled && cancelled();
        while (!stop && next < jobs.size() && int(running.size()) < m_options.parallel) {
            const Job &job = jobs.at(next);
            const QString prefix = m_options.keyRoot + QString::number(QCoreApplication::applicationPid()) + u':'
                + QString::number(m_nextPrefix.fetch_add(1)) + u':';
            Simulation::Options so;
            if (!m_target.needsOwnServers(job.schedule))
            {
                so.server = m_options.server ? m_options.server : std::optional(m_sandbox->connectionSettings());
                so.serverIsSandbox = !m_options.server;
            }
            so.historyCapacityPerLog = qsizetype(1) << 16; // a schedule's run holds a few hundred events
            auto simulation = std::make_unique<Simulation>(m_target.scenarioFor(job.schedule, job.seed, prefix), so);
            simulation->start();
            running.push_back({next, std::move(simulation)});
            ++next;
        }
        if (stop) {
            for (; next < jobs.size(); ++next) {
                verdicts[next].schedule = jobs.at(next).schedule;
                verdicts[next].seed = jobs.at(next).seed;
                verdicts[next].error = QStringLiteral("stopped");
            }
            for (Running &r : running)
                r.simulation->requestStop();
        }
        // Collect whichever finished; wait a little on the oldest otherwise.
        bool any = false;
        for (auto it = running.begin(); it != running.end();) {
            if (it->simulation->isFinished()) {
                verdicts[it->job] = ScheduleVerdict::fromRun(*it->simulation, jobs.at(it->job).schedule,
                                                             jobs.at(it->job).seed);
                ++m_runs;
                it = running.erase(it);
                any = true;
            } else {
                ++it;
            }
        }
        if (!any && !running.empty())
            running.front().simulation->waitFinished(10);
    }
    return verdicts;
}
