// The timeline's data and painting: events land on the right lanes at the right times, leases run from the
// winning attempt and are pushed back by renewals, pauses/crashes/server faults/story steps are placed where
// they happened, and the painted pixels say so (offscreen, no Redis needed).
#include "../sim/historybuilder.h"
#include "timelinefixture.h"
#include "simulator/eventlogmodel.h"
#include "timeline/timelinedata.h"
#include "timeline/timelinelegendpainter.h"
#include "timeline/timelinerenderer.h"
#include "timeline/timelineview.h"

#include <QScrollBar>

#include <QImage>
#include <QPainter>
#include <QSignalSpy>
#include <QTest>

using Hold = TimelineData::Hold;
using FaultType = HistoryEvent::FaultType;

class TestTimeline : public QObject
{
    Q_OBJECT
private slots:
    void holdsWaitsAndLeases();
    void renewalsPushTheLeaseBack();
    void reentrantAcquiresFoldIntoOneTenure();
    void pausesCrashesAndStrayReleases();
    void serverFaultsAndStorySteps();
    void batchesMatchOneBigAppend();
    void paintedPixelsMatchLanesAndTimes();
    void hitTestDescribesWhatIsThere();
    void violationBandsAreHitAndSelectable();
    void denseRunsPaintAtEveryZoom();
    void redlockRoundsShowTheirVotes();
    void legendFitsEveryEntry();
    void keyLostBeforeItsLeaseIsNoExpiry();
    void workerLanesGroupByProcess();
    void laneNamesNeverOverlap();

private:
    static TimelineData::Layout twoWorkers() { return TimelineFixture::twoWorkers(); }
    static QColor pixel(const QImage &image, double x, double y);
    static bool near(const QColor &a, const QColor &b, int tolerance = 40);
    static QList<HistoryEvent> withEffects(QList<HistoryEvent> events)
    {
        return TimelineFixture::withEffects(std::move(events));
    }
    // `processes` × `threads` workers named P1-T1…, one lock.
    static TimelineData::Layout processesOfThreads(int processes, int threads);
    // The first two names in the column that overlap, or empty.
    static QString overlap(const QList<TimelineFramePainter::HeaderLabel> &labels);
};

TimelineData::Layout TestTimeline::processesOfThreads(int processes, int threads)
{
    TimelineData::Layout layout;
    for (int w = 0; w < processes * threads; ++w) {
        layout.workers << QStringLiteral("P%1-T%2").arg(w / threads + 1).arg(w % threads + 1);
        layout.workerProcesses << w / threads;
    }
    for (int p = 0; p < processes; ++p)
        layout.processes << QStringLiteral("P%1").arg(p + 1);
    layout.locks = {QStringLiteral("lock:0")};
    return layout;
}

QString TestTimeline::overlap(const QList<TimelineFramePainter::HeaderLabel> &labels)
{
    for (qsizetype i = 0; i < labels.size(); ++i) {
        for (qsizetype j = i + 1; j < labels.size(); ++j) {
            if (labels.at(i).rect.intersects(labels.at(j).rect))
                return QStringLiteral("'%1' and '%2'").arg(labels.at(i).text, labels.at(j).text);
        }
    }
    return QString();
}

QColor TestTimeline::pixel(const QImage &image, double x, double y)
{
    return image.pixelColor(int(std::round(x)), int(std::round(y)));
}

bool TestTimeline::near(const QColor &a, const QColor &b, int tolerance)
{
    return std::abs(a.red() - b.red()) + std::abs(a.green() - b.green()) + std::abs(a.blue() - b.blue())
        <= tolerance;
}

void TestTimeline::holdsWaitsAndLeases()
{
    // A: asks at 0, gets it at 10 ms (attempt began at 5 ms) with a 100 ms lease, releases at 200–210 ms.
    // B: waits from 50 ms, gets it at 220 ms, releases at 300–301 ms.
    HistoryBuilder b;
    b.acquire(0, 0, 0, 10, 100).release(0, 0, 200, 210).acquire(1, 0, 50, 220, 100).release(1, 0, 300, 301);
    QList<HistoryEvent> events = b.events();
    for (HistoryEvent &e : events) {
        if (e.worker == 0 && e.kind == HistoryEvent::Kind::Acquire && e.phase == HistoryEvent::Phase::Ok)
            e.effectUs = 5000;
    }
    events = withEffects(events);
    TimelineData data(twoWorkers());
    data.append(events);
    data.finish(400000);

    QCOMPARE(data.waits(0).size(), 1);
    QCOMPARE(data.waits(0).first().startUs, 0);
    QCOMPARE(data.waits(0).first().endUs, 10000);
    QCOMPARE(data.waits(0).first().outcome, TimelineData::Wait::Outcome::Acquired);
    QCOMPARE(data.waits(1).first().startUs, 50000);
    QCOMPARE(data.waits(1).first().endUs, 220000);

    QCOMPARE(data.holds(0, 0).size(), 1);
    const Hold &a = data.holds(0, 0).first();
    QCOMPARE(a.startUs, 10000);
    QCOMPARE(a.leaseFromUs, 5000); // the lease runs from the winning attempt
    QCOMPARE(a.validUntilUs, 105000);
    QCOMPARE(a.endUs, 200000);
    QCOMPARE(a.releaseEndUs, 210000);
    QVERIFY(a.expired(data.nowUs())); // released long after its 100 ms lease ran out
    QCOMPARE(a.keyEndUs(), 105000);
    const Hold &bHold = data.holds(1, 0).first();
    QCOMPARE(bHold.startUs, 220000);
    QVERIFY(!bHold.expired(data.nowUs()));
    QCOMPARE(bHold.keyEndUs(), 301000);
    QCOMPARE(data.expiries(), 1);

    using S = TimelineData::WorkerState;
    QCOMPARE(data.workerStateAt(0, 5000), S::Waiting);
    QCOMPARE(data.workerStateAt(0, 50000), S::Holding);
    QCOMPARE(data.workerStateAt(0, 150000), S::Stale);
    QCOMPARE(data.workerStateAt(0, 205000), S::Releasing);
    QCOMPARE(data.workerStateAt(0, 250000), S::Idle);
    QCOMPARE(data.workerStateAt(1, 100000), S::Waiting);
    QCOMPARE(data.workerStateAt(1, 250000), S::Holding);
}

void TestTimeline::renewalsPushTheLeaseBack()
{
    HistoryBuilder b;
    // Renewals come from the process's watchdog log (another log than the worker's).
    b.acquire(0, 0, 0, 1, 100)
        .renew(0, 0, 33, 34, 100, 7)
        .renew(0, 0, 66, 67, 100, 7)
        .release(0, 0, 150, 151);
    TimelineData data(twoWorkers());
    data.append(b.events());
    const Hold &h = data.holds(0, 0).first();
    QCOMPARE(h.renewals, quint16(2));
    QCOMPARE(h.validUntilUs, 166000); // the last renewal started at 66 ms
    QVERIFY(!h.expired(data.nowUs()));
    QCOMPARE(data.renewals(0).size(), 2);
    QCOMPARE(data.renewals(0).at(1).startUs, 66000);
    QCOMPARE(data.renewals(0).at(1).timeUs, 67000);
    QCOMPARE(data.renewalCount(), 2);
    QCOMPARE(data.expiries(), 0);
}

void TestTimeline::reentrantAcquiresFoldIntoOneTenure()
{
    HistoryBuilder b;
    b.acquire(0, 0, 0, 1, 100)
        .acquire(0, 0, 2, 3, 100)
        .release(0, 0, 10, 11, HistoryEvent::ReleaseOutcome::StillHeld, 0)
        .release(0, 0, 12, 13);
    TimelineData data(twoWorkers());
    data.append(b.events());
    QCOMPARE(data.holds(0, 0).size(), 1);
    QCOMPARE(data.holds(0, 0).first().endUs, 12000); // the release that let go, not the inner one
    QCOMPARE(data.waits(0).size(), 2);
}

void TestTimeline::pausesCrashesAndStrayReleases()
{
    HistoryBuilder b;
    b.acquire(0, 0, 0, 1, 100)
        .fault(FaultType::PauseStart, 0, 20)
        .fault(FaultType::PauseEnd, 0, 220)
        .release(0, 0, 230, 231, HistoryEvent::ReleaseOutcome::NotOwner, 0)
        .acquire(1, 0, 10, 120, 100)
        .fault(FaultType::Crash, 1, 150)
        .release(0, 0, 240, 241, HistoryEvent::ReleaseOutcome::NotOwner, 0);
    TimelineData data(twoWorkers());
    data.append(withEffects(b.events()));
    data.finish(300000);
    QCOMPARE(data.processShades(0).size(), 1);
    QCOMPARE(data.processShades(0).first().type, TimelineData::Shade::Type::Paused);
    QCOMPARE(data.processShades(0).first().startUs, 20000);
    QCOMPARE(data.processShades(0).first().endUs, 220000);
    QCOMPARE(data.processShades(1).first().type, TimelineData::Shade::Type::Crashed);
    QCOMPARE(data.processShades(1).first().endUs, 300000); // a crash lasts to the end
    // B crashed holding the lock: it stops counting on it, its key lives on until the lease ends.
    const Hold &bHold = data.holds(1, 0).first();
    QVERIFY(bHold.flags & Hold::Crashed);
    QCOMPARE(bHold.endUs, 150000);
    QCOMPARE(bHold.keyEndUs(), 219000); // from its winning attempt at 119 ms
    using S = TimelineData::WorkerState;
    QCOMPARE(data.workerStateAt(0, 100000), S::Paused);
    QCOMPARE(data.workerStateAt(1, 200000), S::Crashed);
    // A's release found someone else's lock; its second release had nothing to release.
    QCOMPARE(data.holds(0, 0).first().releaseOutcome, qint8(HistoryEvent::ReleaseOutcome::NotOwner));
    QCOMPARE(data.marks(0).size(), 1);
    QCOMPARE(data.marks(0).first().type, TimelineData::Mark::Type::ReleaseWithoutHold);
    QCOMPARE(data.expiries(), 2); // A's lease ran out during its pause, B's after its crash
}

void TestTimeline::serverFaultsAndStorySteps()
{
    TimelineData::Layout layout = twoWorkers();
    layout.servers = 5;
    Scenario::Step s0, s1, s2;
    s0.note = QStringLiteral("first");
    s2.note = QStringLiteral("third, second narrated");
    layout.steps = {s0, s1, s2};
    const auto fault = [](FaultType type, qint64 ms, qint64 value) {
        HistoryEvent e;
        e.timeUs = ms * 1000;
        e.kind = HistoryEvent::Kind::Fault;
        e.outcome = quint8(type);
        e.value = value;
        return e;
    };
    TimelineData data(layout);
    QVERIFY(!data.hasServerActivity());
    data.append({fault(FaultType::StoryStep, 0, 0), fault(FaultType::ServerKill, 1, 3),
                 fault(FaultType::StoryStep, 5, 2), fault(FaultType::ServerRestart, 10, 3),
                 fault(FaultType::ServerResume, 12, 3), fault(FaultType::ServerPause, 20, 1)});
    QVERIFY(data.hasServerActivity());
    QCOMPARE(data.serverShades(3).size(), 1);
    QCOMPARE(data.serverShades(3).first().startUs, 1000);
    QCOMPARE(data.serverShades(3).first().endUs, 12000); // killed, then back with the restart
    QCOMPARE(data.serverShades(1).first().type, TimelineData::Shade::Type::ServerPaused);
    QCOMPARE(data.steps().size(), 2);
    QCOMPARE(data.steps().at(1).number, 2); // numbered among the narrated steps, as the Learn place does
    QCOMPARE(data.steps().at(1).note, QStringLiteral("third, second narrated"));
    QCOMPARE(data.stepAt(4000)->number, 1);
    QCOMPARE(data.stepAt(6000)->number, 2);

    TimelineRenderer renderer;
    renderer.setData(&data);
    QVERIFY(renderer.laneOf(TimelineRenderer::LaneType::Story, 0) >= 0);
    QVERIFY(renderer.laneOf(TimelineRenderer::LaneType::Server, 4) >= 0);
    QVERIFY(renderer.laneOf(TimelineRenderer::LaneType::Lock, 0)
            > renderer.laneOf(TimelineRenderer::LaneType::Server, 4));
    QVERIFY(renderer.laneOf(TimelineRenderer::LaneType::Worker, 1)
            > renderer.laneOf(TimelineRenderer::LaneType::Worker, 0));
}

void TestTimeline::batchesMatchOneBigAppend()
{
    HistoryBuilder b;
    for (int i = 0; i < 20; ++i) {
        const int w = i % 2;
        b.acquire(w, 0, i * 10, i * 10 + 2, 50)
            .renew(w, 0, i * 10 + 3, i * 10 + 4, 50, 9)
            .release(w, 0, i * 10 + 7, i * 10 + 8);
    }
    const QList<HistoryEvent> events = b.events();
    TimelineData whole(twoWorkers());
    whole.append(events);
    TimelineData batched(twoWorkers());
    for (qsizetype i = 0; i < events.size(); i += 7)
        batched.append(events.mid(i, 7));
    for (int w = 0; w < 2; ++w) {
        QCOMPARE(batched.holds(w, 0).size(), whole.holds(w, 0).size());
        for (qsizetype i = 0; i < whole.holds(w, 0).size(); ++i) {
            QCOMPARE(batched.holds(w, 0).at(i).validUntilUs, whole.holds(w, 0).at(i).validUntilUs);
            QCOMPARE(batched.holds(w, 0).at(i).endUs, whole.holds(w, 0).at(i).endUs);
        }
        QCOMPARE(batched.waits(w).size(), whole.waits(w).size());
    }
    QCOMPARE(batched.renewalCount(), 20);
}

void TestTimeline::paintedPixelsMatchLanesAndTimes()
{
    HistoryBuilder b;
    b.acquire(0, 0, 0, 10, 100).release(0, 0, 200, 210).acquire(1, 0, 50, 220, 100).release(1, 0, 300, 301);
    TimelineData data(twoWorkers());
    data.append(withEffects(b.events()));
    data.finish(400000);
    TimelineRenderer renderer;
    const TimelinePalette palette = TimelinePalette::light();
    renderer.setPalette(palette);
    renderer.setData(&data);
    renderer.setWorkerLaneHeight(40);
    TimelineRenderer::View view;
    view.startUs = 0;
    view.endUs = 400000;
    view.rect = QRect(0, 0, 1000, 400);
    QImage image(view.rect.size(), QImage::Format_ARGB32);
    {
        QPainter p(&image);
        renderer.paint(p, view);
    }
    const auto laneY = [&](TimelineRenderer::LaneType type, int index) {
        const TimelineRenderer::Lane &lane = renderer.lanes().at(renderer.laneOf(type, index));
        return renderer.lanesRect(view).top() + lane.y + lane.height / 2.0;
    };
    const double aY = laneY(TimelineRenderer::LaneType::Worker, 0);
    const double bY = laneY(TimelineRenderer::LaneType::Worker, 1);
    const double lockY = laneY(TimelineRenderer::LaneType::Lock, 0);
    const auto x = [&](qint64 ms) { return renderer.xForTime(ms * 1000, view); };
    QVERIFY(renderer.laneAt(int(aY), view) == renderer.laneOf(TimelineRenderer::LaneType::Worker, 0));
    QCOMPARE(renderer.timeForX(x(150), view) / 1000, 150);

    // A holds (blue) at 50 ms, then works on with its lease gone (no longer plain blue) at 150 ms.
    QVERIFY2(near(pixel(image, x(50), aY), palette.holding), qPrintable(pixel(image, x(50), aY).name()));
    QVERIFY(!near(pixel(image, x(150), aY), palette.holding));
    // B waits (amber) at 100 ms and holds at 250 ms; nothing on its lane before it asked.
    QVERIFY2(near(pixel(image, x(100), bY), palette.waiting), qPrintable(pixel(image, x(100), bY).name()));
    QVERIFY(near(pixel(image, x(250), bY), palette.holding));
    QVERIFY(!near(pixel(image, x(30), bY), palette.waiting)
            && !near(pixel(image, x(30), bY), palette.holding));
    // The lock lane: A's key exists at 50 ms, nobody's between 105 and 220 ms.
    const QColor lockAt50 = pixel(image, x(50), lockY + 10);
    const QColor lockAt150 = pixel(image, x(160), lockY + 10); // off the grid lines
    QVERIFY2(near(lockAt50, palette.holding, 120) || near(lockAt50, palette.holdingLight, 60),
             qPrintable(lockAt50.name()));
    QVERIFY2(near(lockAt150, palette.background, 30) || near(lockAt150, palette.laneAlt, 30),
             qPrintable(lockAt150.name()));
    // Nothing is drawn right of the replay cursor.
    view.cursorUs = 100000;
    {
        QPainter p(&image);
        renderer.paint(p, view);
    }
    QVERIFY(!near(pixel(image, x(250), bY), palette.holding));
    QVERIFY(near(pixel(image, x(50), aY), palette.holding));
}

void TestTimeline::hitTestDescribesWhatIsThere()
{
    HistoryBuilder b;
    b.acquire(0, 0, 0, 10, 100)
        .renew(0, 0, 40, 41, 100, 7)
        .release(0, 0, 200, 210)
        .acquire(1, 0, 50, 220, 100);
    TimelineData data(twoWorkers());
    data.append(b.events());
    data.finish(400000);
    TimelineRenderer renderer;
    renderer.setData(&data);
    renderer.setWorkerLaneHeight(40);
    renderer.setTextLookup([](const HistoryEvent &e) {
        return e.kind == HistoryEvent::Kind::Acquire ? QStringLiteral("acquired: token 7") : QString();
    });
    TimelineRenderer::View view;
    view.endUs = 400000;
    view.rect = QRect(0, 0, 1000, 400);
    const auto at = [&](TimelineRenderer::LaneType type, int index, qint64 ms) {
        const TimelineRenderer::Lane &lane = renderer.lanes().at(renderer.laneOf(type, index));
        return QPoint(int(renderer.xForTime(ms * 1000, view)),
                      int(renderer.lanesRect(view).top() + lane.y + lane.height / 2.0));
    };
    QString html = renderer.hitTest(at(TimelineRenderer::LaneType::Worker, 0, 80), view).html;
    QVERIFY2(html.contains(QLatin1String("A holds")), qPrintable(html));
    QVERIFY(html.contains(QLatin1String("renewed 1 time")));
    QVERIFY(html.contains(QLatin1String("acquired: token 7")));
    html = renderer.hitTest(at(TimelineRenderer::LaneType::Worker, 0, 41), view).html;
    QVERIFY2(html.contains(QLatin1String("renewal")), qPrintable(html));
    html = renderer.hitTest(at(TimelineRenderer::LaneType::Worker, 1, 100), view).html;
    QVERIFY2(html.contains(QLatin1String("B waits")), qPrintable(html));
    html = renderer.hitTest(at(TimelineRenderer::LaneType::Lock, 0, 60), view).html;
    QVERIFY2(html.contains(QLatin1String("TTL left")), qPrintable(html));
    html = renderer.hitTest(at(TimelineRenderer::LaneType::Lock, 0, 180), view).html;
    QVERIFY2(html.contains(QLatin1String("free")), qPrintable(html));
}

void TestTimeline::violationBandsAreHitAndSelectable()
{
    HistoryBuilder b;
    b.acquire(0, 0, 0, 10, 100)
        .enter(0, 0, 10)
        .acquire(1, 0, 20, 120, 100)
        .enter(1, 0, 120)
        .exit(0, 0, 200)
        .exit(1, 0, 250);
    TimelineData data(twoWorkers());
    data.append(b.events());
    data.finish(300000);
    Violation v;
    v.type = Violation::Type::Overlap;
    v.lock = 0;
    v.workers = {1, 0};
    v.startUs = 120000;
    v.endUs = 200000;
    v.text = QStringLiteral("A and B were both inside");
    data.setViolations({v});

    TimelineView view;
    view.resize(1000, 400);
    view.setData(&data);
    view.zoomToFit();
    const TimelineRenderer &r = view.renderer();
    const TimelineRenderer::View current = view.currentView();
    const TimelineRenderer::Lane &lane = r.lanes().at(r.laneOf(TimelineRenderer::LaneType::Worker, 1));
    const QPoint inBand(int(r.xForTime(150000, current)),
                        r.lanesRect(current).top() + lane.y + lane.height / 2);
    const TimelineRenderer::Hit hit = r.hitTest(inBand, current);
    QCOMPARE(hit.violation, 0);
    QVERIFY(hit.html.contains(QLatin1String("both inside")));

    QSignalSpy clicked(&view, &TimelineView::violationClicked);
    QTest::mouseClick(view.viewport(), Qt::LeftButton, {}, inBand);
    QCOMPARE(clicked.count(), 1);
    QCOMPARE(view.selectedViolation(), 0);
    // A finished run: the click also placed the replay cursor there.
    QVERIFY(std::llabs(view.cursorTime() - 150000) < 2000);

    view.zoomToFit();
    view.selectViolation(0);
    QVERIFY(view.viewStart() <= 120000 && view.viewEnd() >= 200000);
    QVERIFY(view.viewEnd() - view.viewStart() < 300000 * 2); // zoomed on the window, with a margin
}

void TestTimeline::denseRunsPaintAtEveryZoom()
{
    // 50 workers × 2 s of short cycles: the level of detail must keep every lane painted, at any zoom.
    TimelineData::Layout layout;
    for (int w = 0; w < 50; ++w) {
        layout.workers << QStringLiteral("P%1-T%2").arg(w / 10 + 1).arg(w % 10 + 1);
        layout.workerProcesses << w / 10;
    }
    for (int p = 0; p < 5; ++p)
        layout.processes << QStringLiteral("P%1").arg(p + 1);
    layout.locks = {QStringLiteral("lock:0")};
    HistoryBuilder b;
    double t = 0;
    for (int i = 0; i < 4000; ++i) {
        const int w = i % 50;
        b.acquire(w, 0, t, t + 0.3, 1000).release(w, 0, t + 2.3, t + 2.35);
        t += 0.5;
    }
    TimelineData data(layout);
    data.append(b.events());
    data.finish(qint64(t * 1000));
    TimelineRenderer renderer;
    renderer.setData(&data);
    renderer.setWorkerLaneHeight(10);
    QImage image(1200, 800, QImage::Format_ARGB32);
    for (qint64 span : {qint64(t * 1000), qint64(100000), qint64(2000)}) {
        TimelineRenderer::View view;
        view.startUs = qint64(t * 1000) / 2 - span / 2;
        view.endUs = view.startUs + span;
        view.rect = image.rect();
        QPainter p(&image);
        renderer.paint(p, view);
    }
    // Zoomed out, every worker lane shows some blue.
    TimelineRenderer::View view;
    view.endUs = qint64(t * 1000);
    view.rect = image.rect();
    {
        QPainter p(&image);
        renderer.paint(p, view);
    }
    QVERIFY(renderer.groupsWorkers()); // 5 processes × 10: grouped, and expanded unless a view collapses them
    const TimelineRenderer::Lane &lane
        = renderer.lanes().at(renderer.laneOf(TimelineRenderer::LaneType::Worker, 7));
    const int y = renderer.lanesRect(view).top() + lane.y + lane.height / 2;
    int blue = 0;
    for (int x = renderer.lanesRect(view).left(); x < image.width(); ++x) {
        const QColor c = image.pixelColor(x, y);
        blue += c.blue() - c.red() > 60 ? 1 : 0; // sub-pixel holds are drawn as a paler blue
    }
    QVERIFY2(blue >= 40, qPrintable(QString::number(blue)));
}

void TestTimeline::redlockRoundsShowTheirVotes()
{
    using RO = HistoryEvent::RoundOutcome;
    // Five servers. A: a round at 5 ms that only 0 and 1 granted (2/5, lost), then one at 100 ms granted by
    // 0, 1, 2 and 4 (server 3 did not answer) that won the lock with 2.8 s of validity left.
    // B: two lost rounds while A holds (everyone refused; server 3 silent), then it gives up.
    HistoryBuilder b;
    b.acquire(0, 0, 0, 105, 3000)
        .round(0, 0, 5, 8, RO::NoQuorum, 0b00011, 0b11111, 2990)
        .round(0, 0, 100, 104, RO::Won, 0b10111, 0b10111, 2800)
        .release(0, 0, 1500, 1501)
        .acquireFailed(1, 0, 200, 700, 3000)
        .round(1, 0, 210, 212, RO::NoQuorum, 0, 0b10111, 2990)
        .round(1, 0, 450, 452, RO::ValiditySpent, 0b00111, 0b10111, -5);
    QList<HistoryEvent> events = b.events();
    for (HistoryEvent &e : events) {
        if (e.kind == HistoryEvent::Kind::Acquire && e.phase == HistoryEvent::Phase::Ok) {
            e.effectUs = 100000; // the winning round's start
            e.votesGranted = 0b10111;
            e.votesAnswered = 0b10111;
        }
    }
    TimelineData::Layout layout = twoWorkers();
    layout.servers = 5;
    TimelineData data(layout);
    data.append(events);
    data.finish(2000000);
    QCOMPARE(data.roundCount(), 4);
    QCOMPARE(data.roundsWon(), 1);
    QCOMPARE(data.rounds(0).size(), 2);
    QCOMPARE(data.rounds(1).size(), 2);
    const TimelineData::Round &lost = data.rounds(0).at(0);
    QVERIFY(!lost.won());
    QCOMPARE(lost.startUs, 5000);
    QCOMPARE(lost.grantedCount(), 2);
    QCOMPARE(lost.vote(0), 1);
    QCOMPARE(lost.vote(2), 0);
    QCOMPARE(data.holds(0, 0).size(), 1);
    const TimelineData::Round *won = data.roundOf(0, data.holds(0, 0).first());
    QVERIFY(won);
    QVERIFY(won->won());
    QCOMPARE(won->validityMs, 2800);
    QCOMPARE(won->vote(3), -1); // no answer
    QCOMPARE(won->vote(4), 1);
    QCOMPARE(data.events().at(won->event).votePattern(5), QByteArray("111x1"));

    TimelineRenderer renderer;
    const TimelinePalette palette = TimelinePalette::light();
    renderer.setPalette(palette);
    renderer.setData(&data);
    renderer.setWorkerLaneHeight(30);
    TimelineRenderer::View view;
    view.endUs = 2000000;
    view.rect = QRect(0, 0, 1200, 420);
    const TimelineRenderer::Lane &laneA
        = renderer.lanes().at(renderer.laneOf(TimelineRenderer::LaneType::Worker, 0));
    const TimelineRenderer::Lane &laneB
        = renderer.lanes().at(renderer.laneOf(TimelineRenderer::LaneType::Worker, 1));
    const int top = renderer.lanesRect(view).top();
    const auto lower = [&](const TimelineRenderer::Lane &lane, qint64 ms) {
        // Just right of the round's start, in the lower part of the lane where the cells are.
        return QPoint(int(renderer.xForTime(ms * 1000, view)) + 4, top + lane.y + lane.height * 3 / 4);
    };
    QString html = renderer.hitTest(lower(laneA, 100), view).html;
    QVERIFY2(html.contains(QLatin1String("round won")), qPrintable(html));
    QVERIFY2(html.contains(QStringLiteral("4/5 · validity 2.8 s")), qPrintable(html));
    QVERIFY(html.contains(QLatin1String("server 3: no answer")));
    QVERIFY(html.contains(QLatin1String("server 4: granted")));
    html = renderer.hitTest(lower(laneA, 5), view).html;
    QVERIFY2(html.contains(QLatin1String("no quorum")) && html.contains(QLatin1String("2/5")),
             qPrintable(html));
    QVERIFY(html.contains(QLatin1String("server 2: refused")));
    html = renderer.hitTest(lower(laneB, 450), view).html;
    QVERIFY2(html.contains(QLatin1String("validity spent")), qPrintable(html));
    // The hold says which quorum it stands on; the wait counts its rounds.
    html = renderer
               .hitTest(QPoint(int(renderer.xForTime(1000000, view)), top + laneA.y + laneA.height / 2), view)
               .html;
    QVERIFY2(html.contains(QStringLiteral("Redlock quorum: 4/5 · validity 2.8 s (votes 111x1)")),
             qPrintable(html));
    html = renderer
               .hitTest(QPoint(int(renderer.xForTime(600000, view)), top + laneB.y + laneB.height / 2), view)
               .html;
    QVERIFY2(html.contains(QLatin1String("2 rounds, 2 lost")), qPrintable(html));

    // Painted: under B's first round, green cells (granted by nobody: none), red ones (refused) and a grey
    // outline (server 3); under A's lost round, green for servers 0 and 1.
    QImage image(view.rect.size(), QImage::Format_ARGB32);
    {
        QPainter p(&image);
        renderer.paint(p, view);
    }
    const auto colours = [&](const TimelineRenderer::Lane &lane, qint64 ms) {
        int green = 0, red = 0;
        const int x0 = int(renderer.xForTime(ms * 1000, view));
        for (int x = x0; x < x0 + 30; ++x) {
            for (int y = top + lane.y + lane.height / 2; y < top + lane.y + lane.height; ++y) {
                const QColor c = image.pixelColor(x, y);
                green += near(c, palette.renewOk, 30) ? 1 : 0;
                red += near(c, palette.stale, 30) ? 1 : 0;
            }
        }
        return std::make_pair(green, red);
    };
    const auto [lostGreen, lostRed] = colours(laneA, 5);
    QVERIFY2(lostGreen >= 8 && lostRed >= 8, qPrintable(QStringLiteral("%1 %2").arg(lostGreen).arg(lostRed)));
    const auto [refusedGreen, refusedRed] = colours(laneB, 210);
    QCOMPARE(refusedGreen, 0);
    QVERIFY(refusedRed >= 12);

    // The event log: each round's outcome and votes.
    EventLogModel log;
    log.setRun(&data, [](const HistoryEvent &) { return QString(); });
    QStringList rounds;
    for (int r = 0; r < log.rowCount(); ++r) {
        if (log.index(r, EventLogModel::Kind).data().toString() == QLatin1String("round"))
            rounds << log.index(r, EventLogModel::Outcome).data().toString() + u'|'
                    + log.index(r, EventLogModel::Detail).data().toString();
    }
    QCOMPARE(rounds,
             (QStringList {QStringLiteral("2/5 · no quorum (needs 3)|votes 11000"),
                           QStringLiteral("won · 4/5 · validity 2.8 s|votes 111x1"),
                           QStringLiteral("0/5 · no quorum (needs 3)|votes 000x0"),
                           QStringLiteral("3/5 · validity spent (-5 ms)|votes 111x0")}));
}

// The legend wraps into as many rows as its width needs, and its height holds all of them: nothing is painted
// below legendHeight(), and the Redlock entry adds ink (and, when narrow, a row).
void TestTimeline::legendFitsEveryEntry()
{
    const TimelinePalette palette = TimelinePalette::light();
    const QFont font = QApplication::font();
    const auto inkRows = [&](int width, bool votes, int *inkPixels) {
        QImage image(width, 400, QImage::Format_ARGB32);
        image.fill(palette.background);
        {
            QPainter p(&image);
            TimelineLegendPainter::paint(p, QRect(0, 0, width, 400), palette, font, votes);
        }
        int lastRow = -1;
        *inkPixels = 0;
        for (int y = 0; y < image.height(); ++y) {
            for (int x = 0; x < width; ++x) {
                if (image.pixel(x, y) != palette.background.rgba()) {
                    lastRow = y;
                    ++*inkPixels;
                }
            }
        }
        return lastRow + 1;
    };
    for (const int width : {300, 600, 900, 1380, 2400}) {
        for (const bool votes : {false, true}) {
            int ink = 0;
            const int used = inkRows(width, votes, &ink);
            const int height = TimelineLegendPainter::height(width, font, votes);
            QVERIFY2(used > 0 && used <= height,
                     qPrintable(QStringLiteral("width %1 votes %2: ink down to %3, height %4")
                                    .arg(width)
                                    .arg(votes)
                                    .arg(used)
                                    .arg(height)));
        }
        int without = 0;
        int with = 0;
        inkRows(width, false, &without);
        inkRows(width, true, &with);
        QVERIFY2(with > without,
                 qPrintable(QStringLiteral("width %1: %2 vs %3").arg(width).arg(with).arg(without)));
        QVERIFY(TimelineLegendPainter::height(width, font, true)
                >= TimelineLegendPainter::height(width, font));
    }
    // Narrow: more rows than wide.
    QVERIFY(TimelineLegendPainter::height(300, font) > TimelineLegendPainter::height(2400, font));
}

// A holder whose key vanished before its lease ran out (the failover stories: the promoted replica never had
// it) finds nothing at release: that is no expiry. One that releases after its lease ran out is one.
void TestTimeline::keyLostBeforeItsLeaseIsNoExpiry()
{
    using RO = HistoryEvent::ReleaseOutcome;
    HistoryBuilder b;
    b.acquire(0, 0, 0, 1, 10000).release(0, 0, 7600, 7601, RO::AlreadyExpired, 0);
    b.acquire(1, 0, 2000, 2001, 1000).release(1, 0, 5000, 5001, RO::AlreadyExpired, 0);
    TimelineData data(twoWorkers());
    data.append(b.events());
    data.finish(8000000);
    QCOMPARE(data.expiries(), 1); // B's, whose 1 s lease ran out at 3 s; A's key was gone at 7.6 s of 10 s
}

// 50 workers in 10 processes: their lanes group under their process, which start collapsed (one lane each
// that sums its workers up); a click on a process's name shows its workers' lanes, another hides them; with
// every process expanded the lanes keep a readable height and the column scrolls.
void TestTimeline::workerLanesGroupByProcess()
{
    using LaneType = TimelineRenderer::LaneType;
    HistoryBuilder b;
    // P1: T2 waits from 50 ms, T1 holds 100–300 ms, then T2 holds 300–400 ms.
    b.acquire(0, 0, 90, 100, 1000)
        .release(0, 0, 300, 301)
        .acquire(1, 0, 50, 302, 1000)
        .release(1, 0, 400, 401);
    // P3: T1 holds from 450 ms on a 100 ms lease and works on until 800 ms; P3 is paused 500–700 ms.
    b.acquire(10, 0, 440, 450, 100)
        .release(10, 0, 800, 801)
        .fault(FaultType::PauseStart, 2, 500)
        .fault(FaultType::PauseEnd, 2, 700);
    TimelineData data(processesOfThreads(10, 5));
    data.append(withEffects(b.events()));
    data.finish(1000000);

    TimelineView view;
    view.resize(1000, 420);
    view.setData(&data);
    view.zoomToFit();
    const TimelineRenderer &r = view.renderer();
    QVERIFY(r.groupsWorkers());
    QVERIFY(data.workerCount() > TimelineView::kCollapseAbove);
    for (int p = 0; p < 10; ++p) {
        const int lane = r.laneOf(LaneType::Process, p);
        QVERIFY(lane >= 0);
        QVERIFY(r.lanes().at(lane).collapsed);
        QVERIFY(r.lanes().at(lane).height >= r.readableLaneHeight());
    }
    QCOMPARE(r.laneOf(LaneType::Worker, 0), -1);
    QCOMPARE(r.laneShowing(12), r.laneOf(LaneType::Process, 2));
    QCOMPARE(view.verticalScrollBar()->maximum(), 0); // ten lanes fit without scrolling
    QStringList names;
    for (const TimelineFramePainter::HeaderLabel &l : r.headerLabels(view.currentView()))
        names << l.text;
    QVERIFY2(names.contains(QStringLiteral("P3")) && names.contains(QStringLiteral("5 workers")),
             qPrintable(names.join(u'|')));

    // Painted: P1's lane is amber while only T2 waits, blue while T1 or T2 holds; P3's is red once T1's lease
    // ran out; P2's stays empty.
    const TimelinePalette palette = r.palette();
    const TimelineRenderer::View current = view.currentView();
    QImage image(current.rect.size(), QImage::Format_ARGB32);
    {
        QPainter p(&image);
        r.paint(p, current);
    }
    const auto at = [&](int process, qint64 ms) {
        const TimelineRenderer::Lane &lane = r.lanes().at(r.laneOf(LaneType::Process, process));
        return pixel(image, r.xForTime(ms * 1000, current),
                     r.lanesRect(current).top() + lane.y + lane.height / 2.0);
    };
    QVERIFY2(near(at(0, 70), palette.waiting), qPrintable(at(0, 70).name()));
    QVERIFY2(near(at(0, 200), palette.holding), qPrintable(at(0, 200).name()));
    QVERIFY(near(at(0, 350), palette.holding));
    QVERIFY(near(at(0, 600), palette.background, 30) || near(at(0, 600), palette.laneAlt, 30));
    QVERIFY(near(at(1, 200), palette.background, 30) || near(at(1, 200), palette.laneAlt, 30));
    QVERIFY2(near(at(2, 750), palette.stale, 60), qPrintable(at(2, 750).name()));
    // Its tooltip names each worker's state.
    const TimelineRenderer::Lane &p3 = r.lanes().at(r.laneOf(LaneType::Process, 2));
    const int p3Y = r.lanesRect(current).top() + p3.y + p3.height / 2;
    const QString html = r.hitTest(QPoint(int(r.xForTime(750000, current)), p3Y), current).html;
    QVERIFY2(html.contains(QLatin1String("P3-T1: lease expired!"))
                 && html.contains(QLatin1String("P3-T2: idle")),
             qPrintable(html));

    // A click on P3's name shows its workers; another collapses them again.
    QTest::mouseClick(view.viewport(), Qt::LeftButton, {}, QPoint(40, p3Y));
    QVERIFY(!r.lanes().at(r.laneOf(LaneType::Process, 2)).collapsed);
    for (int w = 10; w < 15; ++w) {
        QVERIFY(r.laneOf(LaneType::Worker, w) >= 0);
        QCOMPARE(r.laneShowing(w), r.laneOf(LaneType::Worker, w));
    }
    QCOMPARE(r.laneOf(LaneType::Worker, 0), -1);
    QVERIFY(r.laneOf(LaneType::Worker, 10) > r.laneOf(LaneType::Process, 2));
    QVERIFY(r.laneOf(LaneType::Worker, 14) < r.laneOf(LaneType::Process, 3));
    // (The lanes got thinner to make room: P3's name moved up.)
    const TimelineRenderer::Lane &header = r.lanes().at(r.laneOf(LaneType::Process, 2));
    QTest::mouseClick(view.viewport(), Qt::LeftButton, {},
                      QPoint(40, r.lanesRect(view.currentView()).top() + header.y + header.height / 2));
    QVERIFY(r.lanes().at(r.laneOf(LaneType::Process, 2)).collapsed);
    QCOMPARE(r.laneOf(LaneType::Worker, 10), -1);

    // Every process expanded: 50 lanes no thinner than a name, and the lanes scroll.
    view.setAllProcessesCollapsed(false);
    for (int w = 0; w < 50; ++w) {
        const int lane = r.laneOf(LaneType::Worker, w);
        QVERIFY(lane >= 0);
        QVERIFY(r.lanes().at(lane).height >= r.readableLaneHeight());
    }
    QVERIFY(view.verticalScrollBar()->maximum() > 0);

    // A small grouped run (2 × 3 workers) starts expanded.
    TimelineData small(processesOfThreads(2, 3));
    small.finish(1000000);
    TimelineView smallView;
    smallView.resize(1000, 420);
    smallView.setData(&small);
    QVERIFY(smallView.renderer().groupsWorkers());
    QVERIFY(smallView.renderer().laneOf(LaneType::Worker, 5) >= 0);
    // Actors of a story, one process each, are not grouped.
    TimelineData story(twoWorkers());
    TimelineRenderer storyRenderer;
    storyRenderer.setData(&story);
    QVERIFY(!storyRenderer.groupsWorkers());
    QCOMPARE(storyRenderer.laneOf(LaneType::Process, 0), -1);
}

// The names in the lane column never overlap: not with 50 workers collapsed, expanded or scrolled, nor when
// lanes are made thinner than a name (names are then left out rather than written over each other).
void TestTimeline::laneNamesNeverOverlap()
{
    using LaneType = TimelineRenderer::LaneType;
    TimelineData data(processesOfThreads(10, 5));
    data.finish(1000000);
    TimelineView view;
    view.resize(1024, 300);
    view.setData(&data);
    const TimelineRenderer &r = view.renderer();
    const auto check = [&](const char *what) {
        const QList<TimelineFramePainter::HeaderLabel> labels = r.headerLabels(view.currentView());
        const QString clash = overlap(labels);
        if (!clash.isEmpty())
            return QStringLiteral("%1: %2 overlap").arg(QLatin1String(what), clash);
        // Every lane in sight keeps its name.
        const TimelineRenderer::View current = view.currentView();
        const QRect lanes = r.lanesRect(current);
        for (const TimelineRenderer::Lane &lane : r.lanes()) {
            const int top = lanes.top() + lane.y - current.scrollY;
            if (top < lanes.top() || top + lane.height > lanes.bottom() || lane.type == LaneType::Lock)
                continue;
            const QString name = lane.type == LaneType::Worker ? data.layout().workers.at(lane.index)
                                                               : data.layout().processes.at(lane.index);
            const bool named = std::any_of(labels.begin(), labels.end(), [&](const auto &l) {
                return l.text.startsWith(name) && l.rect.top() >= top - 1
                    && l.rect.bottom() <= top + lane.height + 1;
            });
            if (!named)
                return QStringLiteral("%1: %2 has no name beside it").arg(QLatin1String(what), name);
        }
        return QString();
    };
    QString problem = check("collapsed");
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    view.setAllProcessesCollapsed(false);
    problem = check("expanded");
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    view.verticalScrollBar()->setValue(view.verticalScrollBar()->maximum() / 2 + 7);
    problem = check("scrolled");
    QVERIFY2(problem.isEmpty(), qPrintable(problem));

    // Lanes thinner than a name (as the view never makes them): some names go, none overlap.
    TimelineRenderer renderer;
    renderer.setData(&data);
    for (const int height : {4, 7, 9, 11, 13, 16, 20}) {
        renderer.setWorkerLaneHeight(height);
        TimelineRenderer::View v;
        v.endUs = 1000000;
        v.rect = QRect(0, 0, 1024, 2000);
        const QString clash = overlap(renderer.headerLabels(v));
        QVERIFY2(clash.isEmpty(), qPrintable(QStringLiteral("lanes of %1 px: %2").arg(height).arg(clash)));
    }
}

QTEST_MAIN(TestTimeline)
#include "tst_timeline.moc"
