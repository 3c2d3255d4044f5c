// `lockscope-cli simulate`: run a scenario file or a preset headless, print a summary, exit 0/3 on its
// expectations (2: bad scenario or arguments, 1: the run failed). Its command line and scenario
// (SimulateArguments), the run (SimulateCommand::run) and the summary or JSON report
// (SimulateCommand::print), each callable alone.
#pragma once

#include "sim/scenario.h"
#include "sim/simulation.h"
#include "sim/simulationrunner.h"

#include <QStringList>

#include <optional>

class QIODevice;
class QTextStream;

struct SimulateArguments
{
    // Reads `arguments` and the scenario they name (a file, or a preset); the first one is the command's
    // name ("lockscope-cli simulate"). Never fails: a bad command line or scenario comes back with `error`
    // set. Opens no output file and starts no server.
    static SimulateArguments parse(const QStringList &arguments);

    QString helpText; // --help: the text to print (exit 0)
    // Why the command cannot run, printed after "lockscope-cli simulate: " (exit 2); a scenario file's
    // problems follow on lines of their own.
    QString error;

    Scenario scenario;
    Simulation::Options options; // the server given (else sandboxes), --seed, --duration, --no-history
    std::optional<QString> eventsPath; // --events: every recorded event as CSV to this file
    QString
        jsonPath; // --json: the report as JSON ("-": standard output, instead of the summary); empty: none
};

namespace SimulateCommand {

// Runs `args.scenario` (once per variant) to its end, or until Ctrl-C (the outcome says "interrupted").
// `events`, when given, receives each run's events as CSV rows. `progress`, when given, shows a progress bar
// kept up to date with carriage returns (for a terminal), erased at the end.
SimulationRunner::Outcome run(const SimulateArguments &args, QIODevice *events, QTextStream *progress);
// The report as an indented JSON document: what --json writes.
QByteArray jsonReport(const SimulationRunner::Outcome &outcome);
// The summary for people, or with `json` the JSON report.
void print(QTextStream &out, const SimulationRunner::Outcome &outcome, bool json);

} // namespace SimulateCommand

int runSimulateCommand(const QStringList &arguments);
