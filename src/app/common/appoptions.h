// The GUI's command line: connection options plus what to open first.
#pragma once

#include "connectionoptions.h"

#include <QStringList>

struct AppOptions
{
    ConnectionOptions connection;
    QString story; // --story ID: open the Learn place on this story
    QString preset; // --preset ID: open the Simulator with this preset loaded
    bool run = false; // --run: and start it at once (on the sandbox)

    enum class Outcome { Run, ExitOk, ExitUsage };
    // Parses `arguments` (program name first). On ExitOk/ExitUsage, `message` holds the text to print.
    static Outcome parse(const QStringList &arguments, AppOptions *out, QString *message);
    // True when argv only asks for --version/--help, which must work without a display.
    static bool isInfoOnly(const QStringList &arguments);
    static QString versionText();
};
