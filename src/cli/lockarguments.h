// `lockscope-cli lock`'s command line, read into the algorithm, its options, the faults to switch on and the
// servers to run on. Reading it talks to no server, so a bad argument is refused (exit 2) before anything
// connects or starts.
#pragma once

#include "connectionoptions.h"
#include "locks/faulthooks.h"
#include "locks/lockcatalog.h"

#include <QStringList>

// The --fault flags: hooks for the lock client, and whether the process pauses (its watchdog stops) while
// holding.
struct LockFaults
{
    FaultHooks hooks;
    bool pause = false;
    QStringList names; // as given, for the header
};

class LockArguments
{
public:
    // Reads `arguments`; the first one is the command's name ("lockscope-cli lock"), as QCommandLineParser
    // expects. Never fails: a bad command line comes back with `error` set.
    static LockArguments parse(const QStringList &arguments);

    // Set when --help was asked for: the text to print (exit 0); nothing below is read.
    QString helpText;
    // Why the command cannot run, a sentence printed after "lockscope-cli lock: " (exit 2); empty when it
    // can.
    QString error;

    ConnectionOptions connection;
    QString algorithmId;
    const LockAlgorithmInfo *algorithm = nullptr; // the catalog's entry for algorithmId
    LockOptions options; // the algorithm's defaults with the flags over them
    qint64 holdMs = 1000;
    qint64 reentry = 0; // further acquisitions before holding
    qint64 threadId = 1;
    qint64 sandboxServers = 3; // Redlock with --sandbox: how many private masters
    QList<ConnectionSettings> nodes; // Redlock with --node: one independent server each
    LockFaults faults;
    QByteArray name;
    bool json = false;
};
