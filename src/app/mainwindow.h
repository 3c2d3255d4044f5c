// The main window: the three places (Inspector, Simulator, Learn), the server connection and its badge.
#pragma once

#include "common/appoptions.h"
#include "explore/exploretarget.h"
#include "profiles/connectionprofile.h"

#include <QFutureWatcher>
#include <QMainWindow>
#include <QTimer>

#include <memory>
#include <optional>

class BreakItDialog;
class InspectorPlace;
class ProfileCredentials;
class ProfilesDialog;
class ProfileStore;
class SecretStore;
class LearnPlace;
class RedisSession;
class SimulatorPlace;
class SandboxServer;
class ServerBadge;
class QActionGroup;
class QMenu;
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
    // Connects as a saved profile says: its password from the keychain or asked for, its badge while
    // connected.
    void connectToProfile(const ConnectionProfile &profile);
    // The profile of the current connection (lock patterns and SCAN COUNT for the inspector), if any.
    const std::optional<ConnectionProfile> &currentProfile() const { return m_profile; }
    // Connection ▸ Profiles…: opens (or raises) the profiles manager and returns it.
    ProfilesDialog *openProfilesDialog();
    // Starts the private sandbox server if needed, then connects to it.
    void useSandbox();
    void showPlace(Place place);
    Place currentPlace() const;

    RedisSession *session() const { return m_session; }
    ServerBadge *serverBadge() const { return m_badge; }
    InspectorPlace *inspector() const { return m_inspector; }
    SandboxServer *sandbox() const { return m_sandbox.get(); }
    ProfileCredentials *credentials() const { return m_credentials; }
    bool isOnSandbox() const { return m_onSandbox; }
    SimulatorPlace *simulatorPlace() const { return m_simulator; }
    LearnPlace *learnPlace() const { return m_learn; }
    // "Try to break it" (opened from Learn or the Simulator; null until first opened).
    BreakItDialog *breakItDialog() const { return m_breakIt; }
    void openBreakIt(const Scenario &scenario);
    void openBreakItOn(const ExploreTarget::Options &target, const QString &title);

signals:
    void profileChanged(); // currentProfile() changed (connected with another profile, or none)

protected:
    void closeEvent(QCloseEvent *event) override;

private:
    void buildActions();
    void buildPlaces();
    void openConnectionDialog();
    void onOpened();
    void onFailed(const QString &message);
    void setProfile(const std::optional<ConnectionProfile> &profile);
    void rebuildProfilesMenu();
    void updateTitle();

    RedisSession *m_session = nullptr;
    InspectorPlace *m_inspector = nullptr;
    ServerBadge *m_badge = nullptr;
    QStackedWidget *m_places = nullptr;
    SimulatorPlace *m_simulator = nullptr;
    LearnPlace *m_learn = nullptr;
    BreakItDialog *m_breakIt = nullptr;
    QActionGroup *m_placeActions = nullptr;
    std::unique_ptr<SandboxServer> m_sandbox;
    QFutureWatcher<bool> m_sandboxStart;
    QTimer m_refreshTimer;
    std::unique_ptr<ProfileStore> m_profileStore;
    SecretStore *m_secrets = nullptr;
    ProfileCredentials *m_credentials = nullptr;
    ProfilesDialog *m_profilesDialog = nullptr;
    QMenu *m_profilesMenu = nullptr;
    std::optional<ConnectionProfile> m_profile;
    bool m_onSandbox = false;
    // The profile and sandbox flag of the connection that is open, restored when a Connect fails (the session
    // keeps its connection then).
    std::optional<ConnectionProfile> m_openProfile;
    bool m_openOnSandbox = false;
    bool m_sandboxStarting = false; // from useSandbox() until the start task's end is handled (the future's
                                    // isRunning() turns false before that)
    bool m_sandboxWanted = false; // the last connection asked for is the sandbox (not a server chosen since)
    bool m_userAskedToConnect = false; // show a dialog on failure only when the user just asked
};
