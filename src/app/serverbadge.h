// The status-bar badge: which server we are connected to, in what state, and whether writes are possible.
#pragma once

#include "redis/serverinfo.h"

#include <QWidget>

class QLabel;

class ServerBadge : public QWidget
{
    Q_OBJECT
public:
    enum class State { Idle, Connecting, Connected, Failed, Lost };

    explicit ServerBadge(QWidget *parent = nullptr);

    void setConnecting(const QString &what);
    void setConnected(const ServerInfo &info, bool sandbox);
    void setFailed(const QString &message);
    void setLost(const QString &message);
    void setIdle();

    State state() const { return m_state; }
    QString text() const; // everything the badge says, for tests and accessibility
    QString modeText() const; // "READ-ONLY", "READ-WRITE" or "SANDBOX"

private:
    void show(State state, const QString &dotColor, const QString &text, const QString &tooltip);

    State m_state = State::Idle;
    QLabel *m_dot = nullptr;
    QLabel *m_text = nullptr;
    QLabel *m_mode = nullptr;
};
