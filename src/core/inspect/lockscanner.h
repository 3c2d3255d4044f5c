// The inspector's reader: scans and refreshes locks on its own thread and its own connection (always
// read-only, whatever the user's settings), so the GUI thread never waits on the network. Results arrive
// as queued signals, page by page. One scan at a time; live refreshes run between scan pages.
#pragma once

#include "keyprober.h"
#include "lockrecord.h"
#include "lockscanjob.h"
#include "redis/connectionsettings.h"
#include "redis/rediserror.h"
#include "redis/workerthread.h"
#include "scanoptions.h"

#include <QObject>

#include <memory>

class LockScanner : public QObject
{
    Q_OBJECT
public:
    explicit LockScanner(QObject *parent = nullptr);
    ~LockScanner() override;

    // The server to read. Cancels a running scan; the connection opens on first use.
    void setConnectionSettings(const ConnectionSettings &settings);
    const ConnectionSettings &connectionSettings() const { return m_settings; }

    // The patterns and bounds refreshes and probes use until the next scan (start() sets them too).
    void setOptions(const ScanOptions &options) { m_options = options; }

    // Starts a scan. Returns false, doing nothing, while another scan is running on this connection.
    bool start(const ScanOptions &options);
    // Stops the running scan after (or in the middle of) its current page; ends with scanCancelled().
    void cancel();
    bool isScanning() const { return m_scanning; }

    // Reads these locks again (TTL, owners, waiters), between pages of a running scan. Ends with probed().
    // Returns false when too many refreshes are already waiting (the caller simply tries again later).
    bool refresh(const QList<LockRecord> &records);
    // Probes keys that may have become locks (from keyspace events). Ends with probed().
    bool probeKeys(const QList<QByteArray> &keys);
    // Asks the server the cheapest question (PING) to learn whether it can be read now, even with no lock to
    // read again. Ends with pinged() or probeFailed(); false when too many requests are already waiting.
    bool ping();
    int refreshesInFlight() const { return m_refreshes; }

    // Targets that read `records` again: each member key, and Redisson locks through their queue too.
    static QList<ProbeTarget> refreshTargets(const QList<LockRecord> &records);

signals:
    void scanStarted();
    void pageReady(const QList<LockRecord> &records, const ScanProgress &progress);
    void scanFinished(const ScanProgress &progress);
    void scanCancelled(const ScanProgress &progress);
    void scanFailed(const RedisError &error, const ScanProgress &progress);
    // `records`: the locks read now; `goneKeys`: requested locks that no longer exist (or are no longer
    // locks).
    void probed(const QList<LockRecord> &records, const QList<QByteArray> &goneKeys);
    void probeFailed(const RedisError &error);
    // Asked keys whose type the server would not give (LOADING during a restart or DEBUG RELOAD, an ACL,
    // CLUSTERDOWN): neither present nor gone, with the server's words.
    void probeUnread(const QList<QPair<QByteArray, QString>> &keys);
    // The server answered a ping(): it can be read.
    void pinged();
    // The address the connection reads from ("127.0.0.1:7001"), when it first opens and whenever it changes:
    // through Sentinel, the master the sentinels named, which a failover moves.
    void readingFrom(const QString &endpoint);

private:
    struct Shared;
    void post(std::function<void(Shared &)> job);
    // On the worker: reports the connection's address when it changed since the last report.
    void reportEndpoint(Shared &shared, quint64 epoch);
    bool submitProbe(const QList<ProbeTarget> &targets, const QList<QByteArray> &asked);

    // Its generation is the scans': a result of an older scan (or of older settings) is dropped.
    WorkerThread m_worker;
    std::shared_ptr<Shared> m_shared;
    ConnectionSettings m_settings;
    ScanOptions m_options;
    // Refreshes: only new settings make their results stale. A scan starting while a refresh is in flight
    // must not drop it: its in-flight count would never come down and polling would stop for good.
    quint64 m_settingsEpoch = 0;
    bool m_scanning = false;
    int m_refreshes = 0;
};
