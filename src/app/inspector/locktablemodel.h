// The lock table: one row per lock, updated by diff (rows inserted, removed, and ranged dataChanged for
// what changed) so selection, scroll position and sorting survive every refresh. Never reset on refresh.
#pragma once

#include "inspect/lockrecord.h"

#include <QAbstractTableModel>
#include <QHash>
#include <QSet>

class LockTableModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column {
        KeyColumn,
        KindColumn,
        OwnerColumn,
        TtlColumn,
        WaitersColumn,
        ProblemsColumn,
        NodeColumn, // a cluster's master holding the lock; hidden on a single server
        ColumnCount
    };
    enum Role {
        SortRole = Qt::UserRole + 1, // raw value to sort by: numbers for TTL, waiters and problems
        KeyRole, // QByteArray
        KindRole, // int(LockKind)
        DeadlineRole, // qint64 monotonic ms when the TTL runs out; -1 no TTL, -2 gone
        LeaseRole, // qint64 the highest TTL seen, the full length of the TTL bar
        DiagnosisCodesRole, // QStringList
        SearchTextRole, // what the filter box searches: key, owner, kind, library
        NowRole, // qint64 the model's clock: now, or the moment the readings stopped being live
    };

    explicit LockTableModel(QObject *parent = nullptr);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

    // Adds new locks at the end and updates known ones in place (one dataChanged per run of changed rows).
    void upsert(const QList<LockRecord> &records);
    // Removes these locks (one removal per run of adjacent rows).
    void remove(const QList<QByteArray> &keys);
    // Removes every lock not in `keys` (the end of a full scan): returns the keys removed.
    QList<QByteArray> retainOnly(const QSet<QByteArray> &keys);
    // Empties the table: only when the server changes, never for a refresh.
    void clear();
    // While the server cannot be read the rows are its last readings: TTLs stop counting at `monotonicMs`
    // and every row is grey. -1: live again.
    void setFrozenAt(qint64 monotonicMs);
    bool isFrozen() const { return m_frozenAtMs >= 0; }
    qint64 clockMs() const;
    // The rows as CSV (RFC 4180): keys and owners exact when they are text, escaped like redis-cli when not;
    // what is unknown is an empty cell, never 0.
    static QByteArray csv(const QList<LockRecord> &records);

    int rowOf(const QByteArray &key) const { return m_rowOf.value(key, -1); }
    const LockRecord &record(int row) const { return m_records.at(row); }
    const LockRecord *find(const QByteArray &key) const;
    QList<LockRecord> records() const;
    qint64 leaseOf(int row) const { return m_leases.at(row); }

    // Which columns show something different for `after` than for `before` (bit i = column i). Only those
    // are announced, so a sorting proxy re-sorts only when the sort column really changed.
    static int changedColumns(const LockRecord &before, qint64 leaseBefore, const LockRecord &after,
                              qint64 leaseAfter);

    // Problems column sort weight: worst first.
    static int severity(const LockRecord &record);
    static QString kindText(const LockRecord &record);

    static constexpr qsizetype kReservedLocks = 1 << 18;

private:
    void reindex(int from);
    void reserveIndex();

    QList<LockRecord> m_records; // one per row (relocatable: growing the list moves bytes, not records)
    QList<qint64> m_leases; // the highest TTL seen per row: the full length of its TTL bar
    QHash<QByteArray, int> m_rowOf;
    qint64 m_frozenAtMs = -1;
};
