// ExternalWorker: the protocol's requests in the order a lock cycle (or a story) needs them, and the
// history events they leave. Times are the request's sending and the reply's arrival on the run clock, so
// every recorded interval contains what the adapter really did.
#include "externalworker.h"

#include <QJsonArray>

#include <chrono>

using Kind = HistoryEvent::Kind;
using Phase = HistoryEvent::Phase;
using Outcome = ExternalClient::Reply::Outcome;
using Operation = PersistentErrorTracker::Operation;

namespace {

// The Redis error reply inside a library's error text ("ReplyError: OOM command not allowed…"), when there is
// one: only a server's refusal can be persistent; a library's connection trouble is the network's (the proxy's
// faults make it on purpose) and is waited out like any transient failure.
std::optional<RedisError> serverRefusal(const QString &text)
{
    static const QStringList codes {QStringLiteral("OOM "),      QStringLiteral("NOPERM"),
                                    QStringLiteral("READONLY"),  QStringLiteral("WRONGTYPE"),
                                    QStringLiteral("MISCONF"),   QStringLiteral("NOSCRIPT"),
                                    QStringLiteral("ERR unknown command"), QStringLiteral("ERR Error running script"),
                                    QStringLiteral("WRONGPASS"), QStringLiteral("NOAUTH")};
    qsizetype at = -1;
    for (const QString &code : codes) {
        const qsizetype i = text.indexOf(code);
        if (i >= 0 && (at < 0 || i < at))
            at = i;
    }
    if (at < 0)
        return std::nullopt;
    return RedisError::fromServerReply(text.mid(at).toUtf8());
}

} // namespace

ExternalWorker::ExternalWorker(int index, const QString &name, int process, RunContext &run,
                               ExternalClient::Launch launch, QList<Endpoint> servers, int processLog)
    : m_index(index)
    , m_name(name)
    , m_process(process)
    , m_run(run)
    , m_servers(std::move(servers))
    , m_processLog(processLog)
    , m_random(run.scenario.workload.seed * 1000003ULL + quint64(index))
{
    const int locks = run.scenario.lockCount();
    m_inside.fill(false, locks);
    m_held.fill(false, locks);
    m_lastRead.fill(-1, locks);
    m_leaseMs.fill(0, locks);
    m_client = std::make_unique<ExternalClient>(std::move(launch), [&run] { return run.clock.nowUs(); });
    m_client->setEventHandler([this](const ExternalClient::Event &e) { onEvent(e); });
    m_client->setNoticeHandler(
        [this](ExternalClient::Notice notice, const QString &text) { onNotice(notice, text); });
}

ExternalWorker::~ExternalWorker()
{
    interruptConnections();
    finish();
    join();
    m_client->kill();
}

bool ExternalWorker::launch(QString *error)
{
    QString why;
    if (!m_client->start(&why)) {
        *error = QStringLiteral("%1: %2").arg(m_name, why);
        return false;
    }
    m_launched = true;
    return true;
}

bool ExternalWorker::prepare(QString *error)
{
    m_autoRenew = m_run.scenario.algorithm.watchdog;
    if (!m_launched && !launch(error))
        return false;
    QString why;
    if (!hello(&why)) {
        *error = QStringLiteral("%1: %2").arg(m_name, why);
        const QString tail = m_client->stderrTail();
        if (!tail.isEmpty())
            *error += QStringLiteral("\nThe adapter wrote on standard error:\n") + tail;
        m_client->kill();
        return false;
    }
    return true;
}

bool ExternalWorker::hello(QString *error)
{
    QJsonArray servers;
    for (const Endpoint &e : m_servers)
        servers.append(QJsonObject {{QStringLiteral("host"), e.host}, {QStringLiteral("port"), e.port}});
    const ExternalClient::Reply r = m_client->call(
        QJsonObject {{QStringLiteral("op"), QStringLiteral("hello")},
                     {QStringLiteral("protocol"), 1},
                     {QStringLiteral("worker"), m_name},
                     {QStringLiteral("servers"), servers},
                     {QStringLiteral("options"), m_run.scenario.client.options}},
        qint64(m_run.scenario.client.helloTimeoutMs) * 1000);
    if (!r.ok()) {
        *error = QStringLiteral("the adapter did not say hello (%1)").arg(r.describe());
        return false;
    }
    const QJsonObject supports = r.body.value(QLatin1String("supports")).toObject();
    const QString library = r.body.value(QLatin1String("library")).toString();
    if (library.isEmpty()) {
        *error = QStringLiteral("the adapter's hello names no library (docs/client-protocol.md)");
        return false;
    }
    if (m_autoRenew && !supports.value(QLatin1String("auto_renewal")).toBool()) {
        *error = QStringLiteral("%1 cannot renew its locks on its own (its hello says auto_renewal is not "
                                "supported), and the scenario asks for it (algorithm.watchdog)")
                     .arg(library);
        return false;
    }
    if (m_run.scenario.algorithm.reentrancy > 1 && !supports.value(QLatin1String("reentrant")).toBool()) {
        *error = QStringLiteral("%1's locks are not reentrant (its hello says so), and the scenario re-acquires "
                                "them (algorithm.reentrancy)")
                     .arg(library);
        return false;
    }
    if (m_run.scenario.algorithm.leaseMs == 0 && !supports.value(QLatin1String("no_lease")).toBool()) {
        *error = QStringLiteral("%1 cannot make a lock without expiry (its hello says no_lease is not supported), "
                                "and the scenario asks for one (algorithm.lease_ms 0)")
                     .arg(library);
        return false;
    }
    // With the library's own watchdog and no word of each renewal, LockScope cannot tell when a lease ran
    // out: the checker then never calls a holder stale.
    m_leaseJudged = !m_autoRenew || supports.value(QLatin1String("renewal_events")).toBool();
    // An adapter whose locks never expire whatever lease_ms says (redis-py's Lock without timeout).
    m_leaseIgnored = !supports.value(QLatin1String("lease")).toBool(true);
    std::lock_guard lock(m_mutex);
    m_announcement.library = library;
    m_announcement.version = r.body.value(QLatin1String("version")).toString();
    m_announcement.supports = supports;
    m_announcement.pids << m_client->pid();
    return true;
}

void ExternalWorker::start()
{
    m_idle = m_run.scenario.kind == Scenario::Kind::Story;
    m_thread = std::thread([this] { run(); });
}

void ExternalWorker::post(const Scenario::Step &step)
{
    {
        std::lock_guard lock(m_mutex);
        m_steps.push_back(step);
        m_idle = false;
    }
    m_wake.notify_all();
}

void ExternalWorker::finish()
{
    {
        std::lock_guard lock(m_mutex);
        m_finished = true;
    }
    m_wake.notify_all();
}

void ExternalWorker::join()
{
    if (m_thread.joinable())
        m_thread.join();
}

void ExternalWorker::interruptConnections()
{
    m_interrupted = true;
    m_client->interrupt();
    m_wake.notify_all();
}

bool ExternalWorker::pause()
{
    return m_client->pause();
}

bool ExternalWorker::resume()
{
    return m_client->resume();
}

bool ExternalWorker::resume(quint64 generation)
{
    return m_client->resume(generation);
}

bool ExternalWorker::isStopped(quint64 generation) const
{
    return m_client->isStopped(generation);
}

quint64 ExternalWorker::processGeneration() const
{
    return m_client->generation();
}

bool ExternalWorker::isPaused() const
{
    return m_client->isPaused();
}

void ExternalWorker::crash()
{
    m_crashed = true;
    m_client->kill();
    m_wake.notify_all();
}

void ExternalWorker::restart()
{
    if (!m_crashed)
        crash(); // a restart of a live process: it dies first, as a redeploy kills it
    {
        std::lock_guard lock(m_mutex);
        m_restartWanted = true;
        m_idle = false;
    }
    m_wake.notify_all();
}

void ExternalWorker::close()
{
    m_client->close(2000);
}

ExternalWorker::Announcement ExternalWorker::announcement() const
{
    std::lock_guard lock(m_mutex);
    return m_announcement;
}

void ExternalWorker::run()
{
    m_run.waitForGo();
    if (m_run.scenario.kind == Scenario::Kind::Story)
        runStory();
    else
        runWorkload();
    m_idle = true;
}

bool ExternalWorker::aliveOrRestarted()
{
    {
        std::unique_lock lock(m_mutex);
        // Polled: the run's stop switch is an atomic of its own, not this condition.
        while (m_crashed && !m_restartWanted && !m_interrupted && !m_finished && !m_run.stopping.load())
            m_wake.wait_for(lock, std::chrono::milliseconds(50));
        if (!m_crashed)
            return !m_interrupted;
        if (!m_restartWanted)
            return false;
        m_restartWanted = false;
    }
    // A new process of the same adapter: nothing of the old one survives (its holds stay in Redis).
    m_inside.fill(false);
    m_held.fill(false);
    m_lastRead.fill(-1);
    QString why;
    if (!m_client->start(&why) || !hello(&why)) {
        single(Kind::Error, -1, 0, m_run.clock.nowUs(), "the restart failed: " + why.toUtf8());
        return false;
    }
    m_crashed = false;
    single(Kind::Note, -1, 0, m_run.clock.nowUs(),
           "a new process of the adapter runs as pid " + QByteArray::number(m_client->pid()));
    return true;
}

void ExternalWorker::runWorkload()
{
    m_idle = false;
    const qint64 operations = m_run.scenario.workload.operations;
    const qint64 thinkUs = qint64(m_run.scenario.workload.thinkMs * 1000);
    const int locks = m_run.scenario.lockCount();
    std::uniform_int_distribution<int> pick(0, locks - 1);
    qint64 done = 0;
    if (const double stagger = m_run.scenario.workload.startStaggerMs; stagger > 0
        && !waitUs(qint64(m_index * stagger * 1000)))
        return;
    while (!m_run.stopping.load() && !m_interrupted.load() && !m_run.persistentErrors.hasGivenUp()) {
        if (operations > 0 && done >= operations)
            break;
        if (!aliveOrRestarted())
            break;
        const int lock = locks == 1                                                     ? 0
            : m_run.scenario.workload.lockChoice == Scenario::Workload::LockChoice::Own ? m_index % locks
                                                                                        : pick(m_random);
        bool completed = false;
        if (!cycle(lock, &completed))
            continue; // crashed (the loop waits for a restart) or the run is over
        if (completed) {
            ++done;
            ++m_run.cycles;
        }
        if (thinkUs > 0 && !waitUs(thinkUs))
            break;
    }
}

bool ExternalWorker::cycle(int lock, bool *completed)
{
    *completed = false;
    if (!acquire(lock)) {
        // Refused within wait_ms: try again at once, as the library's own waiting already paced it. An error
        // or no answer: a moment's pause first, so a broken server is not hammered.
        return !m_crashed && waitUs(m_refused ? 0 : 20000);
    }
    const bool counter = !m_run.counterKeys.isEmpty();
    if (counter && !readCounter(lock)) {
        if (!m_crashed)
            release(lock);
        return !m_crashed;
    }
    if (!waitUs(criticalSectionUs()))
        return false;
    if (counter && !writeCounter(lock) && m_crashed)
        return false;
    if (m_crashed)
        return false;
    release(lock);
    *completed = !m_crashed;
    return !m_crashed;
}

void ExternalWorker::runStory()
{
    for (;;) {
        Scenario::Step step;
        bool restart = false;
        {
            std::unique_lock lock(m_mutex);
            if (m_steps.empty() && !m_restartWanted)
                m_idle = true;
            m_wake.wait(lock, [this] { return !m_steps.empty() || m_finished || m_restartWanted; });
            restart = m_restartWanted && m_crashed;
            if (!restart) {
                if (m_steps.empty())
                    return;
                step = m_steps.front();
                m_steps.pop_front();
            }
        }
        if (restart) {
            aliveOrRestarted();
            continue;
        }
        if (!m_crashed)
            runStep(step); // a dead actor's steps are dropped: nobody is there to take them
    }
}

void ExternalWorker::runStep(const Scenario::Step &step)
{
    using Action = Scenario::Step::Action;
    switch (step.action) {
    case Action::Acquire:
        acquire(0);
        return;
    case Action::Release:
        release(0);
        return;
    case Action::Work:
        waitUs(qint64(step.ms * 1000));
        return;
    case Action::Read:
        readCounter(0);
        return;
    case Action::Write:
        writeCounter(0);
        return;
    default:
        return; // the controller carries out the other actions
    }
}

qint64 ExternalWorker::criticalSectionUs()
{
    return qint64(m_run.scenario.workload.criticalSection.sampleMs(m_random) * 1000);
}

bool ExternalWorker::waitUs(qint64 us)
{
    std::unique_lock lock(m_mutex);
    m_wake.wait_for(lock, std::chrono::microseconds(us), [this] { return m_interrupted || m_crashed; });
    return !m_interrupted && !m_crashed;
}

QString ExternalWorker::lockName(int lock) const
{
    return QString::fromUtf8(m_run.lockKeys.at(lock));
}

ExternalClient::Reply ExternalWorker::call(QJsonObject request, qint64 timeoutUs)
{
    return m_client->call(std::move(request), timeoutUs);
}

bool ExternalWorker::judge(Operation operation, const ExternalClient::Reply &r)
{
    PersistentErrorTracker &errors = m_run.persistentErrors;
    if (r.ok() || (r.outcome == Outcome::Failed && r.reason != QLatin1String("error"))) {
        errors.succeeded(operation); // refused in time or not held: the server answers as a working one does
        return true;
    }
    const std::optional<RedisError> refusal = serverRefusal(r.error);
    if (!refusal)
        return true;
    // The library is the command: what it sent to Redis is its own business.
    const qint64 backoffUs
        = errors.failed(m_index, operation, m_run.clock.nowUs(), announcement().library.toUtf8(), *refusal);
    return backoffUs <= 0 || waitUs(backoffUs);
}

bool ExternalWorker::acquire(int lock)
{
    const Scenario::Algorithm &a = m_run.scenario.algorithm;
    const qint64 t0 = m_run.clock.nowUs();
    const quint32 op = invoke(Kind::Acquire, lock, a.leaseMs, t0);
    m_refused = false;
    const ExternalClient::Reply r = call(QJsonObject {{QStringLiteral("op"), QStringLiteral("acquire")},
                                                      {QStringLiteral("lock"), lockName(lock)},
                                                      {QStringLiteral("lease_ms"), a.leaseMs},
                                                      {QStringLiteral("wait_ms"), a.acquireTimeoutMs},
                                                      {QStringLiteral("auto_renew"), m_autoRenew}},
                                         (qint64(a.acquireTimeoutMs) + m_run.scenario.client.replyTimeoutMs) * 1000);
    judge(Operation::Acquire, r);
    if (r.ok()) {
        // The lease the library really set (an adapter may make locks without one, redis-py's timeout=None).
        const qint64 lease = r.body.contains(QLatin1String("lease_ms"))
            ? r.body.value(QLatin1String("lease_ms")).toInteger()
            : m_leaseIgnored ? 0
                             : a.leaseMs;
        m_leaseMs[lock] = lease;
        m_held[lock] = true;
        const qint64 fence = r.body.value(QLatin1String("fence")).toInteger(0);
        QByteArray detail;
        const QString token = r.body.value(QLatin1String("token")).toString();
        if (!token.isEmpty())
            detail = "token " + token.toUtf8();
        if (lease == 0)
            detail += QByteArray(detail.isEmpty() ? "" : "; ") + "no lease: the lock never expires";
        // The lease began when the library's command reached Redis, at the latest when the reply arrived:
        // the checker counts it from there, so a lease it calls spent surely was.
        // The lease is the library's, always (0 said "never expires" of a lock Redis expired); a watchdog
        // that renews it unseen is said so, and the lease is then not judged (HistoryEvent::AcquireOutcome).
        complete(op, Kind::Acquire, Phase::Ok, lock, lease, r.receivedUs,
                 quint8(m_leaseJudged ? HistoryEvent::AcquireOutcome::None
                                      : HistoryEvent::AcquireOutcome::RenewedUnseen),
                 detail, fence, r.receivedUs);
        enter(lock, r.receivedUs);
        return true;
    }
    if (r.outcome == Outcome::Failed && (r.reason == QLatin1String("timeout") || r.reason == QLatin1String("not-running"))) {
        // Not acquired: the library gave up within wait_ms, or the request never reached a live adapter.
        m_refused = r.reason == QLatin1String("timeout");
        complete(op, Kind::Acquire, Phase::Fail, lock, -1, r.receivedUs, 0, r.describe().toUtf8());
        return false;
    }
    // An error from the library, or no reply: it may have set the key before failing. Unknown.
    complete(op, Kind::Acquire, Phase::Info, lock, -1, r.receivedUs, 0, r.describe().toUtf8());
    return false;
}

void ExternalWorker::release(int lock)
{
    const qint64 t0 = m_run.clock.nowUs();
    if (m_inside.at(lock))
        exit(lock, t0);
    const quint32 op = invoke(Kind::Release, lock, 0, t0);
    const ExternalClient::Reply r = call(
        QJsonObject {{QStringLiteral("op"), QStringLiteral("release")}, {QStringLiteral("lock"), lockName(lock)}},
        qint64(m_run.scenario.client.replyTimeoutMs) * 1000);
    judge(Operation::Release, r);
    m_held[lock] = false;
    using RO = HistoryEvent::ReleaseOutcome;
    if (r.ok()) {
        // value 0: libraries release with an atomic owner check; they never delete another owner's lock.
        complete(op, Kind::Release, Phase::Ok, lock, 0, r.receivedUs, quint8(RO::Released));
    } else if (r.outcome == Outcome::Failed && r.reason == QLatin1String("not-held")) {
        complete(op, Kind::Release, Phase::Ok, lock, 0, r.receivedUs, quint8(RO::NotOwner), r.error.toUtf8());
    } else if (r.outcome == Outcome::Failed && r.reason == QLatin1String("not-running")) {
        complete(op, Kind::Release, Phase::Fail, lock, 0, r.receivedUs, 0, r.describe().toUtf8());
    } else {
        complete(op, Kind::Release, Phase::Info, lock, 0, r.receivedUs, 0, r.describe().toUtf8());
    }
}

bool ExternalWorker::readCounter(int lock)
{
    if (m_run.counterKeys.isEmpty())
        return false;
    const ExternalClient::Reply r
        = call(QJsonObject {{QStringLiteral("op"), QStringLiteral("read")},
                            {QStringLiteral("key"), QString::fromUtf8(m_run.counterKeys.at(lock))}},
               qint64(m_run.scenario.client.replyTimeoutMs) * 1000);
    judge(Operation::Read, r);
    if (!r.ok()) {
        // A read cut off by an injected crash changed nothing and is no failure of the library: a note, so
        // that the run's errors stay what the crash left unknown.
        single(m_crashed ? Kind::Note : Kind::Error, lock, 0, r.receivedUs,
               "reading the counter: " + r.describe().toUtf8());
        return false;
    }
    const QJsonValue value = r.body.value(QLatin1String("value"));
    if (!value.isDouble()) {
        single(Kind::Error, lock, 0, r.receivedUs,
               "reading the counter: the adapter found no integer there (" + r.body.value(QLatin1String("value")).toVariant().toString().toUtf8() + ")");
        return false;
    }
    m_lastRead[lock] = value.toInteger();
    single(Kind::Read, lock, m_lastRead.at(lock), r.receivedUs);
    return true;
}

bool ExternalWorker::writeCounter(int lock)
{
    if (m_run.counterKeys.isEmpty())
        return false;
    if (m_lastRead.at(lock) < 0 && !readCounter(lock))
        return false;
    const qint64 value = m_lastRead.at(lock) - 1;
    m_lastRead[lock] = -1;
    const quint32 op = invoke(Kind::Write, lock, value, m_run.clock.nowUs());
    const ExternalClient::Reply r
        = call(QJsonObject {{QStringLiteral("op"), QStringLiteral("write")},
                            {QStringLiteral("key"), QString::fromUtf8(m_run.counterKeys.at(lock))},
                            {QStringLiteral("value"), value}},
               qint64(m_run.scenario.client.replyTimeoutMs) * 1000);
    judge(Operation::Write, r);
    if (r.ok()) {
        complete(op, Kind::Write, Phase::Ok, lock, value, r.receivedUs, quint8(HistoryEvent::WriteOutcome::Applied));
        return true;
    }
    // Not sent: surely not applied. An error or no reply: it may have been applied (the checker's range).
    const bool notSent = r.outcome == Outcome::Failed && r.reason == QLatin1String("not-running");
    complete(op, Kind::Write, notSent ? Phase::Fail : Phase::Info, lock, value, r.receivedUs, 0,
             r.describe().toUtf8());
    return false;
}

void ExternalWorker::enter(int lock, qint64 atUs)
{
    m_inside[lock] = true;
    m_lastRead[lock] = -1;
    single(Kind::Enter, lock, 0, atUs);
}

void ExternalWorker::exit(int lock, qint64 atUs)
{
    m_inside[lock] = false;
    single(Kind::Exit, lock, 0, atUs);
}

quint32 ExternalWorker::invoke(Kind kind, int lock, qint64 value, qint64 atUs)
{
    HistoryEvent e;
    e.opId = ++m_nextOp;
    e.worker = m_index;
    e.process = m_process;
    e.lock = lock;
    e.phase = Phase::Invoke;
    e.kind = kind;
    e.value = value;
    e.timeUs = atUs;
    m_run.history->record(m_index, e);
    return e.opId;
}

void ExternalWorker::complete(quint32 op, Kind kind, Phase phase, int lock, qint64 value, qint64 atUs,
                              quint8 outcome, const QByteArray &detail, qint64 token, qint64 effectUs)
{
    HistoryEvent e;
    e.opId = op;
    e.worker = m_index;
    e.process = m_process;
    e.lock = lock;
    e.phase = phase;
    e.kind = kind;
    e.value = value;
    e.token = token;
    e.outcome = outcome;
    e.effectUs = effectUs;
    e.commands = 1; // one request to the adapter; what the library sent to Redis is its own business
    e.timeUs = atUs;
    if (!detail.isEmpty())
        e.detail = m_run.history->addText(m_index, detail);
    m_run.history->record(m_index, e);
}

void ExternalWorker::single(Kind kind, int lock, qint64 value, qint64 atUs, const QByteArray &detail)
{
    complete(++m_nextOp, kind, Phase::Ok, lock, value, atUs, 0, detail);
}

void ExternalWorker::recordFromAdapter(HistoryEvent e, const QByteArray &detail)
{
    e.worker = m_index;
    e.process = m_process;
    if (!detail.isEmpty())
        e.detail = m_run.history->addText(m_processLog, detail);
    m_run.history->record(m_processLog, e);
}

void ExternalWorker::onEvent(const ExternalClient::Event &event)
{
    const QString type = event.body.value(QLatin1String("event")).toString();
    const int lock = int(m_run.lockKeys.indexOf(event.body.value(QLatin1String("lock")).toString().toUtf8()));
    HistoryEvent e;
    e.lock = lock;
    e.kind = Kind::Renew;
    e.timeUs = event.receivedUs;
    e.opId = ++m_nextAdapterOp;
    if (type == QLatin1String("renewed")) {
        // The renewal happened before its word arrived: counting the lease from the arrival never calls a
        // lease spent that was not.
        e.value = event.body.value(QLatin1String("lease_ms")).toInteger(m_run.scenario.algorithm.leaseMs);
        e.phase = Phase::Invoke;
        recordFromAdapter(e, {});
        e.phase = Phase::Ok;
        recordFromAdapter(e, {});
    } else if (type == QLatin1String("lost")) {
        e.phase = Phase::Invoke;
        recordFromAdapter(e, {});
        e.phase = Phase::Fail;
        recordFromAdapter(e, "the library says the lock is lost: "
                                 + event.body.value(QLatin1String("error")).toString().toUtf8());
    } else {
        e.kind = Kind::Error;
        e.phase = Phase::Ok;
        recordFromAdapter(e, "an event LockScope does not know: " + type.toUtf8());
    }
}

void ExternalWorker::onNotice(ExternalClient::Notice notice, const QString &text)
{
    HistoryEvent e;
    // A late reply is logged and ignored (docs/client-protocol.md): a note, never a failure.
    e.kind = notice == ExternalClient::Notice::LateReply ? Kind::Note : Kind::Error;
    e.phase = Phase::Ok;
    e.timeUs = m_run.clock.nowUs();
    e.opId = ++m_nextAdapterOp;
    recordFromAdapter(e, text.toUtf8());
}
