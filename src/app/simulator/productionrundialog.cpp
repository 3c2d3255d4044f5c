// ProductionRunDialog: a sentence, the typed-name guard and Cancel (the default) or Run.
#include "productionrundialog.h"

#include "common/typednameguard.h"

#include <QDialogButtonBox>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

ProductionRunDialog::ProductionRunDialog(const QString &keyPrefix, const QString &endpoint,
                                         const QString &productionName, QWidget *parent)
    : QDialog(parent)
{
    setObjectName(QStringLiteral("productionRunDialog"));
    setWindowTitle(tr("Run on a production server?"));
    auto *layout = new QVBoxLayout(this);
    auto *what = new QLabel(tr("The simulation writes lock keys and a counter under <code>%1</code> on "
                               "<b>%2</b>, and deletes them when it is done.")
                                .arg(keyPrefix.toHtmlEscaped(), endpoint.toHtmlEscaped()),
                            this);
    what->setWordWrap(true);
    layout->addWidget(what);
    m_guard = new TypedNameGuard(productionName, tr("run the simulation on it"), this);
    layout->addWidget(m_guard);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Cancel, this);
    QPushButton *go = buttons->addButton(tr("Run on %1").arg(productionName), QDialogButtonBox::AcceptRole);
    go->setEnabled(false);
    buttons->button(QDialogButtonBox::Cancel)->setDefault(true);
    connect(m_guard, &TypedNameGuard::satisfiedChanged, go, &QPushButton::setEnabled);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);
    connect(this, &QDialog::accepted, this, [this] {
        if (m_guard->isSatisfied())
            emit confirmed();
    });
}
