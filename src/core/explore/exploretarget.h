// What the explorer tries to break, and the workload it breaks it with: a catalog algorithm with its
// options, a real library through its adapter, or a scenario file's algorithm and servers. Everything is
// scaled by the lease, so one schedule runs in a fraction of a second to a few seconds: a few workers each
// take the lock a few times, read and write the counter it protects, and let go.
#pragma once

#include "faultschedule.h"

#include "sim/scenario.h"

#include <QList>
#include <QString>

#include <memory>
#include <optional>

class CustomLockScripts;

class ExploreTarget
{
public:
    struct Options
    {
        QString algorithm; // a catalog id (with its defaults unless the options below say otherwise)
        QString client; // or a shipped adapter's id
        std::optional<Scenario> scenario; // or a scenario file's algorithm, client and servers
        std::shared_ptr<const CustomLockScripts> lua; // or the user's own lock (--lua DIR)
        int leaseMs = 500;
        int workers = 3;
        int cycles = 3; // acquisitions per worker
        std::optional<bool> watchdog; // unset: the algorithm's default
        bool longHolds = false; // critical sections of half the lease (for server faults) instead of a fifth
    };

    // Nullopt with `error` (one sentence naming the option) when the target cannot be run.
    static std::optional<ExploreTarget> make(const Options &options, QString *error);

    // "set-nx-px-del", "redis-py (adapter)", the scenario's id.
    QString name() const { return m_name; }
    int leaseMs() const { return m_options.leaseMs; }
    int workers() const { return m_options.workers; }
    bool isClient() const { return m_base.client.isSet(); }
    const Scenario &base() const { return m_base; }
    // The longest a fault-free schedule lasts, in ms (the search spreads its fault times over it).
    double criticalSectionMs() const { return m_base.workload.criticalSection.ms; }

    // Which faults this target can meet (the default of --faults), and whether one can.
    QList<ScheduledFault::Type> faultsItCanMeet() const;
    bool canMeet(ScheduledFault::Type type) const;
    // Points between two commands of one acquire or release that this algorithm has.
    bool hasPoint(ScheduledFault::Point point) const;
    // Independent servers the target uses (Redlock's N), and whether one has a replica to fail over to.
    int serverCount() const { return std::max(1, m_base.servers.count); }
    // The schedule needs servers of its own (it restarts or fails one over, or the target needs several):
    // it cannot share the explorer's sandbox with other schedules.
    bool needsOwnServers(const FaultSchedule &schedule) const;

    // The scenario of one run of `schedule`: the workload with the schedule's faults, its keys under
    // `keyPrefix`, its randomness from `seed`.
    Scenario scenarioFor(const FaultSchedule &schedule, quint64 seed, const QString &keyPrefix) const;
    // The fault list of that scenario (what scenarioFor() puts in `faults`).
    QList<Scenario::Fault> scenarioFaults(const FaultSchedule &schedule) const;

private:
    Options m_options;
    QString m_name;
    Scenario m_base;
    QStringList m_hooks; // the catalog's fault hooks for this algorithm (crashAfterSetnx, betweenGetAndDel…)
    bool m_fencing = false;
    bool m_clocks = false; // the algorithm reads clocks (Redlock's validity, the fair lock's deadlines)
};
