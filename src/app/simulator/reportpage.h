// The Simulator's Report tab: what each run did to the lock and the data (side by side for a comparison),
// whether the run showed what the scenario says — never in the colours of a lock passing —, the story's
// explanation, and the terminal summary the CLI prints.
#pragma once

#include "sim/simulationrunner.h"

#include <QTextBrowser>

class ReportPage : public QTextBrowser
{
    Q_OBJECT
public:
    explicit ReportPage(QWidget *parent = nullptr);

    // `judged`: every variant has run (expectations over them can be judged). `stepping`: the reader is
    // stepping through the run before its end, and the results would give it away.
    void showOutcome(const SimulationRunner::Outcome &outcome, const Scenario &scenario, bool judged,
                     bool stepping);
};
