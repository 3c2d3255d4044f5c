// The Inspector place: the connected server, and (as the inspector grows) every lock on it.
#pragma once

#include <QWidget>

class RedisSession;
class QLabel;
struct ServerInfo;

class InspectorPlace : public QWidget
{
    Q_OBJECT
public:
    explicit InspectorPlace(RedisSession *session, QWidget *parent = nullptr);

private:
    void showInfo(const ServerInfo &info);
    void showMessage(const QString &message);

    RedisSession *m_session = nullptr;
    QLabel *m_details = nullptr;
};
