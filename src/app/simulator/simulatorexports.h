// The Simulator's Export menu and the files behind it: the report (JSON, the CLI's --json shape with the
// comparison), every event (CSV, written in the background), the timeline and the charts (PNG or SVG) and
// the event log's shown rows — each after a save dialog, each also callable directly (tests, scripts).
#pragma once

#include "runexporter.h"

#include <QList>
#include <QObject>

class ChartsPanel;
class EventLogPage;
class QAction;
class QMenu;
class QWidget;
class SimulationController;
class TimelinePanel;

class SimulatorExports : public QObject
{
    Q_OBJECT
public:
    struct Parts
    {
        SimulationController *controller = nullptr;
        TimelinePanel *timeline = nullptr;
        ChartsPanel *charts = nullptr;
        EventLogPage *log = nullptr;
    };
    // `dialogs`: the window the save dialogs and messages belong to.
    SimulatorExports(const Parts &parts, QWidget *dialogs);

    // The Export menu (the toolbar's button and the window's Simulator menu show it).
    QMenu *menu() const { return m_menu; }
    // A run is on screen; `reportReady`: every run finished and nothing runs (report and events are whole).
    void setAvailable(bool runShown, bool reportReady);
    bool isExporting() const { return m_exporting; }
    // The event log tab's "Export shown rows…".
    void exportLogWithDialog();

    bool writeReport(const QString &path, QString *error) const;
    // Blocking; the menu writes the events in the background.
    bool writeEvents(const QString &path, QString *error) const;
    bool writeTimeline(const QString &path, QString *error) const;
    bool writeCharts(const QString &path, QString *error) const;
    bool writeLog(const QString &path, QString *error) const;

signals:
    void saved(const QString &text); // "Saved report.json", for the status line
    void busyChanged(bool busy); // a background export started or ended

private:
    using Writer = bool (SimulatorExports::*)(const QString &, QString *) const;
    void exportWith(const QString &title, const QString &filter, const QString &suffix, Writer write);
    void exportEventsInBackground();
    QList<RunExporter::Events> events() const;
    QString baseName() const;

    Parts m_parts;
    QWidget *m_dialogs = nullptr;
    QMenu *m_menu = nullptr;
    QList<QAction *> m_actions; // report, events, then the pictures
    bool m_exporting = false;
};
