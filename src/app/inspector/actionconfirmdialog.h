// Confirmation before any write to the server: what the action checks and changes, and the exact command
// that will be sent (copyable). Cancel is the default button.
#pragma once

#include "inspect/lockactions.h"

#include <QDialog>

#include <functional>

class QLabel;
class QPlainTextEdit;
class QSpinBox;
class QPushButton;
class TypedNameGuard;

class ActionConfirmDialog : public QDialog
{
    Q_OBJECT
public:
    explicit ActionConfirmDialog(const LockAction &action, QWidget *parent = nullptr);
    // The dialog for `type` (force unlock, set TTL — with its editor, starting from the lock's `leaseMs` or a
    // minute —, remove an orphan queue) on `snapshot`, the lock exactly as it was shown.
    static ActionConfirmDialog *forLock(LockAction::Type type, const LockRecord &snapshot, qint64 leaseMs,
                                        QWidget *parent);

    // For actions with a parameter (a new TTL): shows a seconds field that rebuilds the action as it changes.
    void setTtlEditor(qint64 initialMs, std::function<LockAction(qint64)> rebuild);
    // A server marked PRODUCTION: Send stays disabled until the profile's name is typed.
    void requireTypedName(const QString &profileName);

    const LockAction &action() const { return m_action; }
    QString commandText() const;
    QPushButton *sendButton() const { return m_send; }
    TypedNameGuard *typedNameGuard() const { return m_guard; }

private:
    void display(const LockAction &action);

    LockAction m_action;
    QLabel *m_explanation = nullptr;
    QPlainTextEdit *m_command = nullptr;
    QLabel *m_scriptLabel = nullptr;
    QPlainTextEdit *m_script = nullptr; // an EVAL's Lua, with its line breaks, for reading
    QSpinBox *m_ttl = nullptr;
    QPushButton *m_send = nullptr;
    TypedNameGuard *m_guard = nullptr;
    std::function<LockAction(qint64)> m_rebuild;
};
