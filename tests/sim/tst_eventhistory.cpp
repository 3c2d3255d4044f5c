// EventHistory and ChunkedLog: single-writer logs read live by another thread without losing or tearing
// events.
#include "sim/eventhistory.h"

#include <QTest>

#include <atomic>
#include <thread>

class TestEventHistory : public QObject
{
    Q_OBJECT
private slots:
    void recordsAndMergesByTime();
    void textsAreFoundByTheirLog();
    void liveReaderSeesEverythingOnce();
    void capacityBoundsMemoryAndCountsDrops();
    void logsMayHaveDifferentCapacities();
    void operationIdsAreUniquePerLog();
    void recordingCanBeSwitchedOff();
    void elementsAreMadeOnlyWhenAppended();
};

static HistoryEvent makeEvent(qint64 t, int worker, qint64 op)
{
    HistoryEvent e;
    e.timeUs = t;
    e.worker = worker;
    e.opId = quint32(op);
    e.kind = HistoryEvent::Kind::Enter;
    return e;
}

void TestEventHistory::recordsAndMergesByTime()
{
    EventHistory h(3);
    h.record(0, makeEvent(10, 0, 1));
    h.record(0, makeEvent(30, 0, 2));
    h.record(1, makeEvent(20, 1, 1));
    h.record(2, makeEvent(5, -1, 1));
    const QList<HistoryEvent> all = h.events();
    QCOMPARE(all.size(), 4);
    QCOMPARE(all.at(0).timeUs, 5);
    QCOMPARE(all.at(1).timeUs, 10);
    QCOMPARE(all.at(2).timeUs, 20);
    QCOMPARE(all.at(3).timeUs, 30);
    QCOMPARE(all.at(2).log, 1);
    QCOMPARE(h.size(), 4);
}

void TestEventHistory::textsAreFoundByTheirLog()
{
    EventHistory h(2);
    HistoryEvent a = makeEvent(1, 0, 1);
    a.detail = h.addText(0, "WRONGTYPE from log 0");
    HistoryEvent b = makeEvent(2, -1, 1);
    b.detail = h.addText(1, "pause 15 s");
    h.record(0, a);
    h.record(1, b);
    QCOMPARE(h.addText(0, QByteArray()), 0u);
    const QList<HistoryEvent> all = h.events();
    QCOMPARE(h.text(all.at(0)), QByteArray("WRONGTYPE from log 0"));
    QCOMPARE(h.text(all.at(1)), QByteArray("pause 15 s"));
    QCOMPARE(h.text(makeEvent(3, 0, 9)), QByteArray());
}

void TestEventHistory::liveReaderSeesEverythingOnce()
{
    constexpr int kWriters = 4;
    constexpr int kPerWriter = 50000; // crosses many chunk boundaries
    EventHistory h(kWriters);
    std::atomic_int finished = 0;
    std::vector<std::thread> writers;
    for (int w = 0; w < kWriters; ++w) {
        writers.emplace_back([&h, &finished, w] {
            for (int i = 0; i < kPerWriter; ++i)
                h.record(w, makeEvent(i, w, i + 1));
            ++finished;
        });
    }
    EventHistory::Cursor cursor;
    QList<quint32> nextOp(kWriters, 1);
    qint64 seen = 0;
    // Bounded: at most as many reads as it takes the writers to finish, plus a final one.
    for (;;) {
        const bool done = finished.load() == kWriters;
        for (const HistoryEvent &e : h.readNew(cursor)) {
            QCOMPARE(e.opId, nextOp[e.worker]); // every event exactly once, in order, never torn
            QCOMPARE(e.timeUs, qint64(e.opId) - 1);
            ++nextOp[e.worker];
            ++seen;
        }
        if (done)
            break;
    }
    for (auto &t : writers)
        t.join();
    for (const HistoryEvent &e : h.readNew(cursor)) {
        QCOMPARE(e.opId, nextOp[e.worker]);
        ++nextOp[e.worker];
        ++seen;
    }
    QCOMPARE(seen, qint64(kWriters) * kPerWriter);
}

void TestEventHistory::capacityBoundsMemoryAndCountsDrops()
{
    EventHistory h(1, 100);
    for (int i = 0; i < 250; ++i)
        h.record(0, makeEvent(i, 0, i));
    QCOMPARE(h.size(), 100);
    QCOMPARE(h.dropped(), 150);
}

// A loop's log, shared by its fibers, holds what their own logs would have held; the others keep theirs.
void TestEventHistory::logsMayHaveDifferentCapacities()
{
    EventHistory h(std::vector<qsizetype> {300, 100});
    QCOMPARE(h.logCount(), 2);
    for (int i = 0; i < 250; ++i) {
        h.record(0, makeEvent(i, i % 3, i));
        h.record(1, makeEvent(i, -1, i));
    }
    QCOMPARE(h.size(), 250 + 100);
    QCOMPARE(h.dropped(), 150);
}

// Writers sharing a log take their operation ids from it, so no two of them pair an invoke with the other's
// completion; the ids count on while recording is off, since the caller still pairs with them.
void TestEventHistory::operationIdsAreUniquePerLog()
{
    EventHistory h(2);
    QCOMPARE(h.newOperation(0), 1u);
    QCOMPARE(h.newOperation(0), 2u);
    QCOMPARE(h.newOperation(1), 1u); // each log counts on its own
    h.setRecording(false);
    QCOMPARE(h.newOperation(0), 3u);
}

void TestEventHistory::recordingCanBeSwitchedOff()
{
    EventHistory h(1);
    h.setRecording(false);
    h.record(0, makeEvent(1, 0, 1));
    QCOMPARE(h.size(), 0);
    QCOMPARE(h.addText(0, "x"), 0u);
}

QTEST_GUILESS_MAIN(TestEventHistory)
// A chunk's elements are constructed as they are appended (so an idle worker's log touches no memory beyond
// what it holds) and each is destroyed once with the log, however far the last chunk is filled.
namespace {
struct Counted
{
    static inline int made = 0;
    static inline int gone = 0;
    QByteArray payload; // something with a destructor that matters
    Counted() { ++made; }
    Counted(const Counted &other)
        : payload(other.payload)
    {
        ++made;
    }
    ~Counted() { ++gone; }
};
} // namespace

void TestEventHistory::elementsAreMadeOnlyWhenAppended()
{
    Counted::made = Counted::gone = 0;
    {
        ChunkedLog<Counted, 4> log; // 16 per chunk
        Counted value;
        value.payload = QByteArray(100, 'x'); // on the heap: a missed destructor leaks, which ASan reports
        QCOMPARE(Counted::made, 1);
        for (int i = 0; i < 20; ++i)
            QCOMPARE(log.append(value), qsizetype(i));
        QCOMPARE(Counted::made, 21); // 20 copies, not 2 chunks of 16 made up front
        QCOMPARE(log.at(19).payload, value.payload);
        QList<Counted> out;
        log.readRange(14, 20, out);
        QCOMPARE(out.size(), 6);
        QCOMPARE(out.last().payload.size(), 100);
        out.clear();
        Counted::gone = 0;
    }
    QCOMPARE(Counted::gone, 21); // the 20 in the log and `value`
}

#include "tst_eventhistory.moc"
