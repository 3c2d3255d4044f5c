// Runs fault schedules as ordinary simulations, many at once. Schedules of process faults share one
// sandbox server (or the server the user gave), each under keys of its own; a schedule that restarts or fails
// over a server, or a target that needs several, gets sandboxes of its own for that run.
#pragma once

#include "exploretarget.h"
#include "faultschedule.h"
#include "scheduleverdict.h"

#include "redis/connectionsettings.h"

#include <QList>
#include <QString>

#include <atomic>
#include <functional>
#include <memory>
#include <optional>

class SandboxServer;

class ScheduleRunner
{
public:
    struct Options
    {
        int parallel = 4; // runs at once
        std::optional<ConnectionSettings> server; // the user's (read-write); empty: a sandbox of ours
        QString keyRoot = QStringLiteral("lockscope:explore:"); // every run's keys live below it
    };
    struct Job
    {
        FaultSchedule schedule;
        quint64 seed = 0;
    };

    ScheduleRunner(const ExploreTarget &target, const Options &options);
    ~ScheduleRunner();
    ScheduleRunner(const ScheduleRunner &) = delete;
    ScheduleRunner &operator=(const ScheduleRunner &) = delete;

    // Starts the shared sandbox (nothing to start for a server the user gave). False with `error`.
    bool start(QString *error);
    // Runs every job, `parallel` at a time, and returns their verdicts in the jobs' order. Jobs not started
    // when `cancelled` turns true come back not run ("stopped").
    QList<ScheduleVerdict> run(const QList<Job> &jobs, const std::function<bool()> &cancelled = {});
    qint64 runsDone() const { return m_runs.load(); }
    // "sandbox 127.0.0.1:port" or the user's endpoint.
    QString serverDescription() const;
    // The server process faults share (the sandbox, or the user's), once start() succeeded.
    ConnectionSettings sharedServer() const;
    const ExploreTarget &target() const { return m_target; }

private:
    const ExploreTarget &m_target;
    Options m_options;
    std::unique_ptr<SandboxServer> m_sandbox;
    std::atomic<qint64> m_runs = 0;
    std::atomic<quint64> m_nextPrefix = 0;
};
