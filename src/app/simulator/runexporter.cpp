// RunExporter: files written whole (OutputFile), so a failed export never leaves half a file behind.
#include "runexporter.h"

#include "outputfile.h"
#include "sim/historycsv.h"

#include <QBuffer>
#include <QImage>
#include <QJsonDocument>
#include <QPainter>
#include <QSvgGenerator>

bool RunExporter::writeReportJson(const QString &path, const SimulationRunner::Outcome &outcome,
                                  QString *error)
{
    QString reason;
    if (!OutputFile::writeWhole(path, QJsonDocument(outcome.toJson()).toJson(QJsonDocument::Indented),
                                &reason)) {
        *error = QObject::tr("Cannot write %1: %2").arg(path, reason);
        return false;
    }
    return true;
}

qint64 RunExporter::writeEventsCsv(const QString &path, const QList<Events> &runs, QString *error)
{
    OutputFile file(path);
    if (!file.open()) {
        *error = QObject::tr("Cannot write %1: %2").arg(path, file.reason());
        return -1;
    }
    file.write(HistoryCsv::header());
    qint64 rows = 0;
    for (const Events &r : runs) {
        if (r.simulation)
            rows += HistoryCsv::write(*file.device(), *r.simulation, r.variant);
    }
    if (!file.commit()) {
        *error = QObject::tr("Cannot write %1: %2").arg(path, file.reason());
        return -1;
    }
    return rows;
}

bool RunExporter::writePicture(const QString &path, const QSize &size, const QString &title,
                               const std::function<void(QPainter &)> &paint, QString *error)
{
    OutputFile file(path);
    if (!file.open()) {
        *error = QObject::tr("Cannot write %1: %2").arg(path, file.reason());
        return false;
    }
    if (path.endsWith(QLatin1String(".svg"), Qt::CaseInsensitive)) {
        QBuffer buffer;
        buffer.open(QIODevice::WriteOnly);
        QSvgGenerator svg;
        svg.setOutputDevice(&buffer);
        svg.setSize(size);
        svg.setViewBox(QRect(QPoint(0, 0), size));
        svg.setTitle(title);
        svg.setDescription(QObject::tr("Exported by LockScope"));
        {
            QPainter painter(&svg);
            paint(painter);
        }
        file.write(buffer.data());
    } else {
        // Twice the pixels, so the picture stays sharp on high-DPI screens and in documents.
        QImage image(size * 2, QImage::Format_ARGB32_Premultiplied);
        image.setDevicePixelRatio(2);
        image.fill(Qt::white);
        {
            QPainter painter(&image);
            painter.setRenderHint(QPainter::TextAntialiasing);
            paint(painter);
        }
        // Encoded in memory first: the file then gets one whole write (the file is unbuffered).
        QBuffer png;
        png.open(QIODevice::WriteOnly);
        if (!image.save(&png, "PNG")) {
            *error = QObject::tr("Cannot encode %1 as PNG").arg(path);
            return false;
        }
        file.write(png.data());
    }
    if (!file.commit()) {
        *error = QObject::tr("Cannot write %1: %2").arg(path, file.reason());
        return false;
    }
    return true;
}
