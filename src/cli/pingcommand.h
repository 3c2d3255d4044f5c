// `lockscope-cli ping`: connect, say who answered and how fast. Its command line (PingArguments), the
// measurement (PingCommand::run) and the three lines it prints (PingCommand::print), each callable alone.
#pragma once

#include "connectionoptions.h"
#include "redis/serverinfo.h"

#include <QStringList>

#include <optional>

class CliServer;
class QTextStream;

struct PingArguments
{
    // Reads `arguments`; the first one is the command's name ("lockscope-cli ping"). Never fails: a bad
    // command line comes back with `error` set. Talks to no server.
    static PingArguments parse(const QStringList &arguments);

    QString helpText; // --help: the text to print (exit 0)
    QString error; // why the command cannot run, printed after "lockscope-cli ping: " (exit 2)

    ConnectionOptions connection;
    int count = 3; // PINGs to send
};

// Who answered and how fast.
struct PingResult
{
    QString server; // the connection's description ("127.0.0.1:6379")
    bool sandbox = false; // the server is this run's private sandbox
    ServerInfo info;
    int count = 0; // PINGs sent
    double medianMs = 0; // their median round trip
};

namespace PingCommand {

// Reads the server's identity and times `count` PINGs on `server`'s connection. Empty with `error` set (a
// sentence) when the server does not answer.
std::optional<PingResult> run(CliServer &server, int count, QString *error);
// "PONG from …", the server's summary and the median round trip.
void print(QTextStream &out, const PingResult &result);

} // namespace PingCommand

int runPingCommand(const QStringList &arguments);
