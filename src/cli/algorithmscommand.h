// `lockscope-cli algorithms`: the lock catalog — every algorithm's id, title, origin and flaw; one
// algorithm in full with its Lua scripts. Its command line (AlgorithmsArguments) and its text or JSON
// (AlgorithmsCommand::printCatalog, printAlgorithm); the catalog is LockCatalog's, so there is nothing to
// run.
#pragma once

#include "locks/lockcatalog.h"

#include <QStringList>

class QTextStream;

struct AlgorithmsArguments
{
    // Reads `arguments`; the first one is the command's name ("lockscope-cli algorithms"). Never fails: a
    // bad command line, or an id the catalog does not have, comes back with `error` set.
    static AlgorithmsArguments parse(const QStringList &arguments);

    QString helpText; // --help: the text to print (exit 0)
    QString error; // why the command cannot run, printed after "lockscope-cli algorithms: " (exit 2)

    const LockAlgorithmInfo *algorithm = nullptr; // the one to explain; null: list the catalog
    bool json = false;
    bool scripts = false; // with an algorithm: its Lua scripts too
};

namespace AlgorithmsCommand {

// Every algorithm's id, title, origin and flaw, and how to see one in full; or with `json` one JSON array.
void printCatalog(QTextStream &out, const QList<LockAlgorithmInfo> &algorithms, bool json);
// One algorithm in full: explanation, flaw, commands, traits and defaults, with `scripts` its Lua sources;
// or with `json` its JSON object ("script_sources" with `scripts`).
void printAlgorithm(QTextStream &out, const LockAlgorithmInfo &algorithm, bool json, bool scripts);

} // namespace AlgorithmsCommand

int runAlgorithmsCommand(const QStringList &arguments);
