// The Simulator's item models under QAbstractItemModelTester: the event log (filters, live growth, CSV) and
// the violation list (growing live, reset when the checker changes its mind).
#include "../sim/historybuilder.h"
#include "simulator/eventlogmodel.h"
#include "simulator/violationmodel.h"

#include <QAbstractItemModelTester>
#include <QBuffer>
#include <QSignalSpy>
#include <QTest>

class TestModels : public QObject
{
    Q_OBJECT
private slots:
    void eventLogShowsEveryEvent();
    void eventLogFiltersAndGrows();
    void eventLogWritesTheRowsShown();
    void eventLogSaysUnknownOutcomesInWords();
    void violationsGrowAndReset();

private:
    static TimelineData::Layout layout();
    static QList<HistoryEvent> history();
};

TimelineData::Layout TestModels::layout()
{
    TimelineData::Layout l;
    l.workers = {QStringLiteral("A"), QStringLiteral("B")};
    l.workerProcesses = {0, 1};
    l.processes = {QStringLiteral("A"), QStringLiteral("B")};
    l.locks = {QStringLiteral("lock:0"), QStringLiteral("lock:1")};
    return l;
}

QList<HistoryEvent> TestModels::history()
{
    HistoryBuilder b;
    b.acquire(0, 0, 0, 1, 100)
        .read(0, 0, 2, 41)
        .write(0, 0, 3, 4, 40)
        .release(0, 0, 5, 6)
        .acquire(1, 1, 1, 2, 100)
        .fault(HistoryEvent::FaultType::PauseStart, 1, 3)
        .fault(HistoryEvent::FaultType::PauseEnd, 1, 8)
        .release(1, 1, 9, 10);
    return b.events();
}

void TestModels::eventLogShowsEveryEvent()
{
    TimelineData data(layout());
    data.append(history());
    EventLogModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setRun(&data, [](const HistoryEvent &e) {
        return e.kind == HistoryEvent::Kind::Read ? QStringLiteral("read 41") : QString();
    });
    QCOMPARE(model.rowCount(), int(data.events().size()));
    QCOMPARE(model.columnCount(), int(EventLogModel::ColumnCount));
    // Rows are in time order and say who did what.
    for (int r = 1; r < model.rowCount(); ++r)
        QVERIFY(model.index(r, 0).data(EventLogModel::TimeUsRole).toLongLong()
                >= model.index(r - 1, 0).data(EventLogModel::TimeUsRole).toLongLong());
    const int readRow = model.rowAtTime(2000);
    QCOMPARE(model.index(readRow, EventLogModel::Kind).data().toString(), QStringLiteral("read"));
    QCOMPARE(model.index(readRow, EventLogModel::Worker).data().toString(), QStringLiteral("A"));
    QCOMPARE(model.index(readRow, EventLogModel::Lock).data().toString(), QStringLiteral("lock:0"));
    QCOMPARE(model.index(readRow, EventLogModel::Value).data().toLongLong(), 41);
    QCOMPARE(model.index(readRow, EventLogModel::Detail).data().toString(), QStringLiteral("read 41"));
    const int pauseRow = model.rowAtTime(3000) + 1;
    QCOMPARE(model.index(pauseRow, EventLogModel::Kind).data().toString(), QStringLiteral("fault"));
    QCOMPARE(model.index(pauseRow, EventLogModel::Outcome).data().toString(), QStringLiteral("pause"));
    model.setRun(nullptr);
    QCOMPARE(model.rowCount(), 0);
}

void TestModels::eventLogFiltersAndGrows()
{
    const QList<HistoryEvent> events = history();
    TimelineData data(layout());
    data.append(events.mid(0, 6));
    EventLogModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setRun(&data);
    model.setFilter(1, -1, -1); // B, and the faults of B's process
    QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
    const int before = model.rowCount();
    data.append(events.mid(6));
    model.refresh();
    QCOMPARE(inserted.count(), 1);
    int expected = 0;
    for (const HistoryEvent &e : data.events())
        expected += e.worker == 1 || (e.worker < 0 && e.process == 1) ? 1 : 0;
    QCOMPARE(model.rowCount(), expected);
    QVERIFY(model.rowCount() > before);
    for (int r = 0; r < model.rowCount(); ++r) {
        const QString who = model.index(r, EventLogModel::Worker).data().toString();
        QVERIFY2(who == QLatin1String("B"), qPrintable(who));
    }
    model.setFilter(-1, 0, int(HistoryEvent::Kind::Acquire));
    QCOMPARE(model.rowCount(), 2); // A's invoke and completion on lock:0
    model.setFilter(-1, -1, int(HistoryEvent::Kind::Fault));
    QCOMPARE(model.rowCount(), 2);
    model.setFilter(-1, -1, -1);
    QCOMPARE(model.rowCount(), int(data.events().size()));
    model.refresh(); // nothing new: nothing inserted
    QCOMPARE(model.rowCount(), int(data.events().size()));
}

void TestModels::eventLogWritesTheRowsShown()
{
    TimelineData data(layout());
    data.append(history());
    EventLogModel model;
    model.setRun(&data, [](const HistoryEvent &) { return QStringLiteral("has, a comma \"and quotes\""); });
    model.setFilter(0, -1, -1);
    QBuffer out;
    out.open(QIODevice::WriteOnly);
    QCOMPARE(model.writeCsv(out), qint64(model.rowCount()));
    const QList<QByteArray> lines = out.data().trimmed().split('\n');
    QCOMPARE(lines.size(), model.rowCount() + 1);
    QCOMPARE(lines.first(), QByteArray("time,worker,lock,kind,phase,outcome,value,token,cmds,detail"));
    QVERIFY(lines.at(1).endsWith("\"has, a comma \"\"and quotes\"\"\""));
}

// An external client's write whose reply never came: the log says its outcome is unknown, not "info".
void TestModels::eventLogSaysUnknownOutcomesInWords()
{
    HistoryBuilder b;
    b.acquire(0, 0, 0, 1, 100).read(0, 0, 2, 41).writeUnknown(0, 0, 3, 500, 40);
    TimelineData data(layout());
    data.append(b.events());
    EventLogModel model;
    model.setRun(&data);
    const int last = model.rowCount() - 1;
    QCOMPARE(model.index(last, EventLogModel::Kind).data().toString(), QStringLiteral("write"));
    QCOMPARE(model.index(last, EventLogModel::Phase).data().toString(), QStringLiteral("unknown"));
    QCOMPARE(model.index(last - 1, EventLogModel::Phase).data().toString(), QStringLiteral("invoke"));
}

void TestModels::violationsGrowAndReset()
{
    ViolationModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    Violation a;
    a.type = Violation::Type::Overlap;
    a.lock = 0;
    a.workers = {1, 0};
    a.startUs = 1000;
    a.openEnded = true;
    a.text = QStringLiteral("A and B were both inside");
    Violation b = a;
    b.type = Violation::Type::StaleHolder;
    b.workers = {0};
    b.startUs = 2000;
    b.openEnded = false;
    b.endUs = 3000;
    QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
    QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    model.setViolations({a});
    QCOMPARE(model.rowCount(), 1);
    QVERIFY(model.index(0).data().toString().contains(QLatin1String("still going on")));
    a.openEnded = false; // the live overlap ended
    a.endUs = 1500;
    model.setViolations({a, b});
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(inserted.count(), 2);
    QCOMPARE(changed.count(), 1);
    QCOMPARE(reset.count(), 0);
    QVERIFY(model.index(0).data().toString().contains(QLatin1String("overlap")));
    QCOMPARE(model.index(1).data(ViolationModel::TypeRole).toString(), QStringLiteral("stale-holder"));
    QCOMPARE(model.index(1).data(ViolationModel::StartUsRole).toLongLong(), 2000);
    model.setViolations({b}); // the first one is gone: a different list
    QCOMPARE(reset.count(), 1);
    QCOMPARE(model.rowCount(), 1);
    model.setViolations({});
    QCOMPARE(model.rowCount(), 0);
}

QTEST_MAIN(TestModels)
#include "tst_models.moc"
