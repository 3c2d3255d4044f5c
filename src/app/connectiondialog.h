// The connection dialog: where a server is, how to log in, read-only (default) or not; with a live "Test".
#pragma once

#include "redis/connectionsettings.h"

#include <QDialog>

#include <memory>

class RedisSession;
class QPushButton;
namespace Ui {
class ConnectionDialog;
}

class ConnectionDialog : public QDialog
{
    Q_OBJECT
public:
    explicit ConnectionDialog(QWidget *parent = nullptr);
    ~ConnectionDialog() override;

    void setSettings(const ConnectionSettings &settings);
    ConnectionSettings settings() const;
    // The line under the form: validation problems and test results.
    QString statusText() const;
    QPushButton *testButton() const { return m_testButton; }

private:
    void updateState();
    void runTest();

    std::unique_ptr<Ui::ConnectionDialog> m_ui;
    QPushButton *m_testButton = nullptr;
    RedisSession *m_tester = nullptr;
};
