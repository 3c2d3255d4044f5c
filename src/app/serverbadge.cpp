// ServerBadge: coloured dot, one-line summary, and a read-only / read-write / sandbox pill.
#include "serverbadge.h"

#include <QHBoxLayout>
#include <QLabel>

namespace {
const char *pillStyle = "QLabel { color: white; background: %1; border-radius: 8px; padding: 1px 8px; "
                        "font-weight: 700; font-size: 8pt; }";
}

ServerBadge::ServerBadge(QWidget *parent)
    : QWidget(parent)
    , m_dot(new QLabel(this))
    , m_text(new QLabel(this))
    , m_mode(new QLabel(this))
{
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(4, 0, 4, 0);
    layout->setSpacing(6);
    layout->addWidget(m_dot);
    layout->addWidget(m_text);
    layout->addWidget(m_mode);
    m_dot->setFixedWidth(14);
    m_text->setTextInteractionFlags(Qt::TextSelectableByMouse);
    setIdle();
}

void ServerBadge::show(State state, const QString &dotColor, const QString &text, const QString &tooltip)
{
    m_state = state;
    m_dot->setText(QStringLiteral("●"));
    m_dot->setStyleSheet(QStringLiteral("color: %1; font-size: 12pt;").arg(dotColor));
    m_text->setText(text);
    setToolTip(tooltip);
}

void ServerBadge::setIdle()
{
    show(State::Idle, QStringLiteral("#94a3b8"), tr("Not connected"),
         tr("Use Connection ▸ Connect to choose a server"));
    m_mode->hide();
}

void ServerBadge::setConnecting(const QString &what)
{
    show(State::Connecting, QStringLiteral("#f59e0b"), what, what);
    m_mode->hide();
}

void ServerBadge::setConnected(const ServerInfo &info, bool sandbox)
{
    show(State::Connected, QStringLiteral("#22c55e"),
         QStringLiteral("%1 · %2").arg(info.endpoint, info.summary()),
         tr("Connected to %1\nRound trip %2 ms\nClient id %3")
             .arg(info.endpoint, QString::number(info.roundTripMs, 'f', 2))
             .arg(info.clientId));
    if (sandbox) {
        m_mode->setText(tr("SANDBOX"));
        m_mode->setStyleSheet(QString::fromLatin1(pillStyle).arg(QStringLiteral("#2563eb")));
        m_mode->setToolTip(tr("A private redis-server started by LockScope on a loopback port; "
                              "it is stopped when LockScope exits."));
    } else if (info.readOnly) {
        m_mode->setText(tr("READ-ONLY"));
        m_mode->setStyleSheet(QString::fromLatin1(pillStyle).arg(QStringLiteral("#15803d")));
        m_mode->setToolTip(tr("LockScope refuses every command that could change this server."));
    } else {
        m_mode->setText(tr("READ-WRITE"));
        m_mode->setStyleSheet(QString::fromLatin1(pillStyle).arg(QStringLiteral("#c2410c")));
        m_mode->setToolTip(
            tr("Writes are allowed on this connection: every write still asks for confirmation."));
    }
    m_mode->show();
}

void ServerBadge::setFailed(const QString &message)
{
    show(State::Failed, QStringLiteral("#ef4444"), message, message);
    m_mode->hide();
}

void ServerBadge::setLost(const QString &message)
{
    show(State::Lost, QStringLiteral("#ef4444"), tr("Connection lost, retrying: %1").arg(message), message);
    m_mode->hide();
}

QString ServerBadge::text() const
{
    return m_mode->isVisibleTo(this) ? m_text->text() + QStringLiteral(" ") + m_mode->text() : m_text->text();
}

QString ServerBadge::modeText() const
{
    return m_mode->isVisibleTo(this) ? m_mode->text() : QString();
}
