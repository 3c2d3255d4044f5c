// PasswordPrompt: a small form built in code (one label, one field, one box).
#include "passwordprompt.h"

#include "profiles/connectionprofile.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QVBoxLayout>

PasswordPrompt::PasswordPrompt(const ConnectionProfile &profile, const QString &reason, bool offerRemember,
                               QWidget *parent, Purpose purpose)
    : QDialog(parent)
    , m_password(new QLineEdit(this))
    , m_remember(new QCheckBox(tr("&Remember it in the system keychain"), this))
{
    setObjectName(QStringLiteral("passwordPrompt"));
    setWindowTitle(tr("Password for %1").arg(profile.name));
    setMinimumWidth(440);
    auto *layout = new QVBoxLayout(this);
    const QString who = profile.settings.user.isEmpty()
        ? tr("the default user")
        : tr("user <b>%1</b>").arg(profile.settings.user.toHtmlEscaped());
    auto *text = new QLabel(
        tr("Password of %1 at <b>%2</b>").arg(who, profile.settings.describe().toHtmlEscaped()), this);
    text->setWordWrap(true);
    layout->addWidget(text);
    if (!reason.isEmpty()) {
        auto *why = new QLabel(reason, this);
        why->setObjectName(QStringLiteral("reasonLabel"));
        why->setWordWrap(true);
        why->setStyleSheet(QStringLiteral("color: #92400e;"));
        layout->addWidget(why);
    }
    m_password->setEchoMode(QLineEdit::Password);
    m_password->setObjectName(QStringLiteral("promptPasswordEdit"));
    layout->addWidget(m_password);
    m_remember->setVisible(offerRemember);
    m_remember->setToolTip(tr("Saved in the operating system's keychain, never in LockScope's own files"));
    layout->addWidget(m_remember);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    buttons->button(QDialogButtonBox::Ok)->setText(purpose == Purpose::Test ? tr("&Test") : tr("&Connect"));
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);
    m_password->setFocus();
}

QString PasswordPrompt::password() const
{
    return m_password->text();
}

bool PasswordPrompt::remember() const
{
    return !m_remember->isHidden() && m_remember->isChecked(); // readable after the dialog closed
}
