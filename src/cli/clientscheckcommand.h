// `lockscope-cli clients check`: the adapter conformance check (docs/client-protocol.md) as the package
// ships it, so an outside author has it wherever lockscope-cli is: a shipped adapter by its id, or any
// command speaking the protocol after `--`. The check itself is the Python program the project's tests run
// (tests/clients/conformance.py), carried inside lockscope-cli and run with a Python 3 that has redis-py.
#pragma once

#include <QStringList>

struct ClientsCheckArguments
{
    // `arguments` starts with "lockscope-cli clients check". Never fails: `error` says what is wrong.
    static ClientsCheckArguments parse(const QStringList &arguments);

    QString helpText;
    QString error;
    QString adapterId; // a shipped adapter, or
    QStringList command; // the adapter's own command line (after --)
    QString options; // hello's options, JSON (a scenario's client.options)
    QString python = QStringLiteral("/usr/bin/python3"); // Debian's, where python3-redis installs
};

// Runs the check; its exit code: 0 every check passed, 1 one failed, 2 it could not run.
int runClientsCheckCommand(const QStringList &arguments);
