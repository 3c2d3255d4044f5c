// MainWindow offscreen: the embedded sandbox default, the badge, places, and clear failures.
#include "helpdialog.h"
#include "keychainfixture.h"
#include "mainwindow.h"
#include "redis/redissession.h"
#include "serverbadge.h"
#include "testsupport.h"

#include <QAction>
#include <QApplication>
#include <QFileInfo>
#include <QListWidget>
#include <QSettings>
#include <QStackedWidget>
#include <QStandardPaths>

class TestMainWindow : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void startsOnASandboxByDefault();
    void connectsReadOnlyToAGivenServer();
    void refusedServerShowsWhy();
    void wrongPasswordShowsWhy();
    void showsALostServerAndRecovers();
    void switchesPlaces();
    void settingsFileIsOwnerOnly();
    void learnShortcutFocusesTheStoryList();
    void helpHasTheGuideAndTheShortcuts();
    void fitsA1024By700Screen();
};

void TestMainWindow::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    KeychainFixture::disableKeychainForThisProcess(); // never the user's own keychain
}

void TestMainWindow::startsOnASandboxByDefault()
{
    MainWindow window(AppOptions {});
    window.show();
    QTRY_COMPARE_WITH_TIMEOUT(window.serverBadge()->state(), ServerBadge::State::Connected, 20000);
    QVERIFY(window.isOnSandbox());
    QVERIFY(window.sandbox() && window.sandbox()->isRunning());
    QCOMPARE(window.serverBadge()->modeText(), QStringLiteral("SANDBOX"));
    QVERIFY2(window.serverBadge()->text().contains(QLatin1String("Redis ")),
             qPrintable(window.serverBadge()->text()));
    QVERIFY(window.serverBadge()->text().contains(QLatin1String("standalone")));
    QVERIFY(window.serverBadge()->text().contains(QStringLiteral(":%1").arg(window.sandbox()->port())));
}

void TestMainWindow::connectsReadOnlyToAGivenServer()
{
    SandboxServer server;
    LS_START(server);
    AppOptions options;
    options.connection.serverGiven = true;
    options.connection.settings.port = server.port(); // readOnly stays at its default: true
    MainWindow window(options);
    QTRY_COMPARE_WITH_TIMEOUT(window.serverBadge()->state(), ServerBadge::State::Connected, 20000);
    QVERIFY(!window.isOnSandbox());
    QVERIFY(!window.sandbox());
    QCOMPARE(window.serverBadge()->modeText(), QStringLiteral("READ-ONLY"));
    QVERIFY(window.session()->info().readOnly);
}

void TestMainWindow::refusedServerShowsWhy()
{
    AppOptions options;
    options.connection.serverGiven = true;
    options.connection.settings.port = SandboxServer::freePort();
    MainWindow window(options);
    QTRY_COMPARE_WITH_TIMEOUT(window.serverBadge()->state(), ServerBadge::State::Failed, 20000);
    QVERIFY2(window.serverBadge()->text().contains(QLatin1String("Connection refused")),
             qPrintable(window.serverBadge()->text()));
    QVERIFY(window.serverBadge()->text().contains(QString::number(options.connection.settings.port)));
}

void TestMainWindow::wrongPasswordShowsWhy()
{
    SandboxServer::Options so;
    so.configLines << QStringLiteral("requirepass good");
    SandboxServer server(so);
    LS_START(server);
    AppOptions options;
    options.connection.serverGiven = true;
    options.connection.settings.port = server.port();
    options.connection.settings.password = QStringLiteral("bad");
    MainWindow window(options);
    QTRY_COMPARE_WITH_TIMEOUT(window.serverBadge()->state(), ServerBadge::State::Failed, 20000);
    QVERIFY2(window.serverBadge()->text().contains(QLatin1String("Authentication failed")),
             qPrintable(window.serverBadge()->text()));
}

void TestMainWindow::showsALostServerAndRecovers()
{
    SandboxServer server;
    LS_START(server);
    AppOptions options;
    options.connection.serverGiven = true;
    options.connection.settings.port = server.port();
    MainWindow window(options);
    QTRY_COMPARE_WITH_TIMEOUT(window.serverBadge()->state(), ServerBadge::State::Connected, 20000);
    server.kill();
    window.session()->refreshInfo(); // what the periodic refresh does
    QTRY_COMPARE_WITH_TIMEOUT(window.serverBadge()->state(), ServerBadge::State::Lost, 20000);
    QVERIFY(window.serverBadge()->text().contains(QLatin1String("Connection lost")));
    LS_START(server);
    // The window retries on its own timer while the server is away.
    QTRY_COMPARE_WITH_TIMEOUT(window.serverBadge()->state(), ServerBadge::State::Connected, 20000);
}

void TestMainWindow::switchesPlaces()
{
    AppOptions options;
    options.connection.serverGiven = true;
    options.connection.settings.port = SandboxServer::freePort();
    MainWindow window(options);
    auto *stack = window.findChild<QStackedWidget *>();
    QVERIFY(stack);
    QCOMPARE(stack->count(), 3);
    window.showPlace(MainWindow::Place::Learn);
    QCOMPARE(stack->currentIndex(), 2);
    window.showPlace(MainWindow::Place::Simulator);
    QCOMPARE(stack->currentIndex(), 1);
    int checked = 0;
    for (QAction *a : window.findChildren<QAction *>())
        checked += a->isCheckable() && a->isChecked() && a->data().toInt() == 1;
    QCOMPARE(checked, 1);
}

void TestMainWindow::learnShortcutFocusesTheStoryList()
{
    AppOptions options;
    options.connection.serverGiven = true;
    options.connection.settings.port = SandboxServer::freePort();
    MainWindow window(options);
    window.show();
    window.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&window));
    window.showPlace(MainWindow::Place::Learn);
    QTRY_VERIFY(QApplication::focusWidget());
    // Arrows then walk the stories.
    QVERIFY2(qobject_cast<QListWidget *>(QApplication::focusWidget()),
             QApplication::focusWidget()->metaObject()->className());
}

void TestMainWindow::helpHasTheGuideAndTheShortcuts()
{
    AppOptions options;
    options.connection.serverGiven = true;
    options.connection.settings.port = SandboxServer::freePort();
    MainWindow window(options);
    // The guide is the README, bundled: its sections are there, its pictures are not.
    const QString guide = HelpDialog::guideMarkdown();
    QVERIFY(guide.contains(QLatin1String("## In the app: Simulator and Learn")));
    QVERIFY(guide.contains(QLatin1String("Step by step")));
    QVERIFY(!guide.contains(QLatin1String("](docs/screenshot")));
    // The shortcuts are read from the window's own actions.
    const QStringList lines = HelpDialog::shortcutLines(&window);
    const auto has = [&](const QString &text) {
        return std::any_of(lines.begin(), lines.end(), [&](const QString &l) { return l.contains(text); });
    };
    QVERIFY2(has(QStringLiteral("F8 — Simulator: Next step")), qPrintable(lines.join(u'\n')));
    QVERIFY2(has(QStringLiteral("Shift+F8 — Simulator: Previous step")), qPrintable(lines.join(u'\n')));
    // No key does two things in one place (two actions on one key: Qt runs neither).
    QHash<QString, QString> placeOfKey;
    for (const QString &line : lines) {
        const QString key = line.section(QStringLiteral(" — "), 0, 0);
        const QString rest = line.section(QStringLiteral(" — "), 1);
        const QString place = rest.contains(QStringLiteral(": ")) ? rest.section(QStringLiteral(": "), 0, 0)
                                                                   : QStringLiteral("window");
        for (const QString &k : key.split(QStringLiteral(", "))) {
            const QString other = placeOfKey.value(k);
            QVERIFY2(other.isEmpty() || (other != place && other != QLatin1String("window")
                                         && place != QLatin1String("window")),
                     qPrintable(QStringLiteral("%1 is bound twice (%2, %3)").arg(k, other, place)));
            placeOfKey.insert(k, place);
        }
    }
    QVERIFY2(has(QStringLiteral("Ctrl+3 — Learn")), qPrintable(lines.join(u'\n')));
    QVERIFY2(has(QStringLiteral("User Guide")), qPrintable(lines.join(u'\n')));
    bool inMenu = false;
    for (QAction *a : window.findChildren<QAction *>())
        inMenu = inMenu || QString(a->text()).remove(u'&') == QLatin1String("Keyboard Shortcuts");
    QVERIFY(inMenu);
}

void TestMainWindow::settingsFileIsOwnerOnly()
{
    {
        MainWindow window(AppOptions {});
        window.close(); // saves the window layout
    }
    const QFileInfo settings(QSettings().fileName());
    QVERIFY2(settings.exists(), qPrintable(settings.filePath()));
    QCOMPARE(settings.permissions()
                 & (QFile::ReadGroup | QFile::ReadOther | QFile::WriteGroup | QFile::WriteOther),
             QFile::Permissions());
}

// A laptop's 1024×700: the window must be able to shrink to it from the start, whatever place is shown
// (the Simulator's legend, laid out for a width it did not have yet, once made it 744 px tall).
void TestMainWindow::fitsA1024By700Screen()
{
    MainWindow window(AppOptions {});
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    for (const MainWindow::Place place :
         {MainWindow::Place::Inspector, MainWindow::Place::Simulator, MainWindow::Place::Learn,
          MainWindow::Place::Inspector}) {
        window.showPlace(place);
        QCoreApplication::processEvents();
        const QSize minimum = window.minimumSizeHint().expandedTo(window.minimumSize());
        QVERIFY2(minimum.width() <= 1024 && minimum.height() <= 700,
                 qPrintable(QStringLiteral("place %1 needs %2×%3")
                                .arg(int(place))
                                .arg(minimum.width())
                                .arg(minimum.height())));
        window.resize(1024, 700);
        QCoreApplication::processEvents();
        QCOMPARE(window.size(), QSize(1024, 700));
    }
}

QTEST_MAIN(TestMainWindow)
#include "tst_mainwindow.moc"
