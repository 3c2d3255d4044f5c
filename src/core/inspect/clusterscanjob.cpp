// ClusterScanJob: walks the masters of the slot map in order, page by page as LockScanJob does (SCAN, then
// the page probed a few pages ahead by a ProbePool) but with the probers at hand, since each page's
// redirected keys (KeyProber::takeRedirected) must be read again on the node that holds them. Sums the nodes'
// progress; a node that fails is noted and skipped, not the end of the scan.
#include "clusterscanjob.h"

#include "clustersubscribers.h"
#include "inspectclock.h"
#include "locknames.h"
#include "logging.h"
#include "probepool.h"
#include "redis/clusterconnection.h"
#include "redis/clusterslot.h"
#include "redis/redisconnection.h"
#include "redis/serverinfo.h"
#include "scanpacer.h"

#include <optional>

struct ClusterScanJob::Node
{
    ClusterSlotMap::Node node;
    QString endpoint;
    std::unique_ptr<RedisConnection> connection; // the SCAN walk's (and the probes' when there is no pool)
    std::unique_ptr<ScanPacer> pacer; // shared by the walk, the probes and the redirected reads
    std::unique_ptr<KeyProber> prober; // probes on `connection` when ScanOptions::probeConnections is 0
    std::unique_ptr<ProbePool> pool;
    QList<QPair<quint64, QList<ProbeTarget>>> inFlight; // pages submitted to the pool, oldest first
    QByteArray cursor = "0";
    int patternIndex = 0;
    bool scanDone = false;
    ScanProgress progress; // scannedKeys, pages, fraction and dbSize of this node

    QMap<QString, qint64> unread() const
    {
        QMap<QString, qint64> total = prober ? prober->unreadKeys() : QMap<QString, qint64>();
        if (pool) {
            for (auto [reason, n] : pool->unreadKeys().asKeyValueRange())
                total[reason] += n;
        }
        return total;
    }
};

namespace {

struct Redirect
{
    ClusterSlotMap::Node node;
    bool ask = false;
};

// "MOVED 3999 127.0.0.1:6381" or "ASK 3999 127.0.0.1:6381"; an empty host (":6381") is the host we asked.
std::optional<Redirect> parseRedirect(const QString &text, const QString &askedHost)
{
    const QStringList parts = text.trimmed().split(u' ');
    if (parts.size() != 3 || (parts[0] != QLatin1String("MOVED") && parts[0] != QLatin1String("ASK")))
        return std::nullopt;
    const qsizetype colon = parts[2].lastIndexOf(u':');
    bool ok = false;
    Redirect r;
    r.ask = parts[0] == QLatin1String("ASK");
    r.node.host = parts[2].left(colon);
    if (r.node.host.startsWith(u'[') && r.node.host.endsWith(u']'))
        r.node.host = r.node.host.mid(1, r.node.host.size() - 2);
    if (r.node.host.isEmpty())
        r.node.host = askedHost;
    r.node.port = colon < 0 ? 0 : parts[2].mid(colon + 1).toInt(&ok);
    if (!ok || r.node.port < 1 || r.node.port > 65535)
        return std::nullopt;
    return r;
}

// A key a node answered MOVED/ASK for, on its way to the node that holds it.
struct Pending
{
    ProbeTarget target;
    RedisError why;
    ClusterSlotMap::Node from;
};

bool isInterruption(const RedisError &e)
{
    return e.code() == RedisError::Code::Interrupted;
}

} // namespace

ClusterScanJob::ClusterScanJob(const ConnectionSettings &seed, const ScanOptions &options)
    : m_seed(seed)
    , m_options(options)
    , m_assembler(options)
{
    m_seed.readOnly = true;
    m_seed.cluster = false;
    m_timer.start();
    const QString problem = options.validate();
    if (!problem.isEmpty()) {
        m_error = {RedisError::Code::BadArgument, problem};
        m_atEnd = true;
    }
}

ClusterScanJob::~ClusterScanJob() = default;

ConnectionSettings ClusterScanJob::settingsOf(const ClusterSlotMap::Node &node) const
{
    ConnectionSettings s = m_seed;
    s.host = node.host;
    s.port = node.port;
    return s;
}

QString ClusterScanJob::slotsOf(const ClusterSlotMap::Node &node) const
{
    QStringList ranges;
    for (const auto &[first, last] : m_map.slotsOf(node))
        ranges << (first == last ? QString::number(first) : QStringLiteral("%1-%2").arg(first).arg(last));
    return ranges.isEmpty() ? QStringLiteral("no slots")
                            : QStringLiteral("slots %1").arg(ranges.join(QStringLiteral(", ")));
}

bool ClusterScanJob::readMap()
{
    m_mapRead = true;
    RedisConnection seed(m_seed);
    RedisError error = seed.open();
    if (!error)
        m_map = ClusterSlotMap::fetch(seed, &error);
    if (error) {
        m_error = error;
        m_atEnd = true;
        return false;
    }
    // Slots no master serves hold keys no scan can see: say which.
    QStringList unserved;
    for (int slot = 0; slot < ClusterSlot::kSlots; ++slot) {
        if (m_map.masterOf(slot))
            continue;
        int last = slot;
        while (last + 1 < ClusterSlot::kSlots && !m_map.masterOf(last + 1))
            ++last;
        unserved << (last == slot ? QString::number(slot) : QStringLiteral("%1-%2").arg(slot).arg(last));
        slot = last;
    }
    if (!unserved.isEmpty())
        m_missing
            << QStringLiteral("slots %1: no master serves them").arg(unserved.join(QStringLiteral(", ")));
    return true;
}

bool ClusterScanJob::startNextNode()
{
    while (m_next < m_map.masters().size()) {
        const ClusterSlotMap::Node &master = m_map.masters().at(m_next++);
        auto node = std::make_unique<Node>();
        node->node = master;
        node->endpoint = master.endpoint();
        node->connection = std::make_unique<RedisConnection>(settingsOf(master));
        node->pacer = std::make_unique<ScanPacer>(m_options.serverShare, m_options.maxOpsPerSecond,
                                                  m_options.pipelineChunk);
        {
            QMutexLocker lock(&m_mutex);
            m_current = std::move(node);
        }
        Node &n = *m_current;
        RedisError error = m_interrupted
            ? RedisError(RedisError::Code::Interrupted, QStringLiteral("the cluster scan was interrupted"))
            : n.connection->open();
        ServerInfo info;
        if (!error) {
            RedisError infoError;
            info = ServerInfo::fetch(*n.connection, &infoError);
            if (infoError && infoError.breaksConnection())
                error = infoError;
        }
        if (isInterruption(error)) {
            m_error = error;
            m_atEnd = true;
            return false;
        }
        if (error) {
            qCDebug(lcInspect) << "cluster scan: skipping" << n.endpoint << error.message();
            endNode(error);
            continue;
        }
        n.progress.dbSize = info.keys;
        auto prober = std::make_unique<KeyProber>(m_options);
        prober->setPacer(n.pacer.get());
        auto pool = m_options.probeConnections > 0 ? std::make_unique<ProbePool>(
                        n.connection->settings(), m_options, m_options.probeConnections, n.pacer.get())
                                                   : nullptr;
        QMutexLocker lock(&m_mutex);
        n.prober = std::move(prober);
        n.pool = std::move(pool);
        return true;
    }
    return false;
}

void ClusterScanJob::endNode(const RedisError &error)
{
    Node &n = *m_current;
    m_done.scannedKeys += n.progress.scannedKeys;
    m_done.pages += n.progress.pages;
    if (n.progress.dbSize >= 0)
        m_done.dbSize = std::max<qint64>(0, m_done.dbSize) + n.progress.dbSize;
    for (auto [reason, count] : n.unread().asKeyValueRange())
        m_done.unreadReasons[QStringLiteral("%1: %2").arg(n.endpoint, reason)] += count;
    if (error) {
        m_missing << (n.progress.pages > 0
                          ? QStringLiteral("%1 (%2): the scan stopped after %3 keys: %4")
                                .arg(n.endpoint, slotsOf(n.node))
                                .arg(n.progress.scannedKeys)
                                .arg(error.message())
                          : QStringLiteral("%1 (%2): %3").arg(n.endpoint, slotsOf(n.node), error.message()));
        if (!m_firstNodeError)
            m_firstNodeError = error;
        if (error.breaksConnection())
            m_unreachable.insert(n.endpoint, error);
    }
    if (!error || n.progress.pages > 0)
        ++m_scanned;
    std::unique_ptr<Node> done; // destroyed outside the mutex: stopping its probe threads takes a moment
    QMutexLocker lock(&m_mutex);
    done = std::move(m_current);
    lock.unlock();
}

void ClusterScanJob::finish()
{
    m_atEnd = true;
    if (m_scanned == 0 && !m_error && !m_map.masters().isEmpty())
        m_error = RedisError(m_firstNodeError.code(),
                             QStringLiteral("no master of the cluster could be scanned: %1")
                                 .arg(m_missing.join(QStringLiteral("; "))));
}

bool ClusterScanJob::scanPage(QList<ProbeTarget> *targets, RedisError *error)
{
    Node &n = *m_current;
    const QByteArray pattern = m_options.patterns.at(n.patternIndex);
    RedisCommand scan {"SCAN", n.cursor};
    if (pattern != "*")
        scan << "MATCH" << pattern;
    scan << "COUNT" << QByteArray::number(m_options.count);
    if (!n.pacer->beforeChunk(1)) {
        *error = {RedisError::Code::Interrupted, QStringLiteral("Interrupted")};
        return false;
    }
    QElapsedTimer roundTrip;
    roundTrip.start();
    const RedisResult page = n.connection->command(scan);
    n.pacer->afterChunk(roundTrip.nsecsElapsed() / 1000);
    if (!page.ok() || page.reply.size() != 2) {
        *error = page.ok()
            ? RedisError(RedisError::Code::Protocol,
                         QStringLiteral("unexpected SCAN reply: %1").arg(page.reply.toDisplayString()))
            : page.error;
        return false;
    }
    n.cursor = page.reply.at(0).bytes();
    const QList<RedisReply> &names = page.reply.at(1).elements();
    ++n.progress.pages;
    n.progress.scannedKeys += names.size();

    LockScanJob::targetsOf(names, pattern, m_options, &m_viaQueue, m_assembler, targets);

    bool ok = false;
    const quint64 cursor = n.cursor.toULongLong(&ok);
    const int patterns = int(m_options.patterns.size());
    if (ok && cursor == 0) {
        ++n.patternIndex;
        n.progress.fraction = double(n.patternIndex) / patterns;
        n.scanDone = n.patternIndex >= patterns;
    } else {
        n.progress.fraction = (n.patternIndex + (ok ? LockScanJob::cursorFraction(cursor) : 0.0)) / patterns;
    }
    return true;
}

bool ClusterScanJob::probePage(QList<ScannedKey> *scanned, QHash<QByteArray, QString> *nodeOfKey,
                               RedisError *error)
{
    Node &n = *m_current;
    QList<ProbeTarget> targets;
    Redirected redirected;
    if (!n.pool) {
        if (!scanPage(&targets, error) || !n.prober->probe(*n.connection, targets, scanned, error))
            return false;
        redirected = n.prober->takeRedirected();
    } else {
        // Keep a few pages on the wire: SCAN walks on while earlier pages are probed.
        const int depth = m_options.probeConnections + 1;
        while (!n.scanDone && n.inFlight.size() < depth) {
            QList<ProbeTarget> page;
            if (!scanPage(&page, error))
                return false;
            n.inFlight.append({n.pool->submit(page), page});
        }
        if (n.inFlight.isEmpty())
            return true;
        quint64 ticket = 0;
        std::tie(ticket, targets) = n.inFlight.takeFirst();
        if (!n.pool->take(ticket, scanned, error, &redirected))
            return false;
    }
    return redirected.isEmpty() || followRedirects(targets, redirected, scanned, nodeOfKey, error);
}

RedisConnection *ClusterScanJob::redirectConnection(const ClusterSlotMap::Node &node, RedisError *error)
{
    const QString endpoint = node.endpoint();
    if (m_unreachable.contains(endpoint)) {
        *error = m_unreachable.value(endpoint); // not waited for again on every page
        return nullptr;
    }
    std::shared_ptr<RedisConnection> c = m_redirectConnections.value(endpoint);
    if (c && c->isOpen())
        return c.get();
    c = std::make_shared<RedisConnection>(settingsOf(node));
    {
        QMutexLocker lock(&m_mutex); // reachable by interrupt() while it opens
        m_redirectConnections.insert(endpoint, c);
    }
    *error = m_interrupted ? RedisError(RedisError::Code::Interrupted, QStringLiteral("Interrupted"))
                           : c->open();
    if (!*error)
        return c.get();
    QMutexLocker lock(&m_mutex);
    m_redirectConnections.remove(endpoint);
    return nullptr;
}

bool ClusterScanJob::followRedirects(const QList<ProbeTarget> &targets, const Redirected &redirected,
                                     QList<ScannedKey> *scanned, QHash<QByteArray, QString> *nodeOfKey,
                                     RedisError *error)
{
    QHash<QByteArray, ProbeTarget> targetOf;
    for (const auto &[key, why] : redirected)
        targetOf.insert(key, ProbeTarget {key});
    for (const ProbeTarget &t : targets) {
        if (targetOf.contains(t.key))
            targetOf.insert(t.key, t);
    }
    // They came back unread from the node that redirected them: they are read below where they live.
    scanned->removeIf([&](const ScannedKey &k) { return k.type.isEmpty() && targetOf.contains(k.key); });

    QList<Pending> pending;
    for (const auto &[key, why] : redirected)
        pending.append({targetOf.value(key), why, m_current->node});
    for (int hop = 0; !pending.isEmpty(); ++hop) {
        // By node, and by how: ASK (a slot being imported there) needs ASKING before each read.
        QMap<QPair<QString, bool>, QPair<ClusterSlotMap::Node, QList<ProbeTarget>>> groups;
        for (const Pending &p : std::as_const(pending)) {
            const std::optional<Redirect> r = parseRedirect(p.why.message(), p.from.host);
            if (!r || hop >= ClusterConnection::kMaxRedirects) {
                const QString reason = r ? QStringLiteral("redirected more than %1 times (the slot map keeps "
                                                          "changing; scan again)")
                                               .arg(ClusterConnection::kMaxRedirects)
                                         : p.why.message().left(120);
                m_redirectUnread[QStringLiteral("%1: %2").arg(p.from.endpoint(), reason)] += 1;
                continue;
            }
            auto &group = groups[{r->node.endpoint(), r->ask}];
            group.first = r->node;
            group.second.append(p.target);
        }
        pending.clear();
        for (auto it = groups.cbegin(); it != groups.cend(); ++it) {
            const auto &[node, group] = it.value();
            const QString endpoint = node.endpoint();
            RedisError e;
            RedisConnection *c = redirectConnection(node, &e);
            KeyProber prober(m_options);
            prober.setPacer(m_current->pacer.get());
            prober.setAsking(it.key().second);
            QList<ScannedKey> part;
            if (c && prober.probe(*c, group, &part, &e)) {
                for (auto [reason, count] : prober.unreadKeys().asKeyValueRange())
                    m_redirectUnread[QStringLiteral("%1: %2").arg(endpoint, reason)] += count;
            } else {
                if (isInterruption(e) || m_interrupted) {
                    *error = e;
                    return false;
                }
                if (e.breaksConnection())
                    m_unreachable.insert(endpoint, e);
                m_redirectUnread[QStringLiteral("%1: the keys redirected there could not be read: %2")
                                     .arg(endpoint, e.message())]
                    += group.size();
                continue;
            }
            QSet<QByteArray> again;
            for (const auto &[key, why] : prober.takeRedirected()) {
                again.insert(key);
                pending.append({targetOf.value(key, ProbeTarget {key}), why, node});
            }
            for (ScannedKey &k : part) {
                if (again.contains(k.key))
                    continue;
                nodeOfKey->insert(k.key, endpoint);
                scanned->append(std::move(k));
            }
        }
    }
    return true;
}

QList<LockRecord> ClusterScanJob::nextPage()
{
    if (m_atEnd)
        return {};
    if (!m_mapRead && !readMap())
        return {};
    if (!m_current && !startNextNode()) {
        if (!m_atEnd)
            finish();
        return {};
    }
    QList<ScannedKey> scanned;
    QHash<QByteArray, QString> nodeOfKey; // keys read on another node than the one scanned
    RedisError error;
    if (!probePage(&scanned, &nodeOfKey, &error)) {
        if (isInterruption(error) || m_interrupted) {
            m_error = RedisError(RedisError::Code::Interrupted,
                                 QStringLiteral("%1: %2").arg(m_current->endpoint, error.message()));
            m_atEnd = true;
            return {};
        }
        qCDebug(lcInspect) << "cluster scan:" << m_current->endpoint << "failed:" << error.message();
        endNode(error);
        if (m_next >= m_map.masters().size())
            finish();
        return {};
    }
    // Waiters that subscribed the classic way may sit on any master: count them on the others too.
    ClusterSubscribers::addOtherMasters(
        scanned, m_map.masters(),
        [this](const ClusterSlotMap::Node &node, RedisError *e) {
            return node.endpoint() == m_current->endpoint ? m_current->connection.get()
                                                          : redirectConnection(node, e);
        },
        m_current->pacer.get());
    QList<LockRecord> records = m_assembler.add(scanned, InspectClock::wallMs());
    for (LockRecord &r : records) {
        // A lock stays with the node it was first read on when a later page updates it.
        QString &node = m_nodeOfLock[r.key];
        if (node.isEmpty())
            node = nodeOfKey.value(r.key, m_current->endpoint);
        r.node = node;
        r.slot = ClusterSlot::of(r.key);
    }
    if (m_current->scanDone && m_current->inFlight.isEmpty()) {
        endNode();
        if (m_next >= m_map.masters().size())
            finish();
    }
    return records;
}

ScanProgress ClusterScanJob::progress() const
{
    ScanProgress p = m_done;
    p.locks = m_assembler.lockCount();
    for (auto [reason, n] : m_redirectUnread.asKeyValueRange())
        p.unreadReasons[reason] += n;
    const int nodes = std::max<int>(1, int(m_map.masters().size()));
    double fraction = double(m_next) / nodes;
    if (m_current) {
        const ScanProgress &current = m_current->progress;
        p.scannedKeys += current.scannedKeys;
        p.pages += current.pages;
        if (current.dbSize >= 0)
            p.dbSize = std::max<qint64>(0, p.dbSize) + current.dbSize;
        for (auto [reason, n] : m_current->unread().asKeyValueRange())
            p.unreadReasons[QStringLiteral("%1: %2").arg(m_current->endpoint, reason)] += n;
        fraction = (m_next - 1 + current.fraction) / nodes;
    }
    p.unreadableKeys = 0;
    for (qint64 n : std::as_const(p.unreadReasons))
        p.unreadableKeys += n;
    p.missing = m_missing;
    p.fraction = m_atEnd ? 1.0 : fraction;
    p.elapsedMs = m_timer.elapsed();
    p.finished = m_atEnd && m_error.isNone();
    return p;
}

void ClusterScanJob::interrupt()
{
    m_interrupted = true;
    QMutexLocker lock(&m_mutex);
    if (m_current) {
        m_current->pacer->interrupt();
        m_current->connection->interrupt();
        if (m_current->pool)
            m_current->pool->interrupt();
    }
    for (const std::shared_ptr<RedisConnection> &c : std::as_const(m_redirectConnections))
        c->interrupt();
}
