// MainWindow offscreen: the embedded sandbox default, the badge, places, and clear failures.
#include "common/appsettings.h"
#include "common/elidingcombobox.h"
#include "common/helpdialog.h"
#include "connection/serverbadge.h"
#include "keychainfixture.h"
#include "learn/learnplace.h"
#include "mainwindow.h"
#include "redis/redissession.h"
#include "sandboxfixture.h"
#include "simulator/scenarioeditor.h"
#include "simulator/simulationcontroller.h"
#include "simulator/simulatorplace.h"
#include "testsupport.h"
#include "timeline/timelinepanel.h"
#include "timeline/timelineview.h"

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QFileInfo>
#include <QLabel>
#include <QListWidget>
#include <QMenu>
#include <QMenuBar>
#include <QMouseEvent>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QSplitter>
#include <QStackedWidget>
#include <QStandardPaths>
#include <QTabWidget>

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
    void simulatorTimelineShowsEveryLaneAt1024By700();
    void scenarioEditorFitsItsDefaultWidth();
    void eachPlaceHasItsMenu();
    void aThreeWorkerStorySteppedFitsAt1024By700();

private:
    // `window` shown at 1024 × 700 on the Simulator (nullptr when it was not exposed).
    static SimulatorPlace *simulatorAt1024By700(MainWindow &window)
    {
        window.resize(1024, 700);
        window.show();
        if (!QTest::qWaitForWindowExposed(&window))
            return nullptr;
        window.showPlace(MainWindow::Place::Simulator);
        return window.simulatorPlace();
    }
    // The story lane, the lock's and `workers` workers' lanes are in `view` without scrolling: the first that
    // is not, and where it ends, or empty.
    static QString laneOutOfView(TimelineView *view, int workers);
};

QString TestMainWindow::laneOutOfView(TimelineView *view, int workers)
{
    const TimelineRenderer &r = view->renderer();
    const int room = view->viewport()->height() - TimelineRenderer::kRulerHeight;
    using LaneType = TimelineRenderer::LaneType;
    QList<std::tuple<LaneType, int, QString>> lanes {{LaneType::Story, 0, QStringLiteral("story")},
                                                     {LaneType::Lock, 0, QStringLiteral("lock")}};
    for (int w = 0; w < workers; ++w)
        lanes.append({LaneType::Worker, w, QString(QChar(u'A' + w))});
    for (const auto &[type, index, name] : lanes) {
        const int lane = r.laneOf(type, index);
        if (lane < 0)
            return QStringLiteral("no %1 lane").arg(name);
        const TimelineRenderer::Lane &l = r.lanes().at(lane);
        if (l.y + l.height > room)
            return QStringLiteral("%1's lane ends at %2 of %3 px").arg(name).arg(l.y + l.height).arg(room);
    }
    return {};
}

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
    options.connection.settings.port = LoopbackPorts::freePort();
    MainWindow window(options);
    QTRY_COMPARE_WITH_TIMEOUT(window.serverBadge()->state(), ServerBadge::State::Failed, 20000);
    QVERIFY2(window.serverBadge()->text().contains(QLatin1String("Connection refused")),
             qPrintable(window.serverBadge()->text()));
    QVERIFY(window.serverBadge()->text().contains(QString::number(options.connection.settings.port)));
}

void TestMainWindow::wrongPasswordShowsWhy()
{
    SandboxServer server(SandboxFixture::withPassword(QStringLiteral("good")));
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
    options.connection.settings.port = LoopbackPorts::freePort();
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
    options.connection.settings.port = LoopbackPorts::freePort();
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
    options.connection.settings.port = LoopbackPorts::freePort();
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

// gc-pause run at 1024 × 700 with the default layout: the story, the lock and both workers' lanes are in the
// timeline without scrolling. Once the user moves the splitter, the next window has their split; until then
// nothing is saved (a default split saved at one window size was restored at another).
void TestMainWindow::simulatorTimelineShowsEveryLaneAt1024By700()
{
    AppSettings().remove(QStringLiteral("simulator"));
    QList<int> moved;
    {
        MainWindow window(AppOptions {});
        SimulatorPlace *sim = simulatorAt1024By700(window);
        QVERIFY(sim);
        QVERIFY(sim->loadPreset(QStringLiteral("gc-pause")));
        QVERIFY(sim->run());
        QTRY_VERIFY_WITH_TIMEOUT(!sim->controller()->isRunning(), 120000);
        sim->showRun(0);
        QCoreApplication::processEvents();
        QCOMPARE(window.size(), QSize(1024, 700));
        TimelineView *view = sim->timelinePanel()->view();
        const QString hidden = laneOutOfView(view, 2);
        QVERIFY2(hidden.isEmpty(), qPrintable(hidden));
        QCOMPARE(view->verticalScrollBar()->maximum(), 0);

        // Nobody moved the splitter: nothing to remember.
        auto *split = sim->findChild<QSplitter *>(QStringLiteral("simulatorVSplit"));
        QVERIFY(split);
        sim->hide();
        QVERIFY(!AppSettings().contains(QStringLiteral("simulator/vsplit")));
        sim->show();
        // The user drags the handle 60 px up (the tabs below are at their least height already).
        const QList<int> before = split->sizes();
        QSplitterHandle *handle = split->handle(1);
        const QPoint at(handle->width() / 2, handle->height() / 2);
        const auto send = [&](QEvent::Type type, const QPoint &pos, Qt::MouseButtons buttons) {
            QMouseEvent e(type, pos, handle->mapToGlobal(pos), Qt::LeftButton, buttons, Qt::NoModifier);
            QApplication::sendEvent(handle, &e);
        };
        send(QEvent::MouseButtonPress, at, Qt::LeftButton);
        send(QEvent::MouseMove, at - QPoint(0, 30), Qt::LeftButton);
        send(QEvent::MouseMove, at - QPoint(0, 60), Qt::LeftButton);
        send(QEvent::MouseButtonRelease, at - QPoint(0, 60), Qt::NoButton);
        moved = split->sizes();
        QVERIFY2(moved.value(0) < before.value(0),
                 qPrintable(QStringLiteral("%1 → %2").arg(before.value(0)).arg(moved.value(0))));
    }
    QVERIFY(AppSettings().contains(QStringLiteral("simulator/vsplit")));
    // A new window has the user's split: the timeline 60 px shorter than a window with no saved split has
    // it (give or take the scaling to a splitter a little taller without a run's tabs and banner).
    const auto timelineHeight = [] {
        MainWindow window(AppOptions {});
        window.resize(1024, 700);
        window.show();
        if (!QTest::qWaitForWindowExposed(&window))
            return -1;
        window.showPlace(MainWindow::Place::Simulator);
        QCoreApplication::processEvents();
        return window.simulatorPlace()
            ->findChild<QSplitter *>(QStringLiteral("simulatorVSplit"))
            ->sizes()
            .value(0);
    };
    const int restored = timelineHeight();
    AppSettings().remove(QStringLiteral("simulator"));
    const int defaulted = timelineHeight();
    QVERIFY2(restored > 0 && restored < defaulted - 40,
             qPrintable(QStringLiteral("moved to %1, restored %2, default %3")
                            .arg(moved.value(0))
                            .arg(restored)
                            .arg(defaulted)));
    AppSettings().remove(QStringLiteral("simulator"));
}

// The scenario editor at its default width, in a 1024 × 700 and a 1600 × 1000 window, for a story, a
// workload and Redlock: its form is no wider than the room it has (no text runs off its right edge, where
// there is no horizontal scroll bar), combo boxes show or elide their choice with the whole in the tooltip,
// and check boxes' texts wrap.
void TestMainWindow::scenarioEditorFitsItsDefaultWidth()
{
    AppSettings().remove(QStringLiteral("simulator"));
    MainWindow window(AppOptions {});
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    window.showPlace(MainWindow::Place::Simulator);
    SimulatorPlace *sim = window.simulatorPlace();
    sim->showEditor(true);
    ScenarioEditor *editor = sim->editor();
    auto *scroll = qobject_cast<QScrollArea *>(editor->parentWidget()->parentWidget());
    QVERIFY(scroll);
    for (const QSize size : {QSize(1024, 700), QSize(1600, 1000)}) {
        window.resize(size);
        for (const char *preset : {"gc-pause", "fair-vs-unfair", "redlock-split-vote", "cluster-locks"}) {
            QVERIFY(sim->loadPreset(QLatin1String(preset)));
            QCoreApplication::processEvents();
            const QString where
                = QStringLiteral("%1×%2, %3").arg(size.width()).arg(size.height()).arg(QLatin1String(preset));
            QVERIFY2(scroll->isVisible(), qPrintable(where));
            QVERIFY2(!scroll->horizontalScrollBar()->isVisible(), qPrintable(where));
            const int room = scroll->viewport()->width();
            QVERIFY2(editor->width() <= room,
                     qPrintable(QStringLiteral("%1: the form is %2 px wide in %3")
                                    .arg(where)
                                    .arg(editor->width())
                                    .arg(room)));
            for (QWidget *field : editor->findChildren<QWidget *>()) {
                if (!field->isVisibleTo(editor) || field->width() <= 0)
                    continue;
                const int right = field->mapTo(editor, QPoint(field->width(), 0)).x();
                QVERIFY2(right <= room,
                         qPrintable(QStringLiteral("%1: %2 '%3' ends at %4 of %5")
                                        .arg(where, QLatin1String(field->metaObject()->className()),
                                             field->objectName())
                                        .arg(right)
                                        .arg(room)));
                if (auto *label = qobject_cast<QLabel *>(field); label && !label->wordWrap()
                    && !label->text().isEmpty() && label->textFormat() != Qt::RichText) {
                    QVERIFY2(label->fontMetrics().horizontalAdvance(label->text())
                                 <= label->contentsRect().width(),
                             qPrintable(QStringLiteral("%1: '%2' is cut").arg(where, label->text())));
                }
                if (auto *check = qobject_cast<QCheckBox *>(field); check && !check->text().isEmpty()) {
                    QVERIFY2(check->minimumSizeHint().width() <= check->width(),
                             qPrintable(QStringLiteral("%1: '%2' is cut").arg(where, check->text())));
                }
                if (auto *combo = qobject_cast<ElidingComboBox *>(field)) {
                    const QString shown = combo->shownText();
                    QVERIFY2(shown == combo->currentText() || combo->toolTip() == combo->currentText(),
                             qPrintable(QStringLiteral("%1: '%2' shown as '%3'")
                                            .arg(where, combo->currentText(), shown)));
                }
            }
        }
    }
    AppSettings().remove(QStringLiteral("simulator"));
}

// Learn and the Simulator had no menu: F8 was found only through Help ▸ Keyboard Shortcuts.
void TestMainWindow::eachPlaceHasItsMenu()
{
    AppOptions options;
    options.connection.serverGiven = true;
    options.connection.settings.port = LoopbackPorts::freePort();
    MainWindow window(options);
    QHash<QString, QMenu *> menus;
    for (QAction *a : window.menuBar()->actions()) {
        if (a->menu())
            menus.insert(a->text().remove(u'&'), a->menu());
    }
    for (const char *place : {"Inspector", "Simulator", "Learn"})
        QVERIFY2(menus.contains(QLatin1String(place)), place);
    // An action's text and key in one menu, as the menu shows it.
    const auto find = [&](const QString &menu, const QString &text) -> QAction * {
        const QList<QAction *> actions = menus.value(menu)->actions();
        for (QAction *a : actions) {
            if (a->text().remove(u'&') == text)
                return a;
        }
        return nullptr;
    };
    QAction *next = find(QStringLiteral("Simulator"), QStringLiteral("Next step"));
    QVERIFY(next);
    QCOMPARE(next->shortcut(), QKeySequence(Qt::Key_F8));
    QVERIFY(find(QStringLiteral("Simulator"), QStringLiteral("Step by step")));
    QVERIFY(find(QStringLiteral("Simulator"), QStringLiteral("Run")));
    QAction *stepped = find(QStringLiteral("Learn"), QStringLiteral("Run It Step by Step"));
    QVERIFY(stepped);
    QCOMPARE(stepped->shortcut(), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Return));
    QVERIFY(find(QStringLiteral("Inspector"), QStringLiteral("Rescan")));
    // Learn ▸ Run It Step by Step runs the story in the Simulator, stepping, and the window goes there.
    window.showPlace(MainWindow::Place::Learn);
    QVERIFY(window.learnPlace()->showStory(QStringLiteral("seed-setnx-expire-crash")));
    emit menus.value(QStringLiteral("Learn"))->aboutToShow();
    stepped->trigger();
    emit menus.value(QStringLiteral("Learn"))->triggered(stepped);
    QCOMPARE(window.currentPlace(), MainWindow::Place::Simulator);
    QCOMPARE(window.simulatorPlace()->steppingAt(), 1);
    window.simulatorPlace()->stop();
    QTRY_VERIFY_WITH_TIMEOUT(!window.simulatorPlace()->controller()->isRunning(), 60000);
}

// A story of three workers, stepped, at 1024 × 700: the story, the lock and all three workers' lanes are in
// view without scrolling (C was hidden below), and the tabs under the cards keep their room.
void TestMainWindow::aThreeWorkerStorySteppedFitsAt1024By700()
{
    AppSettings().remove(QStringLiteral("simulator"));
    MainWindow window(AppOptions {});
    SimulatorPlace *sim = simulatorAt1024By700(window);
    QVERIFY(sim);
    QVERIFY(sim->loadPreset(QStringLiteral("seed-unconditional-del")));
    sim->setStepMode(true);
    QVERIFY(sim->run());
    QTRY_VERIFY_WITH_TIMEOUT(!sim->controller()->isRunning(), 120000);
    for (int step = 1; step <= 3; ++step) {
        QCoreApplication::processEvents();
        const QString hidden = laneOutOfView(sim->timelinePanel()->view(), 3);
        QVERIFY2(hidden.isEmpty(), qPrintable(QStringLiteral("step %1: %2").arg(step).arg(hidden)));
        auto *tabs = sim->findChild<QTabWidget *>(QStringLiteral("simulatorTabs"));
        QVERIFY(tabs && tabs->currentWidget()->height() >= 80);
        sim->nextStep();
    }
}

QTEST_MAIN(TestMainWindow)
#include "tst_mainwindow.moc"
