// The Inspector place: the GUI face of LockMonitor (scans page by page, keyspace notifications or TTL polls,
// periodic rescans, each lock's history): filter and sort the locks, read one lock's details and history,
// export the table, and act on a lock safely when the connection allows writes.
#pragma once

#include "inspect/keyspacewatcher.h"
#include "inspect/lockactions.h"
#include "inspect/lockmonitor.h"
#include "inspect/lockscanjob.h"
#include "inspect/scanoptions.h"
#include "redis/connectionsettings.h"

#include <QFutureWatcher>
#include <QSet>
#include <QTimer>
#include <QWidget>

class ActionConfirmDialog;
class LockDetailsPane;
class LockFilterProxy;
class LockTableModel;
class RedisSession;
class ServerPanel;
class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QMenu;
class QProgressBar;
class QPushButton;
class QTableView;
struct ServerInfo;
struct RedisResult;

class InspectorPlace : public QWidget
{
    Q_OBJECT
public:
    explicit InspectorPlace(RedisSession *session, QWidget *parent = nullptr);
    ~InspectorPlace() override;

    // The sandbox belongs to LockScope: there the place offers to write sample locks of every kind.
    void setSandbox(bool sandbox);

    // Starts a scan now (cancelling one in progress first).
    void rescan();
    // The SCAN patterns, space-separated, as typed in the pattern box ("*" for every key).
    void setPatterns(const QString &patterns);
    // A connection profile's scan settings (SCAN COUNT, a budget in commands per second, and its patterns when
    // it has any); a connection without a profile passes the defaults.
    void setScanSettings(int count, int maxOpsPerSecond, const QStringList &patterns);
    // The connection's profile is marked PRODUCTION (its name; empty: it is not): every write asks for the
    // name to be typed first.
    void setProductionName(const QString &name) { m_productionName = name; }
    // The name patterns that make a key count as a lock in a "*" scan, space-separated.
    void setLockNamePatterns(const QString &patterns);
    // The list of lock formats (built in and the user's), with problems in the user's files.
    void showFormats();
    // Opens the confirmation dialog for an action on the selected lock (what the buttons do).
    void requestAction(LockAction::Type type);

    LockTableModel *model() const { return m_model; }
    LockFilterProxy *proxy() const { return m_proxy; }
    QTableView *view() const { return m_view; }
    LockDetailsPane *details() const { return m_details; }
    ServerPanel *serverPanel() const { return m_serverPanel; }
    LockMonitor *monitor() const { return m_monitor; }
    KeyspaceWatcher *watcher() const { return &m_monitor->watcher(); }
    const LockTracker &tracker() const { return m_monitor->tracker(); }
    QString statusText() const;
    QString liveText() const;
    bool isScanning() const;
    // Selects the row of `key` (tests, and keeping the selection when rows move).
    bool selectKey(const QByteArray &key);
    // Writes the rows the filters show, as CSV or JSON (by the file's suffix). Empty when done, else why not.
    QString exportTable(const QString &path) const;
    // The row menu's actions for the lock in `row` of the proxy (tests trigger them by their object name).
    QList<QAction *> rowActions(const QModelIndex &index);
    // The window's Inspector menu: the place's actions and the selected lock's, with their shortcuts.
    void fillMenu(QMenu *menu);

protected:
    // The table's rows hold still under the pointer.
    bool eventFilter(QObject *watched, QEvent *event) override;

signals:
    void scanFinished();
    void actionFinished(bool done, const QString &message);

private:
    void buildUi();
    void onOpened(const ServerInfo &info);
    void onLost(const QString &message);
    void startScan();
    void onScanEnded(const ScanProgress &progress, const QString &message, bool complete);
    void onUpdated(const QList<LockRecord> &records);
    void onGone(const QByteArray &key, const LockRecord &last);
    void onLiveChanged(bool live, const QString &reason);
    void unpinGone();
    void updatePriorityKeys();
    void showRowMenu(const QPoint &pos);
    void exportWithDialog();
    void tick();
    // A cluster's lock: show the Node column and the node controls, and offer its master in the filter.
    void noteNode(const QString &node);
    void setGrouped(bool grouped);
    void showSelected();
    void updateLiveState();
    void updateActionsAllowed();
    void showProgress(const ScanProgress &progress, bool running);
    void updateEmptyHint();
    void setStatus(const QString &text, bool error = false);
    void runAction(const LockAction &action, const LockRecord &snapshot);
    void enableNotifications();
    void writeSampleLocks();
    ScanOptions currentOptions() const;

    RedisSession *m_session = nullptr;
    LockMonitor *m_monitor = nullptr;
    LockTableModel *m_model = nullptr;
    LockFilterProxy *m_proxy = nullptr;
    QTableView *m_view = nullptr;
    LockDetailsPane *m_details = nullptr;
    ServerPanel *m_serverPanel = nullptr;
    QLineEdit *m_patterns = nullptr;
    QLineEdit *m_lockNames = nullptr;
    QPushButton *m_scanButton = nullptr;
    QProgressBar *m_progress = nullptr;
    QLabel *m_progressText = nullptr;
    QLineEdit *m_filter = nullptr;
    QComboBox *m_kind = nullptr;
    QCheckBox *m_problemsOnly = nullptr;
    QComboBox *m_nodeFilter = nullptr; // a cluster's masters; hidden on a single server
    QCheckBox *m_groupByNode = nullptr;
    QLabel *m_live = nullptr;
    QPushButton *m_enableNotifications = nullptr;
    QPushButton *m_sampleLocks = nullptr;
    QPushButton *m_export = nullptr;
    QLabel *m_status = nullptr;
    QLabel *m_emptyHint = nullptr; // over the empty table after a scan: why it is empty, what to do

    QAction *m_rescanAction = nullptr;
    QList<QAction *> m_menuRowActions; // the window menu's actions for the selected lock, rebuilt when shown
    QTimer m_tick; // countdown repaint
    QByteArray m_selectedKey;
    QByteArray m_pinnedGone; // the selected lock after it went: its row stays, grey, until another is selected
    ConnectionSettings m_settings;
    bool m_connected = false;
    bool m_sandbox = false;
    QString m_productionName;
    int m_scanCount = ScanOptions().count;
    int m_scanMaxOps = 0;
    int m_ticks = 0;
    QFutureWatcher<bool> m_sampleWriter;
};
