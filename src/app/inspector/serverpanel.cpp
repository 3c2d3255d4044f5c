// ServerPanel: a compact two-column table.
#include "serverpanel.h"

#include "redis/serverinfo.h"

#include <QLabel>
#include <QLocale>
#include <QTextDocument>
#include <QVBoxLayout>

ServerPanel::ServerPanel(QWidget *parent)
    : QWidget(parent)
    , m_details(new QLabel(this))
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_details->setTextFormat(Qt::RichText);
    m_details->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_details->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    m_details->setWordWrap(true);
    layout->addWidget(m_details);
    showMessage(tr("Not connected."));
}

void ServerPanel::showInfo(const ServerInfo &info)
{
    const auto row = [](const QString &name, const QString &value) {
        return QStringLiteral("<tr><td style='padding-right:12px;color:palette(placeholder-text)'>%1</td>"
                              "<td><b>%2</b></td></tr>")
            .arg(name, value.toHtmlEscaped());
    };
    QString html = QStringLiteral("<table cellspacing='1'>");
    html += row(tr("Server"), info.endpoint);
    html += row(tr("Redis"), QStringLiteral("%1 · %2 · %3").arg(info.version, info.mode, info.role));
    const QString keys = info.keys < 0 ? tr("keys unknown")
        : info.keys == 1               ? tr("1 key")
                                       : tr("%1 keys").arg(QLocale(QLocale::English).toString(info.keys));
    html += row(tr("Database"), QStringLiteral("db %1 · %2").arg(info.db).arg(keys));
    html += row(tr("Round trip"), tr("%1 ms").arg(info.roundTripMs, 0, 'f', 2));
    html += row(tr("Our client id"), QString::number(info.clientId));
    html += row(tr("Writes"), info.readOnly ? tr("refused (read-only connection)") : tr("allowed"));
    html += QStringLiteral("</table>");
    m_details->setText(html);
}

void ServerPanel::showMessage(const QString &message)
{
    m_details->setText(message.toHtmlEscaped());
}

QString ServerPanel::text() const
{
    QTextDocument doc;
    doc.setHtml(m_details->text());
    return doc.toPlainText();
}
