// StorySnapshotter: one reading = per server, TYPE and PTTL of every key in one pipeline, then each existing
// key's value in a second one. Connections are opened lazily and dropped on any failure (a killed or
// restarted server is simply dialled again at the next reading).
#include "storysnapshotter.h"

#include "redis/clusterconnection.h"
#include "redis/redisconnection.h"
#include "runclock.h"

#include <algorithm>
#include <map>

namespace {

QString shown(const QByteArray &bytes)
{
    constexpr int kMaxChars = 96;
    QString text = QString::fromUtf8(bytes);
    if (text.size() > kMaxChars)
        text = text.left(kMaxChars - 1) + QChar(0x2026);
    return text;
}

// The value of a key of `type`, as one line: pairs for hashes and sorted sets, items for lists and sets.
QString valueText(const QString &type, const RedisReply &reply)
{
    if (reply.isString())
        return shown(reply.bytes());
    if (reply.isInteger())
        return QString::number(reply.toInteger());
    if (!reply.isArray())
        return QString();
    QStringList parts;
    const bool pairs = type == QLatin1String("hash") || type == QLatin1String("zset");
    const qsizetype step = pairs ? 2 : 1;
    for (qsizetype i = 0; i + step - 1 < reply.size(); i += step) {
        if (parts.size() >= StorySnapshotter::kMaxElements) {
            parts << QStringLiteral("… (%1 more)").arg((reply.size() - i) / step);
            break;
        }
        if (type == QLatin1String("hash"))
            parts << shown(reply.at(i).bytes()) + u'=' + shown(reply.at(i + 1).bytes());
        else if (type == QLatin1String("zset"))
            parts << QStringLiteral("%1 (%2)").arg(shown(reply.at(i).bytes()), shown(reply.at(i + 1).bytes()));
        else
            parts << shown(reply.at(i).bytes());
    }
    return parts.join(QStringLiteral(", "));
}

RedisCommand valueCommand(const QString &type, const QByteArray &key)
{
    const QByteArray last = QByteArray::number(StorySnapshotter::kMaxElements);
    if (type == QLatin1String("string"))
        return {"GET", key};
    if (type == QLatin1String("hash"))
        return {"HGETALL", key};
    if (type == QLatin1String("zset"))
        return {"ZRANGE", key, "0", last, "WITHSCORES"};
    if (type == QLatin1String("list"))
        return {"LRANGE", key, "0", last};
    if (type == QLatin1String("set"))
        return {"SRANDMEMBER", key, last};
    return {};
}

// One logical server: a plain connection, or a cluster's (which sends each key to its slot's master).
class Reader
{
public:
    explicit Reader(ConnectionSettings settings)
    {
        settings.clientName = QStringLiteral("lockscope-sim-snapshot");
        settings.readOnly = true;
        settings.connectTimeoutMs = StorySnapshotter::kReadTimeoutMs;
        settings.commandTimeoutMs = StorySnapshotter::kReadTimeoutMs;
        m_endpoint = settings.endpoint();
        if (settings.cluster)
            m_cluster = std::make_unique<ClusterConnection>(settings);
        else
            m_single = std::make_unique<RedisConnection>(settings);
    }
    const QString &endpoint() const { return m_endpoint; }
    RedisError open() { return m_cluster ? m_cluster->open() : m_single->open(); }
    // One pipeline on a server; one command after the other on a cluster (keys of different slots).
    QList<RedisResult> run(const QList<RedisCommand> &commands)
    {
        if (!m_cluster)
            return m_single->pipeline(commands);
        QList<RedisResult> out;
        for (const RedisCommand &c : commands)
            out << m_cluster->command(c);
        return out;
    }

private:
    QString m_endpoint;
    std::unique_ptr<ClusterConnection> m_cluster;
    std::unique_ptr<RedisConnection> m_single;
};

// The library's keys on `reader`'s server that are not among `known` (SCAN, a bounded number of pages).
QList<QByteArray> libraryKeysOn(Reader &reader, const QByteArray &pattern, const QList<QByteArray> &known)
{
    constexpr int kMaxPages = 20; // a sandbox answers in one; a big server is not walked whole per step
    QList<QByteArray> found;
    QByteArray cursor = "0";
    for (int page = 0; page < kMaxPages; ++page) {
        const RedisResult r
            = reader.run({RedisCommand {"SCAN", cursor, "MATCH", pattern, "COUNT", "1000"}}).value(0);
        if (!r.ok() || r.reply.isError() || r.reply.elements().size() != 2)
            break;
        cursor = r.reply.elements().at(0).bytes();
        for (const RedisReply &key : r.reply.elements().at(1).elements()) {
            if (!known.contains(key.bytes()) && !found.contains(key.bytes()))
                found << key.bytes();
        }
        if (cursor == "0" || found.size() >= StorySnapshotter::kMaxLibraryKeys)
            break;
    }
    std::sort(found.begin(), found.end());
    return found.mid(0, StorySnapshotter::kMaxLibraryKeys);
}

const RedisResult kNoReply = RedisResult::failure(RedisError(RedisError::Code::Protocol, QStringLiteral("no reply")));

// The snapshot thread's connections, by logical server. Thread-local because only that thread dials them and
// each snapshotter has its thread.
thread_local std::map<int, std::unique_ptr<Reader>> t_readers;

} // namespace

StorySnapshotter::StorySnapshotter(int serverCount, std::function<ConnectionSettings(int)> serverAt,
                                   QList<QByteArray> lockKeys, QList<QByteArray> firstServerKeys,
                                   const RunClock &clock, QByteArray libraryKeys)
    : m_serverCount(serverCount)
    , m_serverAt(std::move(serverAt))
    , m_lockKeys(std::move(lockKeys))
    , m_firstServerKeys(std::move(firstServerKeys))
    , m_libraryKeys(std::move(libraryKeys))
    , m_clock(clock)
    , m_thread([this] { loop(); })
{
}

StorySnapshotter::~StorySnapshotter()
{
    {
        std::lock_guard lock(m_mutex);
        m_stop = true;
    }
    m_wake.notify_all();
    m_thread.join();
}

int StorySnapshotter::enqueue(int stepIndex)
{
    const int id = m_nextId++;
    m_pending.push_back({id, stepIndex, m_clock.nowUs()});
    return id;
}

void StorySnapshotter::request(int stepIndex)
{
    {
        std::lock_guard lock(m_mutex);
        enqueue(stepIndex);
    }
    m_wake.notify_all();
}

bool StorySnapshotter::readBefore(int stepIndex, int waitMs)
{
    std::unique_lock lock(m_mutex);
    const int id = enqueue(stepIndex);
    m_wake.notify_all();
    const bool done = m_idle.wait_for(lock, std::chrono::milliseconds(waitMs), [&] { return m_doneUpTo >= id; });
    if (!done)
        m_late << id;
    return done;
}

bool StorySnapshotter::waitIdle(int timeoutMs)
{
    std::unique_lock lock(m_mutex);
    return m_idle.wait_for(lock, std::chrono::milliseconds(timeoutMs),
                           [this] { return m_pending.empty() && !m_busy; });
}

QList<StorySnapshot> StorySnapshotter::snapshots() const
{
    std::lock_guard lock(m_mutex);
    return m_done;
}

void StorySnapshotter::loop()
{
    for (;;) {
        Pending next {};
        {
            std::unique_lock lock(m_mutex);
            m_wake.wait(lock, [this] { return m_stop || !m_pending.empty(); });
            // Stopping: readings still queued are dropped (the run's end waited for them already, a bounded
            // while); finishing them on a dead server would hold Stop for many timeouts.
            if (m_stop)
                break;
            next = m_pending.front();
            m_pending.pop_front();
            m_busy = true;
        }
        StorySnapshot snapshot;
        snapshot.stepIndex = next.stepIndex;
        const int id = next.id;
        snapshot.requestedUs = next.requestedUs;
        for (int server = 0; server < m_serverCount; ++server)
            snapshot.servers << read(server);
        snapshot.readUs = m_clock.nowUs();
        {
            std::lock_guard lock(m_mutex);
            snapshot.late = m_late.removeAll(id) > 0;
            m_done << snapshot;
            m_doneUpTo = id;
            m_busy = false;
        }
        m_idle.notify_all();
    }
    t_readers.clear();
    m_idle.notify_all();
}

StorySnapshot::Server StorySnapshotter::read(int server)
{
    const ConnectionSettings settings = m_serverAt(server);
    std::unique_ptr<Reader> &reader = t_readers[server];
    if (reader && reader->endpoint() != settings.endpoint())
        reader.reset(); // failed over: the server is elsewhere now
    StorySnapshot::Server out;
    out.endpoint = settings.endpoint();
    if (!reader) {
        reader = std::make_unique<Reader>(settings);
        if (const RedisError e = reader->open()) {
            reader.reset();
            out.unread = e.message();
            return out;
        }
    }
    QList<QByteArray> keys = server == 0 ? m_lockKeys + m_firstServerKeys : m_lockKeys;
    if (!m_libraryKeys.isEmpty())
        keys << libraryKeysOn(*reader, m_libraryKeys, keys);
    QList<RedisCommand> first;
    for (const QByteArray &key : keys)
        first << RedisCommand {"TYPE", key} << RedisCommand {"PTTL", key};
    const QList<RedisResult> typesAndTtls = reader->run(first);
    QList<RedisCommand> values;
    QList<int> valueOf; // index in out.keys of each value command
    for (int i = 0; i < keys.size(); ++i) {
        StorySnapshot::Key k;
        k.key = keys.at(i);
        const RedisResult &type = typesAndTtls.value(2 * i, kNoReply);
        const RedisResult &ttl = typesAndTtls.value(2 * i + 1, kNoReply);
        if (!type.ok() || type.reply.isError() || !ttl.ok() || ttl.reply.isError()) {
            const RedisResult &bad = !type.ok() || type.reply.isError() ? type : ttl;
            k.unread = bad.ok() ? QString::fromUtf8(bad.reply.bytes()) : bad.error.message();
        } else {
            k.type = QString::fromUtf8(type.reply.bytes());
            k.pttlMs = ttl.reply.toInteger();
            const RedisCommand command = valueCommand(k.type, k.key);
            if (!command.isEmpty()) {
                values << command;
                valueOf << int(out.keys.size());
            }
        }
        out.keys << k;
    }
    if (!values.isEmpty()) {
        const QList<RedisResult> read = reader->run(values);
        for (int v = 0; v < values.size(); ++v) {
            StorySnapshot::Key &k = out.keys[valueOf.at(v)];
            const RedisResult &r = read.value(v, kNoReply);
            if (!r.ok() || r.reply.isError())
                k.unread = r.ok() ? QString::fromUtf8(r.reply.bytes()) : r.error.message();
            else
                k.value = valueText(k.type, r.reply);
        }
    }
    bool broken = false;
    for (const RedisResult &r : typesAndTtls)
        broken = broken || (!r.ok() && r.error.breaksConnection());
    if (broken)
        reader.reset(); // dial again next time
    return out;
}
