// InspectWatch: the same core objects the GUI uses (LockScanner, KeyspaceWatcher, LockTracker), printing
// instead of painting.
#include "inspectwatch.h"

#include "cliio.h"
#include "inspect/inspectclock.h"
#include "inspect/inspectformat.h"
#include "lockjson.h"
#include "redis/bytes.h"

#include <QJsonDocument>

namespace {
constexpr int kMaxRefresh = 1000; // locks refreshed per poll; more are refreshed in turns
constexpr int kRescanPollingMs = 10'000; // without notifications, new locks are found by rescanning
constexpr int kRescanListeningMs = 60'000;
constexpr int kFlushMs = 100;
} // namespace

InspectWatch::InspectWatch(const ConnectionSettings &settings, const ScanOptions &options, bool json,
                           int pollMs, QObject *parent)
    : QObject(parent)
    , m_settings(settings)
    , m_options(options)
    , m_json(json)
{
    m_scanner.setConnectionSettings(settings);
    m_scanner.setOptions(options);
    m_poll.setInterval(pollMs);
    m_rescan.setInterval(kRescanPollingMs);
    m_flush.setSingleShot(true);
    m_flush.setInterval(kFlushMs);
    connect(&m_poll, &QTimer::timeout, this, &InspectWatch::poll);
    connect(&m_rescan, &QTimer::timeout, this, &InspectWatch::rescan);
    connect(&m_flush, &QTimer::timeout, this, &InspectWatch::flush);
    connect(&m_scanner, &LockScanner::probed, this,
            [this](const QList<LockRecord> &records, const QList<QByteArray> &goneKeys) {
                apply(records);
                for (const QByteArray &key : goneKeys)
                    gone(key);
            });
    connect(&m_scanner, &LockScanner::probeFailed, this, [](const RedisError &e) {
        CliIo::err() << "refresh failed: " << e.message() << "\n" << Qt::flush;
    });
    connect(&m_scanner, &LockScanner::pageReady, this,
            [this](const QList<LockRecord> &records, const ScanProgress &) {
                for (const LockRecord &r : records)
                    m_seenThisScan.insert(r.key);
                apply(records);
            });
    connect(&m_scanner, &LockScanner::scanFinished, this, [this](const ScanProgress &) {
        for (const QByteArray &key : m_locks.keys()) {
            if (!m_seenThisScan.contains(key))
                gone(key);
        }
    });
    connect(&m_scanner, &LockScanner::scanFailed, this, [](const RedisError &e, const ScanProgress &) {
        CliIo::err() << "rescan failed: " << e.message() << "\n" << Qt::flush;
    });
    connect(&m_watcher, &KeyspaceWatcher::stateChanged, this,
            [this](KeyspaceWatcher::State state, const QString &text) {
                const bool events = state == KeyspaceWatcher::State::Listening
                    && KeyspaceWatcher::flagsSuffice(m_watcher.flags());
                m_rescan.setInterval(events ? kRescanListeningMs : kRescanPollingMs);
                if (state != KeyspaceWatcher::State::Stopped)
                    CliIo::err() << "live: " << text << "\n" << Qt::flush;
            });
    connect(&m_watcher, &KeyspaceWatcher::events, this, [this](const QList<KeyspaceEvent> &events) {
        for (const KeyspaceEvent &e : events) {
            m_tracker.noteNotification(e.key, e.event, e.atMs);
            m_dirty.insert(e.key);
        }
        if (!m_flush.isActive())
            m_flush.start();
    });
}

void InspectWatch::start(const QList<LockRecord> &initial)
{
    for (const LockRecord &r : initial) {
        m_tracker.observe(r, LockTracker::Source::Scan);
        m_locks.insert(r.key, r);
        QStringList codes;
        for (const LockDiagnosis &d : r.diagnoses)
            codes << d.code;
        m_codes.insert(r.key, codes);
    }
    m_watcher.start(m_settings);
    m_poll.start();
    m_rescan.start();
}

void InspectWatch::apply(const QList<LockRecord> &records)
{
    DiagnosticContext base;
    base.ttlThresholdMs = m_options.ttlThresholdMs;
    for (LockRecord r : records) {
        const QList<LockEvent> events = m_tracker.observeAndDiagnose(r, LockTracker::Source::Live, base);
        m_locks.insert(r.key, r);
        print(events, r.key, &r);
        printDiagnoses(r);
    }
}

void InspectWatch::gone(const QByteArray &key)
{
    if (!m_locks.contains(key))
        return;
    const LockRecord last = m_locks.take(key);
    m_codes.remove(key);
    print(m_tracker.observeGone(key, InspectClock::monotonicMs()), key, &last);
}

void InspectWatch::print(const QList<LockEvent> &events, const QByteArray &key, const LockRecord *record)
{
    QTextStream &out = CliIo::out();
    for (const LockEvent &e : events) {
        ++m_printed;
        if (m_json) {
            out << QJsonDocument(LockJson::event(e, key, record)).toJson(QJsonDocument::Compact) << "\n";
            continue;
        }
        const QString time = InspectFormat::clockTime(InspectClock::wallFromMonotonic(e.atMs));
        out << time << "  " << LockEvent::typeName(e.type).leftJustified(10) << Bytes::display(key, 80);
        if (record) {
            out << "  " << LockKinds::name(record->kind) << "  " << record->ownerSummary();
            if (e.type != LockEvent::Type::Released && e.type != LockEvent::Type::Expired)
                out << "  " << (record->pttlMs >= 0 ? QStringLiteral("TTL ") : QString())
                    << InspectFormat::ttl(record->pttlMs);
        }
        if (!e.detail.isEmpty() && !(record && e.detail.startsWith(QLatin1String("by "))))
            out << "  (" << e.detail << ")";
        out << "\n";
    }
    out << Qt::flush;
}

void InspectWatch::printDiagnoses(const LockRecord &record)
{
    QStringList codes;
    for (const LockDiagnosis &d : record.diagnoses)
        codes << d.code;
    const QStringList before = m_codes.value(record.key);
    m_codes.insert(record.key, codes);
    QTextStream &out = CliIo::out();
    for (const LockDiagnosis &d : record.diagnoses) {
        if (before.contains(d.code))
            continue;
        ++m_printed;
        if (m_json) {
            out << QJsonDocument(QJsonObject {{QStringLiteral("event"), QStringLiteral("diagnosis")},
                                              {QStringLiteral("key"), Bytes::display(record.key, 1 << 20)},
                                              {QStringLiteral("code"), d.code},
                                              {QStringLiteral("text"), d.text}})
                       .toJson(QJsonDocument::Compact)
                << "\n";
        } else {
            out << InspectFormat::clockTime(InspectClock::wallMs()) << "  "
                << QStringLiteral("diagnosis").leftJustified(10) << Bytes::display(record.key, 80) << "  "
                << d.code << ": " << d.text << "\n";
        }
    }
    out << Qt::flush;
}

void InspectWatch::poll()
{
    if (m_locks.isEmpty() || m_scanner.refreshesInFlight() > 0)
        return;
    QList<LockRecord> all = m_locks.values();
    if (m_pollOffset >= all.size())
        m_pollOffset = 0;
    const QList<LockRecord> batch = all.mid(m_pollOffset, kMaxRefresh);
    m_pollOffset += int(batch.size());
    m_scanner.refresh(batch);
}

void InspectWatch::rescan()
{
    if (m_scanner.isScanning())
        return;
    m_seenThisScan.clear();
    m_scanner.start(m_options);
}

void InspectWatch::flush()
{
    if (m_dirty.isEmpty())
        return;
    QList<QByteArray> keys;
    for (auto it = m_dirty.begin(); it != m_dirty.end() && keys.size() < kMaxRefresh;) {
        keys.append(*it);
        it = m_dirty.erase(it);
    }
    if (!m_scanner.probeKeys(keys)) {
        for (const QByteArray &k : keys)
            m_dirty.insert(k);
    }
    if (!m_dirty.isEmpty())
        m_flush.start();
}
