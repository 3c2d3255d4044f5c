// A small timeline of one lock's history: acquired, renewed, changed, released and expired as marks on a
// time axis ending now, so a renewal heartbeat (or its absence) is visible at a glance.
#pragma once

#include "inspect/lockhistory.h"

#include <QWidget>

class HistoryTimeline : public QWidget
{
    Q_OBJECT
public:
    explicit HistoryTimeline(QWidget *parent = nullptr);

    void setEvents(const QList<LockEvent> &events);
    const QList<LockEvent> &events() const { return m_events; }
    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;
    static QColor colorOf(LockEvent::Type type);

protected:
    void paintEvent(QPaintEvent *event) override;

private:
    QList<LockEvent> m_events;
};
