// The connection options every executable shares (--host, --port, --socket, --user, --password-env, --db,
// --sandbox, --read-write, timeouts), so `lockscope` and each `lockscope-cli` subcommand read them alike.
#pragma once

#include "redis/connectionsettings.h"

#include <QString>

class QCommandLineParser;

class ConnectionOptions
{
public:
    static void addTo(QCommandLineParser &parser);
    // Reads the options back from a processed parser. False with `error` set on a bad value.
    static bool read(const QCommandLineParser &parser, ConnectionOptions *out, QString *error);

    ConnectionSettings settings;
    bool sandbox = false; // start a private server for this run
    bool serverGiven = false; // --host, --port or --socket was given
};
