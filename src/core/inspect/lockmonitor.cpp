// LockMonitor: readings go through the tracker (history, diagnoses with the lock's own rhythm); gone-ness is
// only concluded from a reading that says so (TYPE none, a complete scan that did not meet it), never from a
// failure.
#include "lockmonitor.h"

#include "inspectclock.h"

#include <algorithm>

LockMonitor::LockMonitor(QObject *parent)
    : QObject(parent)
{
    m_poll.setInterval(m_timing.pollMs);
    m_rescan.setInterval(m_timing.rescanMs);
    m_flush.setSingleShot(true);
    m_flush.setInterval(m_timing.flushMs);
    connect(&m_poll, &QTimer::timeout, this, &LockMonitor::poll);
    connect(&m_rescan, &QTimer::timeout, this, [this] {
        if (m_live && m_autoRescan && !m_scanner.isScanning())
            rescan();
    });
    connect(&m_flush, &QTimer::timeout, this, &LockMonitor::flush);
    m_due.setSingleShot(true);
    m_due.setTimerType(Qt::PreciseTimer);
    connect(&m_due, &QTimer::timeout, this, &LockMonitor::readDueLocks);
    connect(&m_heartbeat, &QTimer::timeout, this, &LockMonitor::heartbeat);
    connect(&m_scanner, &LockScanner::pinged, this, [this] { setLive(true, QString()); });
    connect(&m_scanner, &LockScanner::readingFrom, this, &LockMonitor::noteAddress);

    connect(&m_scanner, &LockScanner::scanStarted, this, [this] {
        m_seenThisScan.clear();
        emit scanStarted();
    });
    connect(&m_scanner, &LockScanner::pageReady, this,
            [this](const QList<LockRecord> &records, const ScanProgress &progress) {
                setLive(true, QString());
                for (const LockRecord &r : records)
                    m_seenThisScan.insert(r.key);
                m_lastProgress = progress;
                apply(records, LockTracker::Source::Scan);
                emit scanProgress(progress);
            });
    connect(&m_scanner, &LockScanner::scanFinished, this, [this](const ScanProgress &progress) {
        setLive(true, QString());
        m_lastProgress = progress;
        // A whole walk that did not meet a lock: it is gone. Unless keys could not be read — then the lock
        // may be among them, and nothing is concluded.
        if (progress.unreadableKeys == 0 && progress.missing.isEmpty()) {
            const QList<QByteArray> known = m_locks.keys();
            for (const QByteArray &key : known) {
                if (!m_seenThisScan.contains(key))
                    markGone(key, m_unobserved);
            }
        }
        m_unobserved.clear();
        m_lastFullScanAtMs = InspectClock::monotonicMs();
        m_lastFullScanDurationMs = progress.elapsedMs;
        updateCadence();
        emit scanEnded(progress, true, QString());
        if (m_rescanPending) {
            m_rescanPending = false;
            rescan();
        }
    });
    connect(&m_scanner, &LockScanner::scanCancelled, this, [this](const ScanProgress &progress) {
        emit scanEnded(progress, false, QString());
        if (m_rescanPending) {
            m_rescanPending = false;
            rescan();
        }
    });
    connect(&m_scanner, &LockScanner::scanFailed, this,
            [this](const RedisError &e, const ScanProgress &progress) {
                if (e.breaksConnection() || e.code() == RedisError::Code::Loading
                    || e.code() == RedisError::Code::Timeout
                    || e.code() == RedisError::Code::ConnectionRefused)
                    setLive(false, e.message());
                emit scanEnded(progress, false, e.message());
            });
    connect(&m_scanner, &LockScanner::probed, this,
            [this](const QList<LockRecord> &records, const QList<QByteArray> &goneKeys) {
                // Live only when something was read: a probe whose every key was refused (LOADING) said
                // so through probeUnread just before, and must not flip the monitor back to live.
                if (!records.isEmpty() || !goneKeys.isEmpty())
                    setLive(true, QString());
                apply(records, LockTracker::Source::Live);
                for (const QByteArray &key : goneKeys)
                    markGone(key, m_unobserved);
            });
    connect(&m_scanner, &LockScanner::probeUnread, this,
            [this](const QList<QPair<QByteArray, QString>> &keys) {
                // LOADING during a restart or DEBUG RELOAD, CLUSTERDOWN: the locks are unknown for now, not
                // released.
                if (!keys.isEmpty())
                    setLive(false, keys.first().second);
            });
    connect(&m_scanner, &LockScanner::probeFailed, this,
            [this](const RedisError &e) { setLive(false, e.message()); });

    connect(&m_watcher, &KeyspaceWatcher::events, this, [this](const QList<KeyspaceEvent> &events) {
        for (const KeyspaceEvent &e : events) {
            const auto group = m_groupOf.constFind(e.key);
            if (group != m_groupOf.constEnd()) {
                m_dirty.insert(*group); // its lock is read again, every key of it
                continue;
            }
            m_tracker.noteNotification(e.key, e.event, e.atMs);
            m_dirty.insert(e.key);
        }
        if (!m_flush.isActive())
            m_flush.start();
    });
    connect(&m_watcher, &KeyspaceWatcher::stateChanged, this,
            [this](KeyspaceWatcher::State state, const QString &text) {
                updateCadence();
                emit watchStateChanged(state, text);
            });
}

LockMonitor::~LockMonitor()
{
    // Signals sent by the members while they stop must not reach a half-destroyed monitor.
    disconnect(&m_watcher, nullptr, this, nullptr);
    disconnect(&m_scanner, nullptr, this, nullptr);
}

void LockMonitor::setConnectionSettings(const ConnectionSettings &settings)
{
    const bool same = settings == m_settings;
    m_settings = settings;
    if (same)
        return;
    m_locks.clear();
    m_groupOf.clear();
    m_codes.clear();
    m_tracker.clear();
    m_dirty.clear();
    m_dueAt.clear();
    m_lastFullScanAtMs = -1;
    m_lastFullScanDurationMs = -1;
    m_lastReadAtMs = -1;
    m_address.clear();
    m_addressChanges = 0;
    m_scanner.setConnectionSettings(settings);
    if (m_running)
        m_watcher.start(settings);
}

void LockMonitor::setOptions(const ScanOptions &options)
{
    m_options = options;
    m_scanner.setOptions(options);
}

void LockMonitor::setTiming(const Timing &timing)
{
    m_timing = timing;
    m_flush.setInterval(timing.flushMs);
    if (timing.heartbeatMs > 0) {
        m_heartbeat.setInterval(std::max(100, timing.heartbeatMs / 2));
        if (m_running && !m_heartbeat.isActive())
            m_heartbeat.start();
    } else {
        m_heartbeat.stop();
    }
    updateCadence();
}

void LockMonitor::start(bool scanNow)
{
    m_running = true;
    m_watcher.start(m_settings);
    updateCadence();
    m_poll.start();
    m_rescan.start();
    if (m_timing.heartbeatMs > 0)
        m_heartbeat.start();
    if (scanNow)
        rescan();
}

void LockMonitor::seed(const QList<LockRecord> &records)
{
    apply(records, LockTracker::Source::Scan);
    m_lastFullScanAtMs = InspectClock::monotonicMs();
}

void LockMonitor::stop()
{
    m_running = false;
    m_poll.stop();
    m_rescan.stop();
    m_flush.stop();
    m_due.stop();
    m_heartbeat.stop();
    m_watcher.stop();
    m_scanner.cancel();
}

void LockMonitor::rescan()
{
    if (m_scanner.isScanning()) {
        m_rescanPending = true;
        m_scanner.cancel();
        return;
    }
    m_scanner.start(m_options);
}

void LockMonitor::stopScan()
{
    m_rescanPending = false;
    m_scanner.cancel();
}

void LockMonitor::refreshNow(const QList<LockRecord> &records)
{
    m_scanner.refresh(records);
}

bool LockMonitor::hearsNotifications() const
{
    return m_watcher.state() == KeyspaceWatcher::State::Listening
        && KeyspaceWatcher::flagsSuffice(m_watcher.flags());
}

int LockMonitor::rescanIntervalMs() const
{
    const int fixed = hearsNotifications() ? m_timing.rescanWithEventsMs : m_timing.rescanMs;
    if (m_timing.rescanShare <= 0 || m_lastFullScanDurationMs <= 0)
        return fixed;
    const double share = std::min(1.0, m_timing.rescanShare);
    return int(std::clamp<double>(double(m_lastFullScanDurationMs) / share, fixed, 24 * 3600 * 1000.0));
}

DiagnosticContext LockMonitor::baseContext() const
{
    DiagnosticContext c;
    c.ttlThresholdMs = m_options.ttlThresholdMs;
    // A renewal is seen no later than the next reading: with notifications within a flush, else within a poll
    // round (every lock is read once per round of maxRefresh locks per poll).
    const qint64 rounds
        = std::max<qint64>(1, (m_locks.size() + m_timing.maxRefresh - 1) / m_timing.maxRefresh);
    c.readingGranularityMs = hearsNotifications() ? m_timing.flushMs * 2 : m_timing.pollMs * rounds;
    return c;
}

void LockMonitor::updateCadence()
{
    const bool events = hearsNotifications();
    // setInterval() restarts a running timer: only touch it when the interval really changes.
    const int poll = events ? m_timing.pollWithEventsMs : m_timing.pollMs;
    if (m_poll.interval() != poll)
        m_poll.setInterval(poll);
    const int rescan = rescanIntervalMs();
    if (m_rescan.interval() != rescan)
        m_rescan.setInterval(rescan);
}

void LockMonitor::setLive(bool live, const QString &reason)
{
    if (live)
        m_lastReadAtMs = InspectClock::monotonicMs();
    if (live == m_live && (live || reason == m_notLiveReason))
        return;
    m_live = live;
    m_notLiveReason = live ? QString() : reason;
    if (!live) {
        // Whatever disappears before the next reading went unseen.
        m_unobserved = QStringLiteral("not seen going: the server could not be read (%1)").arg(reason);
    } else if (!m_unobserved.isEmpty() && !m_scanner.isScanning()) {
        // Read again: find out which locks survived the outage with a full scan. A scan that is running (its
        // page just brought the server back) is that scan already: restarting it would only cancel it.
        rescan();
    }
    emit liveChanged(live, m_notLiveReason);
}

void LockMonitor::apply(const QList<LockRecord> &records, LockTracker::Source source)
{
    if (records.isEmpty())
        return;
    const DiagnosticContext base = baseContext();
    QList<LockRecord> out;
    out.reserve(records.size());
    for (LockRecord r : records) {
        if (!r.field.isEmpty()) {
            m_fieldLockHashes.insert(r.key);
            continue;
        }
        if (m_fieldLockHashes.contains(r.key))
            continue;
        if (!r.exists() && !m_locks.contains(r.key) && r.queue.isEmpty())
            continue;
        const QList<LockEvent> events = m_tracker.observeAndDiagnose(r, source, base);
        if (!r.exists() && r.queueLength <= 0) {
            if (!events.isEmpty())
                emit happened(r.key, events, r);
            markGone(r.key);
            continue;
        }
        const auto previous = m_locks.constFind(r.key);
        if (previous != m_locks.constEnd()) {
            for (const QByteArray &member : previous->groupKeys)
                m_groupOf.remove(member);
        }
        for (const QByteArray &member : std::as_const(r.groupKeys))
            m_groupOf.insert(member, r.key);
        m_locks.insert(r.key, r);
        scheduleDueCheck(r, base);
        if (!events.isEmpty())
            emit happened(r.key, events, r);
        QStringList codes;
        for (const LockDiagnosis &d : std::as_const(r.diagnoses))
            codes << d.code;
        const QStringList before = m_codes.value(r.key);
        m_codes.insert(r.key, codes);
        for (const LockDiagnosis &d : std::as_const(r.diagnoses)) {
            if (!before.contains(d.code))
                emit diagnosisRaised(r, d);
        }
        out.append(r);
    }
    if (!out.isEmpty())
        emit updated(out);
}

void LockMonitor::markGone(const QByteArray &key, const QString &unobserved)
{
    const auto it = m_locks.constFind(key);
    if (it == m_locks.constEnd())
        return;
    const LockRecord last = *it;
    m_locks.erase(it);
    for (const QByteArray &member : last.groupKeys) {
        if (m_groupOf.value(member) == key)
            m_groupOf.remove(member);
    }
    m_codes.remove(key);
    m_dueAt.remove(key);
    const QList<LockEvent> events = m_tracker.observeGone(key, InspectClock::monotonicMs(), unobserved);
    if (!events.isEmpty())
        emit happened(key, events, last);
    emit gone(key, last);
}

void LockMonitor::poll()
{
    if (!m_running || m_locks.isEmpty() || m_scanner.refreshesInFlight() > 0)
        return;
    // The priority keys first (what the user is looking at), then the others in turn.
    QList<LockRecord> batch;
    QSet<QByteArray> taken;
    for (const QByteArray &key : std::as_const(m_priority)) {
        const auto it = m_locks.constFind(key);
        if (it != m_locks.constEnd() && batch.size() < m_timing.maxRefresh) {
            batch.append(*it);
            taken.insert(key);
        }
    }
    const QList<QByteArray> keys = m_locks.keys();
    if (m_pollOffset >= keys.size())
        m_pollOffset = 0;
    for (int n = 0; n < keys.size() && batch.size() < m_timing.maxRefresh; ++n) {
        const QByteArray &key = keys.at((m_pollOffset + n) % keys.size());
        if (!taken.contains(key)) {
            batch.append(m_locks.value(key));
            taken.insert(key);
        }
    }
    m_pollOffset += int(batch.size());
    m_scanner.refresh(batch);
}

void LockMonitor::scheduleDueCheck(const LockRecord &record, const DiagnosticContext &base)
{
    const LockHistory *h = m_tracker.history(record.key);
    const qint64 now = InspectClock::monotonicMs();
    DiagnosticContext c = base;
    m_tracker.fillContext(record.key, now, &c);
    const qint64 deadline = h && h->lastRenewalMs() >= 0 && record.pttlMs > 0
        ? LockDiagnostics::renewalDeadlineMs(record, c)
        : -1;
    // A few ms past the deadline, so that the reading finds it overdue rather than just due.
    constexpr qint64 kPastDeadlineMs = 20;
    const qint64 due = deadline > 0 ? h->lastRenewalMs() + deadline + kPastDeadlineMs : -1;
    if (due <= now) {
        m_dueAt.remove(record.key); // not renewed, or judged overdue by this very reading
        return;
    }
    m_dueAt.insert(record.key, due);
    if (!m_due.isActive() || now + m_due.remainingTime() > due)
        m_due.start(int(due - now));
}

void LockMonitor::readDueLocks()
{
    if (!m_running)
        return;
    const qint64 now = InspectClock::monotonicMs();
    QList<LockRecord> batch;
    qint64 next = -1;
    for (auto it = m_dueAt.begin(); it != m_dueAt.end();) {
        if (it.value() <= now && batch.size() < m_timing.maxRefresh) {
            const auto lock = m_locks.constFind(it.key());
            if (lock != m_locks.constEnd())
                batch.append(*lock);
            it = m_dueAt.erase(it);
            continue;
        }
        next = next < 0 ? it.value() : std::min(next, it.value());
        ++it;
    }
    if (!batch.isEmpty() && !m_scanner.refresh(batch)) {
        for (const LockRecord &r : std::as_const(batch))
            m_dueAt.insert(r.key, now + 50); // the reader is busy: shortly
        next = now + 50;
    }
    if (next >= 0)
        m_due.start(int(std::max<qint64>(0, next - now)));
}

void LockMonitor::flush()
{
    if (m_dirty.isEmpty())
        return;
    QList<QByteArray> keys;
    QList<LockRecord> groups; // multi-resource locks: read with all their keys, so they stay one lock
    for (auto it = m_dirty.begin(); it != m_dirty.end() && keys.size() + groups.size() < 1000;) {
        const auto lock = m_locks.constFind(*it);
        if (lock != m_locks.constEnd() && !lock->groupKeys.isEmpty())
            groups.append(*lock);
        else
            keys.append(*it);
        it = m_dirty.erase(it);
    }
    if (!keys.isEmpty() && !m_scanner.probeKeys(keys)) {
        for (const QByteArray &k : keys)
            m_dirty.insert(k); // the scanner is busy: try again shortly
    }
    if (!groups.isEmpty() && !m_scanner.refresh(groups)) {
        for (const LockRecord &r : groups)
            m_dirty.insert(r.key);
    }
    if (!m_dirty.isEmpty())
        m_flush.start();
}

void LockMonitor::heartbeat()
{
    // Only when nothing else read the server lately: polls, probes and scans are proof enough.
    if (!m_running || m_scanner.refreshesInFlight() > 0)
        return;
    if (m_live && m_lastReadAtMs >= 0 && InspectClock::monotonicMs() - m_lastReadAtMs < m_timing.heartbeatMs)
        return;
    m_scanner.ping();
}

void LockMonitor::noteAddress(const QString &address)
{
    const QString from = m_address;
    if (address == from)
        return;
    m_address = address;
    if (!from.isEmpty()) {
        ++m_addressChanges;
        // A failover: the new master may lack what the old one had not yet replicated. Whatever is gone at
        // the next reading was not seen going; the scan finds out which locks survived the move, and the
        // keyspace notifications must come from the new master.
        m_unobserved = QStringLiteral("not seen going: the server moved from %1 to %2").arg(from, address);
        if (m_running) {
            m_watcher.start(m_settings);
            rescan();
        }
    }
    emit addressChanged(from, address);
}
