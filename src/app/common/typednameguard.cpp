// TypedNameGuard: a warning line over a line edit; exact, case-sensitive match (no trimming either: the name
// is what the profile says).
#include "typednameguard.h"

#include <QLabel>
#include <QLineEdit>
#include <QVBoxLayout>

TypedNameGuard::TypedNameGuard(const QString &profileName, const QString &what, QWidget *parent)
    : QWidget(parent)
    , m_expected(profileName)
    , m_name(new QLineEdit(this))
{
    setObjectName(QStringLiteral("typedNameGuard"));
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto *warning = new QLabel(tr("<b style='color:#b91c1c'>PRODUCTION</b> — this is <b>%1</b>. Type its name "
                                  "to %2.")
                                   .arg(profileName.toHtmlEscaped(), what.toHtmlEscaped()),
                               this);
    warning->setWordWrap(true);
    layout->addWidget(warning);
    m_name->setObjectName(QStringLiteral("typedNameEdit"));
    m_name->setPlaceholderText(profileName);
    layout->addWidget(m_name);
    connect(m_name, &QLineEdit::textChanged, this, [this] { emit satisfiedChanged(isSatisfied()); });
}

bool TypedNameGuard::isSatisfied() const
{
    return m_name->text() == m_expected;
}
