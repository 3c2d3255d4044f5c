// HelpDialog: plain dialogs around a QTextBrowser and a QTableWidget.
#include "helpdialog.h"

#include <QAction>
#include <QDialog>
#include <QDialogButtonBox>
#include <QFile>
#include <QHeaderView>
#include <QRegularExpression>
#include <QTableWidget>
#include <QTextBrowser>
#include <QVBoxLayout>

#include <algorithm>

namespace HelpDialog {

namespace {
QDialog *newDialog(QWidget *parent, const QString &title, QWidget **content, bool table)
{
    auto *dialog = new QDialog(parent);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setWindowTitle(title);
    dialog->resize(table ? 640 : 820, 620);
    auto *layout = new QVBoxLayout(dialog);
    *content = table ? static_cast<QWidget *>(new QTableWidget(dialog)) : new QTextBrowser(dialog);
    layout->addWidget(*content, 1);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, dialog);
    QObject::connect(buttons, &QDialogButtonBox::rejected, dialog, &QDialog::reject);
    layout->addWidget(buttons);
    return dialog;
}
} // namespace

QString guideMarkdown()
{
    QFile file(QStringLiteral(":/guide/README.md"));
    if (!file.open(QIODevice::ReadOnly))
        return QObject::tr("The user guide is missing from this build.");
    QString text = QString::fromUtf8(file.readAll());
    // Pictures are not bundled: a broken image is worse than none.
    text.remove(QRegularExpression(QStringLiteral("^!\\[[^\\]]*\\]\\([^)]*\\)\\s*$"),
                                   QRegularExpression::MultilineOption));
    return text;
}

void showGuide(QWidget *parent)
{
    QWidget *content = nullptr;
    QDialog *dialog = newDialog(parent, QObject::tr("LockScope user guide"), &content, false);
    auto *browser = static_cast<QTextBrowser *>(content);
    browser->setObjectName(QStringLiteral("guideBrowser"));
    browser->setOpenExternalLinks(true);
    browser->setMarkdown(guideMarkdown());
    dialog->show();
}

QStringList shortcutLines(const QWidget *window)
{
    QStringList lines;
    for (const QAction *a : window->findChildren<QAction *>()) {
        if (a->shortcut().isEmpty() || a->text().isEmpty())
            continue;
        QStringList keys;
        for (const QKeySequence &k : a->shortcuts())
            keys << k.toString(QKeySequence::NativeText);
        // Where it works: an action that belongs to a place works there only.
        QString where;
        for (const QObject *o = a->parent(); o; o = o->parent()) {
            const QString cls = QString::fromLatin1(o->metaObject()->className());
            if (cls.endsWith(QLatin1String("Place")) && cls != QLatin1String("Place")) {
                where = cls.chopped(5) + QStringLiteral(": ");
                break;
            }
        }
        const QString line = QStringLiteral("%1 — %2%3").arg(keys.join(QStringLiteral(", ")), where,
                                                               QString(a->text()).remove(u'&'));
        if (!lines.contains(line))
            lines << line;
    }
    std::sort(lines.begin(), lines.end());
    return lines;
}

void showShortcuts(QWidget *window)
{
    QWidget *content = nullptr;
    QDialog *dialog = newDialog(window, QObject::tr("Keyboard shortcuts"), &content, true);
    auto *table = static_cast<QTableWidget *>(content);
    table->setObjectName(QStringLiteral("shortcutTable"));
    const QStringList lines = shortcutLines(window);
    table->setColumnCount(2);
    table->setRowCount(int(lines.size()));
    table->setHorizontalHeaderLabels({QObject::tr("Keys"), QObject::tr("What it does")});
    table->verticalHeader()->hide();
    table->horizontalHeader()->setStretchLastSection(true);
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    for (int r = 0; r < lines.size(); ++r) {
        const QString line = lines.at(r);
        const qsizetype dash = line.indexOf(QStringLiteral(" — "));
        table->setItem(r, 0, new QTableWidgetItem(line.left(dash)));
        table->setItem(r, 1, new QTableWidgetItem(line.mid(dash + 3)));
    }
    table->resizeColumnToContents(0);
    dialog->show();
}

} // namespace HelpDialog
