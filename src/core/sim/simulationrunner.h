// Runs a scenario to its end — once, or once per variant — and judges its expectations across the runs.
// The CLI uses it directly; the GUI drives Simulation itself (to show each run live) and uses judge().
#pragma once

#include "runcomparison.h"
#include "runreport.h"
#include "scenario.h"
#include "simulation.h"

#include <QJsonObject>
#include <QList>
#include <QString>

#include <atomic>
#include <functional>

class SimulationRunner
{
public:
    struct Run
    {
        QString variant; // empty for a scenario without variants
        RunReport report;
    };

    struct Outcome
    {
        QString error; // set when a run could not start or failed; the runs before it are kept
        QList<Run> runs;
        QList<Expectation::Check> checks;
        bool interrupted = false;

        bool ok() const { return error.isEmpty(); }
        bool passed() const;
        // The runs side by side (one row per variant): what each did to the lock and to the data.
        QList<RunComparison::Row> comparison() const;
        QJsonObject toJson() const;
        QString summaryText() const;
    };

    // Called every `progressMs` while a run goes on (on the caller's thread).
    using Progress
        = std::function<void(int run, int runs, const QString &variant, const Simulation &simulation)>;

    // Called once per run when it has finished, while its history can still be read (CSV export).
    using Finished = std::function<void(const QString &variant, const Simulation &simulation)>;

    static Outcome run(const Scenario &scenario, const Simulation::Options &options,
                       const std::atomic_bool *stop = nullptr, const Progress &progress = {},
                       const Finished &finished = {}, int progressMs = 100);
    // The expectation values of the runs ("overlaps", or "<variant>.overlaps") and their checks.
    static QList<Expectation::Check> judge(const Scenario &scenario, const QList<Run> &runs);
};
