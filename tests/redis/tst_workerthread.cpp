// WorkerThread: jobs run in order off the caller's thread, stale results are dropped, and an abandoned job
// blocked where nothing can wake it holds up neither the owner nor the jobs posted after it.
#include "redis/workerthread.h"

#include <QSignalSpy>
#include <QTest>

#include <atomic>
#include <future>

class TestWorkerThread : public QObject
{
    Q_OBJECT
private slots:
    void runsJobsInOrderAndDelivers();
    void dropsStaleResults();
    void abandonedJobHoldsUpNothing();
    void stopWaitsForAbandonedJobs();
};

void TestWorkerThread::runsJobsInOrderAndDelivers()
{
    QObject owner;
    WorkerThread worker(QStringLiteral("test"));
    QList<int> order;
    std::atomic_bool onOwnersThread = false;
    const quint64 generation = worker.generation();
    for (int i = 0; i < 3; ++i) {
        worker.post([&worker, &owner, &order, &onOwnersThread, generation, i] {
            if (QThread::currentThread() == owner.thread())
                onOwnersThread = true;
            worker.deliver(&owner, generation, [&order, i] { order << i; });
        });
    }
    QTRY_COMPARE(order, (QList<int> {0, 1, 2}));
    QVERIFY(!onOwnersThread);
}

void TestWorkerThread::dropsStaleResults()
{
    // Declared before the worker, so they outlive its thread: set_value() may still be returning there.
    std::promise<void> proceed, delivered;
    QObject owner;
    WorkerThread worker(QStringLiteral("test"));
    bool stale = false, current = false;
    const quint64 old = worker.generation();
    worker.post([&, old, go = proceed.get_future().share()] {
        go.wait();
        worker.deliver(&owner, old, [&stale] { stale = true; });
        delivered.set_value();
    });
    const quint64 now = worker.nextGeneration(); // asked for something else while the job runs
    proceed.set_value();
    delivered.get_future().wait();
    worker.post([&, now] { worker.deliver(&owner, now, [&current] { current = true; }); });
    QTRY_VERIFY(current);
    QCoreApplication::sendPostedEvents(&owner); // the stale result was queued before the current one
    QVERIFY(!stale);
}

void TestWorkerThread::abandonedJobHoldsUpNothing()
{
    std::promise<void> started, release, returned; // outlive the worker's threads
    QObject owner;
    WorkerThread worker(QStringLiteral("test"));
    std::atomic_bool abandonedReturned = false;
    bool stale = false, fresh = false;
    const quint64 old = worker.generation();
    // Stands for a connect that nothing can interrupt.
    worker.post([&, old, released = release.get_future().share()] {
        started.set_value();
        released.wait();
        worker.deliver(&owner, old, [&stale] { stale = true; });
        abandonedReturned = true;
        returned.set_value();
    });
    started.get_future().wait();
    const quint64 now = worker.nextGeneration();
    worker.abandon(); // returns while the job is blocked
    QVERIFY(!abandonedReturned);
    worker.post([&, now] { worker.deliver(&owner, now, [&fresh] { fresh = true; }); });
    QTRY_VERIFY(fresh); // on a fresh thread: the blocked job is still blocked
    QVERIFY(!abandonedReturned);

    release.set_value();
    returned.get_future().wait();
    QCoreApplication::sendPostedEvents(&owner);
    QVERIFY(!stale); // what it said after being abandoned belongs to an old generation
}

void TestWorkerThread::stopWaitsForAbandonedJobs()
{
    std::promise<void> started, release; // outlive the worker's threads
    std::atomic_bool returned = false;
    {
        WorkerThread worker(QStringLiteral("test"));
        worker.post([&, released = release.get_future().share()] {
            started.set_value();
            released.wait();
            returned = true;
        });
        started.get_future().wait();
        worker.abandon();
        release.set_value();
    } // ~WorkerThread: stop() joins the abandoned thread, so the job has returned
    QVERIFY(returned);
}

QTEST_GUILESS_MAIN(TestWorkerThread)
#include "tst_workerthread.moc"
