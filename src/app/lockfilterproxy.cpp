// LockFilterProxy: invalidateRowsFilter() (Qt 6.4+) re-filters without re-sorting columns.
#include "lockfilterproxy.h"

#include "locktablemodel.h"

LockFilterProxy::LockFilterProxy(QObject *parent)
    : QSortFilterProxyModel(parent)
{
    setSortRole(LockTableModel::SortRole);
    setDynamicSortFilter(true);
}

void LockFilterProxy::setText(const QString &text)
{
    if (text == m_text)
        return;
    m_text = text;
    invalidateRowsFilter();
}

void LockFilterProxy::setKind(std::optional<LockKind> kind)
{
    if (kind == m_kind)
        return;
    m_kind = kind;
    invalidateRowsFilter();
}

void LockFilterProxy::setProblemsOnly(bool on)
{
    if (on == m_problemsOnly)
        return;
    m_problemsOnly = on;
    invalidateRowsFilter();
}

bool LockFilterProxy::filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const
{
    const QModelIndex index = sourceModel()->index(sourceRow, 0, sourceParent);
    if (m_kind && index.data(LockTableModel::KindRole).toInt() != int(*m_kind))
        return false;
    if (m_problemsOnly && index.data(LockTableModel::DiagnosisCodesRole).toStringList().isEmpty())
        return false;
    if (!m_text.isEmpty()
        && !index.data(LockTableModel::SearchTextRole).toString().contains(m_text, Qt::CaseInsensitive))
        return false;
    return true;
}
