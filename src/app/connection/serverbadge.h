// The status-bar badge: which server we are connected to, in what state, whether writes are possible, and
// while connected the profile's colour, a PRODUCTION mark, and how the connection travels (TLS, SSH).
#pragma once

#include "redis/connectionsettings.h"
#include "redis/serverinfo.h"

#include <QWidget>

class QLabel;

class ServerBadge : public QWidget
{
    Q_OBJECT
public:
    enum class State { Idle, Connecting, Connected, Failed, Lost };

    // What the badge shows next to the server while connected (and while a lost connection is retried).
    struct Decoration
    {
        QString profileName; // empty: not a saved profile
        QString color; // "#rrggbb" of the profile, or empty
        bool production = false;
        bool tls = false;
        bool tlsVerified = true;
        QString ssh; // "ops@bastion" when tunnelled
    };
    static Decoration decorationFor(const ConnectionSettings &settings, const QString &profileName = {},
                                    const QString &color = {}, bool production = false);

    explicit ServerBadge(QWidget *parent = nullptr);

    void setConnecting(const QString &what);
    void setConnected(const ServerInfo &info, bool sandbox);
    void setFailed(const QString &message);
    void setLost(const QString &message);
    void setIdle();
    void setDecoration(const Decoration &decoration);
    const Decoration &decoration() const { return m_decoration; }

    State state() const { return m_state; }
    QString text() const; // everything the badge says, for tests and accessibility
    QString modeText() const; // "READ-ONLY", "READ-WRITE" or "SANDBOX"
    // The extra marks on show now, e.g. {"prod-eu", "PRODUCTION", "TLS UNVERIFIED", "SSH"}.
    QStringList marks() const;

private:
    void show(State state, const QString &dotColor, const QString &text, const QString &tooltip);
    void updateMarks();

    State m_state = State::Idle;
    QLabel *m_dot = nullptr;
    QLabel *m_text = nullptr;
    QLabel *m_mode = nullptr;
    QLabel *m_profile = nullptr;
    QLabel *m_production = nullptr;
    QLabel *m_tls = nullptr;
    QLabel *m_ssh = nullptr;
    Decoration m_decoration;
};
