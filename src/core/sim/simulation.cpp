// Simulation: the controller thread of one run.
#include "simulation.h"

#include "clientcatalog.h"
#include "externalworker.h"
#include "faultinjector.h"
#include "runcontext.h"
#include "simulatedprocess.h"
#include "simulationservers.h"
#include "simulationworker.h"
#include "storydirector.h"
#include "storysnapshotter.h"

#include "inspect/lockscanjob.h"
#include "locks/connectionpool.h"
#include "locks/customlockscripts.h"
#include "locks/lockcatalog.h"
#include "logging.h"
#include "redis/clusterconnection.h"
#include "redis/fiberscheduler.h"
#include "redis/redisconnection.h"
#include "redis/serverinfo.h"
#include "scenarioparser.h"

#include <QTemporaryDir>
#include <QThread>

#include <algorithm>

#include <sys/resource.h>

namespace {

WaitStrategy waitFor(Scenario::Retry::Strategy s)
{
    switch (s) {
    case Scenario::Retry::Strategy::Spin:
        return WaitStrategy::BusySpin;
    case Scenario::Retry::Strategy::Fixed:
        return WaitStrategy::FixedInterval;
    case Scenario::Retry::Strategy::Jitter:
        return WaitStrategy::Jitter;
    case Scenario::Retry::Strategy::Backoff:
        return WaitStrategy::ExponentialBackoff;
    case Scenario::Retry::Strategy::PubSub:
        return WaitStrategy::PubSub;
    }
    return WaitStrategy::FixedInterval;
}

LockOptions lockOptionsFor(const Scenario &s)
{
    const LockAlgorithmInfo *info = LockCatalog::find(s.algorithm.id);
    LockOptions o = info ? info->defaults : LockOptions();
    o.leaseMs = s.algorithm.leaseMs;
    o.watchdog = s.algorithm.watchdog;
    o.watchdogPeriodMs = s.algorithm.watchdogPeriodMs;
    o.acquireTimeoutMs = s.algorithm.acquireTimeoutMs;
    o.wait = waitFor(s.algorithm.retry.strategy);
    o.retryIntervalMs = s.algorithm.retry.intervalMs;
    o.retryJitterMs = s.algorithm.retry.jitterMs;
    o.backoffMaxMs = s.algorithm.retry.maxMs;
    o.clock = s.algorithm.clock == Scenario::Algorithm::Clock::Cached5ms ? LockClock::Source::Cached
                                                                         : LockClock::Source::Monotonic;
    o.seed = s.workload.seed;
    o.customScripts = s.algorithm.lua;
    return o;
}

bool needsSandbox(const Scenario &s, bool givenIsSandbox, QString *why)
{
    if (s.algorithm.lua && !s.client.isSet() && !givenIsSandbox) {
        *why = QStringLiteral("it runs your own Lua, which may loop forever: only a sandbox runs it");
        return true;
    }
    if (s.servers.count > 1) {
        *why = QStringLiteral("it needs %1 independent servers").arg(s.servers.count);
        return true;
    }
    if (s.servers.replicas > 0) {
        *why = QStringLiteral("it needs a replica to fail over to");
        return true;
    }
    for (const Scenario::Fault &f : s.faults) {
        if (f.type == Scenario::Fault::Type::ServerRestart || f.type == Scenario::Fault::Type::ServerPause
            || f.type == Scenario::Fault::Type::ServerKill || f.type == Scenario::Fault::Type::Failover) {
            *why = QStringLiteral("it restarts, pauses or kills servers");
            return true;
        }
    }
    for (const Scenario::Step &st : s.story.steps) {
        using A = Scenario::Step::Action;
        if (st.action == A::ServerRestart || st.action == A::ServerPause || st.action == A::ServerKill
            || st.action == A::Failover) {
            *why = QStringLiteral("its story restarts, pauses or kills servers");
            return true;
        }
    }
    return false;
}

// Commands on the run's own keys from the controller thread: on a cluster each goes to its key's master,
// otherwise to the one server of the settings.
class KeyAdmin
{
public:
    explicit KeyAdmin(ConnectionSettings settings)
    {
        settings.clientName = QStringLiteral("lockscope-sim-admin");
        if (settings.cluster)
            m_cluster = std::make_unique<ClusterConnection>(settings);
        else
            m_single = std::make_unique<RedisConnection>(settings);
    }
    RedisError open() { return m_cluster ? m_cluster->open() : m_single->open(); }
    bool isCluster() const { return m_cluster != nullptr; }
    RedisResult command(const RedisCommand &args)
    {
        return m_cluster ? m_cluster->command(args) : m_single->command(args);
    }
    // DEL of `keys`: one command on a server, one per key on a cluster (keys of different slots).
    RedisError remove(const QList<QByteArray> &keys)
    {
        if (keys.isEmpty())
            return {};
        if (!m_cluster)
            return m_single->command(RedisCommand {"DEL"} + keys).error;
        for (const QByteArray &key : keys) {
            if (const RedisResult r = m_cluster->command({"DEL", key}); !r.ok())
                return r.error;
        }
        return {};
    }

private:
    std::unique_ptr<ClusterConnection> m_cluster;
    std::unique_ptr<RedisConnection> m_single;
};

} // namespace

Simulation::Simulation(const Scenario &scenario)
    : Simulation(scenario, Options())
{
}

Simulation::Simulation(const Scenario &scenario, const Options &options)
    : m_scenario(scenario)
    , m_options(options)
{
    if (options.seed)
        m_scenario.workload.seed = *options.seed;
    if (options.durationS)
        m_scenario.workload.durationS = *options.durationS;
}

Simulation::~Simulation()
{
    requestStop();
    if (m_thread.joinable())
        m_thread.join();
}

void Simulation::start()
{
    State expected = State::Idle;
    if (!m_state.compare_exchange_strong(expected, State::Starting))
        return;
    m_thread = std::thread([this] { run(); });
}

void Simulation::requestStop()
{
    {
        std::lock_guard lock(m_mutex);
        m_stopRequested = true;
    }
    m_wake.notify_all();
}

bool Simulation::waitFinished(int timeoutMs)
{
    std::unique_lock lock(m_mutex);
    const auto done = [this] { return isFinished(); };
    if (timeoutMs < 0) {
        m_wake.wait(lock, done);
        return true;
    }
    return m_wake.wait_for(lock, std::chrono::milliseconds(timeoutMs), done);
}

QString Simulation::errorString() const
{
    std::lock_guard lock(m_mutex);
    return m_error;
}

const EventHistory *Simulation::history() const
{
    const State s = state();
    return s == State::Idle || s == State::Starting ? nullptr : m_history.get();
}

QString Simulation::serverDescription() const
{
    return m_servers ? m_servers->describe() : QString();
}

bool Simulation::decidePubSubChannels(QString *error)
{
    const Scenario::Retry::Channels asked = m_scenario.algorithm.retry.channels;
    m_shardedPubSub = false;
    if (asked == Scenario::Retry::Channels::Classic
        || (asked == Scenario::Retry::Channels::Auto && !m_servers->isCluster()))
        return true;
    // Sharded pub/sub came with Redis 7: ask the (seed) server which it runs.
    ConnectionSettings seed = m_servers->settings(0);
    seed.cluster = false;
    RedisConnection c(seed);
    RedisError e = c.open();
    const ServerInfo info = e ? ServerInfo() : ServerInfo::fetch(c, &e);
    const int major = info.version.section(u'.', 0, 0).toInt();
    if (asked == Scenario::Retry::Channels::Sharded && major < 7) {
        *error = QStringLiteral("algorithm.retry.pubsub: sharded pub/sub needs Redis 7 or later, and %1 %2")
                     .arg(seed.endpoint(),
                          info.version.isEmpty()
                              ? QStringLiteral("did not say its version (%1)").arg(e.message())
                              : QStringLiteral("runs %1").arg(info.version));
        return false;
    }
    m_shardedPubSub = major >= 7; // auto on a cluster: what Redisson >= 3.22 does there
    return true;
}

ConnectionSettings Simulation::serverSettings(int server) const
{
    return m_servers ? m_servers->settings(server) : ConnectionSettings();
}

QList<StorySnapshot> Simulation::storySnapshots() const
{
    // m_snapshotter is set and reset under m_mutex; the snapshotter never takes m_mutex itself.
    std::lock_guard lock(m_mutex);
    return m_snapshotter ? m_snapshotter->snapshots() : m_snapshotsKept;
}

qint64 Simulation::elapsedUs() const
{
    const qint64 end = m_endUs.load();
    if (end >= 0)
        return end;
    // The state first: setup() creates m_run on the controller thread before the state says Running, and
    // another thread (the GUI's, a test's) may ask meanwhile.
    const State s = state();
    return (s == State::Running || s == State::Stopping) && m_run ? m_run->clock.nowUs() : 0;
}

double Simulation::progress() const
{
    if (isFinished())
        return 1.0;
    if (state() == State::Idle || state() == State::Starting)
        return 0.0; // nothing has run yet (and m_plannedUs is being set)
    return m_plannedUs > 0 ? std::clamp(double(elapsedUs()) / double(m_plannedUs), 0.0, 1.0) : 0.0;
}

RunReport Simulation::report() const
{
    std::lock_guard lock(m_mutex);
    return m_report;
}

qint64 Simulation::runNowUs() const
{
    return m_run->clock.nowUs();
}

void Simulation::run()
{
    QString error;
    if (!setup(&error)) {
        teardown();
        {
            std::lock_guard lock(m_mutex);
            m_error = error;
            m_state = State::Failed;
        }
        m_wake.notify_all();
        return;
    }
    loop();
    finish();
    collect();
    teardown();
    {
        std::lock_guard lock(m_mutex);
        m_state = State::Finished;
    }
    m_wake.notify_all();
}

bool Simulation::setup(QString *error)
{
    const Scenario &s = m_scenario;
    m_run = std::make_unique<RunContext>();
    m_run->scenario = s;
    m_run->noLock = s.algorithm.id == QLatin1String("none");
    if (s.workload.engine == Scenario::Workload::Engine::Events && !s.client.isSet())
        startEventLoops();
    // With a client the library is the algorithm: algorithm.id is not used, and its options are the
    // library's to accept or refuse (lease_ms 0 is a lock without expiry for an adapter announcing no_lease).
    if (!m_run->noLock && !s.client.isSet()) {
        const LockAlgorithmInfo *info = LockCatalog::find(s.algorithm.id);
        if (!info) {
            *error = QStringLiteral("unknown algorithm '%1'").arg(s.algorithm.id);
            return false;
        }
        m_run->lockOptions = lockOptionsFor(s);
        const QString problem = LockCatalog::check(*info, m_run->lockOptions);
        if (!problem.isEmpty()) {
            *error = QStringLiteral("%1 cannot run with these options: %2").arg(s.algorithm.id, problem);
            return false;
        }
        if (info->multiServer && s.algorithm.poolSize > 0) {
            *error = QStringLiteral("a connection pool is not supported with %1 (it talks to every server)")
                         .arg(s.algorithm.id);
            return false;
        }
    }

    // Servers: sandboxes unless the caller gave one (and the scenario can run on it).
    SimulationServers::Options so;
    so.masters = s.servers.count;
    so.replicas = s.servers.replicas;
    so.keyspaceEvents = s.servers.keyspaceEvents;
    so.cluster = s.servers.cluster;
    so.sentinel = s.servers.sentinel;
    QString why;
    if (m_options.server) {
        // On a cluster, what a cluster cannot do comes first (Redlock there is a mistake, not a lack of
        // sandboxes).
        if (m_options.server->cluster) {
            const QStringList problems = ScenarioParser::clusterProblems(s);
            if (!problems.isEmpty()) {
                *error = QStringLiteral("%1 cannot run on the cluster %2: %3")
                             .arg(s.id, m_options.server->endpoint(), problems.join(QStringLiteral("; ")));
                return false;
            }
        } else if (s.servers.cluster) {
            *error
                = QStringLiteral("%1 runs on a Redis Cluster (servers.cluster), and %2 is a single server: "
                                 "give a cluster node with --cluster, or run it on the sandbox.")
                      .arg(s.id, m_options.server->endpoint());
            return false;
        }
        if (needsSandbox(s, m_options.serverIsSandbox, &why)) {
            *error
                = QStringLiteral("%1 cannot run on a server you gave: %2. Run it on the sandbox (--sandbox).")
                      .arg(s.id, why);
            return false;
        }
        if (m_options.server->readOnly) {
            *error = QStringLiteral(
                         "the simulator writes lock keys and a counter to the server, but the connection to "
                         "%1 is "
                         "read-only. Reconnect with writes allowed (--read-write), or run on the sandbox.")
                         .arg(m_options.server->endpoint());
            return false;
        }
        so.given = m_options.server;
    } else if (s.servers.mode == Scenario::Servers::Mode::Given) {
        *error = QStringLiteral("%1 runs on a server you give (connection options), not on the sandbox")
                     .arg(s.id);
        return false;
    }
    m_servers = std::make_unique<SimulationServers>();
    if (!m_servers->start(so, error))
        return false;
    m_run->servers = m_servers.get();
    m_faults = std::make_unique<FaultInjector>(*m_run, m_timeline, m_processes, m_external, m_processNames);
    if (s.usesProxy() && !m_faults->startProxies(error))
        return false;
    PersistentErrorTracker::Policy errorPolicy;
    errorPolicy.readOnlyIsTransient = m_servers->settings(0).sentinel.enabled(); // until a failover is found
    m_run->persistentErrors.setPolicy(errorPolicy);

    if (!decidePubSubChannels(error))
        return false;

    // Keys: everything under the scenario's prefix, so a run on a given server touches nothing else.
    const int locks = s.lockCount();
    for (int i = 0; i < locks; ++i) {
        const QByteArray key = s.workload.keyPrefix.toUtf8()
            + (s.kind == Scenario::Kind::Story ? QByteArray("lock") : "lock:" + QByteArray::number(i));
        m_run->lockKeys << key;
        m_lockNames << QString::fromUtf8(key);
        if (s.resource.counter)
            m_run->counterKeys << s.workload.keyPrefix.toUtf8()
                    + (s.resource.fencedStore ? "store:" : "counter:") + QByteArray::number(i);
    }

    // Clean slate on every server: the lock keys with their companions, and the counters.
    if (!clearKeys(error))
        return false;
    if (s.algorithm.lua && !s.client.isSet() && !checkCustomLua(error))
        return false;

    // Processes, each with its clock (clock-skew faults apply from the start) and its watchdog log.
    const int processes = s.processCount();
    const int workers = s.workerCount();
    m_run->workerLogs = m_run->eventLoops.isEmpty() ? workers : int(m_run->eventLoops.size());
    std::vector<qsizetype> capacities(size_t(m_run->workerLogs), 0);
    for (int w = 0; w < workers; ++w) // a shared log holds as much as its writers' own logs would
        capacities[size_t(m_run->workerLog(w))] += m_options.historyCapacityPerLog;
    capacities.resize(size_t(m_run->processLog(processes)) + 1, m_options.historyCapacityPerLog);
    m_history = std::make_unique<EventHistory>(capacities);
    m_history->setRecording(m_options.recordHistory);
    m_run->history = m_history.get();
    for (int p = 0; p < processes; ++p) {
        SimulatedProcess::Options po;
        po.index = p;
        po.name = s.kind == Scenario::Kind::Story ? s.story.actors.at(p) : QStringLiteral("P%1").arg(p + 1);
        if (!m_run->eventLoops.isEmpty())
            po.eventLoop = m_run->eventLoops.at(p % m_run->eventLoops.size());
        po.shardedPubSub = m_shardedPubSub;
        for (const Scenario::Fault &f : s.faults) {
            if (f.type == Scenario::Fault::Type::Delay && !f.servers.isEmpty())
                po.perServerDelays = true;
            if (f.type == Scenario::Fault::Type::Partition)
                po.partitions = true;
            if (f.type == Scenario::Fault::Type::ClockSkew && (f.process < 0 || f.process == p)) {
                po.clockRate = f.rate;
                po.clockOffsetMs = qint64(f.skewMs);
            }
        }
        for (const Scenario::Step &st : s.story.steps)
            po.partitions = po.partitions || st.action == Scenario::Step::Action::Partition;
        m_processNames << po.name;
        auto process = std::make_unique<SimulatedProcess>(po);
        const int log = m_run->processLog(p);
        EventHistory *history = m_history.get();
        RunContext *run = m_run.get();
        QHash<QByteArray, int> lockIndex;
        for (int i = 0; i < m_run->lockKeys.size(); ++i)
            lockIndex.insert(m_run->lockKeys.at(i), i);
        // Renewals happen on the process's watchdog thread: they go to the process's own log.
        process->client().watchdog().setObserver([history, run, log, p, lockIndex](const RenewalEvent &r) {
            if (r.outcome == RenewalEvent::Outcome::Skipped)
                return;
            static thread_local qint64 op = 0;
            HistoryEvent e;
            e.opId = ++op;
            e.worker = int(r.threadId) - 1;
            e.process = p;
            e.lock = lockIndex.value(r.key, -1);
            e.kind = HistoryEvent::Kind::Renew;
            e.phase = HistoryEvent::Phase::Invoke;
            e.value = r.leaseMs;
            e.timeUs = run->clock.fromMonotonicUs(r.startUs);
            history->record(log, e);
            e.phase = r.outcome == RenewalEvent::Outcome::Renewed ? HistoryEvent::Phase::Ok
                : r.outcome == RenewalEvent::Outcome::Lost        ? HistoryEvent::Phase::Fail
                                                                  : HistoryEvent::Phase::Info;
            e.timeUs = run->clock.fromMonotonicUs(r.endUs);
            e.commands = quint16(r.commands);
            run->commands.fetch_add(e.commands, std::memory_order_relaxed);
            if (r.error)
                e.detail = history->addText(log, r.error.message().toUtf8());
            history->record(log, e);
        });
        m_processes.push_back(std::move(process));
        if (s.algorithm.poolSize > 0 && !m_run->noLock) {
            ConnectionPool::Options pool;
            pool.maxTotal = s.algorithm.poolSize;
            pool.maxIdle = s.algorithm.poolSize;
            m_pools.push_back(std::make_unique<ConnectionPool>(m_run->serverSettings(p, 0), pool));
        }
    }

    if (s.client.isSet() && !prepareClients(error))
        return false;
    // Workers: a story's actors each in a process of their own; a workload's threads by process.
    for (int w = 0; w < workers && !s.client.isSet(); ++w) {
        const int p = s.kind == Scenario::Kind::Story ? w : w / s.workload.threadsPerProcess;
        const QString name = s.kind == Scenario::Kind::Story
            ? s.story.actors.at(w)
            : QStringLiteral("P%1-T%2").arg(p + 1).arg(w % s.workload.threadsPerProcess + 1);
        m_workerNames << name;
        m_workerProcesses << p;
        ConnectionPool *pool = m_pools.empty() ? nullptr : m_pools.at(size_t(p)).get();
        auto worker = std::make_unique<SimulationWorker>(w, name, *m_processes.at(size_t(p)), *m_run, pool);
        if (!worker->prepare(error))
            return false;
        m_workers.push_back(std::move(worker));
    }
    for (const auto &worker : m_workers)
        worker->start();

    if (s.kind == Scenario::Kind::Story) {
        double last = 0;
        for (const Scenario::Step &st : s.story.steps)
            last = std::max(last, st.atMs + st.ms);
        m_plannedUs = qint64((last + 1000) * 1000);
    } else {
        m_plannedUs = qint64(s.workload.durationS * 1e6);
    }
    m_run->clock.restart();
    if (s.kind == Scenario::Kind::Story && m_options.storySnapshots) {
        SimulationServers *servers = m_servers.get();
        // An external library names its key its own way around the lock's name ("mutex:" + name): found by
        // SCAN at each reading, so that the Step tab shows the key the library really holds.
        const QByteArray libraryKeys = s.client.isSet() && !m_run->lockKeys.isEmpty()
            ? '*' + m_run->lockKeys.first() + '*'
            : QByteArray();
        auto snapshotter = std::make_unique<StorySnapshotter>(
            servers->count(), [servers](int server) { return servers->settings(server); }, m_storyKeys,
            m_run->counterKeys, m_run->clock, libraryKeys);
        std::lock_guard lock(m_mutex);
        m_snapshotter = std::move(snapshotter);
    }
    m_state = State::Running;
    m_faults->scheduleFaults();
    if (s.kind == Scenario::Kind::Story) {
        m_story = std::make_unique<StoryDirector>(m_scenario, m_timeline, *m_faults, m_workers);
        m_story->setSnapshotter(m_snapshotter.get());
        m_story->scheduleSteps();
    }
    m_run->releaseGo();
    return true;
}

// One process per worker, each running the scenario's client: a shipped adapter (unpacked, its library
// installed on first use) or the command the scenario gives.
bool Simulation::prepareClients(QString *error)
{
    const Scenario &s = m_scenario;
    ExternalClient::Launch launch;
    if (!s.client.adapter.isEmpty()) {
        const ClientCatalog::Adapter *adapter = ClientCatalog::find(s.client.adapter);
        if (!adapter) {
            *error = QStringLiteral("no shipped client adapter is called %1").arg(s.client.adapter);
            return false;
        }
        if (!ClientCatalog::prepare(*adapter, &launch, error,
                                    [](const QString &message) { qCInfo(lcSim).noquote() << message; }))
            return false;
    } else {
        launch.argv = s.client.command;
    }
    m_clientLogs = std::make_unique<QTemporaryDir>(QDir::tempPath() + QStringLiteral("/lockscope-clients-XXXXXX"));
    const int workers = s.workerCount();
    for (int w = 0; w < workers; ++w) {
        // Each process reaches each server through its own proxy, so network faults hit only it.
        QList<ExternalWorker::Endpoint> servers;
        for (int i = 0; i < m_servers->count(); ++i) {
            const ConnectionSettings settings = m_run->serverSettings(w, i);
            servers.append({settings.host, settings.port});
        }
        const QString name = s.kind == Scenario::Kind::Story ? s.story.actors.at(w) : QStringLiteral("P%1").arg(w + 1);
        ExternalClient::Launch mine = launch;
        mine.logFile = m_clientLogs->filePath(name + QStringLiteral(".stderr.log"));
        m_workerNames << name;
        m_workerProcesses << w;
        auto worker
            = std::make_unique<ExternalWorker>(w, name, w, *m_run, mine, servers, m_run->processLog(w));
        if (!worker->launch(error))
            return false;
        m_external.push_back(worker.get());
        m_workers.push_back(std::move(worker));
    }
    // Every process started, then each says hello: a JVM or an interpreter takes seconds to load, side by
    // side rather than one after the other. The run's clock starts after the last hello (setup()).
    for (ExternalWorker *worker : m_external) {
        if (!worker->prepare(error))
            return false;
    }
    return true;
}

QList<RunReport::ClientWorker> Simulation::clientWorkers() const
{
    QList<RunReport::ClientWorker> list;
    if (state() == State::Idle || state() == State::Starting)
        return list;
    for (const ExternalWorker *x : m_external) {
        const ExternalWorker::Announcement a = x->announcement();
        list.append({x->name(), a.library, a.version, a.pids, x->stderrTail()});
    }
    return list;
}

bool Simulation::checkCustomLua(QString *error)
{
    // Before a worker runs it: a syntax error named at its line, a script that loops stopped and said so.
    for (int server = 0; server < m_servers->count(); ++server) {
        ConnectionSettings settings = m_servers->settings(server);
        settings.readOnly = false;
        RedisConnection connection(settings);
        if (const RedisError e = connection.open()) {
            *error = QStringLiteral("cannot check your Lua on %1: %2").arg(settings.endpoint(), e.message());
            return false;
        }
        const CustomLockScripts::Problem problem = m_scenario.algorithm.lua->check(connection);
        if (problem.isSet()) {
            *error = QStringLiteral("your lock cannot run: %1").arg(problem.text());
            return false;
        }
    }
    return true;
}

bool Simulation::clearKeys(QString *error)
{
    const Scenario &s = m_scenario;
    QList<QByteArray> keys;
    LockClient scratchClient;
    for (const QByteArray &key : m_run->lockKeys) {
        std::unique_ptr<DistributedLock> probe;
        if (!m_run->noLock && !s.client.isSet()) // a library's keys are its own: the lock's name is cleared
            probe = LockCatalog::create(s.algorithm.id, scratchClient, key, 1, m_run->lockOptions);
        keys << (probe ? probe->keys() : QList<QByteArray> {key});
    }
    m_storyKeys = keys;
    keys << m_run->counterKeys;
    for (int server = 0; server < m_servers->count(); ++server) {
        KeyAdmin admin(m_servers->settings(server));
        const QString where = m_servers->settings(server).endpoint();
        if (const RedisError e = admin.open()) {
            *error = QStringLiteral("cannot connect to %1: %2").arg(where, e.message());
            return false;
        }
        if (const RedisError e = admin.remove(keys)) {
            *error = QStringLiteral("cannot clear the run's keys on %1: %2").arg(where, e.message());
            return false;
        }
        if (server > 0)
            continue; // the counters live on server 0 (or, on a cluster, on their slots' masters)
        for (const QByteArray &key : m_run->counterKeys) {
            const QByteArray initial = QByteArray::number(s.resource.counterInitial);
            const RedisResult r = s.resource.fencedStore
                ? admin.command({"HSET", key, "value", initial, "fence", "0"})
                : admin.command({"SET", key, initial});
            if (!r.ok()) {
                *error = QStringLiteral("cannot set the counter %1: %2")
                             .arg(QString::fromUtf8(key), r.error.message());
                return false;
            }
        }
    }
    return true;
}

void Simulation::loop()
{
    const bool story = m_scenario.kind == Scenario::Kind::Story;
    const qint64 durationUs = qint64(m_scenario.workload.durationS * 1e6);
    // A story ends when its steps are done and every actor is idle; this caps it if an actor never is.
    qint64 storyCapUs = 0;
    if (story) {
        double last = 0;
        for (const Scenario::Step &st : m_scenario.story.steps)
            last = std::max(last, st.atMs);
        storyCapUs = qint64((last + m_scenario.algorithm.acquireTimeoutMs + 5000) * 1000);
    }
    qint64 nextTickUs = 100000;
    qint64 doneSinceUs = -1;
    for (;;) {
        const qint64 now = runNowUs();
        m_timeline.runDue(now);
        m_faults->followServerAddresses();
        if (now >= nextTickUs) {
            m_faults->injectChanceFaults(); // `probability` is the chance per second, checked every 100 ms
            nextTickUs += 100000;
        }
        bool stop = false;
        {
            std::lock_guard lock(m_mutex);
            stop = m_stopRequested;
        }
        if (stop || m_run->persistentErrors.hasGivenUp()) // the report says why (collect())
            return;
        if (story) {
            if (m_story->isDone()) {
                if (doneSinceUs < 0)
                    doneSinceUs = now;
                if (now - doneSinceUs >= 500000) // a moment of aftermath on the timeline
                    return;
            } else {
                doneSinceUs = -1;
            }
            if (now >= storyCapUs)
                return;
        } else {
            if (now >= durationUs)
                return;
            if (m_scenario.workload.operations > 0) {
                bool allIdle = true;
                for (const auto &w : m_workers)
                    allIdle = allIdle && w->isIdle();
                if (allIdle)
                    return;
            }
        }
        qint64 wakeUs = nextTickUs;
        if (!m_timeline.isEmpty())
            wakeUs = std::min(wakeUs, m_timeline.nextDueUs());
        wakeUs = std::min(wakeUs, now + 20000); // look at the workers at least every 20 ms
        std::unique_lock lock(m_mutex);
        m_wake.wait_for(lock, std::chrono::microseconds(std::max<qint64>(0, wakeUs - now)),
                        [this] { return m_stopRequested; });
    }
}

void Simulation::finish()
{
    m_state = State::Stopping;
    const qint64 stoppedAt = m_run->clock.nowUs();
    if (m_snapshotter) {
        // The story's end as it stands, before the workers let go of anything.
        m_snapshotter->request(-1);
        m_snapshotter->waitIdle(5000);
        m_story->setSnapshotter(nullptr);
        std::unique_ptr<StorySnapshotter> done;
        {
            std::lock_guard lock(m_mutex);
            m_snapshotsKept = m_snapshotter->snapshots();
            done = std::move(m_snapshotter);
        }
        done.reset(); // before the servers go: it reads them
    }
    // Workload: no new cycle starts; waits end; cycles in progress finish (bounded by a grace period).
    m_run->stopping = true;
    for (ExternalWorker *x : m_external)
        x->resume(); // a paused adapter answers what it owes, as a paused thread of ours does
    for (const auto &p : m_processes)
        p->client().stop();
    for (const auto &w : m_workers)
        w->finish();
    const auto graceEnd = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    for (;;) {
        bool allIdle = true;
        for (const auto &w : m_workers)
            allIdle = allIdle && w->isIdle();
        if (allIdle || std::chrono::steady_clock::now() >= graceEnd)
            break;
        std::this_thread::sleep_for(std::chrono::milliseconds(2)); // polling idle flags of threads we stop
    }
    for (const auto &p : m_processes) {
        p->resume();
        p->stop();
    }
    for (const auto &w : m_workers)
        w->interruptConnections();
    for (const auto &w : m_workers)
        w->join();
    for (ExternalWorker *x : m_external)
        x->close(); // end of input: the adapter exits (killed if it does not within 2 s)
    // Pending server resumes and restarts still run, so no sandbox stays frozen or down.
    m_timeline.drain();
    m_endUs = m_scenario.kind == Scenario::Kind::Story ? m_run->clock.nowUs() : stoppedAt;
}

void Simulation::collect()
{
    RunReport report;
    report.scenario = m_scenario.id;
    report.title = m_scenario.title;
    report.algorithm = m_scenario.client.isSet() ? m_scenario.client.name() : m_scenario.algorithm.id;
    report.seed = m_scenario.workload.seed;
    report.server = serverDescription();
    if (m_scenario.algorithm.retry.strategy == Scenario::Retry::Strategy::PubSub && !m_scenario.client.isSet())
        report.pubSub = m_shardedPubSub ? QStringLiteral("sharded") : QStringLiteral("classic");
    report.servers = m_servers->count();
    report.failedRounds = m_run->failedRounds.load();
    report.countedCycles = m_run->cycles.load();
    report.countedCommands = m_run->commands.load();
    m_faults->addOutages(&report, m_endUs.load());
    if (const auto refused = m_run->persistentErrors.failure())
        report.setPersistentError(*refused);

    // Read the counters and look for keys left without a TTL (server 0 holds the data).
    QHash<int, SafetyChecker::Counter> counters;
    KeyAdmin admin(m_servers->settings(0));
    const bool reachable = !admin.open();
    for (int i = 0; i < m_run->counterKeys.size(); ++i) {
        SafetyChecker::Counter counter;
        counter.initial = m_scenario.resource.counterInitial;
        if (reachable) {
            const RedisResult r = m_scenario.resource.fencedStore
                ? admin.command({"HGET", m_run->counterKeys.at(i), "value"})
                : admin.command({"GET", m_run->counterKeys.at(i)});
            bool ok = false;
            counter.final = r.reply.bytes().toLongLong(&ok);
            counter.observed = r.ok() && ok;
        }
        counters.insert(i, counter);
    }
    if (!m_run->counterKeys.isEmpty())
        report.counterKey = QString::fromUtf8(m_run->counterKeys.first());
    report.counters = int(m_run->counterKeys.size());
    for (int server = 0; server < m_servers->count() && !m_scenario.client.isSet(); ++server) {
        KeyAdmin probe(m_servers->settings(server));
        if (probe.open())
            continue;
        for (const QByteArray &key : m_run->lockKeys) {
            if (probe.command({"PTTL", key}).reply.toInteger() == -1)
                ++report.locksWithoutTtl;
        }
    }

    if (m_scenario.client.isSet())
        findStuckClientLocks(&report);
    report.clients = clientWorkers();
    // A command of the user's: the library is what its adapter said it is, not the program's name.
    if (!m_scenario.client.command.isEmpty() && !report.clients.isEmpty() && !report.clients.first().library.isEmpty())
        report.algorithm = report.clients.first().library;

    const QList<HistoryEvent> events = m_history->events();
    const qint64 end = m_endUs.load();
    for (const HistoryEvent &e : events) {
        if (e.phase == HistoryEvent::Phase::Info && e.kind != HistoryEvent::Kind::Renew)
            ++report.unknownOutcomes;
    }
    const qint64 bucket = std::max<qint64>(100000, end / 60);
    report.metrics = RunMetrics::compute(events, int(m_workers.size()), end, bucket);
    SafetyChecker::Input in;
    in.events = events;
    in.workerNames = m_workerNames;
    in.lockNames = m_lockNames;
    in.endUs = end;
    in.counters = counters;
    report.safety = SafetyChecker::check(in);
    report.historyEvents = m_history->size();
    report.historyDropped = m_history->dropped();
    {
        std::lock_guard lock(m_mutex);
        if (m_stopRequested)
            report.stopReason = QStringLiteral("stopped before the planned end");
        m_report = report;
    }
}

// A library names its keys its own way ("mutex:" + name, "{name}:lock"…): the Inspector's own scan of every
// key that contains the scenario's prefix says which locks were left to never expire (its no-ttl).
void Simulation::findStuckClientLocks(RunReport *report) const
{
    ScanOptions options;
    options.patterns = {'*' + m_scenario.workload.keyPrefix.toUtf8() + '*'};
    for (int server = 0; server < m_servers->count(); ++server) {
        RedisConnection c(m_servers->settings(server));
        if (c.open())
            continue;
        LockScanJob job(c, options);
        while (!job.atEnd()) {
            for (const LockRecord &lock : job.nextPage()) {
                for (const LockDiagnosis &d : lock.diagnoses) {
                    if (d.code != QLatin1String("no-ttl"))
                        continue;
                    ++report->locksWithoutTtl;
                    report->stuckKeys << QString::fromUtf8(lock.key) + QStringLiteral(" (") + (lock.library.isEmpty() ? lock.formatName : lock.library) + u')';
                }
            }
        }
    }
}
void Simulation::startEventLoops()
{
    // A connection per worker: thousands of sockets, beyond the usual soft limit of 1,024 open files. The
    // hard limit is the user's to give; the soft one is ours to raise, before the sandboxes start (they
    // inherit it, and redis-server sizes its maxclients by it).
    rlimit files {};
    if (getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur < files.rlim_max) {
        files.rlim_cur = files.rlim_max;
        setrlimit(RLIMIT_NOFILE, &files);
    }
    const int workers = m_scenario.kind == Scenario::Kind::Story
        ? int(m_scenario.story.actors.size())
        : m_scenario.workload.processes * m_scenario.workload.threadsPerProcess;
    // One loop per core, except one core left to the Redis server when it runs on this machine (sandboxes
    // always do): the loops are busy-bound, and a loop that takes the server's core slows every worker. On
    // two cores, 8 workers on one loop made 1.2x the cycles of the same workers on two (bench/run uncontended).
    // Never more loops than workers.
    const bool serverHere = !m_options.server || m_options.server->onThisMachine();
    const int cores = QThread::idealThreadCount() - (serverHere ? 1 : 0);
    const int loops = std::clamp(cores, 1, std::max(1, workers));
    for (int i = 0; i < loops; ++i) {
        m_eventLoops.push_back(std::make_unique<FiberScheduler>(QStringLiteral("events %1").arg(i + 1)));
        m_run->eventLoops.append(m_eventLoops.back().get());
    }
}

void Simulation::teardown()
{
    if (m_run)
        m_run->stopping = true;
    for (const auto &p : m_processes) {
        p->resume();
        p->stop();
    }
    for (const auto &w : m_workers)
        w->interruptConnections();
    m_external.clear();
    m_workers.clear(); // joins the threads and closes their connections (external adapters are killed)
    if (m_run)
        m_run->eventLoops.clear();
    m_eventLoops.clear(); // every fiber has ended with its worker
    if (m_faults)
        m_faults->closeProxies(); // after the workers: nothing of theirs goes through a proxy any more
    m_pools.clear();
    m_processes.clear(); // stops the watchdogs and listeners
    // The servers stay until the Simulation goes: the GUI may look at them after the run.
}
