// LockFilterProxy: invalidateRowsFilter() (Qt 6.4+) re-filters without re-sorting columns.
#include "lockfilterproxy.h"

#include "locktablemodel.h"

#include <QColor>

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

void LockFilterProxy::setNode(const QString &node)
{
    if (node == m_node)
        return;
    m_node = node;
    invalidateRowsFilter();
}

void LockFilterProxy::addNode(const QString &node)
{
    if (node.isEmpty() || m_nodes.contains(node))
        return;
    m_nodes.append(node);
    std::sort(m_nodes.begin(), m_nodes.end());
}

void LockFilterProxy::clearNodes()
{
    m_nodes.clear();
    setNode(QString());
}

void LockFilterProxy::setGroupByNode(bool on)
{
    if (on == m_groupByNode)
        return;
    m_groupByNode = on;
    invalidate(); // a new order (layoutChanged), and the tint of the groups
}

namespace {
QString nodeOf(const QAbstractItemModel *model, int sourceRow, const QModelIndex &parent)
{
    return model->index(sourceRow, LockTableModel::NodeColumn, parent).data(Qt::DisplayRole).toString();
}
} // namespace

bool LockFilterProxy::lessThan(const QModelIndex &left, const QModelIndex &right) const
{
    if (m_groupByNode) {
        const QString a = nodeOf(sourceModel(), left.row(), left.parent());
        const QString b = nodeOf(sourceModel(), right.row(), right.parent());
        if (a != b) {
            // Qt reverses lessThan for a descending sort: reverse it back, so masters stay in order.
            const bool less = QString::compare(a, b) < 0;
            return sortOrder() == Qt::AscendingOrder ? less : !less;
        }
    }
    return QSortFilterProxyModel::lessThan(left, right);
}

QVariant LockFilterProxy::data(const QModelIndex &index, int role) const
{
    if (role == Qt::BackgroundRole && m_groupByNode && index.isValid()) {
        // Every other master's section gets a faint tint (masters are few: a lookup in a short list).
        const QString node
            = QSortFilterProxyModel::data(index.siblingAtColumn(LockTableModel::NodeColumn), Qt::DisplayRole)
                  .toString();
        if (m_nodes.indexOf(node) % 2 == 1)
            return QColor(128, 128, 128, 40);
    }
    return QSortFilterProxyModel::data(index, role);
}

bool LockFilterProxy::filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const
{
    const QModelIndex index = sourceModel()->index(sourceRow, 0, sourceParent);
    if (m_kind && index.data(LockTableModel::KindRole).toInt() != int(*m_kind))
        return false;
    if (!m_node.isEmpty() && nodeOf(sourceModel(), sourceRow, sourceParent) != m_node)
        return false;
    if (m_problemsOnly && index.data(LockTableModel::DiagnosisCodesRole).toStringList().isEmpty())
        return false;
    if (!m_text.isEmpty()
        && !index.data(LockTableModel::SearchTextRole).toString().contains(m_text, Qt::CaseInsensitive))
        return false;
    return true;
}

void LockFilterProxy::setOrderHeld(bool held)
{
    if (held == isOrderHeld())
        return;
    setDynamicSortFilter(!held);
    if (!held) {
        invalidateRowsFilter(); // what changed while held may have left (or entered) the filter
        sort(sortColumn(), sortOrder());
    }
}
