// When the servers of a run stopped answering, as the workers saw it: the outages nobody scheduled (a server
// killed or frozen from outside, a network cut), so the report marks them like the injected ones.
#pragma once

#include "redis/rediserror.h"

#include <QList>
#include <QString>

#include <atomic>
#include <mutex>

class OutageTracker
{
public:
    struct Window
    {
        qint64 startUs = 0; // run time of the first failure
        qint64 endUs = -1; // run time of the first answer after it; -1 while still down
        qint64 failures = 0; // requests that failed meanwhile
        QString firstError; // what the first of them said
    };

    // True for the errors that mean "no server answered" (refused, closed, timed out, unreachable), as
    // opposed to a server that answered with an error.
    static bool isUnreachable(const RedisError &error);

    // Thread-safe; called by every worker. A failure opens a window (or extends the open one).
    void failed(qint64 timeUs, const QString &error);
    // Thread-safe and cheap when nothing is down (one atomic read): a server answered, closing the window.
    void answered(qint64 timeUs);

    QList<Window> windows() const;

private:
    mutable std::mutex m_mutex;
    std::atomic_bool m_down = false;
    QList<Window> m_windows; // guarded by m_mutex
};
