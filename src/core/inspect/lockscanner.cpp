// LockScanner: a worker object on its own QThread; each scan page is a queued call, so refresh requests
// queued meanwhile run between pages instead of waiting for the whole scan.
#include "lockscanner.h"

#include "clusterscanjob.h"
#include "clustersubscribers.h"
#include "inspectclock.h"
#include "locknames.h"
#include "logging.h"
#include "redis/clusterslot.h"
#include "redis/clusterslotmap.h"
#include "redis/redisconnection.h"
#include "redis/serverinfo.h"

#include <QMetaObject>
#include <QMutex>
#include <QSet>

#include <atomic>

namespace {
constexpr int kMaxRefreshesInFlight = 2;

// One scan, of one server or of every master of a cluster.
class ScanJob
{
public:
    virtual ~ScanJob() = default;
    virtual QList<LockRecord> nextPage() = 0;
    virtual bool atEnd() const = 0;
    virtual RedisError error() const = 0;
    virtual ScanProgress progress() const = 0;
    virtual void interrupt() = 0;
};

template<typename Job> class ScanJobOf : public ScanJob
{
public:
    template<typename... Args>
    explicit ScanJobOf(Args &&...args)
        : m_job(std::forward<Args>(args)...)
    {
    }
    QList<LockRecord> nextPage() override { return m_job.nextPage(); }
    bool atEnd() const override { return m_job.atEnd(); }
    RedisError error() const override { return m_job.error(); }
    ScanProgress progress() const override { return m_job.progress(); }
    void interrupt() override { m_job.interrupt(); }

private:
    Job m_job;
};
} // namespace

struct LockScanner::Shared
{
    QMutex mutex; // guards `connection` for interrupt() from the GUI thread
    std::unique_ptr<RedisConnection> connection;
    ConnectionSettings settings;
    std::unique_ptr<ScanJob> job;
    // On a Redis Cluster (the settings say so, or the server does): scans walk every master, and probes go
    // to the master of each key's slot on a connection of its own.
    bool cluster = false;
    QString replicaOf; // the server is a replica: waiters are counted on its master, not here
    ClusterSlotMap clusterMap;
    QHash<QString, std::shared_ptr<RedisConnection>> nodeConnections;
    std::atomic<quint64> cancelGeneration = 0; // scans with a generation ≤ this stop
    std::atomic_bool interrupted = false; // the socket was shut down from the GUI thread: reopen it
    QString reportedEndpoint; // what readingFrom() said last

    // The address the open connection reads from, when it changed since it was last reported; else empty.
    QString endpointChange()
    {
        if (!connection || !connection->isOpen() || connection->endpoint() == reportedEndpoint)
            return {};
        reportedEndpoint = connection->endpoint();
        return reportedEndpoint;
    }

    // The GUI thread reads `job` (to interrupt it) under the mutex; the old job is destroyed outside it,
    // since stopping its probe threads may take a moment.
    void setJob(std::unique_ptr<ScanJob> next)
    {
        std::unique_ptr<ScanJob> old;
        QMutexLocker lock(&mutex);
        old = std::move(job);
        job = std::move(next);
        lock.unlock();
    }

    // With the mutex held: makes every blocked call on our connections return.
    void interruptConnections()
    {
        if (connection)
            connection->interrupt();
        for (const std::shared_ptr<RedisConnection> &c : std::as_const(nodeConnections))
            c->interrupt();
    }

    // Opens the connection if needed; read-only whatever the caller's settings say.
    RedisError ensureConnection()
    {
        const bool wasInterrupted = interrupted.exchange(false);
        if (connection && connection->isOpen() && !wasInterrupted)
            return {};
        ConnectionSettings s = settings;
        s.readOnly = true;
        s.clientName = QStringLiteral("lockscope-inspector");
        auto c = std::make_unique<RedisConnection>(s);
        RedisError e = c->open();
        // The server says whether it is a cluster node (HELLO's mode), --cluster or not.
        const ServerInfo info = e ? ServerInfo {} : ServerInfo::fetch(*c);
        cluster = s.cluster || info.mode == QLatin1String("cluster");
        replicaOf = info.role == QLatin1String("replica")
            ? (info.master.isEmpty() ? QStringLiteral("its master") : info.master)
            : QString();
        if (info.mode == QLatin1String("sentinel")) {
            c->close();
            e = {RedisError::Code::BadSettings,
                 QStringLiteral(
                     "%1 is a Redis Sentinel, not a data server: connect through it with the topology "
                     "\"Redis Sentinel\" and pick the master it monitors")
                     .arg(s.endpoint())};
        }
        clusterMap = {};
        QMutexLocker lock(&mutex);
        nodeConnections.clear();
        connection = std::move(c);
        return e;
    }

    // Probes `targets` on the master of each one's slot and tags the records with node and slot.
    bool probeCluster(KeyProber &prober, const QList<ProbeTarget> &targets, QList<ScannedKey> *scanned,
                      QHash<QByteArray, QString> *nodeOfKey, RedisError *error)
    {
        if (clusterMap.isEmpty()) {
            clusterMap = ClusterSlotMap::fetch(*connection, error);
            if (*error)
                return false;
        }
        QHash<QString, QList<ProbeTarget>> byNode;
        QHash<QString, ClusterSlotMap::Node> nodes;
        for (const ProbeTarget &t : targets) {
            const ClusterSlotMap::Node *node = clusterMap.masterOfKey(t.key);
            if (!node)
                continue;
            byNode[node->endpoint()] << t;
            nodes.insert(node->endpoint(), *node);
        }
        for (auto it = byNode.cbegin(); it != byNode.cend(); ++it) {
            RedisConnection *c = nodeConnection(nodes.value(it.key()), error);
            if (!c)
                return false;
            QList<ScannedKey> part;
            if (!prober.probe(*c, it.value(), &part, error)) {
                clusterMap = {}; // a resharding or a failover: read the map again next time
                return false;
            }
            for (const ProbeTarget &t : it.value())
                nodeOfKey->insert(t.key, it.key());
            *scanned += part;
        }
        // Waiters that subscribed the classic way may sit on any master: count them on the others too.
        ClusterSubscribers::addOtherMasters(
            *scanned, clusterMap.masters(),
            [this](const ClusterSlotMap::Node &node, RedisError *e) { return nodeConnection(node, e); },
            nullptr);
        return true;
    }

    // The open connection to one node of the cluster, made on first use; nullptr with `error` when it cannot
    // be opened.
    RedisConnection *nodeConnection(const ClusterSlotMap::Node &node, RedisError *error)
    {
        std::shared_ptr<RedisConnection> c = nodeConnections.value(node.endpoint());
        if (c)
            return c.get();
        ConnectionSettings s = connection->settings();
        s.host = node.host;
        s.port = node.port;
        s.cluster = false;
        c = std::make_shared<RedisConnection>(s);
        if ((*error = c->open()))
            return nullptr;
        QMutexLocker lock(&mutex);
        nodeConnections.insert(node.endpoint(), c);
        return c.get();
    }
};

LockScanner::LockScanner(QObject *parent)
    : QObject(parent)
    , m_worker(QStringLiteral("LockScanner"))
    , m_shared(std::make_shared<Shared>())
{
    qRegisterMetaType<LockRecord>();
    qRegisterMetaType<ScanProgress>();
    qRegisterMetaType<RedisError>();
}

LockScanner::~LockScanner()
{
    m_shared->cancelGeneration = ~quint64(0);
    {
        QMutexLocker lock(&m_shared->mutex);
        m_shared->interruptConnections();
    }
    m_worker.stop();
}

void LockScanner::post(std::function<void(Shared &)> job)
{
    m_worker.post([shared = m_shared, job = std::move(job)] { job(*shared); });
}

void LockScanner::setConnectionSettings(const ConnectionSettings &settings)
{
    if (m_scanning)
        cancel();
    m_settings = settings;
    m_worker.nextGeneration();
    ++m_settingsEpoch;
    m_refreshes = 0;
    {
        QMutexLocker lock(&m_shared->mutex);
        m_shared->interruptConnections();
        m_shared->interrupted = true;
    }
    post([settings](Shared &shared) {
        shared.setJob(nullptr);
        QMutexLocker lock(&shared.mutex);
        shared.connection.reset();
        shared.settings = settings;
        shared.reportedEndpoint.clear();
    });
}

bool LockScanner::start(const ScanOptions &options)
{
    if (m_scanning)
        return false;
    m_scanning = true;
    m_options = options;
    const quint64 generation = m_worker.nextGeneration();
    emit scanStarted();

    // Each page re-posts the next one, so queued refreshes get their turn in between. The queued call owns
    // the page function; the function itself only holds a weak reference, so the chain frees itself.
    auto page = std::make_shared<std::function<void(Shared &)>>();
    std::weak_ptr<std::function<void(Shared &)>> weakPage = page;
    *page = [this, generation, weakPage](Shared &shared) {
        const auto deliver = [this, generation](std::function<void()> fn) {
            m_worker.deliver(this, generation, std::move(fn));
        };
        if (shared.cancelGeneration >= generation || !shared.job) {
            const ScanProgress p = shared.job ? shared.job->progress() : ScanProgress {};
            shared.setJob(nullptr);
            deliver([this, p] {
                m_scanning = false;
                emit scanCancelled(p);
            });
            return;
        }
        QList<LockRecord> records = shared.job->nextPage();
        const ScanProgress progress = shared.job->progress();
        if (shared.cancelGeneration >= generation) {
            shared.setJob(nullptr);
            deliver([this, progress] {
                m_scanning = false;
                emit scanCancelled(progress);
            });
            return;
        }
        if (!records.isEmpty() || !shared.job->atEnd())
            deliver([this, records, progress] { emit pageReady(records, progress); });
        if (!shared.job->atEnd()) {
            post([next = weakPage.lock()](Shared &keep) { (*next)(keep); });
            return;
        }
        const RedisError error = shared.job->error();
        shared.setJob(nullptr);
        deliver([this, error, progress] {
            m_scanning = false;
            if (error)
                emit scanFailed(error, progress);
            else
                emit scanFinished(progress);
        });
    };
    post([this, generation, epoch = m_settingsEpoch, options, page](Shared &shared) {
        if (const RedisError e = shared.ensureConnection()) {
            m_worker.deliver(this, generation, [this, e] {
                m_scanning = false;
                emit scanFailed(e, {});
            });
            return;
        }
        reportEndpoint(shared, epoch);
        if (shared.cluster) {
            ConnectionSettings seed = shared.connection->settings();
            seed.cluster = true;
            shared.setJob(std::make_unique<ScanJobOf<ClusterScanJob>>(seed, options));
        } else {
            shared.setJob(std::make_unique<ScanJobOf<LockScanJob>>(*shared.connection, options));
        }
        (*page)(shared);
    });
    return true;
}

void LockScanner::cancel()
{
    if (!m_scanning)
        return;
    m_shared->cancelGeneration = m_worker.generation();
    // A page blocked on a paused server would otherwise hold the cancel for a whole command timeout.
    QMutexLocker lock(&m_shared->mutex);
    m_shared->interruptConnections();
    if (m_shared->job)
        m_shared->job->interrupt();
    m_shared->interrupted = true;
}

QList<ProbeTarget> LockScanner::refreshTargets(const QList<LockRecord> &records)
{
    QList<ProbeTarget> targets;
    for (const LockRecord &r : records) {
        const bool fair = r.library == QLatin1String("Redisson") && r.type != "string";
        const auto purpose = fair ? ProbeTarget::Purpose::LockViaQueue : ProbeTarget::Purpose::Lock;
        for (const QByteArray &key : r.probeKey.isEmpty() ? r.memberKeys() : QList<QByteArray> {r.probeKey})
            targets.append({key, purpose, r.nameSaysLock, r.nameSaysLock});
    }
    return targets;
}

bool LockScanner::refresh(const QList<LockRecord> &records)
{
    QList<QByteArray> asked;
    for (const LockRecord &r : records)
        asked.append(r.key);
    return submitProbe(refreshTargets(records), asked);
}

bool LockScanner::probeKeys(const QList<QByteArray> &keys)
{
    // A companion's change is a change of its lock: probe the lock instead.
    QList<ProbeTarget> targets;
    QList<QByteArray> asked;
    QSet<QByteArray> seen;
    for (const QByteArray &key : keys) {
        const LockNames::Companion companion = LockNames::companionOf(key);
        const FormatCatalog::CompanionOf of = m_options.formats->companionOf(key);
        const bool isCompanion = companion.role != LockNames::CompanionRole::None || bool(of);
        const QByteArray lock = companion.role != LockNames::CompanionRole::None ? companion.lockName
            : of                                                                 ? of.lockKey
                                                                                 : key;
        bool explicitPattern = false;
        if (seen.contains(lock) || (!m_options.covers(lock, &explicitPattern) && !isCompanion))
            continue;
        seen.insert(lock);
        asked.append(lock);
        targets.append({lock, ProbeTarget::Purpose::LockViaQueue, m_options.isLockNamed(lock) || isCompanion,
                        explicitPattern});
    }
    return submitProbe(targets, asked);
}

bool LockScanner::submitProbe(const QList<ProbeTarget> &targets, const QList<QByteArray> &asked)
{
    if (m_refreshes >= kMaxRefreshesInFlight)
        return false;
    ++m_refreshes;
    const quint64 epoch = m_settingsEpoch;
    const ScanOptions options = m_options;
    post([this, epoch, options, targets, asked](Shared &shared) {
        QList<LockRecord> records;
        QHash<QByteArray, QString> unread; // asked keys whose TYPE could not be read: why
        RedisError error = shared.ensureConnection();
        if (!error) {
            KeyProber prober(options);
            prober.setReplicaOf(shared.replicaOf);
            QList<ScannedKey> scanned;
            QHash<QByteArray, QString> nodeOfKey;
            const bool probed = shared.cluster
                ? shared.probeCluster(prober, targets, &scanned, &nodeOfKey, &error)
                : prober.probe(*shared.connection, targets, &scanned, &error);
            if (probed) {
                for (const ScannedKey &k : std::as_const(scanned)) {
                    if (k.type.isEmpty()) // refused (LOADING, ACL, CLUSTERDOWN…): unknown, not gone
                        unread.insert(k.key, k.readErrors.value(0, QStringLiteral("not read")));
                }
                LockAssembler assembler(options);
                records = assembler.add(scanned, InspectClock::wallMs());
                if (shared.cluster) {
                    for (LockRecord &r : records) {
                        r.node = nodeOfKey.value(r.key);
                        r.slot = ClusterSlot::of(r.key);
                    }
                }
            }
        }
        if (!error)
            reportEndpoint(shared, epoch);
        QList<QByteArray> gone;
        QList<QPair<QByteArray, QString>> unreadKeys;
        if (!error) {
            QSet<QByteArray> present;
            for (const LockRecord &r : records)
                present.insert(r.key);
            for (const QByteArray &key : asked) {
                if (unread.contains(key))
                    unreadKeys.append({key, unread.value(key)});
                else if (!present.contains(key))
                    gone.append(key);
            }
        }
        QMetaObject::invokeMethod(
            this,
            [this, epoch, records, gone, unreadKeys, error] {
                if (epoch != m_settingsEpoch)
                    return;
                m_refreshes = std::max(0, m_refreshes - 1);
                if (error) {
                    emit probeFailed(error);
                    return;
                }
                if (!unreadKeys.isEmpty())
                    emit probeUnread(unreadKeys);
                emit probed(records, gone);
            },
            Qt::QueuedConnection);
    });
    return true;
}

bool LockScanner::ping()
{
    if (m_refreshes >= kMaxRefreshesInFlight)
        return false;
    ++m_refreshes;
    const quint64 epoch = m_settingsEpoch;
    post([this, epoch](Shared &shared) {
        RedisError error = shared.ensureConnection();
        if (!error) {
            // Any answer says the server is there and reads, even an ACL's NOPERM (a user limited to +@read);
            // a broken connection, a timeout or LOADING do not.
            const RedisResult r = shared.connection->command({"PING"});
            if (r.error.breaksConnection() || r.error.code() == RedisError::Code::Timeout
                || r.error.code() == RedisError::Code::Loading)
                error = r.error;
        }
        if (!error)
            reportEndpoint(shared, epoch);
        QMetaObject::invokeMethod(
            this,
            [this, epoch, error] {
                if (epoch != m_settingsEpoch)
                    return;
                m_refreshes = std::max(0, m_refreshes - 1);
                if (error)
                    emit probeFailed(error);
                else
                    emit pinged();
            },
            Qt::QueuedConnection);
    });
    return true;
}

void LockScanner::reportEndpoint(Shared &shared, quint64 epoch)
{
    const QString endpoint = shared.endpointChange();
    if (endpoint.isEmpty())
        return;
    QMetaObject::invokeMethod(
        this,
        [this, epoch, endpoint] {
            if (epoch == m_settingsEpoch)
                emit readingFrom(endpoint);
        },
        Qt::QueuedConnection);
}
