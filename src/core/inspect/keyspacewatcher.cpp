// KeyspaceWatcher: a blocking subscribe loop, one job per start() on a WorkerThread, sharing only `Shared`
// with the watcher and woken by RedisConnection::interrupt(). stop() abandons the job rather than wait for
// it (a connect cannot be interrupted); its thread is joined later, never while the GUI waits, and what it
// still reports belongs to an old generation and is dropped.
// On a cluster the job reads the masters, then runs one subscriber thread per master (keyspace events are
// published only by the node that holds the key) and their states merge into one.
// Events are batched (everything already in the socket, up to a bound) so a busy server does not flood the
// GUI with one signal per key change.
#include "keyspacewatcher.h"

#include "inspectclock.h"
#include "logging.h"
#include "redis/clusterslotmap.h"
#include "redis/redisconnection.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

namespace {
constexpr int kPollMs = 250; // how often the loop looks at the stop flag while idle
constexpr int kMaxBatch = 5000;
constexpr int kRetryMs = 2000;
constexpr int kRecheckConfigMs = 5000; // notifications off: look again in case someone turns them on
const QString kNeeded = QStringLiteral("g$hlzx"); // generic, string, hash, list, zset, expired
} // namespace

// All the job touches of the watcher's (see WorkerThread::abandon()): it may run on after stop(), while the
// watcher starts another job or is being destroyed, so it holds this by shared_ptr.
struct KeyspaceWatcher::Shared
{
    Shared(KeyspaceWatcher *watcher, quint64 generation)
        : owner(watcher)
        , generation(generation)
    {
    }

    std::atomic_bool stop = false;
    // std primitives, not QMutex + QWaitCondition: Qt's wait unlocks and relocks the mutex inside the
    // uninstrumented library, which ThreadSanitizer then reports as a double lock.
    std::mutex mutex;
    std::condition_variable wake;
    QList<RedisConnection *> connections; // guarded by mutex, for interrupt()
    // Reports go to the watcher through its WorkerThread::deliver(), tagged with the start() they belong
    // to: the job never reads or writes the watcher itself, it only names it as the receiver.
    KeyspaceWatcher *const owner;
    const quint64 generation;

    // Tells the job to stop without waiting for it: a connect in progress cannot be interrupted, and the
    // GUI thread must not wait out a connect timeout. It ends on its own.
    void requestStop()
    {
        std::lock_guard lock(mutex);
        stop = true;
        for (RedisConnection *c : std::as_const(connections))
            c->interrupt();
        wake.notify_all();
    }
    void attach(RedisConnection *c)
    {
        std::lock_guard lock(mutex);
        connections.append(c);
    }
    void detach(RedisConnection *c)
    {
        std::lock_guard lock(mutex);
        connections.removeAll(c);
    }
    // Runs `fn` on the watcher's thread, unless the watcher has been stopped or restarted by then.
    void post(std::function<void(KeyspaceWatcher *)> fn) const
    {
        KeyspaceWatcher *const w = owner;
        w->m_worker.deliver(w, generation, [w, fn = std::move(fn)] { fn(w); });
    }
    // The state of one node's subscription (the node is empty on a single server).
    void report(const QString &node, State state, const QString &text, const QString &flags, bool readable)
    {
        post([=](KeyspaceWatcher *w) { w->setNodeState(node, state, text, flags, readable); });
    }
    void deliver(const QList<KeyspaceEvent> &batch)
    {
        post([batch](KeyspaceWatcher *w) {
            w->m_received = true;
            emit w->events(batch);
        });
    }
    // Sleeps up to `ms`, returning early (true) when asked to stop.
    bool sleep(int ms)
    {
        std::unique_lock lock(mutex);
        wake.wait_for(lock, std::chrono::milliseconds(ms), [this] { return stop.load(); });
        return stop;
    }
};

KeyspaceWatcher::KeyspaceWatcher(QObject *parent)
    : QObject(parent)
    , m_worker(QStringLiteral("KeyspaceWatcher"))
{
    qRegisterMetaType<KeyspaceEvent>();
    qRegisterMetaType<QList<KeyspaceEvent>>();
    qRegisterMetaType<KeyspaceWatcher::State>();
}

KeyspaceWatcher::~KeyspaceWatcher()
{
    // No "stopped" signal from a destructor: its receiver may be half destroyed already (the CLI's watch
    // holds the watcher as a member, destroyed after the timers its handler touches; UBSan caught it).
    blockSignals(true);
    stop();
    // Threads must not outlive the process' globals, nor jobs the watcher they deliver to: wait for the
    // abandoned ones here, at shutdown, where the longest wait is one connect timeout of a connection still
    // being made.
    m_worker.stop();
}

QString KeyspaceWatcher::flagsWithInspectorNeeds(const QString &current)
{
    QString flags = current;
    if (!flags.contains(u'K'))
        flags += u'K';
    if (flags.contains(u'A'))
        return flags;
    for (QChar c : kNeeded) {
        if (!flags.contains(c))
            flags += c;
    }
    return flags;
}

bool KeyspaceWatcher::flagsSuffice(const QString &flags, QString *missing)
{
    QStringList absent;
    if (!flags.contains(u'K') && !flags.contains(u'E'))
        absent << QStringLiteral("K or E (no keyspace or keyevent channel)");
    if (!flags.contains(u'A')) {
        for (QChar c : kNeeded) {
            if (!flags.contains(c))
                absent << QString(c);
        }
    }
    if (missing)
        *missing = absent.join(QStringLiteral(", "));
    return absent.isEmpty();
}

void KeyspaceWatcher::setState(State state, const QString &text, const QString &flags, bool configReadable)
{
    m_flags = flags;
    m_configReadable = configReadable;
    if (state == m_state && text == m_stateText)
        return;
    m_state = state;
    m_stateText = text;
    emit stateChanged(state, text);
}

void KeyspaceWatcher::stop()
{
    if (!m_shared)
        return;
    m_shared->requestStop();
    m_worker.nextGeneration(); // what the job still reports is dropped
    m_worker.abandon();
    m_shared.reset();
    m_received = false;
    m_nodes.clear();
    m_nodeStates.clear();
    setState(State::Stopped, tr("Not watching"), {}, false);
}

void KeyspaceWatcher::setNodeState(const QString &node, State state, const QString &text,
                                   const QString &flags, bool configReadable)
{
    m_nodeStates.insert(node, {state, text, flags, configReadable});
    if (m_nodes.isEmpty()) { // a single server: its state is the watcher's
        setState(state, text, flags, configReadable);
        return;
    }
    // A cluster: the weakest node decides (a failed or silent master means polling must fill in).
    QStringList listening;
    const NodeState *failed = nullptr, *off = nullptr, *unconfirmed = nullptr, *weakFlags = nullptr;
    QString failedNode, offNode;
    bool readable = true;
    int reported = 0;
    for (const QString &n : std::as_const(m_nodes)) {
        const auto it = m_nodeStates.constFind(n);
        if (it == m_nodeStates.constEnd() || it->state == State::Connecting)
            continue;
        ++reported;
        readable = readable && it->configReadable;
        if (it->state == State::Failed && !failed) {
            failed = &*it;
            failedNode = n;
        } else if (it->state == State::NotificationsOff && !off) {
            off = &*it;
            offNode = n;
        } else if (it->state == State::ListeningUnconfirmed) {
            unconfirmed = &*it;
        } else if (it->state == State::Listening) {
            listening << n;
            if (!weakFlags || !flagsSuffice(it->flags))
                weakFlags = &*it;
        }
    }
    const int total = int(m_nodes.size());
    const QString of = tr("%1 of %2 masters listening").arg(listening.size()).arg(total);
    if (failed)
        setState(State::Failed, QStringLiteral("%1: %2 (%3)").arg(failedNode, failed->text, of), {}, false);
    else if (off)
        setState(State::NotificationsOff, QStringLiteral("%1: %2 (%3)").arg(offNode, off->text, of),
                 off->flags, true);
    else if (reported < total)
        setState(State::Connecting, tr("Subscribing on the cluster's masters (%1)…").arg(of), {}, false);
    else if (unconfirmed)
        setState(State::ListeningUnconfirmed, unconfirmed->text, {}, false);
    else
        setState(State::Listening, QStringLiteral("%1 — on all %2 masters").arg(weakFlags->text).arg(total),
                 weakFlags->flags, readable);
}

void KeyspaceWatcher::start(const ConnectionSettings &settings)
{
    stop();
    ConnectionSettings s = settings;
    s.readOnly = true;
    s.clientName = QStringLiteral("lockscope-watch");
    // Through Sentinel the master is not known until the sentinels are asked: say which master, not the
    // default address the settings still hold.
    setState(State::Connecting,
             tr("Connecting to %1…").arg(s.sentinel.enabled() ? s.topologyDescription() : s.endpoint()), {},
             false);

    m_shared = std::make_shared<Shared>(this, m_worker.nextGeneration());
    m_worker.post([shared = m_shared, s] {
        if (s.cluster)
            watchCluster(*shared, s);
        else
            watchNode(*shared, s, QString());
    });
}

void KeyspaceWatcher::watchCluster(Shared &shared, const ConnectionSettings &s)
{
    // A cluster publishes key changes on the node that holds the key only: subscribe on every master, each
    // on a thread and connection of its own, and merge what they hear.
    ClusterSlotMap map;
    while (!shared.stop) {
        ConnectionSettings seed = s;
        seed.cluster = false;
        RedisConnection c(seed);
        c.setAutoReconnect(false);
        shared.attach(&c);
        RedisError error = c.open();
        if (!error)
            map = ClusterSlotMap::fetch(c, &error);
        shared.detach(&c);
        if (!error)
            break;
        if (shared.stop)
            break;
        shared.report(QString(), State::Failed,
                      QStringLiteral("Live view: cannot read the cluster's masters: %1 (retrying)")
                          .arg(error.message()),
                      {}, false);
        shared.sleep(kRetryMs);
    }
    QStringList nodes;
    for (const ClusterSlotMap::Node &n : map.masters())
        nodes << n.endpoint();
    shared.post([nodes](KeyspaceWatcher *w) {
        w->m_nodes = nodes;
        w->m_nodeStates.clear();
        w->setNodeState(QString(), State::Connecting, {}, {}, false);
    });
    // Joined before the job returns, so they share the job's lifetime (and its abandonment).
    std::vector<std::thread> watchers;
    for (const ClusterSlotMap::Node &n : map.masters()) {
        if (shared.stop)
            break;
        ConnectionSettings node = s;
        node.host = n.host;
        node.port = n.port;
        node.cluster = false;
        watchers.emplace_back([&shared, node, name = n.endpoint()] { watchNode(shared, node, name); });
    }
    for (std::thread &t : watchers)
        t.join();
}

void KeyspaceWatcher::watchNode(Shared &shared, const ConnectionSettings &s, const QString &node)
{
    const QByteArray db = QByteArray::number(s.db);
    const QByteArray spacePrefix = "__keyspace@" + db + "__:";
    const QByteArray eventPrefix = "__keyevent@" + db + "__:";
    const auto report
        = [&shared, &node](State state, const QString &text, const QString &flags, bool readable) {
              shared.report(node, state, text, flags, readable);
          };
    while (!shared.stop) {
        RedisConnection c(s);
        c.setAutoReconnect(false);
        shared.attach(&c);
        const auto detach = [&] { shared.detach(&c); };
        if (const RedisError e = c.open()) {
            detach();
            if (shared.stop)
                break;
            report(State::Failed, QStringLiteral("Live view: %1 (retrying)").arg(e.message()), {}, false);
            shared.sleep(kRetryMs);
            continue;
        }
        const RedisResult config = c.command({"CONFIG", "GET", "notify-keyspace-events"});
        bool readable = config.ok() && config.reply.size() == 2;
        const QString flags = readable ? QString::fromUtf8(config.reply.at(1).bytes()) : QString();
        if (!config.ok() && config.error.breaksConnection()) {
            detach();
            report(State::Failed, QStringLiteral("Live view: %1 (retrying)").arg(config.error.message()), {},
                   false);
            shared.sleep(kRetryMs);
            continue;
        }
        const bool keyspace = !readable || flags.contains(u'K');
        const bool keyevent = !readable || (flags.contains(u'E') && !flags.contains(u'K'));
        if (readable && !keyspace && !keyevent) {
            detach();
            report(State::NotificationsOff,
                   QStringLiteral("Keyspace notifications are off on this server: polling TTLs instead"),
                   flags, true);
            if (shared.sleep(kRecheckConfigMs))
                break;
            continue;
        }
        RedisCommand subscribe {"PSUBSCRIBE"};
        if (keyspace)
            subscribe << spacePrefix + '*';
        if (keyevent)
            subscribe << eventPrefix + '*';
        RedisError error;
        for (qsizetype i = 1; i < subscribe.size() && !error; ++i) {
            // PSUBSCRIBE answers once per pattern; append once, then read each confirmation.
            if (i == 1)
                error = c.append(subscribe);
            if (!error) {
                const RedisResult confirm = c.readReply(s.commandTimeoutMs);
                if (!confirm.ok())
                    error = confirm.error;
            }
        }
        if (error) {
            detach();
            if (shared.stop)
                break;
            report(State::Failed, QStringLiteral("Live view: cannot subscribe: %1").arg(error.message()), {},
                   readable);
            shared.sleep(kRetryMs);
            continue;
        }
        QString missing;
        // Through Sentinel: which master the subscription is on (a failover moves it).
        const QString on = s.sentinel.enabled()
            ? QStringLiteral(" on master '%1' at %2").arg(s.sentinel.masterName, c.endpoint())
            : QString();
        if (readable) {
            const bool enough = flagsSuffice(flags, &missing);
            report(State::Listening,
                   enough ? QStringLiteral("Live: keyspace notifications (%1)%2").arg(flags, on)
                          : QStringLiteral("Live: keyspace notifications (%1)%2 — not published: %3; polling "
                                           "fills the gaps")
                                .arg(flags, on, missing),
                   flags, true);
        } else {
            report(State::ListeningUnconfirmed,
                   QStringLiteral("CONFIG GET is not allowed for this user, so whether the server publishes "
                                  "key changes is unknown: listening for them, and polling TTLs meanwhile"),
                   {}, false);
        }

        bool sawKeyspace = false;
        while (!shared.stop) {
            RedisResult r = c.readReply(kPollMs);
            if (r.error.code() == RedisError::Code::Timeout)
                continue;
            if (!r.ok()) {
                error = r.error;
                break;
            }
            QList<KeyspaceEvent> batch;
            while (true) {
                const RedisReply &m = r.reply;
                // ["pmessage", pattern, channel, payload]
                if (m.size() == 4 && m.at(0).bytes() == "pmessage") {
                    const QByteArray &channel = m.at(2).bytes();
                    const qint64 now = InspectClock::monotonicMs();
                    if (channel.startsWith(spacePrefix)) {
                        sawKeyspace = true;
                        batch.append({channel.mid(spacePrefix.size()), m.at(3).bytes(), now, node});
                    } else if (channel.startsWith(eventPrefix) && !sawKeyspace) {
                        batch.append({m.at(3).bytes(), channel.mid(eventPrefix.size()), now, node});
                    }
                }
                if (batch.size() >= kMaxBatch)
                    break;
                r = c.readReply(0);
                if (!r.ok())
                    break;
            }
            if (!batch.isEmpty())
                shared.deliver(batch);
            if (!r.ok() && r.error.code() != RedisError::Code::Timeout) {
                error = r.error;
                break;
            }
        }
        detach();
        if (shared.stop)
            break;
        report(State::Failed, QStringLiteral("Live view: %1 (retrying)").arg(error.message()), {}, readable);
        shared.sleep(kRetryMs);
    }
}
