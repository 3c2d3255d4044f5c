// RunExporter: files written whole (QSaveFile), so a failed export never leaves half a file behind.
#include "runexporter.h"

#include "sim/historycsv.h"

#include <QBuffer>
#include <QImage>
#include <QJsonDocument>
#include <QPainter>
#include <QSaveFile>
#include <QSvgGenerator>

bool RunExporter::writeReportJson(const QString &path, const SimulationRunner::Outcome &outcome,
                                  QString *error)
{
    QSaveFile file(path);
    const QByteArray json = QJsonDocument(outcome.toJson()).toJson(QJsonDocument::Indented);
    if (!file.open(QIODevice::WriteOnly) || file.write(json) != json.size() || !file.commit()) {
        *error = QObject::tr("Cannot write %1: %2").arg(path, file.errorString());
        return false;
    }
    return true;
}

qint64 RunExporter::writeEventsCsv(const QString &path, const QList<Events> &runs, QString *error)
{
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) {
        *error = QObject::tr("Cannot write %1: %2").arg(path, file.errorString());
        return -1;
    }
    file.write(HistoryCsv::header());
    qint64 rows = 0;
    for (const Events &r : runs) {
        if (r.simulation)
            rows += HistoryCsv::write(file, *r.simulation, r.variant);
    }
    if (!file.commit()) {
        *error = QObject::tr("Cannot write %1: %2").arg(path, file.errorString());
        return -1;
    }
    return rows;
}

bool RunExporter::writePicture(const QString &path, const QSize &size, const QString &title,
                               const std::function<void(QPainter &)> &paint, QString *error)
{
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) {
        *error = QObject::tr("Cannot write %1: %2").arg(path, file.errorString());
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
        if (!image.save(&file, "PNG")) {
            *error = QObject::tr("Cannot encode %1 as PNG").arg(path);
            file.cancelWriting();
            return false;
        }
    }
    if (!file.commit()) {
        *error = QObject::tr("Cannot write %1: %2").arg(path, file.errorString());
        return false;
    }
    return true;
}
