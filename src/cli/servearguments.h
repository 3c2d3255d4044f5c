// `lockscope-cli serve`'s command line and config file, read into the targets to follow and how to serve
// them. A target is given by the connection options on the command line (one target), or by a JSON config
// file listing several, each with the same options as JSON keys ("host", "port", "password_file",
// "sentinel": [...], "profile", "pattern": [...], …). Passwords come from the environment, a file or a
// profile's keychain entry, never from the command line or the config file itself. Reading talks to no
// server, so a bad argument is refused (exit 2) before anything connects.
#pragma once

#include "connectionoptions.h"
#include "httplimits.h"
#include "inspect/scanoptions.h"
#include "metrics/lockmetrics.h"
#include "metrics/pollbudget.h"

#include <QStringList>

struct ServeTarget
{
    QString name; // the `target` label
    ConnectionOptions connection;
    ScanOptions scan;
};

class ServeArguments
{
public:
    // The port `serve` listens on by default, on loopback. Prometheus's list of exporter ports (9100–9999)
    // is full: any default may meet another exporter, so --listen changes it.
    static constexpr int kDefaultPort = 9817;

    // Reads `arguments` (the first one is the command's name). Never fails: `error` says why it cannot run.
    static ServeArguments parse(const QStringList &arguments);

    QString helpText; // --help: print it, exit 0
    QString error; // a sentence after "lockscope-cli serve: " (exit 2)
    QStringList warnings; // printed before anything starts (skipped format files, loose password files)

    QList<ServeTarget> targets;
    QString listen = QStringLiteral("127.0.0.1:%1").arg(kDefaultPort);
    QString webConfigFile;
    int maxLockSeries = LockMetrics::kDefaultMaxLockSeries;
    int maxCommandsPerSecond = PollBudget::kDefaultMaxCommandsPerSecond; // per target; 0: no cap
    HttpLimits httpLimits; // --http-max-header-bytes, --http-header-timeout, …
    bool hashPassword = false; // --hash-password: print a bcrypt hash of the password read from stdin
};
