// ExploreJob: the search runs on Qt's pool through BackgroundTask (for ThreadSanitizer's sake); its progress is
// posted to the GUI thread at most five times a second, which is as often as a person can read it.
#include "explorejob.h"

#include "common/backgroundtask.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QPointer>

ExploreJob::ExploreJob(QObject *parent)
    : QObject(parent)
{
    connect(&m_watcher, &QFutureWatcher<Outcome>::finished, this, [this] {
        BackgroundTask::resultsArrived();
        m_outcome = m_watcher.result();
        m_running = false;
        emit finished();
    });
}

ExploreJob::~ExploreJob()
{
    // The search ends at its next schedule; it does not wait for anyone to read its result.
    if (m_cancel)
        m_cancel->store(true);
}

bool ExploreJob::start(const Explorer::Options &options)
{
    if (m_running)
        return false;
    m_running = true;
    m_outcome = {};
    m_cancel = std::make_shared<std::atomic_bool>(false);
    const QPointer<ExploreJob> self(this);
    std::shared_ptr<std::atomic_bool> cancel = m_cancel;
    m_watcher.setFuture(BackgroundTask::run([options, cancel, self]() -> Outcome {
        Outcome out;
        // Made, prepared and destroyed on this thread: the sandbox's processes belong to it.
        Explorer explorer(options);
        if (!explorer.prepare(&out.error))
            return out;
        out.ran = true;
        QElapsedTimer sincePosted;
        out.result = explorer.run(
            [&](const Explorer::Progress &p) {
                if (sincePosted.isValid() && sincePosted.elapsed() < 200)
                    return;
                sincePosted.start();
                QMetaObject::invokeMethod(
                    QCoreApplication::instance(),
                    [self, p] {
                        if (self && self->m_running)
                            emit self->progressed(p);
                    },
                    Qt::QueuedConnection);
            },
            [cancel] { return cancel->load(); });
        out.story = explorer.story();
        return out;
    }));
    return true;
}

void ExploreJob::stop()
{
    if (m_cancel)
        m_cancel->store(true);
}
