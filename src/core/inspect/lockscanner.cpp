// LockScanner: a worker object on its own QThread; each scan page is a queued call, so refresh requests
// queued meanwhile run between pages instead of waiting for the whole scan.
#include "lockscanner.h"

#include "inspectclock.h"
#include "locknames.h"
#include "logging.h"
#include "redis/redisconnection.h"

#include <QMetaObject>
#include <QMutex>
#include <QSet>

#include <atomic>

namespace {
constexpr int kMaxRefreshesInFlight = 2;
} // namespace

struct LockScanner::Shared
{
    QMutex mutex; // guards `connection` for interrupt() from the GUI thread
    std::unique_ptr<RedisConnection> connection;
    ConnectionSettings settings;
    std::unique_ptr<LockScanJob> job;
    std::atomic<quint64> cancelGeneration = 0; // scans with a generation ≤ this stop
    std::atomic_bool interrupted = false; // the socket was shut down from the GUI thread: reopen it

    // The GUI thread reads `job` (to interrupt it) under the mutex; the old job is destroyed outside it,
    // since stopping its probe threads may take a moment.
    void setJob(std::unique_ptr<LockScanJob> next)
    {
        std::unique_ptr<LockScanJob> old;
        QMutexLocker lock(&mutex);
        old = std::move(job);
        job = std::move(next);
        lock.unlock();
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
        const RedisError e = c->open();
        QMutexLocker lock(&mutex);
        connection = std::move(c);
        return e;
    }
};

LockScanner::LockScanner(QObject *parent)
    : QObject(parent)
    , m_shared(std::make_shared<Shared>())
{
    qRegisterMetaType<LockRecord>();
    qRegisterMetaType<ScanProgress>();
    qRegisterMetaType<RedisError>();
    m_thread.setObjectName(QStringLiteral("LockScanner"));
    m_worker = new QObject;
    m_worker->moveToThread(&m_thread);
    connect(&m_thread, &QThread::finished, m_worker, &QObject::deleteLater);
    m_thread.start();
}

LockScanner::~LockScanner()
{
    m_shared->cancelGeneration = ~quint64(0);
    {
        QMutexLocker lock(&m_shared->mutex);
        if (m_shared->connection)
            m_shared->connection->interrupt();
    }
    m_thread.quit();
    m_thread.wait();
}

void LockScanner::post(std::function<void(Shared &)> job)
{
    std::shared_ptr<Shared> shared = m_shared;
    QMetaObject::invokeMethod(
        m_worker, [shared, job = std::move(job)] { job(*shared); }, Qt::QueuedConnection);
}

void LockScanner::setConnectionSettings(const ConnectionSettings &settings)
{
    if (m_scanning)
        cancel();
    m_settings = settings;
    ++m_generation;
    m_refreshes = 0;
    {
        QMutexLocker lock(&m_shared->mutex);
        if (m_shared->connection)
            m_shared->connection->interrupt();
        m_shared->interrupted = true;
    }
    post([settings](Shared &shared) {
        shared.setJob(nullptr);
        QMutexLocker lock(&shared.mutex);
        shared.connection.reset();
        shared.settings = settings;
    });
}

bool LockScanner::start(const ScanOptions &options)
{
    if (m_scanning)
        return false;
    m_scanning = true;
    m_options = options;
    const quint64 generation = ++m_generation;
    emit scanStarted();

    // Each page re-posts the next one, so queued refreshes get their turn in between. The queued call owns
    // the page function; the function itself only holds a weak reference, so the chain frees itself.
    auto page = std::make_shared<std::function<void(Shared &)>>();
    std::weak_ptr<std::function<void(Shared &)>> weakPage = page;
    *page = [this, generation, weakPage](Shared &shared) {
        const auto deliver = [this, generation](auto fn) {
            QMetaObject::invokeMethod(
                this,
                [this, generation, fn] {
                    if (generation == m_generation)
                        fn();
                },
                Qt::QueuedConnection);
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
            std::shared_ptr<Shared> keep = m_shared;
            QMetaObject::invokeMethod(
                m_worker, [keep, next = weakPage.lock()] { (*next)(*keep); }, Qt::QueuedConnection);
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
    post([this, generation, options, page](Shared &shared) {
        if (const RedisError e = shared.ensureConnection()) {
            QMetaObject::invokeMethod(
                this,
                [this, generation, e] {
                    if (generation != m_generation)
                        return;
                    m_scanning = false;
                    emit scanFailed(e, {});
                },
                Qt::QueuedConnection);
            return;
        }
        shared.setJob(std::make_unique<LockScanJob>(*shared.connection, options));
        (*page)(shared);
    });
    return true;
}

void LockScanner::cancel()
{
    if (!m_scanning)
        return;
    m_shared->cancelGeneration = m_generation;
    // A page blocked on a paused server would otherwise hold the cancel for a whole command timeout.
    QMutexLocker lock(&m_shared->mutex);
    if (m_shared->connection)
        m_shared->connection->interrupt();
    if (m_shared->job)
        m_shared->job->interrupt();
    m_shared->interrupted = true;
}

QList<ProbeTarget> LockScanner::refreshTargets(const QList<LockRecord> &records)
{
    QList<ProbeTarget> targets;
    for (const LockRecord &r : records) {
        const auto purpose = LockKinds::isRedissonHash(r.kind) ? ProbeTarget::Purpose::LockViaQueue
                                                               : ProbeTarget::Purpose::Lock;
        for (const QByteArray &key : r.memberKeys())
            targets.append({key, purpose, true});
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
        const bool isCompanion = companion.role != LockNames::CompanionRole::None;
        const QByteArray lock = isCompanion ? companion.lockName : key;
        bool lockNamed = isCompanion;
        if (seen.contains(lock) || (!m_options.covers(lock, &lockNamed) && !isCompanion))
            continue;
        seen.insert(lock);
        asked.append(lock);
        targets.append({lock, ProbeTarget::Purpose::LockViaQueue, lockNamed || isCompanion});
    }
    return submitProbe(targets, asked);
}

bool LockScanner::submitProbe(const QList<ProbeTarget> &targets, const QList<QByteArray> &asked)
{
    if (m_refreshes >= kMaxRefreshesInFlight)
        return false;
    ++m_refreshes;
    const quint64 generation = m_generation;
    const ScanOptions options = m_options;
    post([this, generation, options, targets, asked](Shared &shared) {
        QList<LockRecord> records;
        RedisError error = shared.ensureConnection();
        if (!error) {
            KeyProber prober(options);
            QList<ScannedKey> scanned;
            if (prober.probe(*shared.connection, targets, &scanned, &error)) {
                LockAssembler assembler(options);
                records = assembler.add(scanned, InspectClock::wallMs());
            }
        }
        QList<QByteArray> gone;
        if (!error) {
            QSet<QByteArray> present;
            for (const LockRecord &r : records)
                present.insert(r.key);
            for (const QByteArray &key : asked) {
                if (!present.contains(key))
                    gone.append(key);
            }
        }
        QMetaObject::invokeMethod(
            this,
            [this, generation, records, gone, error] {
                if (generation != m_generation)
                    return;
                m_refreshes = std::max(0, m_refreshes - 1);
                if (error)
                    emit probeFailed(error);
                else
                    emit probed(records, gone);
            },
            Qt::QueuedConnection);
    });
    return true;
}
