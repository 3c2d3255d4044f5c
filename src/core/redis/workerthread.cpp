// WorkerThread: a QThread whose jobs are queued calls to a plain QObject living on it; an abandoned one is
// told to quit and kept until its job has returned.
#include "workerthread.h"

#include <QMetaObject>

WorkerThread::WorkerThread(const QString &name)
    : m_name(name)
{
    startThread();
}

WorkerThread::~WorkerThread()
{
    stop();
}

void WorkerThread::startThread()
{
    m_thread = std::make_unique<QThread>();
    m_thread->setObjectName(m_name);
    m_receiver = new QObject;
    m_receiver->moveToThread(m_thread.get());
    // Deleted on its own thread, after the last job: deleting it here could race a job still running. Jobs
    // still waiting are dropped with it.
    QObject::connect(m_thread.get(), &QThread::finished, m_receiver, &QObject::deleteLater);
    m_thread->start();
}

void WorkerThread::post(std::function<void()> job)
{
    QMetaObject::invokeMethod(m_receiver, std::move(job), Qt::QueuedConnection);
}

void WorkerThread::stop()
{
    m_thread->quit();
    m_thread->wait();
    for (const std::unique_ptr<QThread> &thread : m_abandoned)
        thread->wait();
    m_abandoned.clear();
}

void WorkerThread::abandon()
{
    joinFinishedAbandoned();
    m_thread->quit(); // once its job returns: the thread ends without a wait from anyone
    m_abandoned.push_back(std::move(m_thread));
    startThread();
}

void WorkerThread::joinFinishedAbandoned()
{
    std::erase_if(m_abandoned, [](const std::unique_ptr<QThread> &thread) { return thread->isFinished(); });
}

void WorkerThread::deliver(QObject *owner, quint64 generation, std::function<void()> result) const
{
    QMetaObject::invokeMethod(
        owner,
        [this, generation, result = std::move(result)] {
            if (generation == m_generation)
                result();
        },
        Qt::QueuedConnection);
}
