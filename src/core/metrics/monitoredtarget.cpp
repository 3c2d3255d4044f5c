// MonitoredTarget: wiring only; the monitor decides what is live, gone, renewed or stalled.
#include "monitoredtarget.h"

#include "inspect/inspectclock.h"

MonitoredTarget::MonitoredTarget(const QString &name, const ConnectionSettings &settings,
                                 const ScanOptions &options, const LockMonitor::Timing &timing,
                                 QObject *parent)
    : QObject(parent)
    , m_name(name)
    , m_tally(std::make_shared<std::atomic<quint64>>(0))
{
    ConnectionSettings s = settings;
    s.readOnly = true; // an exporter only ever reads
    s.tally.count = m_tally;
    m_monitor.setConnectionSettings(s);
    m_monitor.setOptions(options);
    m_monitor.setTiming(timing);

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
}

void MonitoredTarget::stop()
{
    m_monitor.stop();
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
