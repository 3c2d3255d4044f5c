// lock: read the command line (LockArguments), open the servers and an observer beside each, then acquire
// (with re-entries), hold and release one lock with the chosen algorithm, narrating each step (LockStepLog)
// and what Redis holds after it (LockReport). Faults from the catalog can be switched on to watch a flaw
// happen.
#include "lockcommand.h"

#include "checkedoutput.h"
#include "cliio.h"
#include "cliserver.h"
#include "interruptwatcher.h"
#include "lockarguments.h"
#include "lockreport.h"
#include "locks/redlock.h"
#include "locksteplog.h"
#include "redis/bytes.h"

#include <QEventLoop>
#include <QJsonDocument>
#include <QTimer>

#include <atomic>

namespace {

const char *cmd = "lockscope-cli lock";

int usage(const QString &text)
{
    CliIo::err() << cmd << ": " << text << "\n" << Qt::flush;
    return CliIo::Usage;
}

// The servers the lock runs on (one, or N for Redlock: sandboxes or the --node list), and beside each a
// separate read-only observer connection, so what is shown is what any other client would see.
struct LockServerSet
{
    CliServer single;
    std::vector<std::unique_ptr<SandboxServer>> sandboxes;
    std::vector<std::unique_ptr<RedisConnection>> owned;
    LockServers lockServers;
    QList<ConnectionSettings> settings;
    std::vector<std::unique_ptr<RedisConnection>> observers;

    QStringList endpoints() const
    {
        QStringList where;
        for (const ConnectionSettings &s : settings)
            where << s.endpoint();
        return where;
    }
};

// Starts or connects to every server and opens the observers. False with `error` set (exit 1).
bool openServers(const LockArguments &args, LockServerSet *servers, QString *error)
{
    if (args.algorithm->multiServer) {
        if (args.connection.sandbox) {
            for (int i = 0; i < args.sandboxServers; ++i) {
                SandboxServer::Options o;
                o.name = QStringLiteral("redlock-%1").arg(i + 1);
                servers->sandboxes.push_back(std::make_unique<SandboxServer>(o));
                if (!servers->sandboxes.back()->start()) {
                    *error = QStringLiteral("cannot start sandbox server %1: %2")
                                 .arg(i + 1)
                                 .arg(servers->sandboxes.back()->errorString());
                    return false;
                }
                servers->settings << servers->sandboxes.back()->connectionSettings();
            }
        } else {
            servers->settings = args.nodes;
        }
        for (const ConnectionSettings &s : servers->settings) {
            servers->owned.push_back(std::make_unique<RedisConnection>(s));
            if (const RedisError e = servers->owned.back()->open()) {
                *error = e.message();
                return false;
            }
            servers->lockServers << servers->owned.back().get();
        }
    } else {
        if (!servers->single.open(args.connection, error))
            return false;
        servers->lockServers << &servers->single.connection();
        servers->settings << servers->single.settings();
    }
    for (ConnectionSettings s : servers->settings) {
        s.readOnly = true;
        s.clientName = QStringLiteral("lockscope-observer");
        servers->observers.push_back(std::make_unique<RedisConnection>(s));
        if (const RedisError e = servers->observers.back()->open()) {
            *error = e.message();
            return false;
        }
    }
    return true;
}

// One acquire-hold-release of `lock`, narrated in `log`. Returns the exit code: 0 when every step went as
// planned, 3 when the lock was refused or lost, 1 when a server failed.
class LockLifecycle
{
public:
    LockLifecycle(const LockArguments &args, LockServerSet &servers, DistributedLock &lock,
                  LockClient &client, LockStepLog &log)
        : m_args(args)
        , m_servers(servers)
        , m_lock(lock)
        , m_client(client)
        , m_log(log)
    {
    }

    int run()
    {
        const AcquireResult first = m_lock.acquire(m_servers.lockServers);
        m_log.step(QStringLiteral("acquire"),
                   first.describe() + LockReport::replyText(first.reply, first.votes),
                   LockReport::acquireFields(first));
        noteVotes(first.votes);
        if (!first.token.isEmpty())
            m_log.note(
                QStringLiteral("token %1%2")
                    .arg(Bytes::display(first.token),
                         first.fence >= 0 ? QStringLiteral("   fence %1").arg(first.fence) : QString()));
        showState();
        if (!first.acquired()) {
            if (first.outcome == AcquireResult::Outcome::Crashed)
                m_log.note(QStringLiteral(
                               "the worker 'crashed' before EXPIRE: the key has no TTL and blocks everyone%1")
                               .arg(m_args.connection.sandbox ? QString()
                                                              : QStringLiteral(" (remove it with DEL %1)")
                                                                    .arg(Bytes::display(m_args.name))));
            return first.outcome == AcquireResult::Outcome::Error ? CliIo::Failure : CliIo::ExpectFailed;
        }
        const int holds = reenter();
        startHolding();
        // Kept until the releases are done: a Ctrl-C while releasing must not kill the process half-way.
        InterruptWatcher interrupts;
        interrupts.stopWhenOutputLost(); // nobody reads the steps any more: release now
        hold(interrupts);
        return release(holds);
    }

private:
    // The --reentry further acquisitions; returns how many holds there are to release.
    int reenter()
    {
        int holds = 1;
        for (int i = 0; i < m_args.reentry; ++i) {
            const AcquireResult again = m_lock.tryAcquire(m_servers.lockServers);
            m_log.step(QStringLiteral("re-enter"),
                       again.describe() + LockReport::replyText(again.reply, again.votes),
                       LockReport::acquireFields(again));
            if (again.acquired())
                ++holds;
            else if (!m_args.algorithm->reentrant)
                m_log.note(QStringLiteral("not reentrant: the same thread is refused like anyone else"));
            showState();
        }
        return holds;
    }

    // --fault pause stops the process (and its watchdog) for the whole hold.
    void startHolding()
    {
        if (m_args.faults.pause) {
            m_client.setPaused(true);
            m_log.step(QStringLiteral("pause"),
                       QStringLiteral("process paused: the watchdog renews nothing"));
        }
        m_log.step(QStringLiteral("hold"), QStringLiteral("holding for %1 ms").arg(m_args.holdMs));
    }

    // Holds for --hold-ms, or until `interrupts` fires (Ctrl-C, or nobody reads the steps any more).
    void hold(InterruptWatcher &interrupts)
    {
        bool interrupted = false;
        if (m_args.holdMs > 0) {
            QEventLoop loop;
            QObject::connect(&interrupts, &InterruptWatcher::interrupted, &loop, [&] {
                interrupted = true;
                loop.quit();
            });
            QTimer::singleShot(int(m_args.holdMs), &loop, &QEventLoop::quit);
            loop.exec();
        }
        if (interrupted)
            m_log.step(QStringLiteral("interrupt"),
                       interrupts.outputLost() ? QStringLiteral("nobody reads the output: releasing now")
                                               : QStringLiteral("interrupted: releasing now"));
        if (m_args.faults.pause) {
            m_client.setPaused(false);
            m_log.step(QStringLiteral("resume"), QStringLiteral("process resumed"));
        }
        showState();
        if (auto *redlock = dynamic_cast<Redlock *>(&m_lock))
            m_log.note(QStringLiteral("validity left on this client's clock: %1 ms")
                           .arg(redlock->validityRemainingMs()));
    }

    // Releases each hold, stopping at the first release that fails.
    int release(int holds)
    {
        int exitCode = CliIo::Ok;
        for (int i = 0; i < holds; ++i) {
            const ReleaseResult r = m_lock.release(m_servers.lockServers);
            m_log.step(QStringLiteral("release"), r.describe() + LockReport::replyText(r.reply, r.votes),
                       LockReport::releaseFields(r));
            noteVotes(r.votes);
            showState();
            if (r.outcome == ReleaseResult::Outcome::Error)
                exitCode = CliIo::Failure;
            else if (!r.ok() && exitCode == CliIo::Ok)
                exitCode = CliIo::ExpectFailed;
            if (!r.ok())
                break;
        }
        return exitCode;
    }

    void noteVotes(const QList<ServerVote> &votes)
    {
        for (const ServerVote &v : votes)
            m_log.note(LockReport::voteText(v));
    }

    // What each observer sees of the lock's keys; companions appear only when they exist.
    void showState()
    {
        const auto &observers = m_servers.observers;
        for (size_t i = 0; i < observers.size(); ++i) {
            const QString where = observers.size() > 1
                ? m_servers.settings.at(qsizetype(i)).endpoint() + QStringLiteral(": ")
                : QString();
            for (const QByteArray &key : m_lock.keys()) {
                const QString state = LockReport::describeKey(*observers[i], key);
                if (state == QLatin1String("(no key)") && key != m_args.name)
                    continue;
                m_log.note(QStringLiteral("%1%2 → %3").arg(where, Bytes::display(key), state));
            }
        }
    }

    const LockArguments &m_args;
    LockServerSet &m_servers;
    DistributedLock &m_lock;
    LockClient &m_client;
    LockStepLog &m_log;
};

} // namespace

int runLockCommand(const QStringList &arguments)
{
    const LockArguments args = LockArguments::parse(arguments);
    if (!args.helpText.isEmpty()) {
        CliIo::out() << args.helpText << Qt::flush;
        return CliIo::Ok;
    }
    if (!args.error.isEmpty())
        return usage(args.error);

    LockServerSet servers;
    QString error;
    if (!openServers(args, &servers, &error)) {
        CliIo::err() << cmd << ": " << error << "\n" << Qt::flush;
        return CliIo::Failure;
    }
    LockStepLog log(CliIo::out(), args.json);
    LockClient::Options clientOptions;
    clientOptions.name = QStringLiteral("lockscope-cli");
    LockClient client(clientOptions);
    client.setFaultHooks(args.faults.hooks);
    std::unique_ptr<DistributedLock> lock
        = LockCatalog::create(args.algorithmId, client, args.name, args.threadId, args.options, &error);
    if (!lock)
        return usage(error);
    std::atomic<int> renewals = 0;
    client.watchdog().setObserver([&](const RenewalEvent &e) {
        ++renewals;
        log.step(QStringLiteral("renew"),
                 QStringLiteral("%1 %2 (lease %3 ms, %4 ms round trip)")
                     .arg(RenewalEvent::outcomeName(e.outcome), Bytes::display(e.key))
                     .arg(e.leaseMs)
                     .arg(double(e.endUs - e.startUs) / 1000.0, 0, 'f', 3),
                 {{QStringLiteral("outcome"), RenewalEvent::outcomeName(e.outcome)}});
    });

    const QStringList where = servers.endpoints();
    if (!args.json)
        LockReport::printHeader(CliIo::out(), args, where, client.id());
    if (const RedisError e = lock->prepare(servers.lockServers)) {
        CliIo::err() << cmd << ": " << e.message() << "\n" << Qt::flush;
        return CliIo::Failure;
    }
    const int exitCode = LockLifecycle(args, servers, *lock, client, log).run();
    client.watchdog().setObserver({});
    if (args.json) {
        const QJsonObject o
            = LockReport::document(args, where, client.id(), renewals.load(), log.steps(), exitCode);
        CliIo::stdoutDevice().beginDocument();
        CliIo::out() << QJsonDocument(o).toJson(QJsonDocument::Indented) << Qt::flush;
        CliIo::stdoutDevice().endDocument();
    }
    return exitCode;
}
