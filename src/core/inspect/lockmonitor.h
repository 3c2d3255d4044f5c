// The inspector's one live engine, shared by the GUI's Inspector and `lockscope-cli inspect --watch`: full
// scans (LockScanner), keyspace notifications when the server publishes them (KeyspaceWatcher), TTL polls and
// periodic incremental rescans when it does not, and the per-key history that turns readings into acquired /
// renewed / released / expired events and judges stalls against each lock's own rhythm (LockTracker).
//
// It keeps to what it saw: while the server cannot be read (connection lost, a restart, LOADING during a
// reload) no lock is declared released; locks that turn out gone once it can be read again are "lost", not
// released; a key the server would not read is unknown, not gone.
#pragma once

#include "keyspacewatcher.h"
#include "lockscanner.h"
#include "locktracker.h"
#include "scanoptions.h"

#include <QHash>
#include <QObject>
#include <QSet>
#include <QTimer>

class LockMonitor : public QObject
{
    Q_OBJECT
public:
    struct Timing
    {
        int pollMs = 1000; // TTL refresh of the known locks without notifications
        int pollWithEventsMs = 5000; // with notifications flowing: a safety net only
        int rescanMs = 30000; // incremental full rescans without notifications (new locks appear)
        int rescanWithEventsMs = 120000; // with notifications: new keys are announced; rescan rarely
        int flushMs = 100; // notifications are coalesced this long before their keys are read
        int maxRefresh = 200; // locks read again per poll
        // When above 0: the server is asked a PING when nothing was read from it for this long, so a server
        // that died or froze is noticed even with no lock to poll (an exporter's `up`). Off by default.
        int heartbeatMs = 0;
        // When above 0: full rescans may take at most this share of the time, so the wait between two
        // starts is at least the last full scan's duration divided by it (a 10 s scan of 1,000,000 keys
        // every 30 s keeps a server scanned a third of the time). 0: the fixed intervals above.
        double rescanShare = 0;
    };

    explicit LockMonitor(QObject *parent = nullptr);
    ~LockMonitor() override;

    // The server to watch (read-only connections of its own). A different server clears everything.
    void setConnectionSettings(const ConnectionSettings &settings);
    const ConnectionSettings &connectionSettings() const { return m_settings; }
    void setOptions(const ScanOptions &options);
    const ScanOptions &options() const { return m_options; }
    void setTiming(const Timing &timing);
    const Timing &timing() const { return m_timing; }

    // Starts live following: a full scan now (unless `scanNow` is false: after seed()), notifications, polls
    // and rescans. stop() never waits on the network.
    void start(bool scanNow = true);
    // Locks a scan of the caller's own found (the CLI's first table): known from then on, as scan readings.
    void seed(const QList<LockRecord> &records);
    void stop();
    bool isRunning() const { return m_running; }
    // A full scan now (a running one is cancelled and restarted).
    void rescan();
    // Cancels the running scan (what it found is kept; nothing is concluded from the keys it did not reach).
    void stopScan();
    // Whether the periodic full rescans run (on by default; off after a user stopped a scan by hand).
    void setAutoRescan(bool on) { m_autoRescan = on; }
    bool isScanning() const { return m_scanner.isScanning(); }
    // Locks to read first at each poll (the GUI's visible rows and selection); the rest take turns.
    void setPriorityKeys(const QList<QByteArray> &keys) { m_priority = keys; }
    // Reads these locks again now (after an action on them).
    void refreshNow(const QList<LockRecord> &records);

    // What is known now.
    const QHash<QByteArray, LockRecord> &locks() const { return m_locks; }
    const LockTracker &tracker() const { return m_tracker; }
    const LockHistory *history(const QByteArray &key) const { return m_tracker.history(key); }
    const ScanProgress &lastProgress() const { return m_lastProgress; }
    // InspectClock::monotonicMs() when the last full scan finished whole; -1 before the first one.
    qint64 lastFullScanAtMs() const { return m_lastFullScanAtMs; }
    // False while the server cannot be read: then the readings shown are the last ones, not live ones.
    bool isLive() const { return m_live; }
    QString notLiveReason() const { return m_notLiveReason; }
    // InspectClock::monotonicMs() when the server last answered a read; -1 before it ever did.
    qint64 lastReadAtMs() const { return m_lastReadAtMs; }
    // The address read from ("127.0.0.1:7001"): through Sentinel the master the sentinels named, which a
    // failover moves. Empty until the first connection opens.
    QString address() const { return m_address; }
    // How many times the address changed since the first connection (failovers, through Sentinel).
    int addressChanges() const { return m_addressChanges; }
    // Whether keyspace notifications are flowing (then changes arrive within milliseconds).
    bool hearsNotifications() const;
    // Without notifications a lock that appears is found only by the next full rescan: how often one runs.
    int rescanIntervalMs() const;
    const KeyspaceWatcher &watcher() const { return m_watcher; }
    KeyspaceWatcher &watcher() { return m_watcher; }

    // The diagnostic thresholds every reading is judged with.
    DiagnosticContext baseContext() const;

signals:
    void scanStarted();
    void scanProgress(const ScanProgress &progress);
    // `complete`: the whole keyspace was walked (locks not met were then found gone). `error` when it failed.
    void scanEnded(const ScanProgress &progress, bool complete, const QString &error);
    // Locks met or read again, diagnosed against their history; `events` per key, in key order.
    void updated(const QList<LockRecord> &records);
    // What happened to one lock (acquired, renewed, released, expired, lost…), with the lock as it was.
    void happened(const QByteArray &key, const QList<LockEvent> &events, const LockRecord &record);
    // A lock no longer there, with its last reading (kept for the GUI's pinned row and history).
    void gone(const QByteArray &key, const LockRecord &last);
    // A diagnosis that was not there at the previous reading of that lock.
    void diagnosisRaised(const LockRecord &record, const LockDiagnosis &diagnosis);
    // The server became unreadable (with why) or readable again.
    void liveChanged(bool live, const QString &reason);
    // The address read from: `from` is empty the first time; later a move (a failover through Sentinel),
    // after which the locks are checked again by a full scan (what vanished meanwhile was not seen going).
    void addressChanged(const QString &from, const QString &to);
    void watchStateChanged(KeyspaceWatcher::State state, const QString &text);

private:
    void apply(const QList<LockRecord> &records, LockTracker::Source source);
    void markGone(const QByteArray &key, const QString &unobserved = QString());
    void setLive(bool live, const QString &reason);
    void poll();
    void flush();
    void updateCadence();
    // A lock whose renewal falls due is read again then (not at the next poll), so that a stall is judged
    // against its own rhythm however fast it is; the timer waits for the earliest such deadline.
    void scheduleDueCheck(const LockRecord &record, const DiagnosticContext &base);
    void readDueLocks();
    void heartbeat();
    void noteAddress(const QString &address);

    ConnectionSettings m_settings;
    ScanOptions m_options;
    Timing m_timing;
    LockScanner m_scanner;
    KeyspaceWatcher m_watcher;
    LockTracker m_tracker;
    QHash<QByteArray, LockRecord> m_locks;
    // Hashes holding locks as fields (huey's results hash). The monitor keys a lock by its key, so it does not
    // follow such fields yet (issue 39): the scan's rows stand as read, and nothing of the hash is re-read and
    // reported as a change — two fields of one hash would otherwise take turns being "the" lock of that key.
    QSet<QByteArray> m_fieldLockHashes;
    // The other keys of a multi-resource lock → the lock: a change to one of them is read as a change of the
    // whole lock (all its keys at once), never as a lock of its own.
    QHash<QByteArray, QByteArray> m_groupOf;
    QHash<QByteArray, QStringList> m_codes; // diagnosis codes at the last reading, per lock
    QSet<QByteArray> m_seenThisScan;
    QSet<QByteArray> m_dirty;
    QList<QByteArray> m_priority;
    QTimer m_poll;
    QTimer m_rescan;
    QTimer m_flush;
    QTimer m_due;
    QHash<QByteArray, qint64> m_dueAt; // monotonic ms by which a renewal is due, per renewed lock
    QTimer m_heartbeat;
    int m_pollOffset = 0;
    bool m_running = false;
    bool m_rescanPending = false;
    bool m_autoRescan = true;
    bool m_live = true;
    QString m_notLiveReason;
    QString m_unobserved; // set after an outage: locks found gone at the next reading were not seen going
    ScanProgress m_lastProgress;
    qint64 m_lastFullScanAtMs = -1;
    qint64 m_lastFullScanDurationMs = -1;
    qint64 m_lastReadAtMs = -1;
    QString m_address;
    int m_addressChanges = 0;
};
