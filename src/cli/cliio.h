// Standard output and error for the CLI as QTextStreams, flushed at every line the user should see.
// Standard output is checked (CheckedOutput): a command's output that did not arrive is an error.
#pragma once

#include <QTextStream>

class CheckedOutput;

namespace CliIo {

QTextStream &out();
QTextStream &err();
// The device under out(), to bracket documents and to watch for a reader that left.
CheckedOutput &stdoutDevice();
// Flushes out(); empty when everything written so far arrived (or nothing was), else why it did not:
// "No space left on device", "the reader went away (broken pipe)".
QString stdoutProblem();
// True when stdout is a terminal (progress bars, colours).
bool stdoutIsTerminal();

// Exit codes shared by every subcommand (documented in --help).
// Incomplete: the command could not see everything it was asked to (keys the server would not let it read,
// values it refused, nodes that did not answer): its "nothing found" is not a clean bill of health.
enum ExitCode { Ok = 0, Failure = 1, Usage = 2, ExpectFailed = 3, Incomplete = 4 };

} // namespace CliIo
