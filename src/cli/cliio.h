// Standard output and error for the CLI as QTextStreams, flushed at every line the user should see.
#pragma once

#include <QTextStream>

namespace CliIo {

QTextStream &out();
QTextStream &err();
// True when stdout is a terminal (progress bars, colours).
bool stdoutIsTerminal();

// Exit codes shared by every subcommand (documented in --help).
enum ExitCode { Ok = 0, Failure = 1, Usage = 2, ExpectFailed = 3 };

} // namespace CliIo
