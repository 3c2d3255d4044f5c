// LockScanJob: the SCAN loop; the page's probing and interpretation live in KeyProber and LockAssembler.
#include "lockscanjob.h"

#include "inspectclock.h"
#include "locknames.h"
#include "logging.h"
#include "probepool.h"
#include "redis/redisconnection.h"
#include "redis/serverinfo.h"
#include "scanpacer.h"

LockScanJob::~LockScanJob() = default;

LockScanJob::LockScanJob(RedisConnection &connection, const ScanOptions &options)
    : m_connection(connection)
    , m_options(options)
    , m_pacer(
          std::make_unique<ScanPacer>(options.serverShare, options.maxOpsPerSecond, options.pipelineChunk))
    , m_prober(options)
    , m_assembler(options)
{
    m_prober.setPacer(m_pacer.get());
    const QString problem = options.validate();
    if (!problem.isEmpty()) {
        m_error = {RedisError::Code::BadArgument, problem};
        m_atEnd = true;
    }
}

void LockScanJob::targetsOf(const QList<RedisReply> &names, const QByteArray &pattern,
                            const ScanOptions &options, QSet<QByteArray> *viaQueue,
                            const LockAssembler &assembler, QList<ProbeTarget> *targets)
{
    targets->clear();
    targets->reserve(names.size());
    for (const RedisReply &name : names) {
        const QByteArray &key = name.bytes();
        const LockNames::Companion companion = LockNames::companionOf(key);
        switch (companion.role) {
        case LockNames::CompanionRole::Queue:
        case LockNames::CompanionRole::Deadlines:
            // Probe the lock the queue belongs to: listed with its queue, or as an orphan queue.
            if (!viaQueue->contains(companion.lockName) && !assembler.hasLock(companion.lockName)) {
                viaQueue->insert(companion.lockName);
                targets->append({companion.lockName, ProbeTarget::Purpose::LockViaQueue, true});
            }
            break;
        case LockNames::CompanionRole::Token:
            break; // read together with its lock
        case LockNames::CompanionRole::ReadTimeout:
        case LockNames::CompanionRole::UnlockLatch:
            targets->append({key, ProbeTarget::Purpose::Companion, false});
            break;
        case LockNames::CompanionRole::None:
            if (options.formats->companionOf(key))
                targets->append({key, ProbeTarget::Purpose::Companion, false});
            else
                targets->append({key, ProbeTarget::Purpose::Lock, options.isLockNamed(key), pattern != "*"});
            break;
        }
    }
}

double LockScanJob::cursorFraction(quint64 cursor)
{
    // SCAN increments the cursor's bits in reverse; reversed back, it counts buckets visited.
    quint64 reversed = 0;
    for (int i = 0; i < 64; ++i) {
        reversed = (reversed << 1) | (cursor & 1);
        cursor >>= 1;
    }
    return double(reversed) / 18446744073709551616.0;
}

ScanProgress LockScanJob::progress() const
{
    ScanProgress p = m_progress;
    p.locks = m_assembler.lockCount();
    p.unreadReasons = m_prober.unreadKeys();
    if (m_pool) {
        for (auto [reason, n] : m_pool->unreadKeys().asKeyValueRange())
            p.unreadReasons[reason] += n;
    }
    p.unreadableKeys = 0;
    for (qint64 n : std::as_const(p.unreadReasons))
        p.unreadableKeys += n;
    p.elapsedMs = m_started ? m_timer.elapsed() : 0;
    p.finished = m_atEnd && m_error.isNone();
    return p;
}

bool LockScanJob::scanPage(QList<ProbeTarget> *targets)
{
    const QByteArray pattern = m_options.patterns.at(m_patternIndex);
    RedisCommand scan {"SCAN", m_cursor};
    if (pattern != "*")
        scan << "MATCH" << pattern;
    scan << "COUNT" << QByteArray::number(m_options.count);
    if (!m_pacer->beforeChunk(1)) {
        m_error = {RedisError::Code::Interrupted, QStringLiteral("Interrupted")};
        return false;
    }
    QElapsedTimer roundTrip;
    roundTrip.start();
    const RedisResult page = m_connection.command(scan);
    m_pacer->afterChunk(roundTrip.nsecsElapsed() / 1000);
    if (!page.ok() || page.reply.size() != 2) {
        m_error = page.ok()
            ? RedisError(RedisError::Code::Protocol,
                         QStringLiteral("unexpected SCAN reply: %1").arg(page.reply.toDisplayString()))
            : page.error;
        return false;
    }
    m_cursor = page.reply.at(0).bytes();
    const QList<RedisReply> &names = page.reply.at(1).elements();
    ++m_progress.pages;
    m_progress.scannedKeys += names.size();

    targetsOf(names, pattern, m_options, &m_viaQueue, m_assembler, targets);

    bool ok = false;
    const quint64 cursor = m_cursor.toULongLong(&ok);
    const int patterns = int(m_options.patterns.size());
    if (ok && cursor == 0) {
        ++m_patternIndex;
        m_progress.fraction = double(m_patternIndex) / patterns;
        m_scanDone = m_patternIndex >= patterns;
    } else {
        m_progress.fraction = (m_patternIndex + (ok ? cursorFraction(cursor) : 0.0)) / patterns;
    }
    return true;
}

QList<LockRecord> LockScanJob::nextPage()
{
    if (m_atEnd)
        return {};
    if (!m_started) {
        m_started = true;
        m_timer.start();
        RedisError infoError;
        const ServerInfo info = ServerInfo::fetch(m_connection, &infoError);
        if (infoError && infoError.breaksConnection()) {
            m_error = infoError;
            m_atEnd = true;
            return {};
        }
        m_progress.dbSize = info.keys;
        if (info.role == QLatin1String("replica")) {
            // Subscribers wait on the master: counted here they would all look like 0.
            m_options.replicaOf = info.master.isEmpty() ? QStringLiteral("its master") : info.master;
            m_prober.setReplicaOf(m_options.replicaOf);
        }
        if (m_options.probeConnections > 0)
            m_pool = std::make_unique<ProbePool>(m_connection.settings(), m_options,
                                                 m_options.probeConnections, m_pacer.get());
    }

    QList<ScannedKey> scanned;
    RedisError error;
    if (!m_pool) {
        // One page at a time on the scan's own connection.
        QList<ProbeTarget> targets;
        if (!scanPage(&targets) || !m_prober.probe(m_connection, targets, &scanned, &error)) {
            if (error)
                m_error = error;
            m_atEnd = true;
            return {};
        }
    } else {
        // Keep a few pages on the wire: SCAN walks on while earlier pages are probed.
        const int depth = m_options.probeConnections + 1;
        while (!m_scanDone && m_inFlight.size() < depth) {
            QList<ProbeTarget> targets;
            if (!scanPage(&targets)) {
                m_atEnd = true;
                return {};
            }
            m_inFlight.append(m_pool->submit(targets));
        }
        if (m_inFlight.isEmpty()) {
            m_atEnd = true;
            return {};
        }
        if (!m_pool->take(m_inFlight.takeFirst(), &scanned, &error)) {
            m_error = error;
            m_atEnd = true;
            return {};
        }
    }
    const QList<LockRecord> records = m_assembler.add(scanned, InspectClock::wallMs());
    if (m_scanDone && m_inFlight.isEmpty()) {
        m_atEnd = true;
        qCDebug(lcInspect) << "scan done:" << m_progress.scannedKeys << "keys," << m_assembler.lockCount()
                           << "locks in" << m_timer.elapsed() << "ms";
    }
    return records;
}

void LockScanJob::interrupt()
{
    m_pacer->interrupt();
    if (m_pool)
        m_pool->interrupt();
}
