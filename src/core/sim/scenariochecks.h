// What one section of a scenario cannot check alone: fault and step numbers against the servers and
// processes, what the servers, the algorithm and the client ask of one another, what a Redis Cluster cannot
// give and what an external client's workers cannot do. Every problem is one field-path sentence.
#pragma once

#include "scenario.h"

#include <QStringList>

class ScenarioChecks
{
public:
    static void acrossSections(const Scenario &scenario, QStringList *errors);
    // What `scenario` asks that a Redis Cluster cannot give; empty when it can run on a cluster.
    static QStringList cluster(const Scenario &scenario);
    // What it asks that its workers cannot do: external clients run one worker per process and cannot be made
    // to show LockScope's own implementation flaws; built-in workers cannot restart a process.
    static QStringList client(const Scenario &scenario);
};
