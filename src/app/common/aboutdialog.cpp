// AboutDialog: a QMessageBox::about with the version facts a bug report needs.
#include "aboutdialog.h"

#include "redis/redisconnection.h"
#include "redis/serverinfo.h"
#include "version.h"

#include <QMessageBox>

namespace AboutDialog {

QString text(const ServerInfo &server)
{
    const QString redis = server.isValid()
        ? QStringLiteral("%1 (%2 at %3)").arg(server.version, server.mode, server.endpoint)
        : QObject::tr("not connected");
    return QObject::tr("<h3>LockScope %1</h3>"
                       "<p>Inspect, simulate and learn Redis distributed locks.</p>"
                       "<table>"
                       "<tr><td>Qt</td><td>%2 (built with %3)</td></tr>"
                       "<tr><td>hiredis</td><td>%4</td></tr>"
                       "<tr><td>TLS</td><td>%5</td></tr>"
                       "<tr><td>Redis</td><td>%6</td></tr>"
                       "</table>")
        .arg(QStringLiteral(LOCKSCOPE_VERSION), QString::fromLatin1(qVersion()),
             QStringLiteral(QT_VERSION_STR), RedisConnection::hiredisVersion(),
             RedisConnection::tlsLibraryVersion().toHtmlEscaped(), redis.toHtmlEscaped());
}

void show(QWidget *parent, const ServerInfo &server)
{
    QMessageBox::about(parent, QObject::tr("About LockScope"), text(server));
}

} // namespace AboutDialog
