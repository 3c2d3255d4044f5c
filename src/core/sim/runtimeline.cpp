// RunTimeline: the controller thread's schedule of one run.
#include "runtimeline.h"

void RunTimeline::schedule(qint64 atUs, std::function<void()> action)
{
    m_actions.emplace(atUs, std::move(action));
}

void RunTimeline::runDue(qint64 nowUs)
{
    while (!m_actions.empty() && m_actions.begin()->first <= nowUs) {
        auto action = std::move(m_actions.begin()->second);
        m_actions.erase(m_actions.begin());
        action();
    }
}

void RunTimeline::drain()
{
    m_draining = true;
    while (!m_actions.empty()) {
        auto action = std::move(m_actions.begin()->second);
        m_actions.erase(m_actions.begin());
        action();
    }
}

qint64 RunTimeline::nextDueUs() const
{
    return m_actions.begin()->first;
}
