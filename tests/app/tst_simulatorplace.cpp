// The Simulator place against real sandbox servers: a deterministic story run from the GUI reports what the
// CLI reports, the timeline and cards show it, exports write files that parse back, variants run in turn,
// step mode waits for Continue, and a read-only connection is refused with the reason.
#include "simulator/chartspanel.h"
#include "simulator/eventlogmodel.h"
#include "redis/redissession.h"
#include "redis/sandboxcluster.h"
#include "simulator/scenarioeditor.h"
#include "sim/historycsv.h"
#include "sim/presetlibrary.h"
#include "sim/scenarioparser.h"
#include "simulator/simulationcontroller.h"
#include "simulator/simulatorplace.h"
#include "smallstory.h"
#include "simulator/stallmonitor.h"
#include "simulator/summarycard.h"
#include "simulator/summarycards.h"
#include "testsupport.h"
#include "timeline/timelinepanel.h"
#include "timeline/timelineview.h"
#include "simulator/violationmodel.h"

#include <QChartView>
#include <QCheckBox>
#include <QComboBox>
#include <QDialog>
#include <QElapsedTimer>
#include <QGraphicsScene>
#include <QGraphicsSimpleTextItem>
#include <QGraphicsTextItem>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QScrollArea>
#include <QScrollBar>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QStandardPaths>
#include <QTabBar>
#include <QTemporaryDir>
#include <QTextBrowser>
#include <QTextDocument>
#include <QVBoxLayout>
#include <QValueAxis>
#include <QWheelEvent>
#include <QXmlStreamReader>

class TestSimulatorPlace : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void storyMatchesTheCliAndExports();
    void variantsRunInTurn();
    void readOnlyConnectionIsRefusedWithTheReason();
    void runsOnAConnectedServerThatAllowsWrites();
    void aServerThatRefusesTheRunFailsItWithTheReason();
    void editorReportsBadFieldsAndBlocksRun();
    void runsARealLibraryFromTheEditor();
    void wheelOverTheEditorScrollsInsteadOfChangingFields();
    void aProductionServerAsksForItsNameBeforeARun();
    void emptyChartsCountInWholeNumbers();
    void chartTextsNeitherCollideNorGetCut();
    void cardTextsFitTheirCards();
    void loadingAScenarioClearsThePreviousRun();
    void runsOnAConnectedCluster();
    void runsTheSentinelFailoverStory();

private:
    static Scenario smallStory(bool variants);
    // The texts a chart shows (its title, axis titles and labels), in scene coordinates.
    static QList<QPair<QString, QRectF>> chartTexts(QChartView *view);
    static bool waitForRun(SimulatorPlace &place, int timeoutMs = 30000);
    // Once the connected server is offered as a target (the session is open and allows writes), picks it.
    static bool targetTheConnectedServer(SimulatorPlace &place);
    // Opens `session` on `settings`, and a place shown with that server as its target (nullptr if either
    // fails).
    static std::unique_ptr<SimulatorPlace> placeOnConnectedServer(RedisSession &session,
                                                                  const ConnectionSettings &settings);
    // Loads a preset; true when the editor's check box `box` is ticked and the edited scenario is valid.
    static bool loadPresetWithBoxTicked(SimulatorPlace &place, const QString &preset, const char *box,
                                        Scenario *edited);
};

bool TestSimulatorPlace::targetTheConnectedServer(SimulatorPlace &place)
{
    auto *targets = qobject_cast<QStandardItemModel *>(place.findChild<QComboBox *>()->model());
    if (!QTest::qWaitFor([&] { return targets->item(1)->isEnabled(); }, 5000))
        return false;
    place.setTarget(SimulatorPlace::Target::ConnectedServer);
    return place.target() == SimulatorPlace::Target::ConnectedServer;
}

std::unique_ptr<SimulatorPlace> TestSimulatorPlace::placeOnConnectedServer(RedisSession &session,
                                                                           const ConnectionSettings &settings)
{
    session.open(settings);
    if (!QTest::qWaitFor([&] { return session.isOpen(); }, 10000))
        return nullptr;
    auto place = std::make_unique<SimulatorPlace>(&session);
    place->show();
    return targetTheConnectedServer(*place) ? std::move(place) : nullptr;
}

void TestSimulatorPlace::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
}

Scenario TestSimulatorPlace::smallStory(bool variants)
{
    // With variants: a short and a long lease (B cannot get in while A works).
    QJsonObject json = QJsonDocument::fromJson(SmallStory::json()).object();
    if (variants) {
        json.insert(QStringLiteral("variants"),
                    QJsonArray {QJsonObject {{QStringLiteral("name"), QStringLiteral("short")}},
                                QJsonObject {{QStringLiteral("name"), QStringLiteral("long")},
                                             {QStringLiteral("algorithm"),
                                              QJsonObject {{QStringLiteral("lease_ms"), 3000}}}}});
        json.insert(QStringLiteral("expect"),
                    QJsonArray {QStringLiteral("short.overlaps >= 1"), QStringLiteral("long.overlaps == 0")});
    }
    Scenario s;
    QStringList errors;
    if (!ScenarioParser().parse(json, &s, &errors))
        qFatal("test scenario: %s", qPrintable(errors.join(u';')));
    return s;
}

bool TestSimulatorPlace::waitForRun(SimulatorPlace &place, int timeoutMs)
{
    QElapsedTimer clock;
    clock.start();
    while (place.controller()->isRunning() && clock.elapsed() < timeoutMs)
        QTest::qWait(20);
    return !place.controller()->isRunning();
}

void TestSimulatorPlace::storyMatchesTheCliAndExports()
{
    SimulatorPlace place(nullptr);
    place.resize(1300, 850);
    place.show();
    QVERIFY(place.loadPreset(QStringLiteral("seed-short-lease")));
    QVERIFY(place.run());
    QVERIFY(place.controller()->isRunning());
    QVERIFY(waitForRun(place));
    QVERIFY2(place.controller()->errorString().isEmpty(), qPrintable(place.controller()->errorString()));
    const SimulationController::Run &run = place.controller()->run(0);
    QVERIFY(run.finished);
    const RunReport &gui = run.report;
    qInfo("GUI thread: longest stall %.1f ms during the run", place.stallMonitor()->longestStallMs());

    const TestSupport::ProcessRun cli = TestSupport::run(
        TestSupport::cliPath(),
        {QStringLiteral("simulate"), QStringLiteral("--preset"), QStringLiteral("seed-short-lease"),
         QStringLiteral("--json"), QStringLiteral("-")});
    QVERIFY2(cli.finished && cli.exitCode == 0, qPrintable(cli.err));
    const QJsonObject json = QJsonDocument::fromJson(cli.out.toUtf8()).object();
    const QJsonObject v = json.value(QStringLiteral("violations")).toObject();
    // The story is deterministic: the same violations, counts and outcome, whoever runs it.
    QCOMPARE(gui.safety.overlaps, v.value(QStringLiteral("overlaps")).toInt());
    QCOMPARE(gui.safety.staleHolders, v.value(QStringLiteral("stale_holders")).toInt());
    QCOMPARE(gui.safety.foreignReleases, v.value(QStringLiteral("foreign_releases")).toInt());
    QCOMPARE(gui.safety.lostUpdates, v.value(QStringLiteral("lost_updates")).toInt());
    QCOMPARE(gui.safety.violations(), v.value(QStringLiteral("total")).toInt());
    QCOMPARE(gui.metrics.acquisitions, json.value(QStringLiteral("acquisitions")).toInteger());
    QCOMPARE(gui.metrics.cycles, json.value(QStringLiteral("cycles")).toInteger());
    QCOMPARE(gui.locksWithoutTtl, json.value(QStringLiteral("locks_without_ttl")).toInteger());
    QCOMPARE(place.controller()->outcome().passed(),
             json.value(QStringLiteral("expect")).toObject().value(QStringLiteral("passed")).toBool());
    QVERIFY(place.controller()->outcome().passed());

    // What the user sees says the same.
    QCOMPARE(place.cards()->violationsCard()->value(), QString::number(gui.safety.violations()));
    QCOMPARE(place.cards()->violationsCard()->tone(), SummaryCard::Tone::Bad);
    QCOMPARE(place.violations()->rowCount(), gui.safety.details.size());
    const TimelineData *timeline = place.timelinePanel()->view()->data();
    QVERIFY(timeline && timeline->isFinished());
    QCOMPARE(timeline->violations().size(), gui.safety.details.size());
    QCOMPARE(timeline->layout().workers, QStringList({QStringLiteral("A"), QStringLiteral("B")}));
    QCOMPARE(timeline->holds(0, 0).size(), 1);
    QCOMPARE(timeline->holds(1, 0).size(), 1);
    QVERIFY(timeline->holds(0, 0).first().expired(timeline->nowUs())); // A worked on past its lease
    QVERIFY(timeline->holds(1, 0).first().startUs > timeline->holds(0, 0).first().validUntilUs);
    QCOMPARE(timeline->steps().size(), 4);
    QCOMPARE(place.eventLog()->rowCount(), int(gui.historyEvents));
    QVERIFY(!place.charts()->perWorkerValues().isEmpty());

    QTemporaryDir dir;
    QString error;
    // Report: the CLI's JSON shape.
    const QString reportPath = dir.filePath(QStringLiteral("report.json"));
    QVERIFY2(place.exportReport(reportPath, &error), qPrintable(error));
    QFile reportFile(reportPath);
    QVERIFY(reportFile.open(QIODevice::ReadOnly));
    QJsonParseError parseError;
    const QJsonObject report = QJsonDocument::fromJson(reportFile.readAll(), &parseError).object();
    QCOMPARE(parseError.error, QJsonParseError::NoError);
    const QStringList guiKeys = report.keys();
    const QStringList cliKeys = json.keys();
    QCOMPARE(guiKeys, cliKeys); // same fields (QJsonObject keeps them sorted)
    QCOMPARE(report.value(QStringLiteral("violations")).toObject().value(QStringLiteral("total")).toInt(),
             gui.safety.violations());
    // Every event, as CSV.
    const QString csvPath = dir.filePath(QStringLiteral("events.csv"));
    QVERIFY2(place.exportEvents(csvPath, &error), qPrintable(error));
    QFile csv(csvPath);
    QVERIFY(csv.open(QIODevice::ReadOnly));
    const QList<QByteArray> lines = csv.readAll().split('\n');
    QCOMPARE(lines.first() + '\n', HistoryCsv::header());
    QCOMPARE(lines.size() - 2, int(gui.historyEvents)); // header + rows + the empty piece after the last \n
    QVERIFY(lines.at(1).count(',') >= 12);
    // Pictures: real PNGs and SVGs.
    for (const QString &name : {QStringLiteral("timeline.png"), QStringLiteral("charts.png")}) {
        const QString path = dir.filePath(name);
        const bool ok = name.startsWith(QLatin1String("timeline")) ? place.exportTimeline(path, &error)
                                                                   : place.exportCharts(path, &error);
        QVERIFY2(ok, qPrintable(error));
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(f.read(8), QByteArray("\x89PNG\r\n\x1a\n", 8));
        const QImage image(path);
        QVERIFY(!image.isNull() && image.width() >= 1200);
    }
    for (const QString &name : {QStringLiteral("timeline.svg"), QStringLiteral("charts.svg")}) {
        const QString path = dir.filePath(name);
        const bool ok = name.startsWith(QLatin1String("timeline")) ? place.exportTimeline(path, &error)
                                                                   : place.exportCharts(path, &error);
        QVERIFY2(ok, qPrintable(error));
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray svg = f.readAll();
        QVERIFY(svg.startsWith("<?xml"));
        QXmlStreamReader xml(svg);
        bool sawSvg = false;
        while (!xml.atEnd()) {
            if (xml.readNext() == QXmlStreamReader::StartElement && xml.name() == QLatin1String("svg"))
                sawSvg = true;
        }
        QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
        QVERIFY(sawSvg);
        QVERIFY(svg.size() > 2000);
    }
    // The event log as shown, filtered to B.
    place.eventLog()->setFilter(1, -1, -1);
    const QString logPath = dir.filePath(QStringLiteral("log.csv"));
    QVERIFY2(place.exportLog(logPath, &error), qPrintable(error));
    QFile log(logPath);
    QVERIFY(log.open(QIODevice::ReadOnly));
    const QList<QByteArray> logLines = log.readAll().trimmed().split('\n');
    QCOMPARE(logLines.size(), place.eventLog()->rowCount() + 1);
    for (const QByteArray &line : logLines.mid(1))
        QVERIFY2(line.split(',').value(1) == "B", line.constData());
}

void TestSimulatorPlace::variantsRunInTurn()
{
    SimulatorPlace place(nullptr);
    place.resize(1300, 850);
    place.show();
    place.loadScenario(smallStory(true));
    QVERIFY(place.run());
    QTRY_COMPARE_WITH_TIMEOUT(place.controller()->activeRun(), 1, 30000); // the second variant started
    QVERIFY(place.controller()->run(0).finished);
    auto *report = place.findChild<QTextBrowser *>();
    QVERIFY(report);
    // The expectations over both variants are not judged while the second one runs: no red ✘ yet.
    if (place.controller()->isRunning()) {
        QVERIFY2(!report->toPlainText().contains(QStringLiteral("✘")), qPrintable(report->toPlainText()));
        QVERIFY(report->toPlainText().contains(QLatin1String("judged when every variant has run")));
    }
    QVERIFY(waitForRun(place));
    // A met expectation reads as the story's, not as the lock passing; the table says what happened.
    QVERIFY2(report->toPlainText().contains(QStringLiteral("shown as expected: long.overlaps == 0")),
             qPrintable(report->toPlainText()));
    QVERIFY2(report->toPlainText().contains(QLatin1String("Side by side")),
             qPrintable(report->toPlainText()));
    auto *variants = place.findChild<QTabBar *>(QStringLiteral("variantTabs"));
    QVERIFY(variants);
    QCOMPARE(variants->tabText(0), QStringLiteral("short — two holders"));
    QCOMPARE(variants->tabText(1), QStringLiteral("long — safe"));
    // The exported report has the same table: one row per variant.
    QTemporaryDir dir;
    QString error;
    QVERIFY2(place.exportReport(dir.filePath(QStringLiteral("report.json")), &error), qPrintable(error));
    QFile json(dir.filePath(QStringLiteral("report.json")));
    QVERIFY(json.open(QIODevice::ReadOnly));
    const QJsonArray rows
        = QJsonDocument::fromJson(json.readAll()).object().value(QStringLiteral("comparison")).toArray();
    QCOMPARE(rows.size(), 2);
    QCOMPARE(rows.at(0).toObject().value(QStringLiteral("verdict")).toString(),
             QStringLiteral("two-holders"));
    QCOMPARE(rows.at(1).toObject().value(QStringLiteral("verdict")).toString(), QStringLiteral("safe"));
    QCOMPARE(place.controller()->runCount(), 2);
    QCOMPARE(place.controller()->run(0).variant, QStringLiteral("short"));
    QVERIFY(place.controller()->run(0).report.safety.overlaps >= 1);
    QCOMPARE(place.controller()->run(1).report.safety.overlaps, 0);
    const SimulationRunner::Outcome outcome = place.controller()->outcome();
    QCOMPARE(outcome.runs.size(), 2);
    QVERIFY(outcome.passed());
    QCOMPARE(place.shownRun(), 1); // it followed the runs as they started
    place.showRun(0);
    QCOMPARE(place.timelinePanel()->view()->data(), place.controller()->run(0).timeline.get());
    QCOMPARE(place.violations()->rowCount(), place.controller()->run(0).report.safety.details.size());
    // Not green: the expectations were met, which says nothing of the locks.
    QCOMPARE(place.cards()->card(QStringLiteral("expect"))->tone(), SummaryCard::Tone::Normal);
}

void TestSimulatorPlace::readOnlyConnectionIsRefusedWithTheReason()
{
    SandboxServer server;
    LS_START(server);
    RedisSession session;
    ConnectionSettings settings = server.connectionSettings();
    settings.readOnly = true;
    session.open(settings);
    QTRY_VERIFY_WITH_TIMEOUT(session.isOpen(), 10000);
    SimulatorPlace place(&session);
    auto *combo = place.findChild<QComboBox *>();
    QVERIFY(combo);
    QStandardItem *connected = qobject_cast<QStandardItemModel *>(combo->model())->item(1);
    QTRY_VERIFY(!connected->isEnabled());
    QVERIFY2(connected->toolTip().contains(QLatin1String("read-only")), qPrintable(connected->toolTip()));
    // Even when asked for directly, a run there is refused with the reason, and nothing is written.
    QVERIFY(place.loadPreset(QStringLiteral("seed-short-lease")));
    RedisConnection admin(server.connectionSettings());
    LS_OPEN(admin);
    const qint64 writesBefore = TestSupport::writeCommandCalls(admin);
    combo->setCurrentIndex(1);
    QVERIFY(!place.run());
    QVERIFY(!place.controller()->isRunning());
    const QString message
        = place.timelinePanel()->findChild<QLabel *>(QStringLiteral("timelineMessage"))->text();
    QVERIFY2(message.contains(QLatin1String("read-only")), qPrintable(message));
    QCOMPARE(TestSupport::writeCommandCalls(admin), writesBefore);
}

void TestSimulatorPlace::runsOnAConnectedServerThatAllowsWrites()
{
    SandboxServer server;
    LS_START(server);
    RedisSession session;
    session.open(server.connectionSettings()); // a sandbox allows writes
    QTRY_VERIFY_WITH_TIMEOUT(session.isOpen(), 10000);
    SimulatorPlace place(&session);
    place.show();
    QVERIFY(targetTheConnectedServer(place));
    QCOMPARE(place.target(), SimulatorPlace::Target::ConnectedServer);
    place.loadScenario(smallStory(false));
    RedisConnection admin(server.connectionSettings());
    LS_OPEN(admin);
    const qint64 setsBefore = TestSupport::commandCalls(admin, "set");
    QVERIFY(place.run());
    QVERIFY(waitForRun(place));
    QVERIFY2(place.controller()->errorString().isEmpty(), qPrintable(place.controller()->errorString()));
    QVERIFY(place.controller()->run(0).report.server.contains(QString::number(server.port())));
    QVERIFY(TestSupport::commandCalls(admin, "set") > setsBefore); // the locks were taken on this server
    QVERIFY(place.controller()->outcome().passed());
}

void TestSimulatorPlace::aServerThatRefusesTheRunFailsItWithTheReason()
{
    // Neither EVALSHA nor EVAL: Redisson's lock cannot run there at all (issue 19, item 7).
    SandboxServer::Options o;
    o.configLines
        = {QStringLiteral("rename-command EVALSHA \"\""), QStringLiteral("rename-command EVAL \"\"")};
    SandboxServer server(o);
    LS_START(server);
    RedisSession session;
    const std::unique_ptr<SimulatorPlace> shown
        = placeOnConnectedServer(session, server.connectionSettings());
    QVERIFY(shown);
    SimulatorPlace &place = *shown;
    Scenario s;
    QStringList errors;
    QVERIFY(ScenarioParser().parse(R"({"lockscope_scenario": 1, "id": "t", "title": "Refused",
        "algorithm": {"id": "redisson-reentrant", "lease_ms": 2000},
        "workload": {"processes": 1, "threads_per_process": 2, "duration_s": 20},
        "expect": ["violations == 0"]})",
                                   &s, &errors));
    place.loadScenario(s);
    QVERIFY(place.run());
    QVERIFY(waitForRun(place)); // well before the 20 s planned
    const QString error = place.controller()->errorString();
    QVERIFY2(error.contains(QLatin1String("ERR unknown command 'EVAL'")), qPrintable(error));
    QCOMPARE(error, place.controller()->run(0).report.stopReason);
    // Said where one looks: above the timeline, and first in the report.
    auto *message = place.findChild<QLabel *>(QStringLiteral("timelineMessage"));
    QVERIFY(message && message->isVisible());
    QVERIFY2(message->text().contains(QLatin1String("The run failed")), qPrintable(message->text()));
    QVERIFY2(message->text().contains(error.left(60).toHtmlEscaped()), qPrintable(message->text()));
    const QString report = place.findChild<QTextBrowser *>()->toPlainText();
    QVERIFY2(report.contains(QLatin1String("The run failed: ") + error), qPrintable(report));
}

void TestSimulatorPlace::aProductionServerAsksForItsNameBeforeARun()
{
    SandboxServer server;
    LS_START(server);
    RedisSession session;
    session.open(server.connectionSettings());
    QTRY_VERIFY_WITH_TIMEOUT(session.isOpen(), 10000);
    SimulatorPlace place(&session);
    place.show();
    QVERIFY(targetTheConnectedServer(place));
    place.setProductionName(QStringLiteral("orders-prod"));
    place.loadScenario(smallStory(false));
    RedisConnection admin(server.connectionSettings());
    LS_OPEN(admin);
    const qint64 setsBefore = TestSupport::commandCalls(admin, "set");
    QVERIFY(!place.run()); // not yet: it asks first
    QVERIFY(!place.controller()->isRunning());
    QDialog *dialog = nullptr;
    QTRY_VERIFY((dialog = place.findChild<QDialog *>(QStringLiteral("productionRunDialog"))) && dialog->isVisible());
    QPushButton *go = nullptr;
    for (QPushButton *b : dialog->findChildren<QPushButton *>())
        go = b->text().startsWith(QLatin1String("Run on")) ? b : go;
    QVERIFY(go);
    auto *name = dialog->findChild<QLineEdit *>(QStringLiteral("typedNameEdit"));
    QVERIFY(name);
    QVERIFY(!go->isEnabled());
    name->setText(QStringLiteral("orders-pro")); // not quite
    QVERIFY(!go->isEnabled());
    dialog->reject(); // changed their mind: nothing was written
    QCOMPARE(TestSupport::commandCalls(admin, "set"), setsBefore);
    QVERIFY(!place.controller()->isRunning());

    QVERIFY(!place.run());
    QTRY_VERIFY((dialog = place.findChild<QDialog *>(QStringLiteral("productionRunDialog"))) && dialog->isVisible());
    dialog->findChild<QLineEdit *>(QStringLiteral("typedNameEdit"))->setText(QStringLiteral("orders-prod"));
    for (QPushButton *b : dialog->findChildren<QPushButton *>())
        go = b->text().startsWith(QLatin1String("Run on")) ? b : go;
    QVERIFY(go->isEnabled());
    go->click();
    QVERIFY(place.controller()->isRunning());
    QVERIFY(waitForRun(place));
    QVERIFY(TestSupport::commandCalls(admin, "set") > setsBefore);
}

void TestSimulatorPlace::wheelOverTheEditorScrollsInsteadOfChangingFields()
{
    SimulatorPlace place(nullptr);
    place.resize(1024, 600);
    place.show();
    QVERIFY(QTest::qWaitForWindowExposed(&place));
    QVERIFY(place.loadPreset(QStringLiteral("gc-pause")));
    auto *lease = place.editor()->findChild<QSpinBox *>(QStringLiteral("leaseSpin"));
    QVERIFY(lease);
    const int before = lease->value();
    const QPoint at = lease->rect().center();
    const auto wheel = [&] {
        QWheelEvent e(at, lease->mapToGlobal(at), QPoint(), QPoint(0, -120), Qt::NoButton, Qt::NoModifier,
                      Qt::NoScrollPhase, false);
        QApplication::sendEvent(lease, &e);
        return e.isAccepted();
    };
    // The user scrolls the form with the pointer over the field: the field leaves the wheel alone (not
    // accepted, Qt hands a real wheel event on to the scroll area, which scrolls).
    QVERIFY(!wheel());
    QCOMPARE(lease->value(), before);
    place.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&place));
    lease->setFocus();
    QTRY_VERIFY(lease->hasFocus());
    QVERIFY(wheel()); // a focused field is the user's choice: the wheel changes it
    QVERIFY(lease->value() != before);
}

void TestSimulatorPlace::loadingAScenarioClearsThePreviousRun()
{
    SimulatorPlace place(nullptr);
    place.show();
    place.loadScenario(smallStory(false));
    QVERIFY(place.run());
    QVERIFY(waitForRun(place));
    QVERIFY(place.timelinePanel()->view()->data());
    QVERIFY(place.eventLog()->rowCount() > 0);
    QVERIFY(place.violations()->rowCount() > 0);
    QVERIFY(place.loadPreset(QStringLiteral("gc-pause")));
    // Nothing of the story's run passes for the newly loaded scenario's.
    QCOMPARE(place.shownRun(), -1);
    QVERIFY(!place.timelinePanel()->view()->data());
    QCOMPARE(place.eventLog()->rowCount(), 0);
    QCOMPARE(place.violations()->rowCount(), 0);
    QCOMPARE(place.cards()->card(QStringLiteral("violations"))->value(), QStringLiteral("—"));
    auto *report = place.findChild<QTextBrowser *>();
    QVERIFY(report);
    QVERIFY2(report->toPlainText().contains(QLatin1String("Not run yet")), qPrintable(report->toPlainText()));
}

QList<QPair<QString, QRectF>> TestSimulatorPlace::chartTexts(QChartView *view)
{
    QList<QPair<QString, QRectF>> texts;
    for (QGraphicsItem *item : view->scene()->items()) {
        if (!item->isVisible())
            continue;
        QString text;
        QRectF rect = item->sceneBoundingRect();
        if (auto *t = dynamic_cast<QGraphicsTextItem *>(item)) {
            text = t->toPlainText();
            // The ink, not the item's box (which adds the document's margin and the line's leading): labels
            // whose line boxes touch at a corner do not collide on screen.
            const QFontMetricsF fm(t->font());
            const QRectF ink = fm.tightBoundingRect(text);
            const qreal m = t->document()->documentMargin();
            rect = item->mapRectToScene(QRectF(m + ink.left(), m + fm.ascent() + ink.top(), ink.width(), ink.height()));
        } else if (auto *t = dynamic_cast<QGraphicsSimpleTextItem *>(item)) {
            text = t->text();
        }
        if (!text.trimmed().isEmpty())
            texts.append({text, rect});
    }
    return texts;
}

// The charts at the sizes the Simulator gives them (one row under a 1024 × 700 window, with or without the
// editor; two rows on a big screen): no two texts overlap (the histogram's "3ms10ms30ms…", its labels on
// its axis title), every text lies inside its chart, and titles too long for their chart give way to a
// shorter wording instead of "Acquire latency (waiting inc...", with the whole title in the tooltip.
void TestSimulatorPlace::chartTextsNeitherCollideNorGetCut()
{
    ChartsPanel charts;
    LiveStats stats;
    stats.atUs = 6'500'000;
    stats.metrics.bucketUs = 100'000;
    stats.metrics.acquisitions = 200;
    stats.metrics.fairnessJain = 0.87;
    for (int i = 0; i < 65; ++i) {
        stats.metrics.acquisitionsPerBucket << (i % 7);
        stats.metrics.waitingPerBucket << (i % 5);
    }
    QStringList workers;
    for (int w = 0; w < 50; ++w) {
        workers << QStringLiteral("P%1-T%2").arg(w / 5 + 1).arg(w % 5 + 1);
        stats.metrics.acquisitionsPerWorker << 3 + w % 4;
    }
    for (qsizetype i = 0; i < LiveStats::latencyBinLabels().size(); ++i)
        stats.latencyCounts << 1 + i % 3; // every bin: the most labels the histogram can have
    charts.setStats(stats, workers, 6'500'000);
    const QList<QChartView *> views = charts.findChildren<QChartView *>();
    QCOMPARE(views.size(), 4);
    for (const QSize size : {QSize(535, 130), QSize(860, 140), QSize(860, 300), QSize(1450, 330)}) {
        charts.resize(size);
        charts.show();
        QVERIFY(QTest::qWaitForWindowExposed(&charts));
        QCoreApplication::processEvents(); // the charts lay out on posted events
        QCoreApplication::processEvents();
        for (QChartView *view : views) {
            const QList<QPair<QString, QRectF>> texts = chartTexts(view);
            const QString where = QStringLiteral("%1×%2, chart '%3'")
                                      .arg(size.width())
                                      .arg(size.height())
                                      .arg(view->chart()->title());
            QVERIFY2(texts.size() >= 3, qPrintable(where));
            for (qsizetype i = 0; i < texts.size(); ++i) {
                const QRectF inside = QRectF(view->viewport()->rect()).adjusted(-1, -1, 1, 1);
                QVERIFY2(inside.contains(texts.at(i).second),
                         qPrintable(QStringLiteral("%1: '%2' sticks out").arg(where, texts.at(i).first)));
                QVERIFY2(!texts.at(i).first.endsWith(QLatin1String("...")) && !texts.at(i).first.endsWith(u'…')
                             && texts.at(i).first != QLatin1String("…"),
                         qPrintable(QStringLiteral("%1: '%2' is cut").arg(where, texts.at(i).first)));
                for (qsizetype j = i + 1; j < texts.size(); ++j) {
                    QVERIFY2(!texts.at(i).second.intersects(texts.at(j).second),
                             qPrintable(QStringLiteral("%1: '%2' and '%3' overlap")
                                            .arg(where, texts.at(i).first, texts.at(j).first)));
                }
            }
        }
    }
    // The whole title is in the tooltip when a shorter one is shown.
    charts.resize(535, 130);
    QCoreApplication::processEvents();
    QChartView *latency = views.at(2);
    QVERIFY2(latency->chart()->title() != QLatin1String("Acquire latency (waiting included)"),
             qPrintable(latency->chart()->title()));
    QVERIFY2(latency->toolTip().contains(QLatin1String("Acquire latency (waiting included)")),
             qPrintable(latency->toolTip()));
}

// The summary cards' texts fit their cards at the Simulator's widths: a long detail ("1 overlap · 1 stale
// holder · 1 lost update") wraps onto another line instead of being cut.
void TestSimulatorPlace::cardTextsFitTheirCards()
{
    // In a column as the Simulator has them, which gives the cards the height their width needs.
    QWidget pane;
    auto *layout = new QVBoxLayout(&pane);
    auto *cards = new SummaryCards(&pane);
    layout->addWidget(cards);
    layout->addStretch(1);
    cards->card(QStringLiteral("violations"))
        ->setValue(QStringLiteral("3"), QStringLiteral("1 overlap · 1 stale holder · 1 lost update"),
                   SummaryCard::Tone::Bad);
    cards->card(QStringLiteral("latency"))
        ->setValue(QStringLiteral("339 µs"), QStringLiteral("median · p99 2.01 s · max 2.01 s"));
    pane.show();
    QVERIFY(QTest::qWaitForWindowExposed(&pane));
    for (const int width : {535, 860, 1450}) {
        pane.resize(width, 400);
        QCoreApplication::processEvents();
        for (QLabel *label : cards->findChildren<QLabel *>()) {
            if (label->text().isEmpty())
                continue;
            const QRect room = label->contentsRect();
            const QRect needs = label->fontMetrics().boundingRect(
                room, Qt::AlignLeft | Qt::AlignTop | (label->wordWrap() ? Qt::TextWordWrap : 0), label->text());
            QVERIFY2(needs.width() <= room.width() && needs.height() <= room.height(),
                     qPrintable(QStringLiteral("width %1: '%2' needs %3×%4, has %5×%6")
                                    .arg(width)
                                    .arg(label->text())
                                    .arg(needs.width())
                                    .arg(needs.height())
                                    .arg(room.width())
                                    .arg(room.height())));
        }
    }
}

void TestSimulatorPlace::emptyChartsCountInWholeNumbers()
{
    SimulatorPlace place(nullptr);
    place.show();
    const QList<QChartView *> views = place.charts()->findChildren<QChartView *>();
    QCOMPARE(views.size(), 4);
    for (QChartView *view : views) {
        for (QAbstractAxis *a : view->chart()->axes(Qt::Vertical)) {
            auto *axis = qobject_cast<QValueAxis *>(a);
            if (!axis || axis->labelFormat() != QLatin1String("%.0f"))
                continue;
            // Printed as whole numbers, the ticks must be whole and distinct (not "1, 1, 1, 0, 0").
            const double step = (axis->max() - axis->min()) / std::max(1, axis->tickCount() - 1);
            QVERIFY2(step >= 1 && step == std::floor(step),
                     qPrintable(QStringLiteral("%1: ticks every %2").arg(view->chart()->title()).arg(step)));
        }
    }
}

// The algorithm choice offers the real libraries; a preset with one round-trips through the form, runs with a
// process per worker, and the timeline's lanes say which library and which PID.
void TestSimulatorPlace::runsARealLibraryFromTheEditor()
{
    SimulatorPlace place(nullptr);
    place.resize(1300, 850);
    place.show();
    QVERIFY(place.loadPreset(QStringLiteral("crash-while-holding")));
    auto *algorithm = place.editor()->findChild<QComboBox *>(QStringLiteral("algorithmCombo"));
    QVERIFY(algorithm);
    QCOMPARE(algorithm->currentData().toString(), QStringLiteral("client:redis-py"));
    QVERIFY(!place.editor()->findChild<QSpinBox *>(QStringLiteral("threadsSpin"))->isEnabled());
    Scenario edited;
    QStringList problems;
    QVERIFY2(place.editor()->scenario(&edited, &problems), qPrintable(problems.join(u'\n')));
    QCOMPARE(ScenarioParser::toJson(edited),
             ScenarioParser::toJson(PresetLibrary::find(QStringLiteral("crash-while-holding"))->scenario));

    QVERIFY(place.run());
    QVERIFY(waitForRun(place, 60000));
    QVERIFY2(place.controller()->errorString().isEmpty(), qPrintable(place.controller()->errorString()));
    QVERIFY2(place.controller()->outcome().passed(), qPrintable(place.controller()->outcome().summaryText()));
    const TimelineData *timeline = place.timelinePanel()->view()->data();
    QVERIFY(timeline);
    QCOMPARE(timeline->layout().workerLibraries, (QStringList {"redis-py", "redis-py"}));
    QCOMPARE(timeline->layout().workerPids.size(), 2);
    for (const QString &pid : timeline->layout().workerPids)
        QVERIFY2(QRegularExpression(QStringLiteral("^pid [1-9][0-9]*$")).match(pid).hasMatch(), qPrintable(pid));

    // Another library keeps the scenario; a built-in algorithm drops the client.
    algorithm->setCurrentIndex(algorithm->findData(QStringLiteral("client:redlock4")));
    QVERIFY2(place.editor()->scenario(&edited, &problems), qPrintable(problems.join(u'\n')));
    QCOMPARE(edited.client.adapter, QStringLiteral("redlock4"));
    QVERIFY(edited.client.options.isEmpty()); // redis-py's timeout option is not redlock's
    // This preset's variants change redis-py's options: with a built-in algorithm they have no client to
    // change, and the editor says so instead of running something else.
    algorithm->setCurrentIndex(algorithm->findData(QStringLiteral("set-nx-px-lua")));
    QVERIFY(!place.editor()->scenario(&edited, &problems));
    QVERIFY2(problems.join(u'\n').contains(QLatin1String("no client is named")), qPrintable(problems.join(u'\n')));
    QVERIFY(place.loadPreset(QStringLiteral("seed-short-lease")));
    problems.clear();
    algorithm->setCurrentIndex(algorithm->findData(QStringLiteral("client:redis-semaphore-mutex")));
    QVERIFY2(place.editor()->scenario(&edited, &problems), qPrintable(problems.join(u'\n')));
    QCOMPARE(edited.client.adapter, QStringLiteral("redis-semaphore-mutex"));
    algorithm->setCurrentIndex(algorithm->findData(QStringLiteral("set-nx-px-lua")));
    QVERIFY2(place.editor()->scenario(&edited, &problems), qPrintable(problems.join(u'\n')));
    QVERIFY(!edited.client.isSet());
    QCOMPARE(edited.algorithm.id, QStringLiteral("set-nx-px-lua"));
}

void TestSimulatorPlace::editorReportsBadFieldsAndBlocksRun()
{
    SimulatorPlace place(nullptr);
    QVERIFY(place.loadPreset(QStringLiteral("seed-short-lease")));
    QVERIFY(place.editor()->isValid());
    auto *expectations = place.editor()->findChild<QPlainTextEdit *>(QStringLiteral("expectationsEdit"));
    QVERIFY(expectations);
    const QString original = expectations->toPlainText();
    expectations->setPlainText(QStringLiteral("overlapz >= 1"));
    QVERIFY(!place.editor()->isValid());
    const QString errors = place.editor()->findChild<QLabel *>(QStringLiteral("errorsLabel"))->text();
    QVERIFY2(errors.contains(QLatin1String("overlapz")), qPrintable(errors));
    QVERIFY(!place.run());
    expectations->setPlainText(original);
    QVERIFY(place.editor()->isValid());
    // The editor round-trips the preset through its form: the same scenario comes out.
    Scenario edited;
    QStringList problems;
    QVERIFY(place.editor()->scenario(&edited, &problems));
    QCOMPARE(ScenarioParser::toJson(edited),
             ScenarioParser::toJson(PresetLibrary::find(QStringLiteral("seed-short-lease"))->scenario));
}

bool TestSimulatorPlace::loadPresetWithBoxTicked(SimulatorPlace &place, const QString &preset,
                                                 const char *box, Scenario *edited)
{
    if (!place.loadPreset(preset))
        return false;
    auto *check = place.editor()->findChild<QCheckBox *>(QLatin1String(box));
    QStringList problems;
    return check && check->isChecked() && place.editor()->scenario(edited, &problems);
}

void TestSimulatorPlace::runsOnAConnectedCluster()
{
    SandboxCluster cluster;
    LS_START(cluster);
    RedisSession session;
    session.open(cluster.seedSettings()); // as the connection dialog's "Redis Cluster" with writes allowed
    QTRY_VERIFY_WITH_TIMEOUT(session.isOpen(), 10000);
    SimulatorPlace place(&session);
    place.show();
    QVERIFY(targetTheConnectedServer(place));
    Scenario edited;
    QVERIFY(loadPresetWithBoxTicked(place, QStringLiteral("cluster-locks"), "clusterCheck", &edited));
    QVERIFY(edited.servers.cluster);
    QVERIFY(place.run());
    QVERIFY(waitForRun(place));
    QVERIFY2(place.controller()->errorString().isEmpty(), qPrintable(place.controller()->errorString()));
    const QString server = place.controller()->run(0).report.server;
    QVERIFY2(server == QStringLiteral("cluster 127.0.0.1:%1").arg(cluster.master(0).port()),
             qPrintable(server));
    QVERIFY2(place.controller()->outcome().passed(), qPrintable(place.controller()->outcome().summaryText()));
}

// F1 through real sentinels from the GUI: the editor shows the Sentinel box, the run happens on a sandbox
// master + replica + 3 sentinels, and the story shows two holders.
void TestSimulatorPlace::runsTheSentinelFailoverStory()
{
    SimulatorPlace place(nullptr);
    place.show();
    Scenario edited;
    QVERIFY(loadPresetWithBoxTicked(place, QStringLiteral("failover-sentinel"), "sentinelCheck", &edited));
    QVERIFY(edited.servers.sentinel);
    QVERIFY(place.run());
    QVERIFY(waitForRun(place));
    QVERIFY2(place.controller()->errorString().isEmpty(), qPrintable(place.controller()->errorString()));
    const RunReport &report = place.controller()->run(0).report;
    QVERIFY2(report.server.contains(QLatin1String("behind sentinels")), qPrintable(report.server));
    QVERIFY2(place.controller()->outcome().passed(), qPrintable(place.controller()->outcome().summaryText()));
}

QTEST_MAIN(TestSimulatorPlace)
#include "tst_simulatorplace.moc"
