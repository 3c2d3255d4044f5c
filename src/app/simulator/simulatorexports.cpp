// SimulatorExports: a save dialog, then the writer; the events CSV of a long run is written off the GUI
// thread, the rest at once.
#include "simulatorexports.h"

#include "chartspanel.h"
#include "common/backgroundtask.h"
#include "common/textformat.h"
#include "eventlogpage.h"
#include "simulationcontroller.h"
#include "timeline/timelinepanel.h"
#include "timeline/timelineview.h"

#include <QAction>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QMenu>
#include <QMessageBox>
#include <QStandardPaths>
#include <QWidget>

SimulatorExports::SimulatorExports(const Parts &parts, QWidget *dialogs)
    : QObject(dialogs)
    , m_parts(parts)
    , m_dialogs(dialogs)
    , m_menu(new QMenu(tr("Export"), dialogs))
{
    m_actions << m_menu->addAction(tr("Report (JSON)…"), this, [this] {
        exportWith(tr("Export the report"), tr("JSON (*.json)"), QStringLiteral("json"),
                   &SimulatorExports::writeReport);
    });
    m_actions << m_menu->addAction(tr("Every event (CSV)…"), this,
                                   &SimulatorExports::exportEventsInBackground);
    m_menu->addSeparator();
    m_actions << m_menu->addAction(tr("Timeline as PNG…"), this, [this] {
        exportWith(tr("Export the timeline"), tr("PNG image (*.png)"), QStringLiteral("png"),
                   &SimulatorExports::writeTimeline);
    });
    m_actions << m_menu->addAction(tr("Timeline as SVG…"), this, [this] {
        exportWith(tr("Export the timeline"), tr("SVG image (*.svg)"), QStringLiteral("svg"),
                   &SimulatorExports::writeTimeline);
    });
    m_actions << m_menu->addAction(tr("Charts as PNG…"), this, [this] {
        exportWith(tr("Export the charts"), tr("PNG image (*.png)"), QStringLiteral("png"),
                   &SimulatorExports::writeCharts);
    });
    m_actions << m_menu->addAction(tr("Charts as SVG…"), this, [this] {
        exportWith(tr("Export the charts"), tr("SVG image (*.svg)"), QStringLiteral("svg"),
                   &SimulatorExports::writeCharts);
    });
}

void SimulatorExports::setAvailable(bool runShown, bool reportReady)
{
    for (QAction *a : std::as_const(m_actions))
        a->setEnabled(runShown && !m_exporting);
    m_actions.at(0)->setEnabled(reportReady && !m_exporting);
    m_actions.at(1)->setEnabled(reportReady && !m_exporting);
}

void SimulatorExports::exportLogWithDialog()
{
    exportWith(tr("Export the event log"), tr("CSV (*.csv)"), QStringLiteral("csv"),
               &SimulatorExports::writeLog);
}

QString SimulatorExports::baseName() const
{
    const QString id = m_parts.controller->scenario().id;
    return id.isEmpty() ? QStringLiteral("lockscope") : id;
}

void SimulatorExports::exportWith(const QString &title, const QString &filter, const QString &suffix,
                                  Writer write)
{
    const QString dir = QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation);
    const QString path = QFileDialog::getSaveFileName(m_dialogs, title,
                                                      QDir(dir).filePath(baseName() + u'.' + suffix), filter);
    if (path.isEmpty())
        return;
    QString error;
    if (!(this->*write)(path, &error))
        QMessageBox::warning(m_dialogs, title, error);
    else
        emit saved(tr("Saved %1").arg(QFileInfo(path).fileName()));
}

QList<RunExporter::Events> SimulatorExports::events() const
{
    QList<RunExporter::Events> runs;
    const SimulationController *c = m_parts.controller;
    for (int i = 0; i < c->runCount(); ++i)
        runs << RunExporter::Events {c->run(i).variant, c->run(i).simulation};
    return runs;
}

bool SimulatorExports::writeReport(const QString &path, QString *error) const
{
    return RunExporter::writeReportJson(path, m_parts.controller->outcome(), error);
}

bool SimulatorExports::writeEvents(const QString &path, QString *error) const
{
    return RunExporter::writeEventsCsv(path, events(), error) >= 0;
}

void SimulatorExports::exportEventsInBackground()
{
    const QString dir = QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation);
    const QString path = QFileDialog::getSaveFileName(
        m_dialogs, tr("Export every event"), QDir(dir).filePath(baseName() + QStringLiteral("-events.csv")),
        tr("CSV (*.csv)"));
    if (path.isEmpty())
        return;
    const QList<RunExporter::Events> runs = events();
    m_exporting = true;
    emit busyChanged(true);
    emit saved(tr("Writing %1…").arg(QFileInfo(path).fileName()));
    struct Result
    {
        qint64 rows = -1;
        QString error;
    };
    auto *watcher = new QFutureWatcher<Result>(this);
    connect(watcher, &QFutureWatcher<Result>::finished, this, [this, watcher, path] {
        BackgroundTask::resultsArrived();
        watcher->deleteLater();
        const Result r = watcher->result();
        m_exporting = false;
        emit busyChanged(false);
        if (r.rows < 0)
            QMessageBox::warning(m_dialogs, tr("Export every event"), r.error);
        else
            emit saved(
                tr("Saved %1 (%2)")
                    .arg(QFileInfo(path).fileName(), TextFormat::count(r.rows, tr("event"), tr("events"))));
    });
    watcher->setFuture(BackgroundTask::run([path, runs] {
        Result r;
        r.rows = RunExporter::writeEventsCsv(path, runs, &r.error);
        return r;
    }));
}

bool SimulatorExports::writeTimeline(const QString &path, QString *error) const
{
    const TimelineView *view = m_parts.timeline->view();
    if (!view->data()) {
        *error = tr("There is no run to export yet.");
        return false;
    }
    const QSize size = view->exportSize(std::max(1200, view->width()));
    return RunExporter::writePicture(
        path, size, m_parts.controller->scenario().title,
        [view, size](QPainter &p) { view->paintExport(p, size); }, error);
}

bool SimulatorExports::writeCharts(const QString &path, QString *error) const
{
    const QSize size = m_parts.charts->exportSize();
    return RunExporter::writePicture(
        path, size, m_parts.controller->scenario().title,
        [this, size](QPainter &p) { m_parts.charts->paintExport(p, size); }, error);
}

bool SimulatorExports::writeLog(const QString &path, QString *error) const
{
    return m_parts.log->writeCsv(path, error);
}
