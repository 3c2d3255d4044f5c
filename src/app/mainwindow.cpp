// MainWindow: place navigation, menus, connection handling (embedded sandbox by default), status badge.
#include "mainwindow.h"
#include "common/appsettings.h"

#include "common/aboutdialog.h"
#include "common/helpdialog.h"
#include "common/backgroundtask.h"
#include "connection/connectiondialog.h"
#include "inspect/scanoptions.h"
#include "inspector/inspectorplace.h"
#include "learn/learnplace.h"
#include "learn/lockplayground.h"
#include "logging.h"
#include "connection/profilecredentials.h"
#include "profiles/profilestore.h"
#include "profiles/secretstore.h"
#include "connection/profilesdialog.h"
#include "redis/redissession.h"
#include "redis/sandboxserver.h"
#include "connection/serverbadge.h"
#include "explore/breakitdialog.h"
#include "simulator/simulatorplace.h"
#include "sim/presetlibrary.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QMenuBar>
#include <QMessageBox>
#include <QScreen>
#include <QStackedWidget>
#include <QStatusBar>
#include <QToolBar>

namespace {
constexpr int kRefreshConnectedMs = 5000;
constexpr int kRefreshLostMs = 1000; // retry fast so we are back within a second of the server
} // namespace

MainWindow::MainWindow(const AppOptions &options, QWidget *parent)
    : QMainWindow(parent)
    , m_session(new RedisSession(this))
    , m_badge(new ServerBadge(this))
    , m_profileStore(std::make_unique<ProfileStore>())
    , m_secrets(new SecretStore(this))
    , m_credentials(new ProfileCredentials(m_profileStore.get(), m_secrets, this))
{
    setWindowTitle(QStringLiteral("LockScope"));
    setWindowIcon(QIcon(QStringLiteral(":/icons/lockscope.svg")));
    // First start: roomy enough for the timeline and the charts, never larger than the screen.
    QSize size(1440, 900);
    if (const QScreen *screen = QGuiApplication::primaryScreen())
        size = size.boundedTo(screen->availableGeometry().size() * 0.92);
    resize(size);

    buildPlaces();
    buildActions();
    statusBar()->addPermanentWidget(m_badge);

    connect(m_session, &RedisSession::opening, this, [this](const QString &endpoint) {
        m_badge->setConnecting(tr("Connecting to %1…").arg(endpoint));
    });
    connect(m_session, &RedisSession::opened, this, &MainWindow::onOpened);
    connect(m_session, &RedisSession::infoChanged, this,
            [this](const ServerInfo &info) { m_badge->setConnected(info, m_onSandbox); });
    connect(m_credentials, &ProfileCredentials::notice, this,
            [this](const QString &message) { statusBar()->showMessage(message, 15000); });
    connect(m_session, &RedisSession::failed, this, [this](const RedisError &e) { onFailed(e.message()); });
    connect(m_session, &RedisSession::connectionLost, this, [this](const RedisError &e) {
        m_badge->setLost(e.message());
        statusBar()->showMessage(tr("Connection lost: %1").arg(e.message()), 8000);
        m_refreshTimer.start(kRefreshLostMs);
    });
    connect(&m_refreshTimer, &QTimer::timeout, m_session, &RedisSession::refreshInfo);
    connect(&m_sandboxStart, &QFutureWatcher<bool>::finished, this, [this] {
        BackgroundTask::resultsArrived();
        m_sandboxStarting = false;
        if (!m_sandboxStart.result()) {
            onFailed(tr("Cannot start the sandbox server: %1").arg(m_sandbox->errorString()));
            return;
        }
        if (!m_sandboxWanted)
            return; // the user connected to another server while it started
        m_onSandbox = true;
        m_session->open(m_sandbox->connectionSettings());
    });

    AppSettings settings;
    restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray());
    restoreState(settings.value(QStringLiteral("window/state")).toByteArray());
    showPlace(Place::Inspector);
    if (!options.story.isEmpty()) {
        m_learn->showStory(options.story);
        showPlace(Place::Learn);
    } else if (!options.preset.isEmpty()) {
        m_simulator->loadPreset(options.preset);
        showPlace(Place::Simulator);
        if (options.run) {
            m_simulator->setTarget(SimulatorPlace::Target::Sandbox);
            m_simulator->run();
        }
    }

    if (options.connection.profile) {
        ConnectionProfile profile = *options.connection.profile;
        profile.settings = options.connection.settings; // with --db, --timeout, --read-write applied
        connectToProfile(profile);
    } else if (options.connection.serverGiven) {
        connectTo(options.connection.settings);
    } else {
        useSandbox();
    }
}

MainWindow::~MainWindow()
{
    m_sandboxStart.waitForFinished(); // the sandbox object must outlive a start in progress
    BackgroundTask::resultsArrived();
}

void MainWindow::buildPlaces()
{
    m_places = new QStackedWidget(this);
    m_inspector = new InspectorPlace(m_session, m_places);
    m_places->addWidget(m_inspector);
    m_simulator = new SimulatorPlace(m_session, m_places);
    m_places->addWidget(m_simulator);
    m_learn = new LearnPlace(m_places);
    m_places->addWidget(m_learn);
    setCentralWidget(m_places);
    // A story's Run button: the Simulator takes over, on the sandbox, following the narrative.
    connect(m_learn, &LearnPlace::runRequested, this, [this](const QString &id, bool stepByStep) {
        showPlace(Place::Simulator);
        m_simulator->loadPreset(id);
        m_simulator->setTarget(SimulatorPlace::Target::Sandbox);
        m_simulator->setStepMode(stepByStep);
        m_simulator->run();
    });
    connect(m_learn, &LearnPlace::breakRequested, this, [this](const QString &id) {
        if (const PresetLibrary::Preset *p = PresetLibrary::find(id))
            openBreakIt(p->scenario);
    });
    connect(m_simulator, &SimulatorPlace::breakRequested, this, &MainWindow::openBreakIt);
    // Write your own lock: its contention run in the Simulator, and the search against it.
    connect(m_learn->playground(), &LockPlayground::runRequested, this, [this](const Scenario &scenario) {
        showPlace(Place::Simulator);
        m_simulator->loadScenario(scenario);
        m_simulator->setTarget(SimulatorPlace::Target::Sandbox);
        m_simulator->setStepMode(false);
        m_simulator->run();
    });
    connect(m_learn->playground(), &LockPlayground::breakRequested, this, &MainWindow::openBreakItOn);
}

void MainWindow::openBreakIt(const Scenario &scenario)
{
    // The scenario's lock, servers and resource; the workload is the explorer's own (ExploreTarget).
    ExploreTarget::Options target;
    target.scenario = scenario;
    openBreakItOn(target, scenario.title.isEmpty() ? scenario.id : scenario.title);
}

void MainWindow::openBreakItOn(const ExploreTarget::Options &target, const QString &title)
{
    if (!m_breakIt) {
        m_breakIt = new BreakItDialog(this);
        m_breakIt->resize(760, 640);
        // The shrunk failure is an ordinary story: the Simulator steps through it on the sandbox.
        const auto stepThrough = [this](const Scenario &story) {
            showPlace(Place::Simulator);
            m_simulator->loadScenario(story);
            m_simulator->setTarget(SimulatorPlace::Target::Sandbox);
            m_simulator->setStepMode(true);
            m_simulator->run();
        };
        connect(m_breakIt, &BreakItDialog::storyRequested, this, stepThrough);
        // Fork needs the recording: once the stepped run has ended, Fork from here opens on it.
        connect(m_breakIt, &BreakItDialog::forkRequested, this, [this, stepThrough](const Scenario &story) {
            stepThrough(story);
            auto *once = new QObject(this);
            connect(m_simulator, &SimulatorPlace::runningChanged, once, [this, once](bool running) {
                if (running)
                    return;
                once->deleteLater();
                m_simulator->forkFromHere();
            });
        });
    }
    if (m_breakIt->isRunning() && m_breakIt->isVisible()) {
        m_breakIt->raise(); // a search goes on: it is not replaced behind the user's back
        m_breakIt->activateWindow();
        return;
    }
    m_breakIt->setTarget(target, title);
    m_breakIt->show();
    m_breakIt->raise();
    m_breakIt->activateWindow();
}

void MainWindow::buildActions()
{
    QMenu *connection = menuBar()->addMenu(tr("&Connection"));
    QAction *connectAction
        = connection->addAction(QIcon(QStringLiteral(":/icons/connect.svg")), tr("&Connect to Server…"), this,
                                &MainWindow::openConnectionDialog);
    connectAction->setShortcut(QKeySequence::Open);
    connectAction->setToolTip(tr("Connect to a Redis server (read-only by default)"));
    // The places bar's button: "Connect to Server…" under the icon set the bar's width, 145 px of a 1024 px
    // screen; the menu keeps the whole name.
    connectAction->setIconText(tr("Connect…"));
    QAction *profilesAction
        = connection->addAction(tr("Connection &Profiles…"), this, [this] { openProfilesDialog(); });
    profilesAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
    profilesAction->setToolTip(tr("Saved connections: create, edit, test, import and export them"));
    m_profilesMenu = connection->addMenu(tr("Connect to P&rofile"));
    connect(m_profilesMenu, &QMenu::aboutToShow, this, &MainWindow::rebuildProfilesMenu);
    connection->addSeparator();
    QAction *sandboxAction = connection->addAction(tr("Use &Sandbox Server"), this, &MainWindow::useSandbox);
    sandboxAction->setToolTip(tr("A private redis-server on a loopback port, for trying things safely"));
    connection->addAction(tr("&Disconnect"), this, [this] {
        m_refreshTimer.stop();
        m_session->close(); // the last connection through an SSH tunnel stops its ssh
        m_badge->setIdle();
        setProfile(std::nullopt);
    });
    connection->addSeparator();
    QAction *quit = connection->addAction(tr("&Quit"), qApp, &QApplication::closeAllWindows);
    quit->setShortcut(QKeySequence::Quit);

    QMenu *view = menuBar()->addMenu(tr("&View"));
    auto *placesBar = new QToolBar(tr("Places"), this);
    placesBar->setObjectName(QStringLiteral("placesBar"));
    placesBar->setMovable(false);
    placesBar->setIconSize(QSize(32, 32));
    placesBar->setToolButtonStyle(Qt::ToolButtonTextUnderIcon);
    addToolBar(Qt::LeftToolBarArea, placesBar);
    m_placeActions = new QActionGroup(this);
    const struct
    {
        Place place;
        const char *icon;
        QString name;
        QString tip;
    } places[] = {
        {Place::Inspector, ":/icons/inspector.svg", tr("&Inspector"), tr("Locks on the connected server")},
        {Place::Simulator, ":/icons/simulator.svg", tr("&Simulator"),
         tr("Contention simulations with faults")},
        {Place::Learn, ":/icons/learn.svg", tr("&Learn"), tr("Guided stories: each algorithm and its flaw")},
    };
    int index = 0;
    for (const auto &p : places) {
        QAction *a = m_placeActions->addAction(QIcon(QString::fromLatin1(p.icon)), p.name);
        a->setCheckable(true);
        a->setData(int(p.place));
        a->setToolTip(p.tip);
        a->setShortcut(QKeySequence(Qt::CTRL | Qt::Key(Qt::Key_1 + index++)));
        connect(a, &QAction::triggered, this, [this, place = p.place] { showPlace(place); });
        view->addAction(a);
        placesBar->addAction(a);
    }
    placesBar->addSeparator();
    placesBar->addAction(connectAction);

    // Each place's menu, with its actions and their shortcuts (F8, Ctrl+T… were found only in Help before).
    // Choosing one from another place goes there, so that its effect is seen — unless the action went
    // somewhere itself (Learn ▸ Run It… opens the Simulator).
    const auto placeMenu = [this](const QString &title, Place place) {
        QMenu *menu = menuBar()->addMenu(title);
        connect(menu, &QMenu::aboutToShow, this,
                [this, menu] { menu->setProperty("placeBefore", m_places->currentIndex()); });
        connect(menu, &QMenu::triggered, this, [this, menu, place] {
            const QVariant before = menu->property("placeBefore");
            if (before.isValid() && m_places->currentIndex() == before.toInt()
                && m_places->currentIndex() != int(place))
                showPlace(place);
            menu->setProperty("placeBefore", QVariant());
        });
        return menu;
    };
    m_inspector->fillMenu(placeMenu(tr("&Inspector"), Place::Inspector));
    m_simulator->fillMenu(placeMenu(tr("&Simulator"), Place::Simulator));
    m_learn->fillMenu(placeMenu(tr("&Learn"), Place::Learn));

    QMenu *help = menuBar()->addMenu(tr("&Help"));
    QAction *guide = help->addAction(tr("&User Guide"), this, [this] { HelpDialog::showGuide(this); });
    guide->setShortcut(QKeySequence::HelpContents);
    help->addAction(tr("&Keyboard Shortcuts"), this, [this] { HelpDialog::showShortcuts(this); });
    help->addSeparator();
    help->addAction(tr("&About LockScope"), this, [this] { AboutDialog::show(this, m_session->info()); });
}

void MainWindow::showPlace(Place place)
{
    m_places->setCurrentIndex(int(place));
    // The keyboard goes with the eyes: Ctrl+3 then arrows walks Learn's stories (each place's focus proxy).
    m_places->currentWidget()->setFocus(Qt::ShortcutFocusReason);
    for (QAction *a : m_placeActions->actions())
        a->setChecked(a->data().toInt() == int(place));
}

MainWindow::Place MainWindow::currentPlace() const
{
    return Place(m_places->currentIndex());
}

void MainWindow::connectTo(const ConnectionSettings &settings)
{
    m_onSandbox = false;
    m_sandboxWanted = false;
    m_refreshTimer.stop();
    if (!m_profile)
        m_badge->setDecoration(ServerBadge::decorationFor(settings));
    m_session->open(settings);
}

void MainWindow::connectToProfile(const ConnectionProfile &profile)
{
    m_badge->setConnecting(tr("Connecting to %1…").arg(profile.name));
    m_credentials->resolve(profile, this, [this, profile](const std::optional<ConnectionSettings> &settings) {
        if (!settings) {
            statusBar()->showMessage(tr("Not connected to %1: no password given").arg(profile.name), 8000);
            if (m_session->isOpen())
                m_badge->setConnected(m_session->info(), m_onSandbox);
            else
                m_badge->setIdle();
            return;
        }
        m_userAskedToConnect = true;
        setProfile(profile);
        m_badge->setDecoration(
            ServerBadge::decorationFor(*settings, profile.name, profile.color, profile.production));
        connectTo(*settings);
    });
}

void MainWindow::setProfile(const std::optional<ConnectionProfile> &profile)
{
    m_profile = profile;
    // The Inspector scans this server as the profile says (COUNT, budget, patterns); without one, as usual.
    if (profile)
        m_inspector->setScanSettings(profile->scanCount, profile->scanMaxOps, profile->lockPatterns);
    else
        m_inspector->setScanSettings(ScanOptions().count, 0, {});
    // A server marked PRODUCTION: writes and simulations on it ask for its name to be typed first.
    const QString production = profile && profile->production ? profile->name : QString();
    m_inspector->setProductionName(production);
    m_simulator->setProductionName(production);
    if (!profile)
        m_badge->setDecoration({});
    updateTitle();
    emit profileChanged();
}

void MainWindow::updateTitle()
{
    if (m_profile && m_profile->production)
        setWindowTitle(tr("%1 [PRODUCTION] — LockScope").arg(m_profile->name));
    else if (m_profile)
        setWindowTitle(tr("%1 — LockScope").arg(m_profile->name));
    else
        setWindowTitle(QStringLiteral("LockScope"));
    // A stripe in the profile's colour (red for production) along the status bar, hard to miss.
    const QString stripe = !m_profile ? QString()
        : !m_profile->color.isEmpty() ? m_profile->color
        : m_profile->production       ? QStringLiteral("#b91c1c")
                                      : QString();
    statusBar()->setStyleSheet(stripe.isEmpty()
                                   ? QString()
                                   : QStringLiteral("QStatusBar { border-top: 3px solid %1; }").arg(stripe));
}

ProfilesDialog *MainWindow::openProfilesDialog()
{
    if (!m_profilesDialog) {
        m_profilesDialog = new ProfilesDialog(m_credentials, this);
        m_profilesDialog->setAttribute(Qt::WA_DeleteOnClose);
        connect(m_profilesDialog, &QObject::destroyed, this, [this] { m_profilesDialog = nullptr; });
        connect(m_profilesDialog, &ProfilesDialog::connectRequested, this, &MainWindow::connectToProfile);
        if (m_profile)
            m_profilesDialog->selectProfile(m_profile->id);
    }
    m_profilesDialog->show();
    m_profilesDialog->raise();
    m_profilesDialog->activateWindow();
    return m_profilesDialog;
}

void MainWindow::rebuildProfilesMenu()
{
    m_profilesMenu->clear();
    const QList<ConnectionProfile> profiles = m_profileStore->profiles();
    for (const ConnectionProfile &p : profiles) {
        QAction *a = m_profilesMenu->addAction(p.production ? tr("%1 (production)").arg(p.name) : p.name,
                                               this, [this, p] { connectToProfile(p); });
        a->setToolTip(p.summary());
        a->setCheckable(true);
        a->setChecked(m_profile && m_profile->id == p.id && m_session->isOpen());
    }
    if (profiles.isEmpty())
        m_profilesMenu->addAction(tr("No saved profiles"))->setEnabled(false);
    m_profilesMenu->addSeparator();
    m_profilesMenu->addAction(tr("Manage Profiles…"), this, [this] { openProfilesDialog(); });
}

void MainWindow::useSandbox()
{
    m_refreshTimer.stop();
    setProfile(std::nullopt);
    m_badge->setDecoration({});
    m_sandboxWanted = true;
    if (m_sandboxStarting)
        return; // its end connects (and the sandbox is the start task's until then)
    if (m_sandbox && m_sandbox->isRunning()) {
        m_onSandbox = true;
        m_session->open(m_sandbox->connectionSettings());
        return;
    }
    m_badge->setConnecting(tr("Starting the sandbox redis-server…"));
    SandboxServer::Options options;
    // LockScope's own server publishes keyspace notifications, so the Inspector shows changes as they happen
    // there (on a user's server that is the user's choice: the Inspector polls and offers to turn them on).
    options.configLines << QStringLiteral("notify-keyspace-events KA");
    m_sandbox = std::make_unique<SandboxServer>(options);
    // Starting waits for the server to answer PING: do it off the GUI thread.
    m_sandboxStarting = true;
    m_sandboxStart.setFuture(BackgroundTask::run([sandbox = m_sandbox.get()] { return sandbox->start(); }));
}

void MainWindow::openConnectionDialog()
{
    ConnectionDialog dialog(this);
    if (!m_onSandbox && m_session->settings().port != 0)
        dialog.setSettings(m_session->settings());
    if (dialog.exec() != QDialog::Accepted)
        return;
    m_userAskedToConnect = true;
    setProfile(std::nullopt);
    connectTo(dialog.settings());
}

void MainWindow::onOpened()
{
    m_userAskedToConnect = false;
    m_openProfile = m_profile;
    m_openOnSandbox = m_onSandbox;
    m_inspector->setSandbox(m_onSandbox);
    m_badge->setConnected(m_session->info(), m_onSandbox);
    statusBar()->showMessage(tr("Connected to %1").arg(m_session->settings().describe()), 5000);
    m_refreshTimer.start(kRefreshConnectedMs);
}

void MainWindow::onFailed(const QString &message)
{
    qCWarning(lcUi) << message;
    QString text = message;
    if (m_session->isOpen()) {
        // The connection that worked is still there: say so, and show it as it was.
        m_onSandbox = m_openOnSandbox;
        setProfile(m_openProfile);
        m_badge->setDecoration(m_profile ? ServerBadge::decorationFor(m_session->settings(), m_profile->name,
                                                                      m_profile->color, m_profile->production)
                                         : ServerBadge::decorationFor(m_session->settings()));
        m_badge->setConnected(m_session->info(), m_onSandbox);
        text = tr("%1\n\nStill connected to %2.").arg(message, m_session->settings().describe());
        statusBar()->showMessage(tr("Could not connect; still connected to %1")
                                     .arg(m_session->settings().describe()),
                                 8000);
    } else {
        m_badge->setFailed(message);
    }
    if (m_userAskedToConnect) {
        m_userAskedToConnect = false;
        auto *box
            = new QMessageBox(QMessageBox::Warning, tr("Cannot connect"), text, QMessageBox::Ok, this);
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->open(); // not exec(): the window keeps working behind it
    }
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    AppSettings settings;
    settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
    settings.setValue(QStringLiteral("window/state"), saveState());
    QMainWindow::closeEvent(event);
}
