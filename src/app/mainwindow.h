// The main window: the three places (Inspector, Simulator, Learn), the server connection and its badge.
#pragma once

#include "appoptions.h"

#include <QFutureWatcher>
#include <QMainWindow>
#include <QTimer>

#include <memory>

class LearnPlace;
class RedisSession;
class SimulatorPlace;
class SandboxServer;
class ServerBadge;
class QActionGroup;
class QStackedWidget;
struct ConnectionSettings;

class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    enum class Place { Inspector, Simulator, Learn };

    explicit MainWindow(const AppOptions &options, QWidget *parent = nullptr);
    ~MainWindow() override;

    // Connects the shared session to a user's server (read-only unless the settings say otherwise).
    void connectTo(const ConnectionSettings &settings);
    // Starts the private sandbox server if needed, then connects to it.
    void useSandbox();
    void showPlace(Place place);

    RedisSession *session() const { return m_session; }
    ServerBadge *serverBadge() const { return m_badge; }
    SandboxServer *sandbox() const { return m_sandbox.get(); }
    bool isOnSandbox() const { return m_onSandbox; }
    SimulatorPlace *simulatorPlace() const { return m_simulator; }
    LearnPlace *learnPlace() const { return m_learn; }

protected:
    void closeEvent(QCloseEvent *event) override;

private:
    void buildActions();
    void buildPlaces();
    void openConnectionDialog();
    void onOpened();
    void onFailed(const QString &message);

    RedisSession *m_session = nullptr;
    ServerBadge *m_badge = nullptr;
    QStackedWidget *m_places = nullptr;
    SimulatorPlace *m_simulator = nullptr;
    LearnPlace *m_learn = nullptr;
    QActionGroup *m_placeActions = nullptr;
    std::unique_ptr<SandboxServer> m_sandbox;
    QFutureWatcher<bool> m_sandboxStart;
    QTimer m_refreshTimer;
    bool m_onSandbox = false;
    bool m_userAskedToConnect = false; // show a dialog on failure only when the user just asked
};
