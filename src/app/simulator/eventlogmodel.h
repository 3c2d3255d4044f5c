// The event log: every recorded event of the run on screen as a table row, filtered by worker, lock key and
// kind without a proxy (a list of matching event indexes, extended as events arrive, so a million-event run
// stays responsive).
#pragma once

#include "timeline/timelinedata.h"

#include <QAbstractTableModel>

#include <functional>

class QIODevice;

class EventLogModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { Time, Worker, Lock, Kind, Phase, Outcome, Value, Token, Commands, Detail, ColumnCount };
    enum Role { TimeUsRole = Qt::UserRole + 1, EventIndexRole };
    using TextLookup = std::function<QString(const HistoryEvent &)>;

    explicit EventLogModel(QObject *parent = nullptr);

    // The run to show (nullptr: none); resets the model.
    void setRun(const TimelineData *data, TextLookup lookup = {});
    // The run's data grew: adds the new matching rows.
    void refresh();
    // -1 means any.
    void setFilter(int worker, int lock, int kind);
    int workerFilter() const { return m_worker; }
    int lockFilter() const { return m_lock; }
    int kindFilter() const { return m_kind; }
    // Only events at or before `timeUs` (TimelineData::kOpen: all), as the timeline's cursor reveals them.
    void setUntil(qint64 timeUs);

    int eventIndex(int row) const { return int(m_rows.value(row, -1)); }
    // The first row at or after `timeUs` (rows are in time order once a run is complete).
    int rowAtTime(qint64 timeUs) const;
    // Writes the rows shown (filters applied) as CSV. Returns the number of rows written.
    qint64 writeCsv(QIODevice &out) const;

    int rowCount(const QModelIndex &parent = QModelIndex()) const override;
    int columnCount(const QModelIndex &parent = QModelIndex()) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    bool accepts(const HistoryEvent &e) const;
    QString outcomeText(const HistoryEvent &e) const;
    QString workerText(const HistoryEvent &e) const;

    const TimelineData *m_data = nullptr;
    TextLookup m_lookup;
    QList<quint32> m_rows;
    qsizetype m_scanned = 0;
    int m_worker = -1;
    int m_lock = -1;
    int m_kind = -1;
    qint64 m_until = TimelineData::kOpen;
};
