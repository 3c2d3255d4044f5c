// WorkerThread: a QThread whose jobs are queued calls to a plain QObject living on it.
#include "workerthread.h"

#include <QMetaObject>

WorkerThread::WorkerThread(const QString &name)
{
    m_thread.setObjectName(name);
    m_receiver = new QObject;
    m_receiver->moveToThread(&m_thread);
    // Deleted on its own thread, after the last job: deleting it here could race a job still running.
    QObject::connect(&m_thread, &QThread::finished, m_receiver, &QObject::deleteLater);
    m_thread.start();
}

WorkerThread::~WorkerThread()
{
    stop();
}

void WorkerThread::post(std::function<void()> job)
{
    QMetaObject::invokeMethod(m_receiver, std::move(job), Qt::QueuedConnection);
}

void WorkerThread::stop()
{
    m_thread.quit();
    m_thread.wait();
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
