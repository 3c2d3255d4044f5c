// SimulationWorker: the worker loop and the recording of every operation.
#include "simulationworker.h"

#include "simulatedprocess.h"

#include "locks/connectionpool.h"
#include "locks/fencedresource.h"
#include "locks/lockcatalog.h"
#include "redis/clusterconnection.h"
#include "redis/fiberscheduler.h"

#include <algorithm>
#include <optional>

using Kind = HistoryEvent::Kind;
using Phase = HistoryEvent::Phase;
using Operation = PersistentErrorTracker::Operation;

SimulationWorker::SimulationWorker(int index, const QString &name, SimulatedProcess &process, RunContext &run,
                                   ConnectionPool *pool)
    : m_index(index)
    , m_log(run.workerLog(index))
    , m_name(name)
    , m_process(process)
    , m_run(run)
    , m_pool(pool)
    , m_random(run.scenario.workload.seed * 1000003ULL + quint64(index))
{
    const int locks = run.scenario.lockCount();
    m_holds.fill(0, locks);
    m_inside.fill(false, locks);
    m_lastRead.fill(-1, locks);
    m_fence.fill(0, locks);
}

SimulationWorker::~SimulationWorker()
{
    finish();
    join();
    for (const auto &c : m_connections)
        m_process.unregisterConnection(c.get());
    for (RedisConnection *c : std::as_const(m_clusterConnections))
        m_process.unregisterConnection(c);
}

bool SimulationWorker::ensureConnections()
{
    if (m_pool)
        return true;
    if (m_run.servers->isCluster()) {
        if (m_cluster)
            return true;
        ConnectionSettings s = m_run.servers->settings(0);
        s.clientName = QStringLiteral("lockscope-sim-%1").arg(m_index);
        if (m_run.servers->isSandbox())
            s.commandTimeoutMs = std::max(s.commandTimeoutMs, 5000);
        m_cluster = std::make_unique<ClusterConnection>(s);
        m_cluster->open(); // reads the slot map; when it fails, the first operation tries again
        return true;
    }
    const int servers = m_run.scenario.algorithm.id == QLatin1String("redlock") ? m_run.servers->count() : 1;
    const quint64 generation = m_run.servers->generation();
    if (m_connections.size() == size_t(servers) && generation == m_serversGeneration)
        return true;
    for (const auto &c : m_connections)
        m_process.unregisterConnection(c.get());
    m_connections.clear();
    m_serversGeneration = generation;
    m_endpoints.clear();
    for (int i = 0; i < m_run.servers->count(); ++i)
        m_endpoints << m_run.serverSettings(m_process.index(), i).endpoint();
    for (int i = 0; i < servers; ++i) {
        ConnectionSettings s = m_run.serverSettings(m_process.index(), i);
        s.clientName = QStringLiteral("lockscope-sim-%1").arg(m_index);
        // Sandboxes: room for the scenario's own server pauses. A given server keeps the user's timeout
        // (--timeout): scenarios with server faults cannot run there, and a server frozen from outside must
        // turn into timeouts within the time the user chose.
        if (m_run.servers->isSandbox())
            s.commandTimeoutMs = std::max(s.commandTimeoutMs, 5000);
        auto connection = std::make_unique<RedisConnection>(s);
        connection->open(); // a server that is down now may be back later: the connection reopens by itself
        m_process.registerConnection(connection.get());
        m_connections.push_back(std::move(connection));
    }
    return true;
}

RedisConnection *SimulationWorker::clusterConnectionFor(const QByteArray &key, RedisError *error)
{
    ensureConnections();
    if (m_cluster->slotMap().isEmpty()) {
        if (const RedisError e = m_cluster->open()) {
            *error = e;
            return nullptr;
        }
    }
    const ClusterSlotMap::Node *owner = m_cluster->slotMap().masterOfKey(key);
    if (!owner) {
        m_cluster->refresh();
        owner = m_cluster->slotMap().masterOfKey(key);
    }
    if (!owner) {
        *error
            = {RedisError::Code::Server,
               QStringLiteral("no master of the cluster serves the slot of %1").arg(QString::fromUtf8(key))};
        return nullptr;
    }
    RedisConnection *c = m_cluster->connectionTo(*owner, error);
    if (c && !m_clusterConnections.contains(c)) {
        m_process.registerConnection(c);
        m_clusterConnections << c;
    }
    return c;
}

void SimulationWorker::noteRedirect(const RedisError &error)
{
    if (m_cluster
        && (error.code() == RedisError::Code::Redirect
            || (error.breaksConnection() && error.code() != RedisError::Code::Interrupted)))
        m_cluster->refresh();
}

LockServers SimulationWorker::servers(int lock, RedisError *error)
{
    if (m_run.servers->isCluster()) {
        RedisConnection *c = clusterConnectionFor(m_run.lockKeys.at(lock), error);
        return c ? LockServers {c} : LockServers {};
    }
    LockServers list;
    for (const auto &c : m_connections)
        list << c.get();
    if (list.size() < 2)
        return list;
    // Near servers first: with a network slow towards some servers, those are reached last (Redlock stories).
    LockServers near, far;
    for (RedisConnection *c : list)
        (m_process.isDelayedTowards(c->endpoint()) ? far : near) << c;
    return near + far;
}
bool SimulationWorker::prepare(QString *error)
{
    ensureConnections();
    if (m_run.noLock)
        return true;
    const LockAlgorithmInfo *info = LockCatalog::find(m_run.scenario.algorithm.id);
    m_atomicRelease = info && info->atomicRelease;
    // Every lock of the run is the same algorithm with the same scripts: loading them once per connection
    // is enough (a run of 600 workers × 600 locks spent 20 s in SCRIPT LOADs before this).
    QList<RedisConnection *> prepared;
    for (int i = 0; i < m_run.lockKeys.size(); ++i) {
        QString why;
        auto lock = LockCatalog::create(m_run.scenario.algorithm.id, m_process.client(), m_run.lockKeys.at(i),
                                        qint64(m_index) + 1, m_run.lockOptions, &why);
        if (!lock) {
            *error = why;
            return false;
        }
        if (lock->algorithm() == QLatin1String("redlock"))
            lock->setAttemptObserver([this, i](const AcquireResult &attempt) { recordRound(i, attempt); });
        if (!m_pool) {
            RedisError routing;
            const LockServers list = servers(i, &routing);
            const bool loaded = !list.isEmpty()
                && std::all_of(list.begin(), list.end(), [&](RedisConnection *c) { return prepared.contains(c); });
            if (const RedisError e = list.isEmpty() ? routing : loaded ? RedisError() : lock->prepare(list)) {
                *error = QStringLiteral("%1: %2").arg(m_name, e.message());
                return false;
            }
            for (RedisConnection *c : list) {
                if (!prepared.contains(c))
                    prepared.append(c);
            }
        }
        m_locks.push_back(std::move(lock));
    }
    return true;
}

void SimulationWorker::start()
{
    // A workload worker is busy from the start: the controller must not see it idle before it began.
    m_idle = m_run.scenario.kind == Scenario::Kind::Story;
    if (m_run.eventLoops.isEmpty()) {
        m_thread = std::thread([this] {
            FiberScheduler::usePreciseTimers(); // a critical section of 1 ms lasts 1 ms, as on a loop
            run();
        });
        return;
    }
    // Event engine: a fiber on one of the run's loops, spread evenly; a process's workers land on several
    // loops, as a real process's threads run on several cores.
    m_onFiber = true;
    m_run.workerLoop(m_index)->spawn([this] {
        run();
        std::lock_guard lock(m_fiberMutex);
        m_fiberDone = true;
        m_fiberEnded.notify_all();
    });
}
void SimulationWorker::post(const Scenario::Step &step)
{
    {
        std::lock_guard lock(m_stepsMutex);
        if (m_dead)
            return;
        m_steps.push_back(step);
        m_idle = false;
    }
    m_stepsWake.notify_all();
}

void SimulationWorker::finish()
{
    {
        std::lock_guard lock(m_stepsMutex);
        m_finished = true;
    }
    m_stepsWake.notify_all();
}

void SimulationWorker::join()
{
    if (m_thread.joinable())
        m_thread.join();
    if (m_onFiber) {
        std::unique_lock lock(m_fiberMutex);
        m_fiberEnded.wait(lock, [this] { return m_fiberDone; });
        m_onFiber = false;
    }
}

void SimulationWorker::interruptConnections()
{
    for (const auto &c : m_connections)
        c->interrupt();
    if (m_cluster)
        m_cluster->interrupt();
}

void SimulationWorker::run()
{
    m_run.waitForGo();
    if (m_run.scenario.kind == Scenario::Kind::Story)
        runStory();
    else
        runWorkload();
    m_idle = true;
}

void SimulationWorker::runWorkload()
{
    m_idle = false;
    const qint64 operations = m_run.scenario.workload.operations;
    const qint64 thinkUs = qint64(m_run.scenario.workload.thinkMs * 1000);
    const int locks = m_run.scenario.lockCount();
    std::uniform_int_distribution<int> pick(0, locks - 1);
    qint64 done = 0;
    if (const double stagger = m_run.scenario.workload.startStaggerMs; stagger > 0
        && !m_process.sleepUs(qint64(m_index * stagger * 1000)))
        return;
    while (!m_run.stopping.load() && !m_run.persistentErrors.hasGivenUp() && m_process.checkpoint()) {
        if (operations > 0 && done >= operations)
            break;
        const int lock = locks == 1                                                     ? 0
            : m_run.scenario.workload.lockChoice == Scenario::Workload::LockChoice::Own ? m_index % locks
                                                                                        : pick(m_random);
        bool completed = false;
        if (!cycle(lock, &completed))
            break;
        // A server that refuses the same way each time: retrying at full speed would only flood it.
        if (const qint64 backoffUs = std::exchange(m_backoffUs, 0);
            backoffUs > 0 && !m_process.sleepUs(backoffUs))
            break;
        if (completed) {
            ++done;
            ++m_run.cycles;
        }
        if (thinkUs > 0 && !m_process.sleepUs(thinkUs))
            break;
    }
}

bool SimulationWorker::cycle(int lock, bool *completed)
{
    *completed = false;
    if (!acquire(lock)) {
        // No server answered: wait a moment before the next attempt, as a client library would, instead of
        // spinning on refused connections (and filling the history with thousands of identical failures).
        if (m_unreachable) {
            const qint64 backoffUs
                = std::clamp<qint64>(qint64(m_run.scenario.algorithm.retry.intervalMs) * 1000, 20000, 100000);
            if (!m_process.sleepUs(backoffUs))
                return false;
        }
        return m_process.checkpoint();
    }
    for (int depth = 1; depth < m_run.scenario.algorithm.reentrancy; ++depth)
        acquire(lock); // re-entering a lock this thread holds
    enter(lock);
    const bool counter = !m_run.counterKeys.isEmpty();
    if (counter && !readCounter(lock))
        return m_process.checkpoint() && leaveAndRelease(lock);
    if (!m_process.sleepUs(criticalSectionUs()))
        return false; // crashed or stopped inside: no exit, no release
    if (counter && !writeCounter(lock))
        return m_process.checkpoint() && leaveAndRelease(lock);
    if (!m_process.checkpoint())
        return false;
    *completed = true;
    return leaveAndRelease(lock);
}

bool SimulationWorker::leaveAndRelease(int lock)
{
    exit(lock);
    const int holds = std::max(1, m_holds.at(lock));
    for (int i = 0; i < holds; ++i)
        release(lock);
    return m_process.checkpoint();
}

void SimulationWorker::runStory()
{
    for (;;) {
        Scenario::Step step;
        {
            std::unique_lock lock(m_stepsMutex);
            if (m_steps.empty())
                m_idle = true;
            m_stepsWake.wait(lock, [this] { return !m_steps.empty() || m_finished; });
            if (m_steps.empty())
                return;
            step = m_steps.front();
            m_steps.pop_front();
        }
        if (m_process.checkpoint())
            runStep(step);
        if (m_process.isCrashed() || m_process.isStopped()) {
            // A dead actor does nothing more: drop what is queued, and post() drops what comes later.
            std::lock_guard lock(m_stepsMutex);
            m_steps.clear();
            m_dead = true;
        }
    }
}

bool SimulationWorker::runStep(const Scenario::Step &step)
{
    using Action = Scenario::Step::Action;
    switch (step.action) {
    case Action::Acquire:
        if (!acquire(0))
            return false;
        enter(0);
        return true;
    case Action::Release:
        if (m_inside.at(0))
            exit(0);
        release(0); // sent even when this actor thinks it holds nothing: the seeds' releases do not check
        return true;
    case Action::Work:
        return m_process.sleepUs(qint64(step.ms * 1000));
    case Action::Read:
        return readCounter(0);
    case Action::Write:
        return writeCounter(0);
    default:
        return true; // the controller carries out the other actions
    }
}

qint64 SimulationWorker::criticalSectionUs()
{
    return qint64(m_run.scenario.workload.criticalSection.sampleMs(m_random) * 1000);
}

qint64 SimulationWorker::invoke(Kind kind, int lock, qint64 value, qint64 token)
{
    HistoryEvent e;
    e.opId = m_run.history->newOperation(m_log);
    e.worker = m_index;
    e.process = m_process.index();
    e.lock = lock;
    e.phase = Phase::Invoke;
    e.kind = kind;
    e.value = value;
    e.token = token;
    m_process.whileRunning([&] {
        e.timeUs = m_run.clock.nowUs();
        m_run.history->record(m_log, e);
    });
    return e.opId;
}
HistoryEvent SimulationWorker::completion(qint64 op, Kind kind, Phase phase, int lock, qint64 value,
                                          qint64 token, quint8 outcome, int commands, qint64 effectUs) const
{
    HistoryEvent e;
    e.opId = quint32(op);
    e.worker = m_index;
    e.process = m_process.index();
    e.lock = lock;
    e.phase = phase;
    e.kind = kind;
    e.value = value;
    e.effectUs = effectUs;
    e.token = token;
    e.outcome = outcome;
    e.commands = quint16(std::clamp(commands, 0, 65535));
    return e;
}

void SimulationWorker::record(HistoryEvent e, const QByteArray &detail)
{
    m_process.whileRunning([&] {
        if (e.isCompletion()) // as the report counts them from the history, so the two can be compared
            m_run.commands.fetch_add(e.commands, std::memory_order_relaxed);
        e.timeUs = m_run.clock.nowUs();
        e.detail = m_run.history->addText(m_log, detail);
        m_run.history->record(m_log, e);
    });
}

void SimulationWorker::complete(qint64 op, Kind kind, Phase phase, int lock, qint64 value, qint64 token,
                                quint8 outcome, int commands, const QByteArray &detail, qint64 effectUs)
{
    record(completion(op, kind, phase, lock, value, token, outcome, commands, effectUs), detail);
}

void SimulationWorker::setVotes(HistoryEvent &e, const QList<ServerVote> &votes) const
{
    for (const ServerVote &v : votes) {
        const qsizetype i = m_endpoints.indexOf(v.server);
        if (i < 0 || i >= HistoryEvent::kMaxVoteServers)
            continue;
        const auto bit = quint16(1u << i);
        if (v.granted)
            e.votesGranted |= bit;
        if (v.granted || !v.error)
            e.votesAnswered |= bit;
    }
}

void SimulationWorker::recordRound(int lock, const AcquireResult &attempt)
{
    using RO = HistoryEvent::RoundOutcome;
    const RO outcome = attempt.acquired()                          ? RO::Won
        : attempt.outcome == AcquireResult::Outcome::ValiditySpent ? RO::ValiditySpent
                                                                   : RO::NoQuorum;
    if (outcome != RO::Won)
        ++m_run.failedRounds;
    const ServerVote *refusal = m_run.persistentErrors.blockingVote(attempt.votes, attempt.quorum);
    noteOutcome(Operation::Acquire, refusal ? refusal->errorCommand : QByteArray(),
                refusal ? refusal->error : RedisError());
    // No commands here: the acquire's completion counts every round's commands already.
    HistoryEvent e = completion(m_run.history->newOperation(m_log), Kind::Round,
                                outcome == RO::Won ? Phase::Ok : Phase::Fail, lock, attempt.validityMs, 0,
                                quint8(outcome), 0, m_run.clock.fromMonotonicUs(attempt.attemptStartUs));
    setVotes(e, attempt.votes);
    // Only a round with servers that did not answer needs words: which, and why.
    QByteArray detail;
    for (const ServerVote &v : attempt.votes) {
        if (v.error && !v.granted) {
            detail += (detail.isEmpty() ? "" : "; ") + v.error.message().toUtf8();
            break;
        }
    }
    record(e, detail);
}

void SimulationWorker::single(Kind kind, int lock, qint64 value, quint8 outcome, const QByteArray &detail)
{
    complete(m_run.history->newOperation(m_log), kind, Phase::Ok, lock, value, 0, outcome, 0, detail);
}

void SimulationWorker::noteOutcome(Operation operation, const QByteArray &command, const RedisError &error)
{
    if (!error) {
        m_run.persistentErrors.succeeded(operation);
        return;
    }
    m_backoffUs = std::max(
        m_backoffUs, m_run.persistentErrors.failed(m_index, operation, m_run.clock.nowUs(), command, error));
}

bool SimulationWorker::acquire(int lock)
{
    const qint64 lease = m_run.lockOptions.leaseMs;
    const qint64 op = invoke(Kind::Acquire, lock, lease);
    if (m_run.noLock) {
        ++m_holds[lock];
        complete(op, Kind::Acquire, Phase::Ok, lock, lease, 0, 0, 0,
                 "no lock: every worker goes straight in");
        return true;
    }
    ensureConnections();
    m_unreachable = false;
    AcquireResult r;
    if (m_pool) {
        RedisError error;
        ConnectionPool::Lease connection = m_pool->borrow(&error);
        if (!connection.isValid()) {
            m_unreachable = OutageTracker::isUnreachable(error);
            if (m_unreachable)
                m_run.outages.failed(m_run.clock.nowUs(), error.message());
            complete(op, Kind::Acquire, Phase::Info, lock, -1, 0, 0, 0, error.message().toUtf8());
            return false;
        }
        r = m_locks.at(size_t(lock))->acquire(*connection);
    } else {
        RedisError routing;
        const LockServers list = servers(lock, &routing);
        if (list.isEmpty()) {
            m_unreachable = OutageTracker::isUnreachable(routing);
            if (m_unreachable)
                m_run.outages.failed(m_run.clock.nowUs(), routing.message());
            complete(op, Kind::Acquire, Phase::Info, lock, -1, 0, 0, 0, routing.message().toUtf8());
            return false;
        }
        r = m_locks.at(size_t(lock))->acquire(list);
        noteRedirect(r.error);
    }
    // A plain success needs no words (the event says it); everything else is explained.
    QByteArray detail;
    if (!r.acquired() || r.votes.size() > 1 || r.attempts > 1)
        detail = r.describe().toUtf8();
    if (!r.votes.isEmpty()) {
        HistoryEvent votes;
        setVotes(votes, r.votes);
        detail += "; votes " + votes.votePattern(int(m_endpoints.size())) + " ("
            + QByteArray::number(votes.grantedCount()) + "/" + QByteArray::number(m_endpoints.size())
            + ", quorum " + QByteArray::number(r.quorum) + ")";
        if (r.acquired())
            detail += ", validity " + QByteArray::number(r.validityMs) + " ms";
    }
    m_unreachable = r.outcome == AcquireResult::Outcome::Error && OutageTracker::isUnreachable(r.error);
    if (m_unreachable)
        m_run.outages.failed(m_run.clock.nowUs(), r.error.message());
    else if (r.outcome == AcquireResult::Outcome::Acquired || r.outcome == AcquireResult::Outcome::Refused
             || r.outcome == AcquireResult::Outcome::TimedOut)
        m_run.outages.answered(m_run.clock.nowUs());
    // Redlock's rounds were noted one by one (recordRound); an interrupted acquire says nothing.
    if (r.votes.isEmpty() && r.outcome != AcquireResult::Outcome::Interrupted)
        noteOutcome(Operation::Acquire, r.errorCommand, r.error);
    switch (r.outcome) {
    case AcquireResult::Outcome::Acquired: {
        ++m_holds[lock];
        m_fence[lock] = r.fence >= 0 ? r.fence : 0;
        HistoryEvent e = completion(op, Kind::Acquire, Phase::Ok, lock, lease, m_fence.at(lock), 0,
                                    r.commands, m_run.clock.fromMonotonicUs(r.attemptStartUs));
        setVotes(e, r.votes);
        record(e, detail);
        return true;
    }
    case AcquireResult::Outcome::Refused:
    case AcquireResult::Outcome::TimedOut:
    case AcquireResult::Outcome::ValiditySpent: {
        HistoryEvent e = completion(op, Kind::Acquire, Phase::Fail, lock, r.ttlMs, 0, 0, r.commands);
        setVotes(e, r.votes);
        record(e, detail);
        return false;
    }
    case AcquireResult::Outcome::Crashed:
        // SETNX answered 1: the key is this worker's in Redis, with no TTL (value 0), and the process dies
        // before EXPIRE. Both are recorded before the crash, after which the process records nothing.
        record(completion(op, Kind::Acquire, Phase::Ok, lock, 0, 0, 0, r.commands,
                          m_run.clock.fromMonotonicUs(r.attemptStartUs)),
               "SETNX set the key; the process died before sending EXPIRE: the key has no TTL");
        single(Kind::Fault, lock, 0, quint8(HistoryEvent::FaultType::Crash),
               QByteArray("the process died between SETNX and EXPIRE"));
        m_process.crash();
        return false;
    case AcquireResult::Outcome::Interrupted:
        complete(op, Kind::Acquire, m_run.stopping.load() ? Phase::Fail : Phase::Info, lock, -1, 0,
                 quint8(m_run.stopping.load() ? HistoryEvent::AcquireOutcome::Stopped
                                              : HistoryEvent::AcquireOutcome::None),
                 r.commands, m_run.stopping.load() ? QByteArray("stopped: the run ended") : detail);
        return false;
    case AcquireResult::Outcome::Error:
        complete(op, Kind::Acquire, Phase::Info, lock, -1, 0, 0, r.commands, detail);
        return false;
    }
    return false;
}

void SimulationWorker::release(int lock)
{
    const qint64 op = invoke(Kind::Release, lock, 0);
    if (m_run.noLock) {
        m_holds[lock] = std::max(0, m_holds.at(lock) - 1);
        // Nothing is deleted: there is no lock key.
        complete(op, Kind::Release, Phase::Ok, lock, 0, 0, quint8(HistoryEvent::ReleaseOutcome::Released), 0,
                 "no lock");
        return;
    }
    ensureConnections();
    ReleaseResult r;
    if (m_pool) {
        RedisError error;
        ConnectionPool::Lease connection = m_pool->borrow(&error);
        if (!connection.isValid()) {
            complete(op, Kind::Release, Phase::Info, lock, 0, 0, 0, 0, error.message().toUtf8());
            return;
        }
        r = m_locks.at(size_t(lock))->release(*connection);
    } else {
        RedisError routing;
        const LockServers list = servers(lock, &routing);
        if (list.isEmpty()) {
            m_holds[lock] = 0;
            complete(op, Kind::Release, Phase::Info, lock, 0, 0, 0, 0, routing.message().toUtf8());
            return;
        }
        r = m_locks.at(size_t(lock))->release(list);
        noteRedirect(r.error);
    }
    noteOutcome(Operation::Release, r.errorCommand, r.error);
    const QByteArray detail
        = r.outcome == ReleaseResult::Outcome::Released && r.votes.size() < 2 && r.commands <= 1
        ? QByteArray()
        : r.describe().toUtf8();
    using RO = HistoryEvent::ReleaseOutcome;
    switch (r.outcome) {
    case ReleaseResult::Outcome::Released:
        m_holds[lock] = 0;
        // value: keys deleted without an atomic owner check, the only deletions that can hit another's lock.
        complete(op, Kind::Release, Phase::Ok, lock, m_atomicRelease ? 0 : 1, 0, quint8(RO::Released),
                 r.commands, detail, r.effectUs > 0 ? m_run.clock.fromMonotonicUs(r.effectUs) : 0);
        break;
    case ReleaseResult::Outcome::StillHeld:
        m_holds[lock] = r.holdCount;
        complete(op, Kind::Release, Phase::Ok, lock, 0, 0, quint8(RO::StillHeld), r.commands, detail);
        break;
    case ReleaseResult::Outcome::NotOwner:
        m_holds[lock] = 0;
        complete(op, Kind::Release, Phase::Ok, lock, 0, 0, quint8(RO::NotOwner), r.commands, detail);
        break;
    case ReleaseResult::Outcome::Expired:
        m_holds[lock] = 0;
        complete(op, Kind::Release, Phase::Ok, lock, 0, 0, quint8(RO::AlreadyExpired), r.commands, detail);
        break;
    case ReleaseResult::Outcome::Error:
        m_holds[lock] = 0;
        complete(op, Kind::Release, Phase::Info, lock, 0, 0, 0, r.commands, detail);
        break;
    }
}

bool SimulationWorker::lostInPartition(const RedisConnection &connection)
{
    if (!m_process.isCutOff(connection.endpoint()))
        return false;
    m_process.sleepUs(qint64(connection.settings().commandTimeoutMs) * 1000); // the reply that never comes
    return true;
}

RedisConnection *SimulationWorker::dataConnection(int lock, std::optional<ConnectionPool::Lease> *borrowed)
{
    if (m_pool) {
        RedisError error; // a failed borrow is a null connection: the caller says so in the history
        borrowed->emplace(m_pool->borrow(&error));
        return (*borrowed)->get();
    }
    ensureConnections();
    if (m_cluster) {
        RedisError error;
        return clusterConnectionFor(m_run.counterKeys.at(lock), &error);
    }
    if (!m_connections.empty())
        return m_connections.front().get();
    return nullptr;
}

bool SimulationWorker::readCounter(int lock)
{
    if (m_run.counterKeys.isEmpty() || !m_process.checkpoint())
        return false;
    const QByteArray &key = m_run.counterKeys.at(lock);
    std::optional<ConnectionPool::Lease> borrowed;
    RedisConnection *connection = dataConnection(lock, &borrowed);
    if (!connection) {
        single(Kind::Error, lock, 0, 0, "no connection for the counter");
        return false;
    }
    if (lostInPartition(*connection)) {
        single(Kind::Error, lock, 0, 0, "reading the counter: no reply (network partition)");
        return false;
    }
    qint64 value = 0;
    if (m_run.scenario.resource.fencedStore) {
        // The holder's token goes with its read: a stale holder's later write is refused even when it lands
        // before this holder's own (a store that saw tokens only on writes let it through, losing an update).
        const FencedResource::State state = FencedResource(key).readAs(*connection, m_fence.at(lock));
        noteOutcome(Operation::Read, "fenced_read.lua", state.error);
        if (state.error) {
            single(Kind::Error, lock, 0, 0, "reading the fenced store: " + state.error.message().toUtf8());
            return false;
        }
        value = state.value.toLongLong();
    } else {
        const RedisResult r = connection->command({"GET", key});
        noteOutcome(Operation::Read, "GET", r.error);
        if (!r.ok()) {
            noteRedirect(r.error);
            single(Kind::Error, lock, 0, 0, "reading the counter: " + r.error.message().toUtf8());
            return false;
        }
        value = r.reply.bytes().toLongLong();
    }
    m_lastRead[lock] = value;
    single(Kind::Read, lock, value);
    return m_process.checkpoint();
}

bool SimulationWorker::writeCounter(int lock)
{
    if (m_run.counterKeys.isEmpty())
        return false;
    if (m_lastRead.at(lock) < 0 && !readCounter(lock))
        return false;
    if (!m_process.checkpoint())
        return false;
    const qint64 value = m_lastRead.at(lock) - 1;
    const qint64 fence = m_fence.at(lock);
    const QByteArray &key = m_run.counterKeys.at(lock);
    std::optional<ConnectionPool::Lease> borrowed;
    RedisConnection *connection = dataConnection(lock, &borrowed);
    const qint64 op = invoke(Kind::Write, lock, value, fence);
    if (!connection) {
        complete(op, Kind::Write, Phase::Info, lock, value, fence, 0, 0, "no connection for the counter");
        return false;
    }
    m_lastRead[lock] = -1;
    if (lostInPartition(*connection)) {
        complete(op, Kind::Write, Phase::Info, lock, value, fence, 0, 0, "no reply (network partition)");
        return false;
    }
    if (m_run.scenario.resource.fencedStore) {
        const FencedResource::WriteResult w
            = FencedResource(key).write(*connection, fence, QByteArray::number(value));
        noteOutcome(Operation::Write, "fenced_write.lua", w.error);
        if (w.error) {
            complete(op, Kind::Write, Phase::Info, lock, value, fence, 0, 0, w.error.message().toUtf8());
            return false;
        }
        if (!w.accepted) {
            complete(op, Kind::Write, Phase::Fail, lock, value, fence,
                     quint8(HistoryEvent::WriteOutcome::FencedOut), 0,
                     "refused: token " + QByteArray::number(fence) + " is older than "
                         + QByteArray::number(w.highest));
            return true;
        }
        complete(op, Kind::Write, Phase::Ok, lock, value, fence, quint8(HistoryEvent::WriteOutcome::Applied),
                 0);
        return m_process.checkpoint();
    }
    const RedisResult r = connection->command({"SET", key, QByteArray::number(value)});
    noteOutcome(Operation::Write, "SET", r.error);
    if (!r.ok()) {
        noteRedirect(r.error);
        complete(op, Kind::Write, Phase::Info, lock, value, fence, 0, 0, r.error.message().toUtf8());
        return false;
    }
    complete(op, Kind::Write, Phase::Ok, lock, value, fence, quint8(HistoryEvent::WriteOutcome::Applied), 0);
    return m_process.checkpoint();
}

void SimulationWorker::enter(int lock)
{
    m_inside[lock] = true;
    m_lastRead[lock] = -1;
    single(Kind::Enter, lock, 0);
}

void SimulationWorker::exit(int lock)
{
    m_inside[lock] = false;
    single(Kind::Exit, lock, 0);
}
