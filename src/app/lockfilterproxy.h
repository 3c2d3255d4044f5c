// Filtering and sorting of the lock table: a text filter (key, owner, kind, library), a kind filter and
// "only locks with a diagnosis"; sorting by each column's raw value (SortRole), so TTLs sort as numbers.
#pragma once

#include "inspect/lockkind.h"

#include <QSortFilterProxyModel>

#include <optional>

class LockFilterProxy : public QSortFilterProxyModel
{
    Q_OBJECT
public:
    explicit LockFilterProxy(QObject *parent = nullptr);

    void setText(const QString &text);
    void setKind(std::optional<LockKind> kind);
    void setProblemsOnly(bool on);

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const override;

private:
    QString m_text;
    std::optional<LockKind> m_kind;
    bool m_problemsOnly = false;
};
