// ActionConfirmDialog: the command box shows LockAction::commandText(), which is exactly what is sent.
#include "actionconfirmdialog.h"

#include "common/typednameguard.h"

#include <QApplication>
#include <QClipboard>
#include <QDialogButtonBox>
#include <QFontDatabase>
#include <QFormLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

ActionConfirmDialog::ActionConfirmDialog(const LockAction &action, QWidget *parent)
    : QDialog(parent)
    , m_explanation(new QLabel(this))
    , m_command(new QPlainTextEdit(this))
{
    setWindowTitle(action.title);
    setObjectName(QStringLiteral("actionConfirmDialog"));
    auto *layout = new QVBoxLayout(this);
    auto *title = new QLabel(QStringLiteral("<b>%1</b>").arg(action.title.toHtmlEscaped()), this);
    layout->addWidget(title);
    m_explanation->setWordWrap(true);
    layout->addWidget(m_explanation);
    auto *commandLabel = new QLabel(tr("Exact command that will be sent (one atomic command):"), this);
    layout->addWidget(commandLabel);
    m_command->setReadOnly(true);
    m_command->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_command->setMinimumSize(560, 180);
    m_command->setObjectName(QStringLiteral("commandText"));
    layout->addWidget(m_command, 1);
    m_scriptLabel = new QLabel(tr("Its Lua script, line by line:"), this);
    layout->addWidget(m_scriptLabel);
    m_script = new QPlainTextEdit(this);
    m_script->setReadOnly(true);
    m_script->setFont(m_command->font());
    m_script->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_script->setMinimumHeight(140);
    layout->addWidget(m_script, 1);

    auto *buttons = new QDialogButtonBox(this);
    m_send = buttons->addButton(tr("Send to Server"), QDialogButtonBox::AcceptRole);
    QPushButton *copy = buttons->addButton(tr("Copy Command"), QDialogButtonBox::ActionRole);
    QPushButton *cancel = buttons->addButton(QDialogButtonBox::Cancel);
    cancel->setDefault(true);
    cancel->setFocus();
    connect(m_send, &QPushButton::clicked, this, &QDialog::accept);
    connect(cancel, &QPushButton::clicked, this, &QDialog::reject);
    connect(copy, &QPushButton::clicked, this, [this] { QApplication::clipboard()->setText(commandText()); });
    layout->addWidget(buttons);
    display(action);
}

void ActionConfirmDialog::requireTypedName(const QString &profileName)
{
    if (m_guard)
        return;
    m_guard = new TypedNameGuard(profileName, tr("send this command"), this);
    // Just above the buttons: the last thing read before sending.
    auto *box = static_cast<QVBoxLayout *>(layout());
    box->insertWidget(box->count() - 1, m_guard);
    connect(m_guard, &TypedNameGuard::satisfiedChanged, this, [this] { display(m_action); });
    display(m_action);
}

void ActionConfirmDialog::setTtlEditor(qint64 initialMs, std::function<LockAction(qint64)> rebuild)
{
    m_rebuild = std::move(rebuild);
    if (!m_ttl) {
        m_ttl = new QSpinBox(this);
        m_ttl->setRange(1, 30 * 24 * 3600);
        m_ttl->setSuffix(tr(" s"));
        auto *form = new QFormLayout;
        form->addRow(tr("New TTL:"), m_ttl);
        static_cast<QVBoxLayout *>(layout())->insertLayout(1, form);
        connect(m_ttl, &QSpinBox::valueChanged, this, [this](int seconds) {
            if (m_rebuild)
                display(m_rebuild(qint64(seconds) * 1000));
        });
    }
    m_ttl->setValue(int(std::max<qint64>(1, initialMs / 1000)));
    display(m_rebuild(qint64(m_ttl->value()) * 1000));
}

void ActionConfirmDialog::display(const LockAction &action)
{
    m_action = action;
    setWindowTitle(action.title);
    m_explanation->setText(action.isAvailable() ? action.explanation : action.unavailable);
    m_command->setPlainText(action.isAvailable() ? action.commandText() : QString());
    const bool eval = action.isAvailable() && action.command.size() > 1 && action.command.first() == "EVAL";
    m_script->setPlainText(eval ? QString::fromUtf8(action.command.at(1)) : QString());
    m_script->setVisible(eval);
    m_scriptLabel->setVisible(eval);
    m_send->setEnabled(action.isAvailable() && (!m_guard || m_guard->isSatisfied()));
}

QString ActionConfirmDialog::commandText() const
{
    return m_command->toPlainText();
}

ActionConfirmDialog *ActionConfirmDialog::forLock(LockAction::Type type, const LockRecord &snapshot,
                                                  qint64 leaseMs, QWidget *parent)
{
    LockAction action;
    switch (type) {
    case LockAction::Type::ForceUnlock:
        action = LockActions::forceUnlock(snapshot);
        break;
    case LockAction::Type::EnableNotifications: // not a lock's action: LockActions::enableNotifications()
        break;
    case LockAction::Type::ExtendTtl:
        action = LockActions::extendTtl(snapshot, 60000);
        break;
    case LockAction::Type::RemoveOrphanQueue:
        action = LockActions::removeOrphanQueue(snapshot);
        break;
    }
    auto *dialog = new ActionConfirmDialog(action, parent);
    if (type == LockAction::Type::ExtendTtl)
        dialog->setTtlEditor(std::max<qint64>(leaseMs, 60000),
                             [snapshot](qint64 ms) { return LockActions::extendTtl(snapshot, ms); });
    return dialog;
}
