// The Learn place: every preset is a story a newcomer can open, read (narrative, hints, the algorithm and its
// Lua scripts) and run; the Run buttons say which story and whether step by step.
#include "learn/learnplace.h"
#include "sim/presetlibrary.h"

#include <QLabel>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTest>

class TestLearnPlace : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void listsEveryStoryInTeachingOrder();
    void everyStoryHasItsTexts();
    void showsTheScriptsOfTheAlgorithm();
    void runButtonsAskForTheStory();
    void remembersTheLastStory();
};

void TestLearnPlace::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
}

void TestLearnPlace::listsEveryStoryInTeachingOrder()
{
    LearnPlace place;
    QStringList ids = place.storyIds();
    QCOMPARE(ids.size(), PresetLibrary::ids().size());
    QStringList sorted = ids;
    sorted.sort();
    QStringList library = PresetLibrary::ids(); // in file name order: "failover-sentinel" before "failover"
    library.sort();
    QCOMPARE(sorted, library);
    // The seeds' flaws come first, from the most broken lock to the fixed ones.
    QCOMPARE(ids.first(), QStringLiteral("seed-setnx-expire-crash"));
    QVERIFY(ids.indexOf(QStringLiteral("seed-short-lease")) < ids.indexOf(QStringLiteral("seed-watchdog")));
    QVERIFY(ids.indexOf(QStringLiteral("seed-watchdog")) < ids.indexOf(QStringLiteral("gc-pause")));
    QVERIFY(ids.indexOf(QStringLiteral("gc-pause")) < ids.indexOf(QStringLiteral("redlock-basic")));
}

void TestLearnPlace::everyStoryHasItsTexts()
{
    LearnPlace place;
    for (const QString &id : place.storyIds()) {
        QVERIFY(place.showStory(id));
        QCOMPARE(place.currentStory(), id);
        const PresetLibrary::Preset *p = PresetLibrary::find(id);
        const QString narrative = place.narrativeText();
        QVERIFY2(!narrative.isEmpty(), qPrintable(id));
        // A story's narrated steps are all there, numbered in order.
        if (p->scenario.kind == Scenario::Kind::Story) {
            for (const Scenario::Step &s : p->scenario.story.steps) {
                if (!s.note.isEmpty())
                    QVERIFY2(narrative.contains(s.note.toHtmlEscaped()),
                             qPrintable(id + QStringLiteral(": ") + s.note));
            }
        }
        for (const Scenario::Variant &v : p->scenario.variants)
            QVERIFY2(narrative.contains(v.name), qPrintable(id));
        auto *title = place.findChildren<QLabel *>().value(0);
        QVERIFY(title);
    }
    QVERIFY(!place.showStory(QStringLiteral("no-such-story")));
}

void TestLearnPlace::showsTheScriptsOfTheAlgorithm()
{
    LearnPlace place;
    QVERIFY(place.showStory(QStringLiteral("seed-short-lease")));
    QVERIFY2(place.scriptNames().contains(QStringLiteral("compare_and_delete.lua")),
             qPrintable(place.scriptNames().join(u',')));
    auto *editor = place.findChild<QTabWidget *>(QStringLiteral("storyScripts"))->findChild<QPlainTextEdit *>();
    QVERIFY(editor);
    QVERIFY(editor->isReadOnly());
    QVERIFY(editor->toPlainText().contains(QLatin1String("redis.call")));
    // A comparison shows the scripts of both of its algorithms.
    QVERIFY(place.showStory(QStringLiteral("gc-pause")));
    QVERIFY(place.scriptNames().contains(QStringLiteral("redisson_lock.lua")));
    QVERIFY(place.scriptNames().contains(QStringLiteral("redisson_fenced_lock.lua")));
    // The seed that uses plain commands says so.
    QVERIFY(place.showStory(QStringLiteral("seed-unconditional-del")));
    QCOMPARE(place.scriptNames(), QStringList {QStringLiteral("no scripts")});
}

void TestLearnPlace::runButtonsAskForTheStory()
{
    LearnPlace place;
    QVERIFY(place.showStory(QStringLiteral("gc-pause")));
    QSignalSpy spy(&place, &LearnPlace::runRequested);
    QPushButton *run = nullptr;
    QPushButton *step = nullptr;
    for (QPushButton *b : place.findChildren<QPushButton *>()) {
        if (b->text().contains(QLatin1String("step by step")))
            step = b;
        else if (b->text().contains(QLatin1String("Run it")))
            run = b;
    }
    QVERIFY(run && step);
    QTest::mouseClick(run, Qt::LeftButton);
    QTest::mouseClick(step, Qt::LeftButton);
    QCOMPARE(spy.count(), 2);
    QCOMPARE(spy.at(0).at(0).toString(), QStringLiteral("gc-pause"));
    QCOMPARE(spy.at(0).at(1).toBool(), false);
    QCOMPARE(spy.at(1).at(1).toBool(), true);
}

void TestLearnPlace::remembersTheLastStory()
{
    {
        LearnPlace place;
        QVERIFY(place.showStory(QStringLiteral("failover")));
    }
    LearnPlace again;
    QCOMPARE(again.currentStory(), QStringLiteral("failover"));
}

QTEST_MAIN(TestLearnPlace)
#include "tst_learnplace.moc"
