// InspectorPlace: server facts for now; the lock scanner and table are added by the inspector work.
#include "inspectorplace.h"

#include "placeheader.h"
#include "redis/redissession.h"

#include <QLabel>
#include <QVBoxLayout>

InspectorPlace::InspectorPlace(RedisSession *session, QWidget *parent)
    : QWidget(parent)
    , m_session(session)
    , m_details(new QLabel(this))
{
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(
        new PlaceHeader(QStringLiteral(":/icons/inspector.svg"), tr("Inspector"),
                        tr("Find every lock on the connected server, who holds it, for how long, "
                           "who waits — and which look stuck."),
                        this));
    m_details->setTextFormat(Qt::RichText);
    m_details->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_details->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    m_details->setContentsMargins(16, 8, 16, 8);
    layout->addWidget(m_details, 1);

    connect(session, &RedisSession::opening, this,
            [this](const QString &endpoint) { showMessage(tr("Connecting to %1…").arg(endpoint)); });
    connect(session, &RedisSession::opened, this, &InspectorPlace::showInfo);
    connect(session, &RedisSession::infoChanged, this, &InspectorPlace::showInfo);
    connect(session, &RedisSession::failed, this, [this](const RedisError &e) { showMessage(e.message()); });
    connect(session, &RedisSession::connectionLost, this,
            [this](const RedisError &e) { showMessage(tr("Connection lost: %1").arg(e.message())); });
    showMessage(tr("Not connected."));
}

void InspectorPlace::showInfo(const ServerInfo &info)
{
    const auto row = [](const QString &name, const QString &value) {
        return QStringLiteral("<tr><td style='padding-right:18px;color:palette(placeholder-text)'>%1</td>"
                              "<td><b>%2</b></td></tr>")
            .arg(name, value.toHtmlEscaped());
    };
    QString html = QStringLiteral("<table cellspacing='4'>");
    html += row(tr("Server"), info.endpoint);
    html += row(tr("Redis version"), info.version);
    html += row(tr("Mode"), info.mode);
    html += row(tr("Role"), info.role);
    html += row(tr("Database"), QString::number(info.db));
    html += row(tr("Keys"), info.keys < 0 ? tr("unknown") : QString::number(info.keys));
    html += row(tr("Round trip"), tr("%1 ms").arg(info.roundTripMs, 0, 'f', 2));
    html += row(tr("Our client id"), QString::number(info.clientId));
    html += row(tr("Writes"), info.readOnly ? tr("refused (read-only connection)") : tr("allowed"));
    html += QStringLiteral("</table>");
    m_details->setText(html);
}

void InspectorPlace::showMessage(const QString &message)
{
    m_details->setText(message.toHtmlEscaped());
}
