// Makes the schedules the explorer tries. Guided: faults aimed at the edges that matter in a fault-free run's
// timeline (right after an acquire, just before a renewal is due, just before a release, around the lease's
// end, between two commands of one acquire or release), with lengths around the lease; every kind of fault
// gets its first tries early. Once those are spent, random schedules near the same edges. Random (the
// baseline a Jepsen nemesis is): faults at uniformly random times with uniformly random lengths.
//
// Candidates are numbered; shard I of N takes those whose number is I modulo N, so N machines running the
// same seed try disjoint schedules.
#pragma once

#include "exploretarget.h"
#include "faultschedule.h"
#include "scheduleverdict.h"

#include <QHash>
#include <QList>
#include <QString>

#include <random>

class ScheduleGenerator
{
public:
    enum class Mode { Guided, Random };
    struct Options
    {
        Mode mode = Mode::Guided;
        QList<ScheduledFault::Type> faults; // the kinds it may use
        quint64 seed = 1;
        int shardIndex = 0;
        int shardCount = 1;
        double maxPauseMs = 0; // pauses and cuts up to this (default 3 × lease)
        double maxDelayMs = 0; // per-command delays up to this (default the lease)
        int maxFaults = 2; // random schedules have 1 to this many faults
    };

    // What the schedules handed out covered, for "none in N schedules" to say what was tried.
    struct Coverage
    {
        struct Range
        {
            int schedules = 0;
            double minLengthMs = -1, maxLengthMs = -1;
            double minAtMs = -1, maxAtMs = -1;
            QStringList points; // edges aimed at ("right after an acquire", …)
        };
        QHash<ScheduledFault::Type, Range> byType;
        QJsonObject toJson() const;
        QString text() const; // "pause: 41 schedules, 125–1500 ms, at 0.01–1.40 s (right after an acquire, …)"
    };

    ScheduleGenerator(const ExploreTarget &target, const Options &options);
    // The fault-free run the guided edges are taken from.
    void setProfile(const ScheduleVerdict &profile);
    // The next `count` schedules of this shard.
    QList<FaultSchedule> next(int count);
    const Coverage &coverage() const { return m_coverage; }
    // Counts a schedule that ran into the coverage (one generated but never run, cut by the budget or a
    // failed run, covers nothing).
    void noteTried(const FaultSchedule &schedule);

private:
    void buildGuided();
    FaultSchedule randomSchedule(bool nearEdges);
    ScheduledFault randomFault(ScheduledFault::Type type, bool nearEdges);
    double randomLength(ScheduledFault::Type type);

    const ExploreTarget &m_target;
    Options m_options;
    ScheduleVerdict m_profile;
    QList<FaultSchedule> m_guided; // every shard's, in order
    qsizetype m_nextGuided = 0; // index into m_guided
    quint64 m_candidate = 0; // global candidate number (guided ones first)
    std::mt19937_64 m_random;
    Coverage m_coverage;
};
