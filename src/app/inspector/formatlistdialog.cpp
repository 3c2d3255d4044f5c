// FormatListDialog: a read-only view of FormatCatalog::standard(); "Reload" asks the catalog to read the
// files again, so a format file written while the app runs can be tried without restarting it.
#include "formatlistdialog.h"

#include "inspect/formatcatalog.h"
#include "inspect/lockkind.h"

#include <QDesktopServices>
#include <QDialogButtonBox>
#include <QDir>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableWidget>
#include <QUrl>
#include <QVBoxLayout>

FormatListDialog::FormatListDialog(QWidget *parent)
    : QDialog(parent)
{
    setWindowTitle(tr("Lock Formats"));
    auto *layout = new QVBoxLayout(this);
    m_summary = new QLabel(this);
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_summary);
    m_problems = new QLabel(this);
    m_problems->setObjectName(QStringLiteral("formatProblems"));
    m_problems->setWordWrap(true);
    m_problems->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_problems);
    m_table = new QTableWidget(0, 6, this);
    m_table->setObjectName(QStringLiteral("formatTable"));
    m_table->setHorizontalHeaderLabels(
        {tr("Format"), tr("Library"), tr("Kind"), tr("Redis type"), tr("Keys"), tr("File")});
    m_table->verticalHeader()->hide();
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setWordWrap(false);
    m_table->horizontalHeader()->setStretchLastSection(true);
    layout->addWidget(m_table, 1);

    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    QPushButton *open = buttons->addButton(tr("Open Folder"), QDialogButtonBox::ActionRole);
    open->setToolTip(tr("Your own formats: one JSON file per library family (see docs/formats.md)"));
    QPushButton *reload = buttons->addButton(tr("Reload"), QDialogButtonBox::ActionRole);
    reload->setObjectName(QStringLiteral("reloadFormats"));
    reload->setToolTip(tr("Read the built-in formats and your folder again; the next scan uses them"));
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(open, &QPushButton::clicked, this, [] {
        QDir().mkpath(FormatCatalog::userFolder());
        QDesktopServices::openUrl(QUrl::fromLocalFile(FormatCatalog::userFolder()));
    });
    connect(reload, &QPushButton::clicked, this, [this] {
        FormatCatalog::reloadStandard();
        fill();
        emit reloaded();
    });
    layout->addWidget(buttons);
    fill();
    resize(980, 560);
}

void FormatListDialog::fill()
{
    const std::shared_ptr<const FormatCatalog> catalog = FormatCatalog::standard();
    const QList<LockFormat> &formats = catalog->formats();
    int own = 0;
    m_table->setRowCount(int(formats.size()));
    for (int row = 0; row < formats.size(); ++row) {
        const LockFormat &f = formats.at(row);
        const bool builtIn = f.file.startsWith(QLatin1String("resources/formats/"));
        own += builtIn ? 0 : 1;
        const QStringList cells {f.name,
                                 f.library,
                                 LockKinds::label(f.kind),
                                 QString::fromLatin1(f.type),
                                 f.keyAsWritten.isEmpty() ? tr("any name (by its data)") : f.keyAsWritten,
                                 builtIn ? tr("built in (%1)").arg(f.file.section(u'/', -1)) : f.file};
        for (int column = 0; column < cells.size(); ++column) {
            auto *item = new QTableWidgetItem(cells.at(column));
            item->setToolTip(column == 0 ? f.id : cells.at(column));
            m_table->setItem(row, column, item);
        }
    }
    m_table->resizeColumnsToContents();
    for (int column = 0; column < m_table->columnCount() - 1; ++column)
        m_table->setColumnWidth(column, std::min(m_table->columnWidth(column), 260));
    m_summary->setText(tr("%1 formats: %2 built in, %3 from your folder %4. Add a JSON file there to "
                          "recognise your own locks (docs/formats.md describes the fields), then press "
                          "Reload.")
                           .arg(formats.size())
                           .arg(formats.size() - own)
                           .arg(own)
                           .arg(QDir::toNativeSeparators(FormatCatalog::userFolder())));
    const QStringList errors = catalog->errors();
    if (errors.isEmpty()) {
        m_problems->setText(tr("No problems in your format files."));
        m_problems->setStyleSheet(QString());
    } else {
        m_problems->setText(tr("These files were skipped, the others loaded:\n%1").arg(errors.join(u'\n')));
        m_problems->setStyleSheet(QStringLiteral("color:#c62828"));
    }
}

QString FormatListDialog::problemsText() const
{
    return m_problems->text();
}
