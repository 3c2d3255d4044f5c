// ExploreTarget: the base workload by lease, and each schedule's faults in the simulator's own terms.
#include "exploretarget.h"

#include "locks/customlockscripts.h"
#include "locks/lockcatalog.h"
#include "sim/clientcatalog.h"

#include <QFileInfo>

#include <algorithm>

namespace {

Scenario::Retry::Strategy strategyFor(WaitStrategy wait)
{
    switch (wait) {
    case WaitStrategy::PubSub:
        return Scenario::Retry::Strategy::PubSub;
    case WaitStrategy::Jitter:
        return Scenario::Retry::Strategy::Jitter;
    case WaitStrategy::ExponentialBackoff:
        return Scenario::Retry::Strategy::Backoff;
    case WaitStrategy::BusySpin: // many schedules share two cores: a spinning waiter would starve the rest
    case WaitStrategy::FixedInterval:
        break;
    }
    return Scenario::Retry::Strategy::Fixed;
}

} // namespace

std::optional<ExploreTarget> ExploreTarget::make(const Options &options, QString *error)
{
    ExploreTarget t;
    t.m_options = options;
    Scenario &s = t.m_base;
    if (options.leaseMs < 20 || options.leaseMs > 600000) {
        *error = QStringLiteral("--lease %1: give a lease between 20 ms and 600000 ms").arg(options.leaseMs);
        return std::nullopt;
    }
    if (options.workers < 2 || options.workers > 8) {
        *error = QStringLiteral("--workers %1: give 2 to 8 workers (a lock needs two to contend)").arg(options.workers);
        return std::nullopt;
    }
    if (options.scenario) {
        // A scenario's algorithm, client, servers and resource; the workload is the explorer's own.
        s.algorithm = options.scenario->algorithm;
        s.client = options.scenario->client;
        s.servers = options.scenario->servers;
        s.resource = options.scenario->resource;
        s.algorithm.leaseMs = options.leaseMs;
        t.m_name = options.scenario->id.isEmpty() ? s.algorithm.id : options.scenario->id;
    } else if (options.lua) {
        // The user's own lock: nothing is known of it but its scripts, so no fault point inside its
        // operations is assumed (an acquire or release is one script: atomic), and its clocks are Redis's.
        s.algorithm.id = LockCatalog::customLuaId();
        s.algorithm.lua = options.lua;
        s.algorithm.leaseMs = options.leaseMs;
        s.algorithm.watchdog = options.watchdog.value_or(false);
        if (s.algorithm.watchdog && !options.lua->renew()) {
            *error = QStringLiteral("--watchdog renews with renew.lua, and %1 has none").arg(options.lua->directory());
            return std::nullopt;
        }
        s.algorithm.retry.strategy = Scenario::Retry::Strategy::Fixed;
        s.servers.count = 1;
        s.resource.fencedStore = options.lua->fencing();
        s.algorithm.fencing = options.lua->fencing();
        t.m_fencing = options.lua->fencing();
        // The folder's name: short, and what the user typed (the title is for people, in the story).
        t.m_name = options.lua->directory().isEmpty() ? LockCatalog::customLuaId()
                                                      : QFileInfo(options.lua->directory()).fileName();
    } else if (!options.client.isEmpty()) {
        if (!ClientCatalog::find(options.client)) {
            *error = QStringLiteral("--client %1: no shipped adapter has that name; use one of %2")
                         .arg(options.client, ClientCatalog::ids().join(QStringLiteral(", ")));
            return std::nullopt;
        }
        s.client.adapter = options.client;
        s.algorithm.leaseMs = options.leaseMs;
        t.m_name = options.client;
    } else {
        const LockAlgorithmInfo *info = LockCatalog::find(options.algorithm);
        if (!info || options.algorithm == QLatin1String("none")) {
            *error = QStringLiteral("--algorithm %1: no such algorithm; use one of %2")
                         .arg(options.algorithm, LockCatalog::ids().join(QStringLiteral(", ")));
            return std::nullopt;
        }
        s.algorithm.id = info->id;
        s.algorithm.leaseMs = options.leaseMs;
        s.algorithm.watchdog = options.watchdog.value_or(info->defaults.watchdog);
        if (s.algorithm.watchdog && !info->renewable) {
            *error = QStringLiteral("--watchdog: %1 cannot be renewed").arg(info->id);
            return std::nullopt;
        }
        s.algorithm.retry.strategy = strategyFor(info->defaults.wait);
        s.servers.count = info->multiServer ? 3 : 1;
        s.resource.fencedStore = info->fencing;
        s.algorithm.fencing = info->fencing;
        t.m_hooks = info->faults;
        t.m_fencing = info->fencing;
        t.m_clocks = info->multiServer || info->id == QLatin1String("redisson-fair");
        t.m_name = info->id;
    }
    const double lease = options.leaseMs;
    s.kind = Scenario::Kind::Workload;
    s.id = QStringLiteral("explore-") + t.m_name;
    s.algorithm.retry.intervalMs = std::max(5, options.leaseMs / 20);
    s.algorithm.acquireTimeoutMs = options.leaseMs * 4;
    s.workload.processes = options.workers;
    s.workload.threadsPerProcess = 1;
    s.workload.locks = 1;
    s.workload.operations = options.cycles;
    s.workload.criticalSection.distribution = Scenario::CriticalSection::Distribution::Fixed;
    s.workload.criticalSection.ms = options.longHolds ? lease / 2 : lease / 5;
    s.workload.thinkMs = lease / 10;
    s.workload.startStaggerMs = lease / 25;
    s.resource.counter = true;
    s.resource.counterInitial = 1000;
    if (s.client.isSet())
        s.client.replyTimeoutMs = std::max(5000, options.leaseMs * 10);
    return t;
}

QList<ScheduledFault::Type> ExploreTarget::faultsItCanMeet() const
{
    QList<ScheduledFault::Type> list;
    for (const QString &name : ScheduledFault::allTypeNames()) {
        ScheduledFault::Type type;
        if (ScheduledFault::typeFromName(name, &type) && canMeet(type))
            list << type;
    }
    return list;
}

bool ExploreTarget::canMeet(ScheduledFault::Type type) const
{
    using T = ScheduledFault::Type;
    switch (type) {
    case T::Pause:
    case T::Crash:
    case T::Delay:
    case T::Cut:
    case T::Drop:
    case T::Restart:
        return true;
    case T::Failover:
        return serverCount() == 1 && !m_base.servers.cluster && !m_base.servers.sentinel;
    case T::ClockJump:
        return m_clocks && !isClient();
    }
    return false;
}

bool ExploreTarget::hasPoint(ScheduledFault::Point point) const
{
    switch (point) {
    case ScheduledFault::Point::AtTime:
        return true;
    case ScheduledFault::Point::InsideAcquire:
        return m_hooks.contains(QStringLiteral("crashAfterSetnx"));
    case ScheduledFault::Point::InsideRelease:
        return m_hooks.contains(QStringLiteral("betweenGetAndDel"));
    }
    return false;
}

bool ExploreTarget::needsOwnServers(const FaultSchedule &schedule) const
{
    if (serverCount() > 1 || m_base.servers.cluster || m_base.servers.sentinel || m_base.servers.replicas > 0)
        return true;
    return std::any_of(schedule.faults.begin(), schedule.faults.end(),
                       [](const ScheduledFault &f) { return f.hitsServer(); });
}

QList<Scenario::Fault> ExploreTarget::scenarioFaults(const FaultSchedule &schedule) const
{
    using T = ScheduledFault::Type;
    using FT = Scenario::Fault::Type;
    QList<Scenario::Fault> list;
    for (const ScheduledFault &sf : schedule.faults) {
        Scenario::Fault f;
        f.atMs = sf.atMs;
        f.process = sf.target;
        switch (sf.type) {
        case T::Pause:
            if (sf.point == ScheduledFault::Point::InsideRelease) {
                // The releasing thread stalls between GET and DEL: as a pause there would hold it.
                f.type = FT::GetDelDelay;
                f.delayMs = sf.durationMs;
                f.once = true;
            } else {
                f.type = FT::Pause;
                f.durationMs = sf.durationMs;
            }
            break;
        case T::Crash:
            f.type = sf.point == ScheduledFault::Point::InsideAcquire ? FT::CrashAfterSetnx : FT::Crash;
            break;
        case T::Delay:
            f.type = FT::Delay;
            f.delayMs = sf.durationMs;
            break;
        case T::Drop:
            f.type = FT::DropConnections;
            break;
        case T::Cut:
            f.type = FT::Partition;
            f.durationMs = sf.durationMs;
            break;
        case T::Restart:
            f.type = FT::ServerRestart;
            f.process = -1;
            f.server = sf.target;
            break;
        case T::Failover: {
            // The replica stops receiving `durationMs` before the master dies: what the master acknowledged
            // in that window never reaches it (replication is asynchronous).
            Scenario::Fault lag;
            lag.type = FT::ServerPause;
            lag.process = -1;
            lag.server = sf.target;
            lag.replica = true;
            lag.atMs = std::max(0.0, sf.atMs - sf.durationMs);
            lag.durationMs = sf.durationMs + 60000; // the failover wakes it first
            list << lag;
            f.type = FT::Failover;
            f.process = -1;
            f.server = sf.target;
            break;
        }
        case T::ClockJump:
            f.type = FT::ClockSkew;
            f.atMs = 0;
            f.skewMs = sf.durationMs;
            break;
        }
        list << f;
    }
    return list;
}

Scenario ExploreTarget::scenarioFor(const FaultSchedule &schedule, quint64 seed, const QString &keyPrefix) const
{
    Scenario s = m_base;
    s.workload.processes = schedule.workers;
    s.workload.keyPrefix = keyPrefix;
    s.workload.seed = seed;
    s.faults = scenarioFaults(schedule);
    double faultEnd = 0;
    for (const ScheduledFault &f : schedule.faults) {
        faultEnd = std::max(faultEnd, f.atMs + (f.type == ScheduledFault::Type::Delay ? 0 : f.durationMs));
        if (f.type == ScheduledFault::Type::Failover)
            s.servers.replicas = std::max(1, s.servers.replicas);
        if (f.type == ScheduledFault::Type::Drop)
            s.servers.proxy = true;
    }
    const double lease = m_options.leaseMs;
    const double holds = schedule.workers * double(s.workload.operations)
        * (s.workload.criticalSection.ms + s.workload.thinkMs);
    // Long enough for every cycle, the faults, a lock left to expire and the waiters' timeouts behind it.
    s.workload.durationS = (faultEnd + holds * 2 + lease * 6) / 1000.0;
    return s;
}
