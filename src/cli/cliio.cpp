// CliIo: process-wide output streams.
#include "cliio.h"

#include "checkedoutput.h"

#include <cstdio>
#include <unistd.h>

namespace CliIo {

CheckedOutput &stdoutDevice()
{
    static CheckedOutput device(STDOUT_FILENO);
    return device;
}

QTextStream &out()
{
    static QTextStream stream(&stdoutDevice());
    return stream;
}

QTextStream &err()
{
    static QTextStream stream(stderr);
    return stream;
}

QString stdoutProblem()
{
    out().flush();
    if (stdoutDevice().failed())
        return stdoutDevice().errorText();
    if (stdoutDevice().readerGone())
        return QStringLiteral("the reader went away");
    return {};
}

bool stdoutIsTerminal()
{
    return ::isatty(STDOUT_FILENO) == 1;
}

} // namespace CliIo
