// CliIo: process-wide output streams.
#include "cliio.h"

#include <cstdio>
#include <unistd.h>

namespace CliIo {

QTextStream &out()
{
    static QTextStream stream(stdout);
    return stream;
}

QTextStream &err()
{
    static QTextStream stream(stderr);
    return stream;
}

bool stdoutIsTerminal()
{
    return ::isatty(STDOUT_FILENO) == 1;
}

} // namespace CliIo
