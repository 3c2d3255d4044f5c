// What an exploration found, as `lockscope-cli explore` prints it (five lines a person reads), writes it
// (--json), and merges the reports of several shards.
#pragma once

#include "faultschedule.h"

#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

struct ExploreResult
{
    QString target; // what was explored ("set-nx-px-del", "redis-py")
    int leaseMs = 0;
    int workers = 0;
    QStringList faultKinds; // what --faults allowed
    QStringList properties; // what counted as broken
    QString mode = QStringLiteral("guided"); // or "random"
    quint64 seed = 0;
    int shardIndex = 0;
    int shardCount = 1;
    QString server;

    bool found = false; // a violation seen and reproduced
    QString property; // the property broken ("overlap")
    QString sentence; // what happened, in the checker's words
    qint64 schedulesTried = 0; // schedules of the search (shrinking and confirmation runs not counted)
    qint64 runs = 0; // every run, search, shrinking, confirmation and boundary included
    double seconds = 0;
    qint64 firstViolationSchedules = 0; // schedules tried until the first violation was seen (0: none)
    double firstViolationSeconds = 0;

    FaultSchedule firstFailing; // the first violating schedule, as found
    FaultSchedule minimal; // shrunk
    int reproducedRuns = 0;
    int reproducedViolated = 0;
    // Where a fault's length decides it, measured.
    struct Boundary
    {
        QString fault; // "pause"
        QString process;
        double failsAtMs = -1; // the shortest length seen to break it
        double triedBelowMs = -1; // a length below it, tried `belowRuns` times
        int belowRuns = 0;
        int belowViolated = 0;
        // Lengths tried on the way down that broke it in some tries only (the grey zone), shortest last.
        struct Step
        {
            double ms = 0;
            int runs = 0;
            int violated = 0;
        };
        QList<Step> grey;
        QString text;
    };
    std::optional<Boundary> boundary;
    // The confirmation runs by length of the boundary fault (the minimal's, then longer ones while the
    // shorter reproduced in fewer than 4 of 5).
    QList<Boundary::Step> confirmations;
    int fencingRejections = 0; // in the confirmation runs: the fenced store refused stale writes
    bool dataLost = false; // a lost update among the confirmation runs

    // None found (or in addition): the closest the search came.
    std::optional<double> closestMarginMs;
    QString closestText;
    QJsonObject coverage;
    QString coverageText;
    // Violations seen once that did not reproduce: reported, never counted.
    QStringList unconfirmed;
    // How often the shrunk failure, told as a story, replayed with its expectation met.
    int storyRuns = 0;
    int storyReplayed = 0;
    QString storyProblem; // the parser refused the story: a bug of the story writer, reported, never hidden
    QString stoppedBecause; // "budget", "schedules", "interrupted", "found"

    // The report's JSON (what --json writes; the shape is documented in docs/explore.md).
    QJsonObject toJson() const;
    // The summary of a report's JSON, so a merged report reads like one run's.
    static QString summaryOf(const QJsonObject &report);
    // The shards' reports as one: the smallest confirmed failure wins; schedules, runs and coverage add up;
    // the closest call is the closest of all. False with `error` when they are not shards of one search.
    static bool merge(const QList<QJsonObject> &shards, QJsonObject *merged, QString *error);
};
