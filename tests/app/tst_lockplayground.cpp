// "Write your own lock" in Learn: the shipped starting points load, Redis's syntax error is underlined at its
// line, a script that never ends is stopped and reported, a lock saved as a folder is what `explore --lua`
// reads, and — as in class — a lock that releases with a plain DEL is broken by the search while the textbook
// lock under crashes gives "no violation in N schedules". Real sandbox redis-servers throughout.
#include "explore/breakitdialog.h"
#include "learn/learnplace.h"
#include "learn/lockplayground.h"

#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

namespace {

QPushButton *button(const QWidget &w, const QString &text)
{
    for (QPushButton *b : w.findChildren<QPushButton *>()) {
        if (b->text() == text)
            return b;
    }
    return nullptr;
}

// Runs the page's check and waits for its end.
CustomLockScripts::Problem checked(LockPlayground &page)
{
    page.check();
    if (!QTest::qWaitFor([&] { return !page.isChecking(); }, 60000))
        return {QString(), 0, QStringLiteral("the check did not end within 60 s")};
    QCoreApplication::processEvents(); // the finished handler
    return page.lastProblem();
}

} // namespace

class TestLockPlayground : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void learnOffersThePage();
    void everyStartingPointLoadsAndRuns();
    void aSyntaxErrorIsUnderlinedAtItsLine();
    void anEndlessScriptIsStoppedAndReported();
    void aSavedLockIsWhatTheCliReads();
    void runAndBreakHandOverThisLock();
    void aPlainDelIsBrokenAndTheTextbookLockIsNotUnderCrashes();
    void theSeedStoriesRunAgainstIt();
};

void TestLockPlayground::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
}

void TestLockPlayground::learnOffersThePage()
{
    LearnPlace learn;
    QVERIFY(!learn.isShowingPlayground());
    const QStringList stories = learn.storyIds();
    QVERIFY(!stories.isEmpty());
    learn.showPlayground();
    QVERIFY(learn.isShowingPlayground());
    // The page is not a story: stepping through the stories never lands on it.
    QVERIFY(!stories.join(u',').contains(u'@'));
    QVERIFY(learn.showStory(stories.first()));
    QVERIFY(!learn.isShowingPlayground());
}

void TestLockPlayground::everyStartingPointLoadsAndRuns()
{
    LockPlayground page;
    const QStringList points = LockPlayground::startingPoints();
    QVERIFY(points.contains(QStringLiteral("textbook")) && points.size() >= 3);
    for (const QString &name : points) {
        QVERIFY2(page.loadStartingPoint(name), qPrintable(name));
        QVERIFY2(page.script(QStringLiteral("acquire")).contains(QStringLiteral("KEYS[1]")), qPrintable(name));
        const CustomLockScripts::Problem problem = checked(page);
        QVERIFY2(!problem.isSet(), qPrintable(name + QStringLiteral(": ") + problem.text()));
    }
    QVERIFY(page.loadStartingPoint(QStringLiteral("textbook")));
    QVERIFY(page.script(QStringLiteral("renew")).contains(QStringLiteral("PEXPIRE")));
    QVERIFY(!page.loadStartingPoint(QStringLiteral("no-such-lock")));
}

void TestLockPlayground::aSyntaxErrorIsUnderlinedAtItsLine()
{
    LockPlayground page;
    page.setScript(QStringLiteral("release"),
                   QStringLiteral("-- a student's release\nif redis.call('GET', KEYS[1]) == ARGV[1] then\n"
                                  "    return redis.call('DEL', KEYS[1]\nend\nreturn 0\n"));
    const CustomLockScripts::Problem problem = checked(page);
    QVERIFY(problem.isSet());
    QCOMPARE(problem.script, QStringLiteral("release.lua"));
    // Redis names the line where it gave up: the unclosed call's next line.
    QVERIFY2(problem.line == 3 || problem.line == 4, qPrintable(problem.text()));
    QCOMPARE(page.underlinedLine(QStringLiteral("release")), problem.line);
    QCOMPARE(page.underlinedLine(QStringLiteral("acquire")), 0);
    // Editing clears the mark; the fixed script checks clean.
    QVERIFY(page.loadStartingPoint(QStringLiteral("textbook")));
    QCOMPARE(page.underlinedLine(QStringLiteral("release")), 0);
    QVERIFY(!checked(page).isSet());
}

void TestLockPlayground::anEndlessScriptIsStoppedAndReported()
{
    LockPlayground page;
    page.setScript(QStringLiteral("acquire"), QStringLiteral("while true do end\nreturn 1\n"));
    const CustomLockScripts::Problem problem = checked(page);
    QVERIFY2(problem.isSet(), "an endless acquire passed the check");
    QCOMPARE(problem.script, QStringLiteral("acquire.lua"));
    QVERIFY2(problem.message.contains(QStringLiteral("stopped"), Qt::CaseInsensitive)
                 || problem.message.contains(QStringLiteral("kill"), Qt::CaseInsensitive),
             qPrintable(problem.text()));
}

void TestLockPlayground::aSavedLockIsWhatTheCliReads()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    LockPlayground page;
    QVERIFY(page.loadStartingPoint(QStringLiteral("plain-del")));
    QString error;
    QVERIFY2(page.saveFolder(dir.path(), &error), qPrintable(error));
    CustomLockScripts::Problem problem;
    const std::shared_ptr<const CustomLockScripts> read = CustomLockScripts::fromDirectory(dir.path(), &problem);
    QVERIFY2(read, qPrintable(problem.text()));
    QCOMPARE(QString::fromUtf8(read->release().source()).trimmed(), page.script(QStringLiteral("release")).trimmed());
    QVERIFY(!read->renew()); // plain-del has no renew.lua, and none is written
    QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("renew.lua"))));

    LockPlayground other;
    QVERIFY(other.openFolder(dir.path()));
    QCOMPARE(other.script(QStringLiteral("release")), page.script(QStringLiteral("release")));
    QCOMPARE(other.lockTitle(), page.lockTitle());
    QVERIFY(!other.openFolder(dir.filePath(QStringLiteral("missing"))));
}

void TestLockPlayground::runAndBreakHandOverThisLock()
{
    LockPlayground page;
    QVERIFY(page.loadStartingPoint(QStringLiteral("textbook")));
    QList<Scenario> runs;
    QList<ExploreTarget::Options> breaks;
    connect(&page, &LockPlayground::runRequested, this, [&](const Scenario &s) { runs << s; });
    connect(&page, &LockPlayground::breakRequested, this,
            [&](const ExploreTarget::Options &t, const QString &) { breaks << t; });
    button(page, QStringLiteral("Run it"))->click();
    button(page, QStringLiteral("Try to break it"))->click();
    QCOMPARE(runs.size(), 1);
    QCOMPARE(runs.first().algorithm.id, QStringLiteral("custom-lua"));
    QVERIFY(runs.first().algorithm.lua);
    QVERIFY(runs.first().faults.isEmpty());
    QCOMPARE(runs.first().algorithm.lua->acquire().source(), page.script(QStringLiteral("acquire")).toUtf8());
    QCOMPARE(breaks.size(), 1);
    QVERIFY(breaks.first().lua);
    QCOMPARE(breaks.first().leaseMs, 500);
    // A lock without a release cannot be run: nothing is handed over.
    page.setScript(QStringLiteral("release"), QString());
    button(page, QStringLiteral("Run it"))->click();
    QCOMPARE(runs.size(), 1);
}

void TestLockPlayground::aPlainDelIsBrokenAndTheTextbookLockIsNotUnderCrashes()
{
    LockPlayground page;
    BreakItDialog dialog;
    QVERIFY(page.loadStartingPoint(QStringLiteral("plain-del")));
    dialog.setTarget(*page.exploreTarget(), page.lockTitle());
    dialog.setFaults({QStringLiteral("pause")});
    dialog.setBudgetSeconds(60);
    dialog.start();
    QTRY_VERIFY_WITH_TIMEOUT(!dialog.isRunning(), 300000);
    QVERIFY2(dialog.found(), qPrintable(dialog.resultText()));
    QVERIFY(dialog.story().has_value());

    // Fixed: the textbook lock, under crashes only. A lease of 2 s: on a loaded 2-core machine a worker can
    // stall inside its section for longer than 500 ms without any fault of ours — which really does break a
    // lock without fencing, and is not what this test is about.
    QVERIFY(page.loadStartingPoint(QStringLiteral("textbook")));
    dialog.setTarget(*page.exploreTarget(), page.lockTitle());
    dialog.setLeaseMs(2000);
    dialog.setFaults({QStringLiteral("crash")});
    dialog.setBudgetSeconds(15);
    dialog.start();
    QTRY_VERIFY_WITH_TIMEOUT(!dialog.isRunning(), 180000);
    QVERIFY2(!dialog.found(), qPrintable(dialog.resultText()));
    QVERIFY2(dialog.resultText().startsWith(QStringLiteral("No violation in ")), qPrintable(dialog.resultText()));
}

void TestLockPlayground::theSeedStoriesRunAgainstIt()
{
    LockPlayground page;
    QVERIFY(page.loadStartingPoint(QStringLiteral("plain-del")));
    QSignalSpy done(&page, &LockPlayground::storiesDone);
    page.runStories();
    QVERIFY(page.isRunningStories());
    QVERIFY(done.wait(600000));
    const QStringList lines = page.storyLines();
    const QString all = lines.join(u'\n');
    QCOMPARE(lines.size(), StoriesAgainstLock::storyIds().size());
    // Unconditional DEL's story is the plain DEL's own flaw: a late holder deletes the next holder's lock.
    bool delBroken = false;
    for (const QString &line : lines) {
        if (line.startsWith(QStringLiteral("seed-unconditional-del: broken: ")))
            delBroken = true;
        QVERIFY2(!line.contains(QStringLiteral("the run failed")), qPrintable(all));
        QVERIFY2(!line.endsWith(QStringLiteral(": waiting")), qPrintable(all));
    }
    QVERIFY2(delBroken, qPrintable(all));
    // A crash between SETNX and EXPIRE has no such point in a lock of one script per step: said, not judged.
    QVERIFY2(all.contains(QStringLiteral("seed-setnx-expire-crash: not run: its fault strikes between two commands")),
             qPrintable(all));
}

QTEST_MAIN(TestLockPlayground)
#include "tst_lockplayground.moc"
