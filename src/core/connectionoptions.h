// The connection options every executable shares (--host, --port, --socket, --user, --password-env or
// --password-file, --db, --sandbox, --read-write, timeouts, TLS, SSH tunnel), so `lockscope` and each
// `lockscope-cli` subcommand read them alike.
#pragma once

#include "profiles/connectionprofile.h"
#include "redis/connectionsettings.h"

#include <QString>

#include <optional>

class QCommandLineParser;

class ConnectionOptions
{
public:
    static void addTo(QCommandLineParser &parser);
    // Reads the options back from a processed parser. False with `error` set on a bad value.
    static bool read(const QCommandLineParser &parser, ConnectionOptions *out, QString *error);
    // "[user@]host[:port]" (IPv6 host in brackets) into `ssh`. False with `error` set when malformed.
    static bool parseSshDestination(const QString &text, ConnectionSettings::Ssh *ssh, QString *error);
    // A line to print before connecting when the settings weaken security (TLS verification off); else empty.
    static QString securityWarning(const ConnectionSettings &settings);

    // For --profile whose password is kept in the keychain and was not given with --password-env: reads it
    // (waiting for the keychain). False with `error` saying how to give it instead.
    static bool resolveProfilePassword(ConnectionOptions *options, QString *error);

    ConnectionSettings settings;
    bool sandbox = false; // start a private server for this run
    bool serverGiven = false; // --host, --port, --socket or --profile was given
    std::optional<ConnectionProfile> profile; // --profile: the saved profile the settings come from
    bool passwordGiven = false; // --password-env or --password-file was given
};
