// A thread of its own with an event loop, for the classes whose network calls must never block the GUI
// thread (RedisSession, LockScanner): jobs posted to it run there one after another, and their results come
// back to the owner's thread, dropped when they are stale (see deliver()).
#pragma once

#include <QObject>
#include <QString>
#include <QThread>

#include <functional>

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
    // Lets the job running now finish, drops those still waiting and joins the thread. The owner calls it
    // first thing in its destructor: a job may still read the owner's members until then.
    void stop();

    // Results carry the generation their work started in. The owner starts a new one when what it asked
    // for changes (other settings, a new open or scan, a close): a job already running cannot be recalled
    // from the queue, so its late result must be recognised and dropped instead of being shown as current.
    quint64 generation() const { return m_generation; }
    quint64 nextGeneration() { return ++m_generation; }
    // From a job: runs `result` on `owner`'s thread, unless nextGeneration() has been called since
    // `generation` by the time it gets there. `owner` holds this WorkerThread (the check reads it there).
    void deliver(QObject *owner, quint64 generation, std::function<void()> result) const;

private:
    QThread m_thread;
    QObject *m_receiver = nullptr; // lives on m_thread: posted jobs are queued calls to it
    quint64 m_generation = 0; // read and written on the owner's thread only
};
