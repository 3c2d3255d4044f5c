// "Try to break it" in the app: the faults offered follow what the lock can meet, a flawed lock is found on a
// real sandbox redis-server and its shrunk story is handed to the Simulator, a search that finds nothing says
// so without calling the lock safe, Stop ends a search, and a dialog closed while searching leaves nothing
// running behind it.
#include "explore/breakitdialog.h"

#include <QCheckBox>
#include <QLabel>
#include <QPushButton>
#include <QStandardPaths>
#include <QTest>
#include <QThreadPool>

namespace {

ExploreTarget::Options algorithm(const QString &id)
{
    ExploreTarget::Options o;
    o.algorithm = id;
    return o;
}

QPushButton *button(const BreakItDialog &dialog, const QString &text)
{
    for (QPushButton *b : dialog.findChildren<QPushButton *>()) {
        if (b->text() == text)
            return b;
    }
    return nullptr;
}

} // namespace

class TestBreakItDialog : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void offersTheFaultsTheLockCanMeet();
    void anUnknownLockCannotStart();
    void findsTheFlawAndHandsOverItsStory();
    void findingNothingIsNoProof();
    void stopEndsTheSearch();
    void closingWhileSearchingLeavesNothingRunning();
};

void TestBreakItDialog::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
}

void TestBreakItDialog::offersTheFaultsTheLockCanMeet()
{
    BreakItDialog dialog;
    dialog.setTarget(algorithm(QStringLiteral("set-nx-px-lua")), QStringLiteral("SET NX PX + Lua"));
    QStringList offered = dialog.faults();
    QVERIFY2(offered.contains(QStringLiteral("pause")) && offered.contains(QStringLiteral("crash")),
             qPrintable(offered.join(u',')));
    // This lock reads no clock: a clock jump changes nothing for it, and is not offered.
    QVERIFY(!offered.contains(QStringLiteral("clock-jump")));
    // Redlock reads clocks (its validity), so a clock jump is offered there.
    dialog.setTarget(algorithm(QStringLiteral("redlock")), QStringLiteral("Redlock"));
    QVERIFY2(dialog.faults().contains(QStringLiteral("clock-jump")), qPrintable(dialog.faults().join(u',')));
    dialog.setFaults({QStringLiteral("crash"), QStringLiteral("clock-jump")});
    QCOMPARE(dialog.faults(), (QStringList {QStringLiteral("clock-jump"), QStringLiteral("crash")}));
    // No fault chosen: nothing to start.
    dialog.setFaults({});
    QVERIFY(!button(dialog, QStringLiteral("Start"))->isEnabled());
}

void TestBreakItDialog::anUnknownLockCannotStart()
{
    BreakItDialog dialog;
    dialog.setTarget(algorithm(QStringLiteral("no-such-lock")), QStringLiteral("nothing"));
    QVERIFY(!button(dialog, QStringLiteral("Start"))->isEnabled());
    bool said = false;
    for (QLabel *l : dialog.findChildren<QLabel *>())
        said = said || (l->text().contains(QStringLiteral("cannot be explored")) && l->text().contains(QStringLiteral("no-such-lock")));
    QVERIFY(said);
    dialog.start(); // refused, not crashed
    QVERIFY(!dialog.isRunning());
}

void TestBreakItDialog::findsTheFlawAndHandsOverItsStory()
{
    BreakItDialog dialog;
    // The unconditional DEL under pauses: a holder paused past its lease deletes the next holder's lock.
    dialog.setTarget(algorithm(QStringLiteral("set-nx-px-del")), QStringLiteral("Unconditional DEL"));
    dialog.setFaults({QStringLiteral("pause")});
    dialog.setBudgetSeconds(60);
    dialog.start();
    QVERIFY(dialog.isRunning());
    QTRY_VERIFY_WITH_TIMEOUT(!dialog.isRunning(), 300000);
    QVERIFY2(dialog.found(), qPrintable(dialog.resultText()));
    const QString text = dialog.resultText();
    QVERIFY2(text.startsWith(QStringLiteral("Broken: ")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("reproduced in ")) && text.contains(QStringLiteral(" reruns")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("pause")), qPrintable(text));
    QVERIFY(dialog.story().has_value());
    QCOMPARE(dialog.story()->kind, Scenario::Kind::Story);
    QVERIFY(!dialog.story()->story.steps.isEmpty()); // its steps tell what happened, the pause among them

    QStringList handed;
    connect(&dialog, &BreakItDialog::storyRequested, this, [&](const Scenario &story) { handed << story.id; });
    QPushButton *step = button(dialog, QStringLiteral("Step through it in the Simulator"));
    QVERIFY(step && !step->isHidden());
    step->click();
    QCOMPARE(handed, QStringList {dialog.story()->id});
    QStringList forked;
    connect(&dialog, &BreakItDialog::forkRequested, this, [&](const Scenario &story) { forked << story.id; });
    QPushButton *fork = button(dialog, QStringLiteral("Fork it…"));
    QVERIFY(fork && !fork->isHidden());
    fork->click();
    QCOMPARE(forked, QStringList {dialog.story()->id});
}

void TestBreakItDialog::findingNothingIsNoProof()
{
    BreakItDialog dialog;
    // The textbook lock (owner check in Lua) under crashes: a crashed holder's lock expires; nobody else's is
    // touched. The search is short, so what it says is only what it saw. A lease of 2 s, so that a loaded
    // machine's own stalls (no fault of ours) do not outlast it.
    dialog.setTarget(algorithm(QStringLiteral("set-nx-px-lua")), QStringLiteral("SET NX PX + Lua"));
    dialog.setLeaseMs(2000);
    dialog.setFaults({QStringLiteral("crash")});
    dialog.setBudgetSeconds(12);
    dialog.start();
    QTRY_VERIFY_WITH_TIMEOUT(!dialog.isRunning(), 180000);
    const QString text = dialog.resultText();
    QVERIFY2(!dialog.found(), qPrintable(text));
    QVERIFY2(text.startsWith(QStringLiteral("No violation in ")) && text.contains(QStringLiteral("not a proof")),
             qPrintable(text));
    QVERIFY2(!text.contains(QStringLiteral("safe"), Qt::CaseInsensitive), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("covered: crash")), qPrintable(text));
    QVERIFY(!dialog.story().has_value());
    QVERIFY(button(dialog, QStringLiteral("Step through it in the Simulator"))->isHidden());
    QVERIFY(!button(dialog, QStringLiteral("Try again"))->isHidden());
}

void TestBreakItDialog::stopEndsTheSearch()
{
    BreakItDialog dialog;
    dialog.setTarget(algorithm(QStringLiteral("set-nx-px-lua")), QStringLiteral("SET NX PX + Lua"));
    dialog.setFaults({QStringLiteral("crash")});
    dialog.setBudgetSeconds(600);
    dialog.start();
    QPushButton *stop = button(dialog, QStringLiteral("Stop"));
    QVERIFY(stop->isEnabled());
    // Once it searches (its first schedules ran), Stop ends it long before its budget.
    QTRY_VERIFY_WITH_TIMEOUT(
        [&] {
            for (QLabel *l : dialog.findChildren<QLabel *>()) {
                if (l->text().startsWith(QStringLiteral("Searching")))
                    return true;
            }
            return false;
        }(),
        120000);
    stop->click();
    QTRY_VERIFY_WITH_TIMEOUT(!dialog.isRunning(), 120000);
    QVERIFY2(dialog.resultText().startsWith(QStringLiteral("Stopped: no violation in ")), qPrintable(dialog.resultText()));
}

void TestBreakItDialog::closingWhileSearchingLeavesNothingRunning()
{
    auto *dialog = new BreakItDialog;
    dialog->setTarget(algorithm(QStringLiteral("set-nx-px-lua")), QStringLiteral("SET NX PX + Lua"));
    dialog->setFaults({QStringLiteral("crash")});
    dialog->setBudgetSeconds(600);
    dialog->start();
    QVERIFY(dialog->isRunning());
    delete dialog;
    // The search ends on its own at its next schedule; the pool is then empty.
    QVERIFY(QThreadPool::globalInstance()->waitForDone(120000));
}

QTEST_MAIN(TestBreakItDialog)
#include "tst_breakitdialog.moc"
