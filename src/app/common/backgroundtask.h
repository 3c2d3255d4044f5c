// Work handed from the GUI thread to Qt's thread pool, with the two hand-overs made visible to
// ThreadSanitizer.
//
// Why: Qt's pool and futures synchronise inside the Qt libraries, which are not built with TSan, so TSan sees
// neither the hand-over of a task's inputs (built on the GUI thread, read in the pool) nor that of its result
// (written in the pool, read by the GUI thread after QFutureWatcher::finished) and reports both as races.
// BackgroundTask::run marks the first; BackgroundTask::resultsArrived(), called first in a finished handler,
// the second. Outside TSan builds the marks compile to nothing. (Not QtConcurrent::run: it builds the task
// and queues it in one call, leaving no point between the two for the mark.)
#pragma once

#include <QFuture>
#include <QPromise>
#include <QRunnable>
#include <QThreadPool>

#include <exception>
#include <type_traits>
#include <utility>

namespace BackgroundTask {

// The TSan marks (no-ops in other builds).
void handOver(); // GUI thread: everything written so far is visible to tasks queued from now on
void taskStarted(); // pool thread, before the task reads its inputs
void taskEnded(); // pool thread, after the result is stored
void resultsArrived(); // GUI thread, before it reads a result

template<typename Result, typename Fn> class Task : public QRunnable
{
public:
    explicit Task(Fn fn)
        : m_fn(std::move(fn))
    {
    }
    QFuture<Result> future() { return m_promise.future(); }
    void begin() { m_promise.start(); }

    void run() override
    {
        taskStarted();
        // An exception goes to the future (result() rethrows it in the handler), as with QtConcurrent::run;
        // let out of run(), it would end the program from a pool thread, and the future would never finish.
        try {
            if constexpr (std::is_void_v<Result>)
                m_fn();
            else
                m_promise.addResult(m_fn());
        } catch (...) {
            m_promise.setException(std::current_exception());
        }
        taskEnded();
        m_promise.finish();
    }

private:
    Fn m_fn;
    QPromise<Result> m_promise;
};

// Runs fn() on Qt's global thread pool; the future carries its result.
template<typename Fn> auto run(Fn fn)
{
    using Result = std::invoke_result_t<Fn &>;
    auto *task = new Task<Result, Fn>(std::move(fn)); // the pool deletes it once run
    QFuture<Result> future = task->future();
    task->begin();
    handOver();
    QThreadPool::globalInstance()->start(task);
    return future;
}

} // namespace BackgroundTask
