// The details of the selected lock: kind and why, diagnoses, owners, TTL counting down, waiters and the
// fair queue with time left to each deadline, companions, history with its renewal cadence, the raw data,
// the command to unlock it by hand, and the actions (disabled on read-only connections).
#pragma once

#include "inspect/lockactions.h"
#include "inspect/lockhistory.h"
#include "inspect/lockrecord.h"

#include <QWidget>

class HistoryTimeline;
class QLabel;
class QPlainTextEdit;
class QPushButton;
class QStackedWidget;

class LockDetailsPane : public QWidget
{
    Q_OBJECT
public:
    explicit LockDetailsPane(QWidget *parent = nullptr);

    // Shows `record` (the snapshot actions will compare against) and its history.
    void showLock(const LockRecord &record, const LockHistory *history, qint64 leaseMs);
    // The lock shown went away; its last snapshot and history stay visible.
    void showGone(const LockHistory *history);
    void showNothing();
    // While the server cannot be read, the lock shown is its last reading: the TTL stops counting.
    void setStale(bool stale);
    // Whether the connection allows writes; `why` explains when not.
    void setActionsAllowed(bool allowed, const QString &why);
    // Updates the countdown and the timeline (called ~10 times a second while visible).
    void tick();
    // Shows `history` again for the lock shown (its cadence sentence ages with time).
    void refreshHistory(const LockHistory *history) { updateHistory(history); }

    bool hasLock() const { return m_hasLock; }
    const LockRecord &record() const { return m_record; }
    QString text() const; // everything the pane says, for tests
    QPushButton *forceUnlockButton() const { return m_forceUnlock; }
    QPushButton *extendButton() const { return m_extend; }
    QPushButton *removeQueueButton() const { return m_removeQueue; }
    QString manualCommand() const;

signals:
    void actionRequested(LockAction::Type type);

private:
    void updateTtl();
    void updateHistory(const LockHistory *history);
    void updateActions();

    LockRecord m_record;
    bool m_hasLock = false;
    bool m_gone = false;
    qint64 m_staleAtMs = -1; // when the readings stopped being live, -1 while live
    qint64 m_lease = -1;
    bool m_actionsAllowed = false;
    QString m_actionsWhy;
    QList<LockEvent> m_events;
    QString m_cadence;

    QStackedWidget *m_stack = nullptr;
    QWidget *m_actionBar = nullptr; // the lock's actions, above the scrolled details
    QLabel *m_placeholder = nullptr;
    QLabel *m_title = nullptr;
    QLabel *m_reason = nullptr;
    QLabel *m_ttl = nullptr;
    QLabel *m_diagnoses = nullptr;
    QLabel *m_facts = nullptr;
    QLabel *m_cadenceLabel = nullptr;
    HistoryTimeline *m_timeline = nullptr;
    QLabel *m_eventsLabel = nullptr;
    QPlainTextEdit *m_raw = nullptr;
    QPlainTextEdit *m_manual = nullptr;
    QPushButton *m_forceUnlock = nullptr;
    QPushButton *m_extend = nullptr;
    QPushButton *m_removeQueue = nullptr;
    QLabel *m_actionsNote = nullptr;
};
