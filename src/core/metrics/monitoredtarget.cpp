// MonitoredTarget: wiring only; the monitor decides what is live, gone, renewed or stalled.
#include "monitoredtarget.h"

#include "inspect/inspectclock.h"

#include <QRegularExpression>
#include <QSet>

namespace {

// A refusal still going on is logged again after this long: often enough to be found in the journal of the
// day, rarely enough never to flood it.
constexpr qint64 kRefusalRelogMs = 5 * 60 * 1000;

} // namespace

MonitoredTarget::MonitoredTarget(const QString &name, const ConnectionSettings &settings,
                                 const ScanOptions &options, const LockMonitor::Timing &timing,
                                 QObject *parent)
    : QObject(parent)
    , m_name(name)
    , m_tally(std::make_shared<std::atomic<quint64>>(0))
    , m_budget(&m_monitor, m_tally)
{
    ConnectionSettings s = settings;
    s.readOnly = true; // an exporter only ever reads
    s.tally.count = m_tally;
    m_monitor.setConnectionSettings(s);
    m_monitor.setOptions(options);
    m_monitor.setTiming(timing);
    connect(&m_budget, &PollBudget::note, this,
            [this](const QString &line) { emit note(QStringLiteral("target '%1': %2").arg(m_name, line)); });

    connect(&m_monitor, &LockMonitor::happened, this,
            [this](const QByteArray &key, const QList<LockEvent> &events, const LockRecord &) {
                m_activity.record(key, events);
            });
    connect(&m_monitor, &LockMonitor::gone, this,
            [this](const QByteArray &key, const LockRecord &) { m_activity.forget(key); });
    connect(&m_monitor, &LockMonitor::scanEnded, this,
            [this](const ScanProgress &progress, bool complete, const QString &error) {
                ScanState &s = m_scan;
                s.ended = true;
                s.reasons.clear();
                s.unreadableKeys.clear();
                if (!complete)
                    s.reasons << (error.isEmpty() ? QStringLiteral("cancelled") : QStringLiteral("failed"));
                if (progress.unreadableKeys > 0) {
                    s.reasons << QStringLiteral("unreadable-keys");
                    for (auto it = progress.unreadReasons.cbegin(); it != progress.unreadReasons.cend(); ++it)
                        s.unreadableKeys[reasonCode(it.key())] += it.value();
                }
                if (!progress.missing.isEmpty())
                    s.reasons << QStringLiteral("missing-nodes");
                s.complete = s.reasons.isEmpty();
                s.durationMs = progress.elapsedMs;
                s.keysScanned = progress.scannedKeys;
                const bool ended = !s.reasons.isEmpty()
                    && (s.reasons.first() == QLatin1String("failed")
                        || s.reasons.first() == QLatin1String("cancelled"));
                ++s.endings[s.complete  ? QStringLiteral("complete")
                                : ended ? s.reasons.first()
                                        : QStringLiteral("incomplete")];
                noteRefusals();
                if (!error.isEmpty())
                    emit note(QStringLiteral("target '%1': scan failed: %2").arg(m_name, error));
                else if (!progress.missing.isEmpty())
                    emit note(QStringLiteral("target '%1': scan incomplete: %2")
                                  .arg(m_name, progress.missing.join(QStringLiteral("; "))));
            });
    connect(&m_monitor, &LockMonitor::liveChanged, this, [this](bool live, const QString &reason) {
        emit note(live ? QStringLiteral("target '%1': the server can be read again").arg(m_name)
                       : QStringLiteral("target '%1': the server cannot be read (%2): its lock series are "
                                        "withdrawn until it can")
                             .arg(m_name, reason));
    });
    connect(&m_monitor, &LockMonitor::addressChanged, this, [this](const QString &from, const QString &to) {
        const ConnectionSettings &s = m_monitor.connectionSettings();
        const QString what = s.sentinel.enabled() ? QStringLiteral("master '%1'").arg(s.sentinel.masterName)
                                                  : QStringLiteral("the server");
        if (from.isEmpty()) {
            emit note(QStringLiteral("target '%1': reading %2 at %3").arg(m_name, what, to));
            return;
        }
        m_lastFailoverEpochMs = InspectClock::wallMs();
        emit note(
            QStringLiteral("target '%1': failover: %2 moved from %3 to %4").arg(m_name, what, from, to));
    });
    connect(&m_monitor, &LockMonitor::watchStateChanged, this,
            [this](KeyspaceWatcher::State state, const QString &text) {
                if (state != KeyspaceWatcher::State::Stopped && state != KeyspaceWatcher::State::Connecting)
                    emit note(QStringLiteral("target '%1': %2").arg(m_name, text));
            });
}

void MonitoredTarget::start()
{
    m_monitor.start();
    m_budget.start();
}

void MonitoredTarget::stop()
{
    m_budget.stop();
    m_monitor.stop();
}

void MonitoredTarget::noteRefusals()
{
    struct Refusal
    {
        QSet<QByteArray> keys;
        QStringList fields;
        QString reason;
    };
    QMap<QString, Refusal> byCommand;
    for (const LockRecord &r : m_monitor.locks()) {
        for (const LockUnknown &u : r.unknowns) {
            // A refusal is the server's no to this user (an ACL, a renamed command), not a timeout or a lost
            // connection, which are logged as the server's state.
            const QString code = reasonCode(u.reason, u.refused);
            if (code != QLatin1String("acl") && code != QLatin1String("error"))
                continue;
            Refusal &refusal = byCommand[refusedCommand(u.reason)];
            refusal.keys.insert(r.key);
            if (!refusal.fields.contains(u.field))
                refusal.fields << u.field;
            if (refusal.reason.isEmpty())
                refusal.reason = u.reason;
        }
    }
    const qint64 now = InspectClock::monotonicMs();
    for (auto it = byCommand.cbegin(); it != byCommand.cend(); ++it) {
        const auto logged = m_refusalLoggedAtMs.constFind(it.key());
        if (logged != m_refusalLoggedAtMs.cend() && now - *logged < kRefusalRelogMs)
            continue;
        m_refusalLoggedAtMs.insert(it.key(), now);
        const qsizetype keys = it->keys.size();
        emit note(QStringLiteral("target '%1': the server refused %2 on %3 %4 (%5): %6 unknown, exported as "
                                 "absent and counted in lockscope_unknown_values")
                      .arg(m_name, it.key())
                      .arg(keys)
                      .arg(keys == 1 ? QStringLiteral("lock") : QStringLiteral("locks"))
                      .arg(it->reason, it->fields.join(QStringLiteral(", "))));
    }
}

QString MonitoredTarget::refusedCommand(const QString &reason)
{
    static const QRegularExpression named(QStringLiteral("'([A-Za-z|]+)' command"));
    const QRegularExpressionMatch m = named.match(reason);
    if (m.hasMatch())
        return m.captured(1).toUpper();
    const qsizetype refused = reason.indexOf(QLatin1String(" refused"));
    return refused > 0 ? reason.left(refused).trimmed() : QStringLiteral("a read");
}

QString MonitoredTarget::reasonCode(const QString &reason, bool refused)
{
    if (!refused)
        return QStringLiteral("not-stored");
    const QString r = reason.trimmed();
    const auto has = [&r](const char *word) { return r.contains(QLatin1String(word), Qt::CaseInsensitive); };
    if (r.startsWith(QLatin1String("NOPERM")) || has("no permissions") || has("ACL"))
        return QStringLiteral("acl");
    if (r.startsWith(QLatin1String("LOADING")) || has("loading the dataset"))
        return QStringLiteral("loading");
    if (r.startsWith(QLatin1String("READONLY")) || has("replica"))
        return QStringLiteral("replica");
    if (r.startsWith(QLatin1String("CLUSTERDOWN")) || r.startsWith(QLatin1String("MOVED"))
        || r.startsWith(QLatin1String("ASK")) || r.startsWith(QLatin1String("TRYAGAIN")))
        return QStringLiteral("cluster");
    if (has("timed out") || has("timeout"))
        return QStringLiteral("timeout");
    if (has("connection") || has("not connected") || has("refused"))
        return QStringLiteral("connection");
    return QStringLiteral("error");
}
