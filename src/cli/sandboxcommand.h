// `lockscope-cli sandbox`: start a private redis-server (or a cluster, or a Sentinel group) and keep it until
// interrupted (or --seconds pass). Its command line (SandboxArguments), the start (SandboxCommand::run) and
// where the servers listen (SandboxCommand::print), each callable alone.
#pragma once

#include "redis/sandboxcluster.h"
#include "redis/sandboxsentinelgroup.h"
#include "redis/sandboxserver.h"

#include <QStringList>

#include <memory>
#include <optional>

class QTextStream;

struct SandboxArguments
{
    enum class Topology { Server, Cluster, Sentinel };

    // Reads `arguments`; the first one is the command's name ("lockscope-cli sandbox"). Never fails: a bad
    // command line comes back with `error` set. Starts nothing.
    static SandboxArguments parse(const QStringList &arguments);

    QString helpText; // --help: the text to print (exit 0)
    QString error; // why the command cannot run, printed after "lockscope-cli sandbox: " (exit 2)

    Topology topology = Topology::Server;
    int seconds = 0; // stop after this long; 0: at Ctrl-C
    int replicas = 1; // a cluster's per master (default 0), a Sentinel group's master's
    std::optional<QString> masterName; // --master: what the sentinels call the master
    std::optional<QString> notifyKeyspaceEvents; // a server's or a cluster's notify-keyspace-events
    bool sampleLocks = false;
};

// What one `sandbox` run started: exactly one of the three. The servers stop when this is destroyed.
struct SandboxServers
{
    std::unique_ptr<SandboxServer> server;
    std::unique_ptr<SandboxCluster> cluster;
    std::unique_ptr<SandboxSentinelGroup> sentinels;
};

namespace SandboxCommand {

// Starts what `args` asks for and, with --sample-locks, writes the sample locks into it. Empty with `error`
// set (a sentence) when a server does not start or the locks cannot be written.
std::optional<SandboxServers> run(const SandboxArguments &args, QString *error);
// Where each server listens (with pids), commands to try, and when the servers stop (`seconds`, or at
// Ctrl-C when 0). `servers` is not const only because the sandboxes' accessors are not.
void print(QTextStream &out, SandboxServers &servers, int seconds);

} // namespace SandboxCommand

int runSandboxCommand(const QStringList &arguments);
