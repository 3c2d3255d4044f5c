// `lockscope-cli clients`: the shipped client adapters (real lock libraries the Simulator can drive), the
// library version each finds, whether its runtime is here, and what it still needs. Its command line
// (ClientsArguments), the checks and installs (ClientsCommand::install, run) and the table or JSON
// (ClientsCommand::print), each callable alone.
#pragma once

#include "sim/clientcatalog.h"

#include <QStringList>

class QTextStream;

struct ClientsArguments
{
    // Reads `arguments`; the first one is the command's name ("lockscope-cli clients"). Never fails: a bad
    // command line, or an adapter the catalog does not have, comes back with `error` set.
    static ClientsArguments parse(const QStringList &arguments);

    QString helpText; // --help: the text to print (exit 0)
    QString error; // why the command cannot run, printed after "lockscope-cli clients: " (exit 2)

    QList<const ClientCatalog::Adapter *> adapters; // the ones named, or every one
    bool json = false;
    bool install = false; // install their npm packages now, not on first use
};

// One adapter and what this machine has of it.
struct ClientState
{
    const ClientCatalog::Adapter *adapter = nullptr;
    ClientCatalog::Status status;
};

namespace ClientsCommand {

// Makes every adapter in `adapters` runnable now (unpacked, npm packages installed), telling `progress`
// what it does and, after "lockscope-cli clients: ", what failed. False when one could not be prepared.
bool install(const QList<const ClientCatalog::Adapter *> &adapters, QTextStream &progress);
// Whether each adapter can run here and the library version it finds (runs their version commands: slow).
QList<ClientState> run(const QList<const ClientCatalog::Adapter *> &adapters);
// Two or three lines per adapter and where adapters are unpacked; or with `json` one JSON array.
void print(QTextStream &out, const QList<ClientState> &states, bool json);

} // namespace ClientsCommand

int runClientsCommand(const QStringList &arguments);
