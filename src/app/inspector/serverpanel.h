// The connected server's facts (version, mode, role, database, keys, round trip, our client id, whether
// writes are allowed), shown beside the lock details so the on-call engineer knows where they are.
#pragma once

#include <QWidget>

class QLabel;
struct ServerInfo;

class ServerPanel : public QWidget
{
    Q_OBJECT
public:
    explicit ServerPanel(QWidget *parent = nullptr);

    void showInfo(const ServerInfo &info);
    void showMessage(const QString &message);
    QString text() const; // what the panel says, for tests

private:
    QLabel *m_details = nullptr;
};
