// A thread of its own with an event loop, for the classes whose network calls must never block the GUI
// thread (RedisSession, LockScanner, KeyspaceWatcher): jobs posted to it run there one after another, and
// their results come back to the owner's thread, dropped when they are stale (see deliver()).
#pragma once

#include <QObject>
#include <QString>
#include <QThread>

#include <functional>
#include <memory>
#include <vector>

class WorkerThread
{
public:
    // Starts the thread; `name` is what a debugger or a sanitizer report shows.
    explicit WorkerThread(const QString &name);
    // Stops the thread (see stop()).
    ~WorkerThread();
    WorkerThread(const WorkerThread &) = delete;
    WorkerThread &operator=(const WorkerThread &) = delete;

    // Runs `job` on the thread once the jobs posted before it have run. A job may post the next one (a scan
    // does, page by page, so that jobs posted meanwhile run in between).
    void post(std::function<void()> job);
    // Lets the job running now finish, drops those still waiting and joins the thread, and the abandoned
    // ones too (see abandon()). The owner calls it first thing in its destructor: a job may still read the
    // owner's members, or deliver() to it, until then.
    void stop();

    // Leaves the job running now to finish on its own, unwaited, drops those still waiting, and runs the
    // jobs posted from now on on a fresh thread. For an owner whose job blocks on the network where it
    // cannot be woken (KeyspaceWatcher's subscriber sits in a connect) and that must not hold up the GUI
    // thread or its next job until a connect timeout. Safe only for a job written for it: it runs on while
    // the owner goes about its business, so it may deliver() (its results arrive stale once the owner has
    // called nextGeneration(), and are dropped) but must touch no other member of the owner's; what it
    // shares with the owner (the flag that tells it to return, the connection to interrupt) it holds by
    // shared_ptr. Its thread is joined once it has returned (by the next abandon()) or by stop(), which waits
    // for it: at most until the blocking call ends by its own timeout.
    void abandon();

    // Results carry the generation their work started in. The owner starts a new one when what it asked
    // for changes (other settings, a new open or scan, a close): a job already running cannot be recalled
    // from the queue, so its late result must be recognised and dropped instead of being shown as current.
    quint64 generation() const { return m_generation; }
    quint64 nextGeneration() { return ++m_generation; }
    // From a job: runs `result` on `owner`'s thread, unless nextGeneration() has been called since
    // `generation` by the time it gets there. `owner` holds this WorkerThread (the check reads it there).
    void deliver(QObject *owner, quint64 generation, std::function<void()> result) const;

private:
    void startThread();
    void joinFinishedAbandoned(); // those whose job has returned: destroying them does not wait

    QString m_name;
    std::unique_ptr<QThread> m_thread;
    QObject *m_receiver = nullptr; // lives on m_thread: posted jobs are queued calls to it
    std::vector<std::unique_ptr<QThread>> m_abandoned; // quit, perhaps still running their last job
    quint64 m_generation = 0; // read and written on the owner's thread only
};
