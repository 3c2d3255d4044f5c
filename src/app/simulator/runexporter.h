// Writes what the Simulator shows to files: the report as JSON (the CLI's --json shape), every event as CSV
// (the CLI's --events columns), and pictures (timeline, charts) as PNG or SVG by the file's suffix.
#pragma once

#include "sim/simulationrunner.h"

#include <QSize>
#include <QString>

#include <functional>
#include <memory>

class QPainter;
class Simulation;

class RunExporter
{
public:
    struct Events
    {
        QString variant;
        std::shared_ptr<Simulation> simulation;
    };

    static bool writeReportJson(const QString &path, const SimulationRunner::Outcome &outcome,
                                QString *error);
    // Blocking: call it off the GUI thread for big runs. Returns the rows written or -1.
    static qint64 writeEventsCsv(const QString &path, const QList<Events> &runs, QString *error);
    // PNG or SVG (by suffix) of `size`, painted by `paint`.
    static bool writePicture(const QString &path, const QSize &size, const QString &title,
                             const std::function<void(QPainter &)> &paint, QString *error);
};
