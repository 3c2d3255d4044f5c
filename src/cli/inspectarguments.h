// `lockscope-cli inspect`'s command line, read into what to scan and how to report it. Reading it talks to no
// server, so a bad argument is refused (exit 2) before anything connects.
#pragma once

#include "connectionoptions.h"
#include "inspect/scanoptions.h"

#include <QStringList>

#include <optional>

class QCommandLineParser;

class InspectArguments
{
public:
    // The scan options (--pattern, --lock-pattern, --count, --max-ops, --formats, --ttl-threshold), shared
    // with `serve`, which follows servers with the same scans.
    static void addScanOptions(QCommandLineParser &parser);
    // Reads them into `out`: the profile's scan settings first, the flags over them. Format files that could
    // not be read go to `skippedFormats`. Empty when the options are good, else why not.
    static QString readScanOptions(const QCommandLineParser &parser,
                                   const std::optional<ConnectionProfile> &profile, ScanOptions *out,
                                   QStringList *skippedFormats);

    // Reads `arguments`; the first one is the command's name ("lockscope-cli inspect"), as QCommandLineParser
    // expects. Never fails: a bad command line comes back with `error` set.
    static InspectArguments parse(const QStringList &arguments);

    // Set when --help was asked for: the text to print (exit 0); nothing below is read.
    QString helpText;
    // Why the command cannot run, a sentence printed after "lockscope-cli inspect: " (exit 2); empty when it
    // can.
    QString error;
    // Format files that could not be read and are skipped: warnings, printed before anything else happens.
    QStringList skippedFormats;

    ConnectionOptions connection;
    ScanOptions scan;
    bool json = false;
    bool watch = false;
    int intervalMs = 1000; // --watch: how often TTLs are read again
    QStringList failOn; // diagnosis codes (or "any") that make the command exit 3
};
