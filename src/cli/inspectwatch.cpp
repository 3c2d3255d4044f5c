// InspectWatch: printing only; what happened is LockMonitor's business.
#include "inspectwatch.h"

#include "cliio.h"
#include "inspect/inspectclock.h"
#include "inspect/inspectformat.h"
#include "inspect/lockjson.h"
#include "redis/bytes.h"

#include <QJsonDocument>
#include <QJsonObject>

InspectWatch::InspectWatch(const ConnectionSettings &settings, const ScanOptions &options, bool json,
                           int pollMs, QObject *parent)
    : QObject(parent)
    , m_json(json)
{
    m_monitor.setConnectionSettings(settings);
    m_monitor.setOptions(options);
    LockMonitor::Timing timing = m_monitor.timing();
    timing.pollMs = pollMs;
    m_monitor.setTiming(timing);
    connect(&m_monitor, &LockMonitor::happened, this,
            [this](const QByteArray &key, const QList<LockEvent> &events, const LockRecord &record) {
                print(events, key, record);
            });
    connect(&m_monitor, &LockMonitor::diagnosisRaised, this, &InspectWatch::printDiagnosis);
    connect(&m_monitor, &LockMonitor::scanEnded, this, [](const ScanProgress &, bool, const QString &error) {
        if (!error.isEmpty())
            CliIo::err() << "rescan failed: " << error << "\n" << Qt::flush;
    });
    connect(&m_monitor, &LockMonitor::liveChanged, this, [this](bool live, const QString &reason) {
        ++m_printed;
        const QString time = InspectFormat::clockTime(InspectClock::wallMs());
        if (m_json) {
            CliIo::out() << QJsonDocument(QJsonObject {{QStringLiteral("event"),
                                                        live ? QStringLiteral("server-readable")
                                                             : QStringLiteral("server-unreadable")},
                                                       {QStringLiteral("reason"), reason}})
                                .toJson(QJsonDocument::Compact)
                         << "\n"
                         << Qt::flush;
        } else {
            CliIo::out() << time << "  "
                         << (live ? QStringLiteral("the server can be read again: checking what survived")
                                  : QStringLiteral(
                                        "the server cannot be read (%1): nothing is concluded until it can")
                                        .arg(reason))
                         << "\n"
                         << Qt::flush;
        }
    });
    connect(&m_monitor, &LockMonitor::addressChanged, this, &InspectWatch::printAddress);
    connect(&m_monitor, &LockMonitor::watchStateChanged, this,
            [this](KeyspaceWatcher::State state, const QString &text) {
                if (state == KeyspaceWatcher::State::Stopped)
                    return;
                CliIo::err() << "live: " << text << "\n";
                // Say what polling cannot see: a lock that comes and goes between two full rescans.
                using State = KeyspaceWatcher::State;
                if (state == State::NotificationsOff || state == State::Failed)
                    CliIo::err() << "live: until notifications flow, a new lock shows up at the next full "
                                 << "rescan (every " << m_monitor.rescanIntervalMs() / 1000
                                 << " s); one that comes and goes between two rescans is not seen\n";
                CliIo::err() << Qt::flush;
            });
}

void InspectWatch::start(const QList<LockRecord> &initial)
{
    m_monitor.seed(initial);
    m_monitor.start(false);
}

void InspectWatch::print(const QList<LockEvent> &events, const QByteArray &key, const LockRecord &record)
{
    QTextStream &out = CliIo::out();
    for (const LockEvent &e : events) {
        if (e.type == LockEvent::Type::Seen)
            continue; // the first table already showed it
        ++m_printed;
        if (m_json) {
            out << QJsonDocument(LockJson::event(e, key, &record)).toJson(QJsonDocument::Compact) << "\n";
            continue;
        }
        const QString time = InspectFormat::clockTime(InspectClock::wallFromMonotonic(e.atMs));
        out << time << "  " << LockEvent::typeName(e.type).leftJustified(10) << Bytes::displayName(key, 80)
            << "  " << LockKinds::label(record.kind) << "  " << record.ownerSummary();
        if (e.type != LockEvent::Type::Released && e.type != LockEvent::Type::Expired
            && e.type != LockEvent::Type::Lost)
            out << "  " << (record.pttlMs >= 0 ? QStringLiteral("TTL ") : QString())
                << InspectFormat::ttl(record.pttlMs);
        if (!e.detail.isEmpty() && !e.detail.startsWith(QLatin1String("by ")))
            out << "  (" << e.detail << ")";
        out << "\n";
    }
    out << Qt::flush;
}

void InspectWatch::printDiagnosis(const LockRecord &record, const LockDiagnosis &d)
{
    ++m_printed;
    QTextStream &out = CliIo::out();
    if (m_json) {
        QJsonObject o {{QStringLiteral("event"), QStringLiteral("diagnosis")},
                       {QStringLiteral("code"), d.code},
                       {QStringLiteral("text"), d.text},
                       {QStringLiteral("evidence"), d.evidence}};
        LockJson::putBytes(o, QStringLiteral("key"), record.key);
        out << QJsonDocument(o).toJson(QJsonDocument::Compact) << "\n" << Qt::flush;
        return;
    }
    out << InspectFormat::clockTime(InspectClock::wallMs()) << "  "
        << QStringLiteral("diagnosis").leftJustified(10) << Bytes::displayName(record.key, 80) << "  " << d.code
        << ": " << d.text << "\n"
        << "      evidence: " << d.evidence << "\n"
        << Qt::flush;
}

void InspectWatch::printAddress(const QString &from, const QString &to)
{
    const ConnectionSettings &s = m_monitor.connectionSettings();
    const QString master = s.sentinel.masterName;
    if (from.isEmpty()) {
        // Through Sentinel, the address is the sentinels' answer: say which master is read, and where.
        if (s.sentinel.enabled())
            CliIo::err() << "live: reading master '" << master << "' at " << to << " (via sentinel "
                         << s.sentinel.nodes.join(QStringLiteral(", ")) << ")\n"
                         << Qt::flush;
        return;
    }
    ++m_printed;
    if (m_json) {
        QJsonObject o {{QStringLiteral("event"), QStringLiteral("failover")},
                       {QStringLiteral("from"), from},
                       {QStringLiteral("to"), to}};
        if (s.sentinel.enabled())
            o.insert(QStringLiteral("master"), master);
        CliIo::out() << QJsonDocument(o).toJson(QJsonDocument::Compact) << "\n" << Qt::flush;
        return;
    }
    const QString what = s.sentinel.enabled()
        ? QStringLiteral("master '%1' moved from %2 to %3").arg(master, from, to)
        : QStringLiteral("the server moved from %1 to %2").arg(from, to);
    CliIo::out() << InspectFormat::clockTime(InspectClock::wallMs()) << "  "
                 << QStringLiteral("failover").leftJustified(10) << what
                 << ": checking which locks survived the move\n"
                 << Qt::flush;
}
