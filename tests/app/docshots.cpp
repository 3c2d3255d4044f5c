// docshots: the README's screenshots, made by the real app on its own sandbox so anyone can make them again
// (scripts/screenshots). Each place — Inspector with the sample locks, the Simulator's scenario editor,
// Simulator after a gc-pause run, story 1 stepped, the library-by-library comparison, Learn on a story, and
// Fork from here on gc-pause, Write your own lock, Try to break it (the dialog after it broke Unconditional DEL)
// and the story it found, stepped — at 1024×700 and 1600×1000, as docs/shots/<place>-<size>.png. A second
// argument (comma-separated places) makes only those.
// Not a test: it asserts nothing; a person looks at the pictures.
#include "simulator/forkdialog.h"
#include "simulator/forkpanel.h"
#include "inspector/inspectorplace.h"
#include "explore/breakitdialog.h"
#include "learn/learnplace.h"
#include "learn/lockplayground.h"
#include "mainwindow.h"
#include "simulator/simulationcontroller.h"
#include "simulator/simulatorplace.h"
#include "sim/presetlibrary.h"

#include "inspect/samplelocks.h"
#include "redis/redisconnection.h"
#include "redis/sandboxserver.h"

#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QPushButton>
#include <QSplitter>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableView>
#include <QTest>

#include <cstdio>
#include <functional>

namespace {

bool waitFor(const std::function<bool()> &done, int timeoutMs)
{
    QElapsedTimer t;
    t.start();
    while (!done() && t.elapsed() < timeoutMs)
        QTest::qWait(50);
    return done();
}

// The window as it is, saved as docs/shots/<place>-<size>.png.
void shootAt(MainWindow &window, const QString &dir, const QString &place, const QSize &size)
{
    QTest::qWait(400); // layouts settle, timers repaint
    const QString path
        = QStringLiteral("%1/%2-%3x%4.png").arg(dir, place).arg(size.width()).arg(size.height());
    if (!window.grab().save(path))
        std::fprintf(stderr, "cannot write %s\n", qPrintable(path));
    else
        std::printf("%s\n", qPrintable(path));
}

void shoot(MainWindow &window, const QString &dir, const QString &place)
{
    for (const QSize size : {QSize(1024, 700), QSize(1600, 1000)}) {
        window.resize(size);
        shootAt(window, dir, place, size);
    }
}

} // namespace

int main(int argc, char *argv[])
{
    QApplication app(argc, argv);
    QStandardPaths::setTestModeEnabled(true); // the user's own settings and profiles stay out of it
    const QString dir = argc > 1 ? QString::fromLocal8Bit(argv[1]) : QStringLiteral("docs/shots");
    QDir().mkpath(dir);
    const QStringList only = argc > 2 ? QString::fromLocal8Bit(argv[2]).split(u',') : QStringList();
    const auto wanted = [&](const char *place) { return only.isEmpty() || only.contains(QLatin1String(place)); };

    MainWindow window(AppOptions {});
    window.resize(1600, 1000);
    window.show();
    if (!waitFor([&] { return window.isOnSandbox() && window.sandbox() && window.sandbox()->isRunning(); },
                 30000)) {
        std::fprintf(stderr, "the sandbox did not start\n");
        return 1;
    }

    // Inspector: the sample locks, as "Add Sample Locks" writes them.
    if (wanted("inspector")) {
        {
            RedisConnection c(window.sandbox()->connectionSettings());
            if (c.open() || !SampleLocks::writeDemoSet(c)) {
                std::fprintf(stderr, "cannot write the sample locks\n");
                return 1;
            }
        }
        window.showPlace(MainWindow::Place::Inspector);
        QTest::qWait(500);
        window.inspector()->rescan();
        waitFor([&] { return !window.inspector()->isScanning(); }, 30000);
        window.inspector()->view()->selectRow(0);
        shoot(window, dir, QStringLiteral("inspector"));
    }

    // Simulator: the scenario editor on gc-pause, then gc-pause run straight through (its two variants),
    // the unfenced one shown.
    SimulatorPlace *sim = window.simulatorPlace();
    // Write your own lock, on the mistake most students make, and Try to break it on Unconditional DEL: the
    // dialog once it found the flaw, then the story it wrote, stepped in the Simulator.
    if (wanted("write-your-own-lock")) {
        window.showPlace(MainWindow::Place::Learn);
        window.learnPlace()->showPlayground();
        window.learnPlace()->playground()->loadStartingPoint(QStringLiteral("plain-del"));
        window.learnPlace()->playground()->showScript(QStringLiteral("release"));
        shoot(window, dir, QStringLiteral("write-your-own-lock"));
    }
    if (wanted("break-it")) {
        window.showPlace(MainWindow::Place::Learn);
        window.learnPlace()->showStory(QStringLiteral("seed-unconditional-del"));
        window.openBreakIt(PresetLibrary::find(QStringLiteral("seed-unconditional-del"))->scenario);
        BreakItDialog *dialog = window.breakItDialog();
        dialog->setFaults({QStringLiteral("pause")});
        dialog->start();
        waitFor([&] { return !dialog->isRunning(); }, 300000);
        for (const QSize size : {QSize(1024, 700), QSize(1600, 1000)}) {
            window.resize(size);
            // The dialog as it opens on that screen: its own size, or the screen's less a margin.
            dialog->resize(std::min(size.width() - 60, 900), std::min(size.height() - 40, 760));
            QTest::qWait(400);
            const QString path = QStringLiteral("%1/break-it-%2x%3.png").arg(dir).arg(size.width()).arg(size.height());
            if (!dialog->grab().save(path))
                std::fprintf(stderr, "cannot write %s\n", qPrintable(path));
            else
                std::printf("%s\n", qPrintable(path));
        }
        if (dialog->story()) {
            for (QPushButton *b : dialog->findChildren<QPushButton *>()) {
                if (b->text() == QLatin1String("Step through it in the Simulator"))
                    b->click(); // as a person does
            }
            dialog->hide();
            waitFor([&] { return !sim->controller()->isRunning(); }, 120000);
            sim->nextStep();
            sim->nextStep();
            shoot(window, dir, QStringLiteral("break-it-story"));
            sim->leaveStepping();
            sim->setStepMode(false);
        } else {
            std::fprintf(stderr, "the search found nothing to step through\n");
            return 1;
        }
    }
    if (!wanted("editor") && !wanted("simulator") && !wanted("story1-stepped") && !wanted("comparison")
        && !wanted("learn") && !wanted("fork"))
        return 0;
    window.showPlace(MainWindow::Place::Simulator);
    sim->loadPreset(QStringLiteral("gc-pause"));
    sim->showEditor(true);
    shoot(window, dir, QStringLiteral("editor"));
    sim->run();
    waitFor([&] { return !sim->controller()->isRunning(); }, 120000);
    sim->showRun(0);
    shoot(window, dir, QStringLiteral("simulator"));

    // Story 1 stepped, at its step 2: A's SETNX took the key, A crashed, the key has no TTL.
    sim->loadPreset(QStringLiteral("seed-setnx-expire-crash"));
    sim->setStepMode(true);
    sim->run();
    waitFor([&] { return !sim->controller()->isRunning(); }, 120000);
    sim->nextStep();
    shoot(window, dir, QStringLiteral("story1-stepped"));
    sim->leaveStepping();
    sim->setStepMode(false);

    // The library-by-library comparison: gc-pause with real libraries, the Report tab's table.
    sim->loadPreset(QStringLiteral("gc-pause-libraries"));
    sim->run();
    waitFor([&] { return !sim->controller()->isRunning(); }, 600000);
    sim->showRun(0);
    if (auto *tabs = sim->findChild<QTabWidget *>(QStringLiteral("simulatorTabs"))) {
        for (int i = 0; i < tabs->count(); ++i) {
            if (tabs->tabText(i) == QLatin1String("Report"))
                tabs->setCurrentIndex(i);
        }
    }
    // As a reader would: the splitter moved up, so that the table has the room (the timeline keeps its
    // lanes).
    auto *split = sim->findChild<QSplitter *>(QStringLiteral("simulatorVSplit"));
    const QByteArray splitBefore = split ? split->saveState() : QByteArray();
    for (const QSize size : {QSize(1024, 700), QSize(1600, 1000)}) {
        window.resize(size);
        QTest::qWait(400);
        if (split) {
            const int total = split->sizes().value(0) + split->sizes().value(1);
            split->setSizes({total * 2 / 5, total - total * 2 / 5});
        }
        shootAt(window, dir, QStringLiteral("comparison"), size);
    }
    if (split)
        split->restoreState(splitBefore);

    // Learn.
    window.showPlace(MainWindow::Place::Learn);
    window.learnPlace()->showStory(QStringLiteral("seed-unconditional-del"));
    shoot(window, dir, QStringLiteral("learn"));

    // Fork from here: gc-pause stepped to step 4, forked with fencing on.
    window.showPlace(MainWindow::Place::Simulator);
    sim->loadPreset(QStringLiteral("gc-pause"));
    sim->setStepMode(true);
    sim->run();
    waitFor([&] { return !sim->controller()->isRunning(); }, 120000);
    sim->showRun(0);
    while (sim->steppingAt() > 0 && sim->steppingAt() < 4)
        sim->nextStep();
    if (ForkDialog *d = sim->forkFromHere()) {
        StoryFork::Choice fencing;
        fencing.change = StoryFork::Change::Fencing;
        fencing.fencing = true;
        d->setChoice(fencing);
        d->accept();
        waitFor([&] { return sim->forkPanel()->hasFork() && !sim->forkPanel()->isRunning(); }, 120000);
        shoot(window, dir, QStringLiteral("fork"));
    } else {
        std::fprintf(stderr, "nothing to fork\n");
        return 1;
    }
    return 0;
}
