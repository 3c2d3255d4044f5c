// ServerBadge: coloured dot, one-line summary, a read-only / read-write / sandbox pill, and the connection's
// marks (profile, production, TLS, SSH).
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
    , m_profile(new QLabel(this))
    , m_production(new QLabel(this))
    , m_tls(new QLabel(this))
    , m_ssh(new QLabel(this))
{
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(4, 0, 4, 0);
    layout->setSpacing(6);
    layout->addWidget(m_dot);
    layout->addWidget(m_text);
    layout->addWidget(m_mode);
    layout->addWidget(m_tls);
    layout->addWidget(m_ssh);
    layout->addWidget(m_profile);
    layout->addWidget(m_production);
    m_production->setText(tr("PRODUCTION"));
    m_production->setStyleSheet(QString::fromLatin1(pillStyle).arg(QStringLiteral("#b91c1c")));
    m_production->setToolTip(tr("This profile is marked as a production server"));
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
    updateMarks();
}

ServerBadge::Decoration ServerBadge::decorationFor(const ConnectionSettings &settings,
                                                   const QString &profileName, const QString &color,
                                                   bool production)
{
    Decoration d;
    d.profileName = profileName;
    d.color = color;
    d.production = production;
    d.tls = settings.tls.enabled;
    d.tlsVerified = settings.tls.verifyPeer;
    d.ssh = settings.ssh.enabled ? settings.ssh.destination() : QString();
    return d;
}

void ServerBadge::setDecoration(const Decoration &decoration)
{
    m_decoration = decoration;
    updateMarks();
}

void ServerBadge::updateMarks()
{
    const bool on = m_state == State::Connected || m_state == State::Lost;
    const Decoration &d = m_decoration;
    m_profile->setVisible(on && !d.profileName.isEmpty());
    m_profile->setText(d.profileName);
    const QString profileColor = d.color.isEmpty() ? QStringLiteral("#475569") : d.color;
    m_profile->setStyleSheet(QString::fromLatin1(pillStyle).arg(profileColor));
    m_profile->setToolTip(tr("Connected with the profile '%1'").arg(d.profileName));
    m_production->setVisible(on && d.production);
    m_tls->setVisible(on && d.tls);
    if (d.tlsVerified) {
        m_tls->setText(tr("TLS"));
        m_tls->setStyleSheet(QString::fromLatin1(pillStyle).arg(QStringLiteral("#0f766e")));
        m_tls->setToolTip(tr("Encrypted with TLS; the server's certificate was verified"));
    } else {
        m_tls->setText(tr("⚠ TLS UNVERIFIED"));
        m_tls->setStyleSheet(QString::fromLatin1(pillStyle).arg(QStringLiteral("#b45309")));
        m_tls->setToolTip(
            tr("Encrypted, but the server's certificate was NOT verified: anyone in the middle could "
               "read and change the traffic"));
    }
    m_ssh->setVisible(on && !d.ssh.isEmpty());
    m_ssh->setText(tr("SSH"));
    m_ssh->setStyleSheet(QString::fromLatin1(pillStyle).arg(QStringLiteral("#4b5563")));
    m_ssh->setToolTip(tr("Through an SSH tunnel via %1").arg(d.ssh));
}

QStringList ServerBadge::marks() const
{
    QStringList list;
    for (QLabel *label : {m_tls, m_ssh, m_profile, m_production}) {
        if (label->isVisibleTo(this))
            list << label->text();
    }
    return list;
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
    QStringList parts {m_text->text()};
    if (m_mode->isVisibleTo(this))
        parts << m_mode->text();
    parts << marks();
    return parts.join(u' ');
}

QString ServerBadge::modeText() const
{
    return m_mode->isVisibleTo(this) ? m_mode->text() : QString();
}
