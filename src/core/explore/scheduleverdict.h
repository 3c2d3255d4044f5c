// What one run of one fault schedule showed: which safety properties broke (by the run's own checker and
// counters, never guessed), the worst of them in a sentence, how close the run came when nothing broke, and
// the timeline of its holds (where the guided search aims its faults).
#pragma once

#include "faultschedule.h"

#include "sim/historyevent.h"
#include "sim/runreport.h"

#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

class Simulation;

struct ScheduleVerdict
{
    // The properties the explorer checks, most harmful first.
    enum class Property { LostUpdate, Overlap, ForeignRelease, StuckLock };
    static QString propertyName(Property p); // "lost-update", "overlap", "foreign-release", "stuck-lock"
    static bool propertyFromName(const QString &name, Property *p);
    static QList<Property> allProperties();

    // One tenure of the lock, from the profile of a run (times in ms of run time).
    struct Hold
    {
        int worker = -1;
        double acquireInvokeMs = 0;
        double acquiredMs = 0;
        double enterMs = -1;
        double exitMs = -1;
        double releaseInvokeMs = -1;
        QList<double> renewalsMs;
    };

    FaultSchedule schedule;
    quint64 seed = 0;
    bool ran = false; // false: the run itself failed (`error`), which says nothing about the lock
    QString error;
    QList<Property> violated; // most harmful first; empty when none
    QString sentence; // the worst violation as the checker worded it
    int fencingRejections = 0; // stale writes the fenced store refused: the fence at work
    qint64 unknownOutcomes = 0; // operations whose outcome is unknown (they never count as violations)
    // The closest call: the smallest gap between one holder leaving the critical section and another
    // entering it (ms), with what happened, when the run saw two holders in turn.
    std::optional<double> closestMarginMs;
    QString closestText;
    QList<Hold> holds;
    double endMs = 0;
    // Kept for a violating run, so the story can be told from it.
    QList<HistoryEvent> events;
    QStringList workerNames;
    RunReport report;

    bool violates(Property p) const { return violated.contains(p); }
    // The worst property broken among `wanted` (nullopt: none of them).
    std::optional<Property> worstOf(const QList<Property> &wanted) const;
    // `text` told with the schedule's actors ("A", "B") for the run's worker names and without the run's own
    // key prefix, so a report or story reads the same whichever run it came from.
    QString inActorsWords(QString text) const;

    // Reads a finished run: the report, its history, and the schedule it ran.
    static ScheduleVerdict fromRun(const Simulation &run, const FaultSchedule &schedule, quint64 seed);
};
