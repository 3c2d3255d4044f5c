// What the simulation tests share: a scenario from JSON that must parse, and a run waited for to its end.
#pragma once

#include "sim/scenarioparser.h"
#include "sim/simulation.h"

namespace SimTest {

inline Scenario parse(const QByteArray &json)
{
    Scenario s;
    QStringList errors;
    if (!ScenarioParser().parse(json, &s, &errors))
        qFatal("test scenario does not parse: %s", qPrintable(errors.join(u'\n')));
    return s;
}

inline RunReport runToEnd(Simulation &sim)
{
    sim.start();
    if (!sim.waitFinished(120000))
        qFatal("simulation did not finish");
    return sim.report();
}

// Runs `sim` to its end and says why it failed; empty when it finished.
inline QString failureOf(Simulation &sim)
{
    sim.start();
    if (!sim.waitFinished(120000))
        qFatal("simulation did not finish");
    return sim.state() == Simulation::State::Failed ? sim.errorString() : QString();
}

} // namespace SimTest
