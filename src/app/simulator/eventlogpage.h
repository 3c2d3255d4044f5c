// The Simulator's Event log tab: the run's events in a table, filtered by worker, lock key and kind, with
// "Export shown rows…". A click on a row asks the timeline to show that moment.
#pragma once

#include <QWidget>

class EventLogModel;
class QComboBox;
class QTableView;
class TimelineData;

class EventLogPage : public QWidget
{
    Q_OBJECT
public:
    EventLogPage(EventLogModel *model, QWidget *parent = nullptr);

    // The run shown changed: its workers and lock keys in the filters (all of them chosen).
    void setRunLayout(const TimelineData *data);
    // New events: the table follows them when it was at its end.
    void refresh();
    // Writes the rows shown (filters applied) as CSV. False with `error`.
    bool writeCsv(const QString &path, QString *error) const;

signals:
    void timeClicked(qint64 timeUs);
    void exportRequested();

private:
    void applyFilter();

    EventLogModel *m_model = nullptr;
    QTableView *m_table = nullptr;
    QComboBox *m_worker = nullptr;
    QComboBox *m_lock = nullptr;
    QComboBox *m_kind = nullptr;
};
