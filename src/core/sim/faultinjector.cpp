// FaultInjector: a run's faults, as they come due on its controller thread.
#include "faultinjector.h"

#include "externalworker.h"
#include "faultproxy.h"
#include "runcontext.h"
#include "runtimeline.h"
#include "simulatedprocess.h"
#include "simulationservers.h"

#include <QSet>

#include <limits>

namespace {

QString seconds(qint64 us)
{
    return QString::number(double(us) / 1e6, 'f', 2) + QStringLiteral(" s");
}

} // namespace

FaultInjector::FaultInjector(RunContext &run, RunTimeline &timeline,
                             const std::vector<std::unique_ptr<SimulatedProcess>> &processes,
                             const std::vector<ExternalWorker *> &external, const QStringList &processNames)
    : m_run(run)
    , m_timeline(timeline)
    , m_processes(processes)
    , m_external(external)
    , m_processNames(processNames)
    , m_random(run.scenario.workload.seed ^ 0x5eedf00dULL)
{
}

FaultInjector::~FaultInjector() = default;

qint64 FaultInjector::runNowUs() const
{
    return m_run.clock.nowUs();
}


// A FaultProxy per process and server: delays, partitions and dropped connections then reach every byte
// the process exchanges with Redis — replies, pub/sub and keyspace notifications too — whatever its client.
bool FaultInjector::startProxies(QString *error)
{
    m_proxiedGeneration = m_run.servers->generation();
    for (int p = 0; p < m_run.scenario.processCount(); ++p) {
        std::vector<std::unique_ptr<FaultProxy>> row;
        QList<QPair<QString, int>> endpoints;
        for (int server = 0; server < m_run.servers->count(); ++server) {
            const ConnectionSettings target = m_run.servers->settings(server);
            auto proxy = std::make_unique<FaultProxy>(target.host, target.port);
            QString why;
            if (!proxy->start(&why)) {
                *error = QStringLiteral("cannot start the network proxy for %1: %2").arg(target.endpoint(), why);
                return false;
            }
            endpoints.append({proxy->host(), proxy->port()});
            row.push_back(std::move(proxy));
        }
        m_run.proxies.append(endpoints);
        m_proxies.push_back(std::move(row));
    }
    return true;
}

QList<FaultProxy *> FaultInjector::proxiesOf(int process, const QList<int> &servers) const
{
    QList<FaultProxy *> list;
    if (process < 0 || process >= int(m_proxies.size()))
        return list;
    for (int server = 0; server < int(m_proxies.at(size_t(process)).size()); ++server) {
        if (servers.isEmpty() || servers.contains(server))
            list << m_proxies.at(size_t(process)).at(size_t(server)).get();
    }
    return list;
}

// A failover or a restart on another port moved a server: the proxies send later connections to where it is
// now (the clients' connections to the old address fail and reconnect, as they would).
void FaultInjector::followServerAddresses()
{
    if (m_proxies.empty() || m_run.servers->generation() == m_proxiedGeneration)
        return;
    m_proxiedGeneration = m_run.servers->generation();
    for (const auto &row : m_proxies) {
        for (int server = 0; server < int(row.size()); ++server) {
            const ConnectionSettings target = m_run.servers->settings(server);
            row.at(size_t(server))->setUpstream(target.host, target.port);
        }
    }
}

void FaultInjector::closeProxies()
{
    m_proxies.clear();
}

// The sentinels promote the replica while the run goes on: look every 50 ms, put the outcome in the history
// when it is known (the failover thread gives up after 15 s), then let the story run the steps it held meanwhile.
void FaultInjector::watchSentinelFailover(int server)
{
    m_timeline.schedule(runNowUs() + 50000, [this, server] {
        if (const auto result = m_run.servers->sentinelFailoverResult()) {
            recordFault(HistoryEvent::FaultType::Failover, -1, server, result->second);
            m_awaitingFailover = false;
            if (m_onFailoverSettled)
                m_onFailoverSettled();
            return;
        }
        if (!m_timeline.isDraining())
            watchSentinelFailover(server);
    });
}

void FaultInjector::recordFault(HistoryEvent::FaultType type, int process, qint64 value, const QString &text,
                                int lock)
{
    const int log = m_run.history->logCount() - 1;
    HistoryEvent e;
    e.timeUs = m_run.clock.nowUs();
    e.kind = HistoryEvent::Kind::Fault;
    e.phase = HistoryEvent::Phase::Ok;
    e.outcome = quint8(type);
    e.process = process;
    e.lock = lock;
    e.value = value;
    e.detail = m_run.history->addText(log, text.toUtf8());
    m_run.history->record(log, e);
}

void FaultInjector::recordNote(int process, const QString &text)
{
    const int log = m_run.history->logCount() - 1;
    HistoryEvent e;
    e.timeUs = m_run.clock.nowUs();
    e.kind = HistoryEvent::Kind::Note;
    e.phase = HistoryEvent::Phase::Ok;
    e.process = process;
    e.detail = m_run.history->addText(log, text.toUtf8());
    m_run.history->record(log, e);
}

void FaultInjector::scheduleFaults()
{
    for (const Scenario::Fault &f : m_run.scenario.faults) {
        if (f.type == Scenario::Fault::Type::ClockSkew) {
            m_timeline.schedule(0, [this, f] {
                recordFault(HistoryEvent::FaultType::ClockSkew, f.process, qint64(f.skewMs),
                            QStringLiteral("the clock of %1 runs at %2× and is off by %3 ms")
                                .arg(f.process < 0 ? QStringLiteral("every process")
                                                   : m_processNames.value(f.process))
                                .arg(f.rate)
                                .arg(f.skewMs));
            });
            continue;
        }
        if (f.atMs < 0)
            continue; // probabilistic: decided on the controller's ticks
        m_timeline.schedule(qint64(f.atMs * 1000), [this, f] {
            using T = Scenario::Fault::Type;
            const bool serverFault = f.type == T::ServerRestart || f.type == T::ServerPause
                || f.type == T::ServerKill || f.type == T::Failover;
            if (f.process >= 0 || serverFault) {
                applyFault(f, f.process); // a server fault happens once, whatever the processes
                return;
            }
            for (int p = 0; p < int(m_processes.size()); ++p)
                applyFault(f, p);
        });
    }
}

void FaultInjector::injectChanceFaults()
{
    std::uniform_real_distribution<double> chance(0, 1);
    for (const Scenario::Fault &f : m_run.scenario.faults) {
        if (f.atMs >= 0 || f.probability <= 0 || chance(m_random) >= f.probability / 10.0)
            continue;
        const int p = f.process >= 0
            ? f.process
            : std::uniform_int_distribution<int>(0, int(m_processes.size()) - 1)(m_random);
        applyFault(f, p);
    }
}

void FaultInjector::applyFault(const Scenario::Fault &f, int p)
{
    using T = Scenario::Fault::Type;
    using FT = HistoryEvent::FaultType;
    SimulatedProcess *process
        = p >= 0 && p < int(m_processes.size()) ? m_processes.at(size_t(p)).get() : nullptr;
    const QString who = process ? process->name() : QString();
    if (!m_external.empty() && applyExternalFault(f, p))
        return;
    if (!m_proxies.empty() && applyNetworkFault(f, p))
        return;
    switch (f.type) {
    case T::Pause:
        if (!process || process->isPaused() || process->isCrashed())
            return;
        process->pause();
        recordFault(FT::PauseStart, p, qint64(f.durationMs),
                    QStringLiteral("%1 stops the world for %2 ms: its threads and its watchdog freeze")
                        .arg(who)
                        .arg(f.durationMs));
        m_timeline.schedule(runNowUs() + qint64(f.durationMs * 1000), [this, p, process, who] {
            // A process that crashed while paused does not run again: the log says so, not "runs again".
            if (process->isCrashed()) {
                recordNote(p, QStringLiteral("%1 crashed while paused: nothing to resume").arg(who));
                return;
            }
            // Recorded before the threads run again, so every event of theirs comes after it.
            recordFault(FT::PauseEnd, p, 0, QStringLiteral("%1 runs again").arg(who));
            process->resume();
        });
        return;
    case T::Crash:
        if (!process || process->isCrashed())
            return;
        process->crash();
        recordFault(FT::Crash, p, 0, QStringLiteral("%1 crashed: it never releases what it holds").arg(who));
        return;
    case T::Delay: {
        if (!process)
            return;
        QSet<QString> endpoints;
        for (int server : f.servers)
            endpoints << m_run.servers->settings(server).endpoint();
        process->setDelay(f.delayMs, f.where == Scenario::Fault::Where::BeforeSend, endpoints);
        recordFault(FT::NetworkDelay, p, qint64(f.delayMs),
                    QStringLiteral("%1's network adds %2 ms %3 every command%4")
                        .arg(who)
                        .arg(f.delayMs)
                        .arg(f.where == Scenario::Fault::Where::BeforeSend ? QStringLiteral("before")
                                                                           : QStringLiteral("after"))
                        .arg(f.servers.isEmpty() ? QString() : QStringLiteral(" to some servers")));
        return;
    }
    case T::CrashAfterSetnx:
        if (process)
            process->armCrashAfterSetnx();
        return;
    case T::GetDelDelay:
        if (process)
            process->setGetDelDelay(f.delayMs, f.once);
        return;
    case T::DropNotifications:
        if (process)
            process->setDropNotifications(true);
        recordFault(FT::NetworkDelay, p, 0, QStringLiteral("%1 loses every release notification").arg(who));
        return;
    case T::ServerRestart:
        serverRestart(f.server, f.restartDelayMs > 0 ? f.restartDelayMs : m_run.scenario.servers.restartDelayMs);
        return;
    case T::ServerPause:
        serverPause(f.server, f.replica, f.durationMs);
        return;
    case T::ServerKill: {
        QString what, error;
        const qint64 downAt = m_run.clock.nowUs(); // before the kill: see serverRestart()
        if (m_run.servers->kill(f.server, &what, &error)) {
            recordFault(FT::ServerKill, -1, f.server, what);
            m_outages << QStringLiteral("server %1 killed at %2").arg(f.server).arg(seconds(downAt));
            m_injectedDownUs.append({downAt, std::numeric_limits<qint64>::max()});
        } else {
            recordFault(FT::ServerKill, -1, f.server, error);
        }
        return;
    }
    case T::Failover: {
        QString what, error;
        const qint64 downAt = m_run.clock.nowUs(); // before the master goes: see serverRestart()
        const bool ok = m_run.servers->failover(f.server, &what, &error);
        recordFault(FT::Failover, -1, f.server, ok ? what : error);
        // The old master is gone for good: what the workers see from here on is this fault's doing.
        m_injectedDownUs.append({downAt, std::numeric_limits<qint64>::max()});
        if (ok && m_run.servers->isSentinel()) {
            m_awaitingFailover = true;
            watchSentinelFailover(f.server);
        }
        return;
    }
    case T::Partition: {
        if (!process || process->isCrashed())
            return;
        QSet<QString> endpoints;
        for (int server : f.servers)
            endpoints << m_run.servers->settings(server).endpoint();
        process->setPartitioned(true, endpoints);
        recordFault(
            FT::PartitionStart, p, qint64(f.durationMs),
            QStringLiteral("%1 is cut off from %2 for %3 ms: its commands get no reply")
                .arg(who,
                     f.servers.isEmpty() ? QStringLiteral("the servers") : QStringLiteral("some servers"))
                .arg(f.durationMs));
        m_timeline.schedule(runNowUs() + qint64(f.durationMs * 1000), [this, p, process, who] {
            process->setPartitioned(false);
            recordFault(FT::PartitionEnd, p, 0, QStringLiteral("%1's network is back").arg(who));
        });
        return;
    }
    case T::ClockSkew:
    case T::Restart:
    case T::DropConnections:
        return;
    }
}

bool FaultInjector::applyNetworkFault(const Scenario::Fault &f, int p)
{
    using T = Scenario::Fault::Type;
    using FT = HistoryEvent::FaultType;
    const QList<FaultProxy *> proxies = proxiesOf(p, f.servers);
    if (proxies.isEmpty())
        return false;
    const QString who = m_processNames.value(p);
    const QString where = f.servers.isEmpty() ? QStringLiteral("the servers") : QStringLiteral("some servers");
    switch (f.type) {
    case T::Delay: {
        const FaultProxy::Direction d = f.where == Scenario::Fault::Where::BeforeSend ? FaultProxy::Direction::ToServer
                                                                                      : FaultProxy::Direction::FromServer;
        for (FaultProxy *proxy : proxies)
            proxy->setDelay(int(f.delayMs), d);
        recordFault(FT::NetworkDelay, p, qint64(f.delayMs),
                    QStringLiteral("the network between %1 and %2 adds %3 ms to every packet %4 (proxy)")
                        .arg(who, where)
                        .arg(f.delayMs)
                        .arg(d == FaultProxy::Direction::ToServer ? QStringLiteral("towards Redis")
                                                                  : QStringLiteral("back from Redis")));
        return true;
    }
    case T::Partition: {
        const FaultProxy::Direction d = f.direction == Scenario::Fault::Direction::ToServer ? FaultProxy::Direction::ToServer
            : f.direction == Scenario::Fault::Direction::FromServer                         ? FaultProxy::Direction::FromServer
                                                                                            : FaultProxy::Direction::Both;
        for (FaultProxy *proxy : proxies)
            proxy->setCut(d, true);
        recordFault(FT::PartitionStart, p, qint64(f.durationMs),
                    QStringLiteral("%1 is cut off from %2 for %3 ms (%4): %5")
                        .arg(who, where)
                        .arg(f.durationMs)
                        .arg(FaultProxy::directionName(d),
                             d == FaultProxy::Direction::FromServer
                                 ? QStringLiteral("its commands reach Redis, the replies never come back")
                                 : d == FaultProxy::Direction::ToServer ? QStringLiteral("its commands never reach Redis")
                                                                        : QStringLiteral("nothing gets through either way")));
        m_timeline.schedule(runNowUs() + qint64(f.durationMs * 1000), [this, p, proxies, d, who] {
            for (FaultProxy *proxy : proxies)
                proxy->setCut(d, false);
            recordFault(FT::PartitionEnd, p, 0, QStringLiteral("%1's network is back; what was held arrives now").arg(who));
        });
        return true;
    }
    case T::DropConnections:
        for (FaultProxy *proxy : proxies)
            proxy->dropConnections();
        recordFault(FT::ConnectionsDropped, p, 0,
                    QStringLiteral("%1's connections to %2 are reset: its client must reconnect").arg(who, where));
        return true;
    default:
        return false;
    }
}

bool FaultInjector::applyExternalFault(const Scenario::Fault &f, int p)
{
    using T = Scenario::Fault::Type;
    using FT = HistoryEvent::FaultType;
    ExternalWorker *x = p >= 0 && p < int(m_external.size()) ? m_external.at(size_t(p)) : nullptr;
    if (!x)
        return f.type == T::Pause || f.type == T::Crash || f.type == T::Restart;
    const QString who = x->name();
    switch (f.type) {
    case T::Pause:
        if (x->isCrashed() || x->isPaused())
            return true;
        x->pause();
        recordFault(FT::PauseStart, p, qint64(f.durationMs),
                    QStringLiteral("%1 (pid %2) stopped with SIGSTOP for %3 ms: the library's timers and "
                                   "connections freeze with it")
                        .arg(who)
                        .arg(x->pid())
                        .arg(f.durationMs));
        m_timeline.schedule(runNowUs() + qint64(f.durationMs * 1000),
                            [this, p, x, who, generation = x->processGeneration(), pid = x->pid()] {
            // SIGCONT goes only to the process this pause stopped, while it is our child and still stopped:
            // one killed meanwhile has nothing to resume, and its pid may be another process's by now (issue
            // 41: the log said "runs again (SIGCONT)" after a SIGKILL).
            if (x->isStopped(generation)) {
                // Recorded before it runs again, so every event of its comes after it.
                recordFault(FT::PauseEnd, p, 0,
                            QStringLiteral("%1 runs again (SIGCONT to pid %2)").arg(who).arg(pid));
                if (!x->resume(generation))
                    recordNote(p, QStringLiteral("%1 (pid %2) could not be resumed: it ended as SIGCONT was sent")
                                      .arg(who)
                                      .arg(pid));
                return;
            }
            if (x->processGeneration() != generation) {
                recordNote(p, QStringLiteral("%1 (pid %2) was killed while paused: nothing to resume; it runs as "
                                             "a new process now (pid %3)")
                                  .arg(who)
                                  .arg(pid)
                                  .arg(x->pid()));
            } else if (x->isCrashed()) {
                recordNote(p, QStringLiteral("%1 (pid %2) was killed while paused: nothing to resume")
                                  .arg(who)
                                  .arg(pid));
            } else if (!x->isProcessRunning()) {
                recordNote(p, QStringLiteral("%1 (pid %2) ended while paused (%3): nothing to resume")
                                  .arg(who)
                                  .arg(pid)
                                  .arg(x->processExit()));
            } else {
                // Alive and not stopped: the run's end resumed it before this pause was due to end (or
                // something outside sent it SIGCONT).
                recordFault(FT::PauseEnd, p, 0,
                            m_timeline.isDraining()
                                ? QStringLiteral("%1 runs again (resumed at the run's end)").arg(who)
                                : QStringLiteral("%1 runs again (it was no longer stopped)").arg(who));
            }
        });
        return true;
    case T::Crash:
        if (x->isCrashed())
            return true;
        recordFault(FT::Crash, p, 0,
                    QStringLiteral("%1 (pid %2) killed with SIGKILL: what it holds stays in Redis")
                        .arg(who)
                        .arg(x->pid()));
        x->crash();
        return true;
    case T::Restart:
        recordFault(FT::ProcessRestart, p, 0,
                    QStringLiteral("%1 starts again as a new process%2")
                        .arg(who, x->isCrashed() ? QString() : QStringLiteral(" (the old one is killed first)")));
        x->restart();
        return true;
    default:
        return false;
    }
}

void FaultInjector::serverRestart(int server, double stayDownMs)
{
    QString what, error;
    // Down from before the kill: workers see it die while crashForRestart still waits for the process to go,
    // and a failure window that opened and closed in that moment (an answer recorded late closes it) must
    // count as this outage, not as one nobody scheduled (seen once in CI on a loaded machine).
    const qint64 downAt = m_run.clock.nowUs();
    if (!m_run.servers->crashForRestart(server, &what, &error)) {
        recordFault(HistoryEvent::FaultType::ServerRestart, -1, server, error);
        return;
    }
    recordFault(HistoryEvent::FaultType::ServerRestart, -1, server,
                stayDownMs > 0 ? what + QStringLiteral(" after staying down %1 ms").arg(stayDownMs) : what);
    const auto bringBack = [this, server, downAt] {
        QString back, failure;
        const bool ok = m_run.servers->startAgain(server, &back, &failure);
        recordFault(HistoryEvent::FaultType::ServerResume, -1, server, ok ? back : failure);
        m_outages << QStringLiteral("server %1 down from %2 to %3 (restart without persistence)")
                         .arg(server)
                         .arg(seconds(downAt), seconds(m_run.clock.nowUs()));
        m_injectedDownUs.append({downAt, m_run.clock.nowUs()});
    };
    if (stayDownMs > 0)
        m_timeline.schedule(runNowUs() + qint64(stayDownMs * 1000), bringBack);
    else
        bringBack();
}

void FaultInjector::serverPause(int server, bool replica, double ms)
{
    QString what, error;
    const qint64 downAt = m_run.clock.nowUs(); // before the pause: see serverRestart()
    if (!m_run.servers->pause(server, replica, &what, &error)) {
        recordFault(HistoryEvent::FaultType::ServerPause, -1, server, error);
        return;
    }
    recordFault(HistoryEvent::FaultType::ServerPause, -1, server,
                what + QStringLiteral(" for %1 ms").arg(ms));
    m_injectedDownUs.append({downAt, m_run.clock.nowUs() + qint64(ms * 1000)});
    m_timeline.schedule(runNowUs() + qint64(ms * 1000), [this, server, replica] {
        QString resumed, failure;
        const bool ok = m_run.servers->resume(server, replica, &resumed, &failure);
        recordFault(HistoryEvent::FaultType::ServerResume, -1, server, ok ? resumed : failure);
    });
}

void FaultInjector::addOutages(RunReport *report, qint64 end) const
{
    report->outages = m_outages;
    // Workers keep failing for a moment after a scheduled outage ends (reconnects, timeouts in flight):
    // those failures belong to it.
    constexpr qint64 kRecoveryUs = 2000000;
    for (const OutageTracker::Window &w : m_run.outages.windows()) {
        const qint64 stop = w.endUs >= 0 ? w.endUs : end;
        bool scheduled = false;
        for (const auto &[from, to] : m_injectedDownUs) {
            const qint64 until = to == std::numeric_limits<qint64>::max() ? to : to + kRecoveryUs;
            scheduled = scheduled || (w.startUs <= until && stop >= from);
        }
        if (scheduled)
            continue;
        report->outages << QStringLiteral("servers unreachable from %1 %2 (%3 failed requests; first: %4)")
                               .arg(seconds(w.startUs),
                                    w.endUs >= 0 ? QStringLiteral("to ") + seconds(w.endUs)
                                                 : QStringLiteral("until the end"))
                               .arg(w.failures)
                               .arg(w.firstError);
        if (w.endUs < 0) {
            report->serverLost = true;
            report->stopReason
                = QStringLiteral("the servers stopped answering at %1 and had not come back when "
                                 "the run ended: %2")
                      .arg(seconds(w.startUs), w.firstError);
        }
    }
}
