// The lock formats the Inspector recognises: the built-in ones and the user's own (their folder, which file
// each came from), the problems found in the user's files, and a way to read the folder again.
#pragma once

#include <QDialog>

class QLabel;
class QTableWidget;

class FormatListDialog : public QDialog
{
    Q_OBJECT
public:
    explicit FormatListDialog(QWidget *parent = nullptr);

    QTableWidget *table() const { return m_table; }
    QString problemsText() const;

signals:
    // The user's folder was read again: scans from now on use the new catalog.
    void reloaded();

private:
    void fill();

    QTableWidget *m_table = nullptr;
    QLabel *m_summary = nullptr;
    QLabel *m_problems = nullptr;
};
