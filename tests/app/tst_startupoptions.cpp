// lockscope --story ID / --preset ID [--run]: what teachers link to and the screenshots are made with.
#include "common/appoptions.h"
#include "learn/learnplace.h"
#include "mainwindow.h"
#include "simulator/simulationcontroller.h"
#include "simulator/simulatorplace.h"
#include "testsupport.h"

#include <QStackedWidget>
#include <QStandardPaths>

class TestStartupOptions : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void parsesStoryAndPreset();
    void rejectsUnknownIdsAndLoneRun();
    void storyOpensTheLearnPlace();
    void presetRunStartsTheSimulator();
    void learnRunButtonRunsInTheSimulator();
};

void TestStartupOptions::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
}

void TestStartupOptions::parsesStoryAndPreset()
{
    AppOptions options;
    QString message;
    QCOMPARE(AppOptions::parse(
                 {QStringLiteral("lockscope"), QStringLiteral("--story"), QStringLiteral("gc-pause")},
                 &options, &message),
             AppOptions::Outcome::Run);
    QCOMPARE(options.story, QStringLiteral("gc-pause"));
    AppOptions run;
    QCOMPARE(AppOptions::parse({QStringLiteral("lockscope"), QStringLiteral("--preset"),
                                QStringLiteral("failover"), QStringLiteral("--run")},
                               &run, &message),
             AppOptions::Outcome::Run);
    QCOMPARE(run.preset, QStringLiteral("failover"));
    QVERIFY(run.run);
}

void TestStartupOptions::rejectsUnknownIdsAndLoneRun()
{
    AppOptions options;
    QString message;
    QCOMPARE(
        AppOptions::parse({QStringLiteral("lockscope"), QStringLiteral("--story"), QStringLiteral("gc-paws")},
                          &options, &message),
        AppOptions::Outcome::ExitUsage);
    QVERIFY2(message.contains(QLatin1String("gc-paws")) && message.contains(QLatin1String("gc-pause")),
             qPrintable(message));
    QCOMPARE(AppOptions::parse({QStringLiteral("lockscope"), QStringLiteral("--run")}, &options, &message),
             AppOptions::Outcome::ExitUsage);
    QVERIFY2(message.contains(QLatin1String("--preset")), qPrintable(message));
    // The real executable says so and exits 2, before opening any window.
    const TestSupport::ProcessRun app
        = TestSupport::run(TestSupport::appPath(), {QStringLiteral("--story"), QStringLiteral("nope")});
    QCOMPARE(app.exitCode, 2);
    QVERIFY2(app.err.contains(QLatin1String("nope")), qPrintable(app.err));
}

void TestStartupOptions::storyOpensTheLearnPlace()
{
    AppOptions options;
    options.story = QStringLiteral("redlock-split-vote");
    MainWindow window(options);
    auto *places = window.findChild<QStackedWidget *>();
    QCOMPARE(places->currentWidget(), window.learnPlace());
    QCOMPARE(window.learnPlace()->currentStory(), QStringLiteral("redlock-split-vote"));
}

void TestStartupOptions::presetRunStartsTheSimulator()
{
    AppOptions options;
    options.preset = QStringLiteral("seed-watchdog");
    options.run = true;
    MainWindow window(options);
    auto *places = window.findChild<QStackedWidget *>();
    QCOMPARE(places->currentWidget(), window.simulatorPlace());
    SimulationController *controller = window.simulatorPlace()->controller();
    QVERIFY(controller->isRunning());
    QCOMPARE(controller->scenario().id, QStringLiteral("seed-watchdog"));
    QTRY_VERIFY_WITH_TIMEOUT(!controller->isRunning(), 30000);
    QVERIFY2(controller->errorString().isEmpty(), qPrintable(controller->errorString()));
    QVERIFY(controller->outcome().passed());
}

void TestStartupOptions::learnRunButtonRunsInTheSimulator()
{
    MainWindow window(AppOptions {});
    emit window.learnPlace()->runRequested(QStringLiteral("seed-short-lease"), true);
    auto *places = window.findChild<QStackedWidget *>();
    QCOMPARE(places->currentWidget(), window.simulatorPlace());
    SimulationController *controller = window.simulatorPlace()->controller();
    QVERIFY(controller->isRunning());
    QVERIFY(controller->stepMode());
    QCOMPARE(window.simulatorPlace()->steppingAt(), 1); // step by step: the class looks at step 1
    window.simulatorPlace()->stop();
    QTRY_VERIFY_WITH_TIMEOUT(!controller->isRunning(), 20000);
}

QTEST_MAIN(TestStartupOptions)
#include "tst_startupoptions.moc"
