// LockTableExport: the document is built whole in memory, then written whole (no half-written file).
#include "locktableexport.h"

#include "inspect/lockjson.h"
#include "inspect/lockmonitor.h"
#include "locktablemodel.h"
#include "outputfile.h"
#include "redis/serverinfo.h"

#include <QDir>
#include <QJsonDocument>
#include <QObject>

namespace LockTableExport {

QString write(const QString &path, const QList<LockRecord> &rows, const LockMonitor &monitor,
              const ServerInfo &server)
{
    QByteArray content;
    if (path.endsWith(QLatin1String(".json"), Qt::CaseInsensitive)) {
        QStringList missing = monitor.lastProgress().missing;
        if (!monitor.isLive())
            missing << QObject::tr("the server could not be read when this was exported (%1): these are the "
                                   "last readings")
                           .arg(monitor.notLiveReason());
        const QJsonObject doc = LockJson::inspection(
            rows, monitor.lastProgress(), server,
            LockJson::incompleteBecause(rows, monitor.lastProgress(), server, missing));
        content = QJsonDocument(doc).toJson(QJsonDocument::Indented);
    } else {
        content = LockTableModel::csv(rows);
    }
    QString reason;
    if (!OutputFile::writeWhole(path, content, &reason))
        return QObject::tr("Could not export to %1: %2").arg(QDir::toNativeSeparators(path), reason);
    return {};
}

} // namespace LockTableExport
