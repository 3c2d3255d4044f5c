// Filtering and sorting of the lock table: a text filter (key, owner, kind, library), a kind filter,
// "only locks with a diagnosis" and, on a cluster, one master; sorting by each column's raw value
// (SortRole), so TTLs sort as numbers. "Group by node" keeps each master's locks together (masters in
// order, whatever the sort direction) and sorts by the chosen column within each, with every other group
// tinted so the sections stand out. All of it re-sorts rows, never resets the model.
#pragma once

#include "inspect/lockkind.h"

#include <QSortFilterProxyModel>
#include <QStringList>

#include <optional>

class LockFilterProxy : public QSortFilterProxyModel
{
    Q_OBJECT
public:
    explicit LockFilterProxy(QObject *parent = nullptr);

    void setText(const QString &text);
    void setKind(std::optional<LockKind> kind);
    void setProblemsOnly(bool on);
    // Only locks on this cluster master ("127.0.0.1:7000"); empty: every node.
    void setNode(const QString &node);
    const QString &node() const { return m_node; }
    // The masters met so far (for the tint of every other section), in order.
    void addNode(const QString &node);
    const QStringList &nodes() const { return m_nodes; }
    void clearNodes(); // another server: no master known, no node filter
    void setGroupByNode(bool on);
    // While the pointer is over the table, rows stay where they are (new ones come at the end): a rescan that
    // re-sorted them moved the row about to be clicked. Released, the order catches up at once.
    void setOrderHeld(bool held);
    bool isOrderHeld() const { return !dynamicSortFilter(); }
    bool groupByNode() const { return m_groupByNode; }

    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const override;
    bool lessThan(const QModelIndex &left, const QModelIndex &right) const override;

private:
    QString m_text;
    std::optional<LockKind> m_kind;
    bool m_problemsOnly = false;
    QString m_node;
    QStringList m_nodes;
    bool m_groupByNode = false;
};
