// CommandLineStart: QCommandLineParser's own error text, and its help text, returned rather than printed;
// printed only once the command has decided to stop.
#include "commandlinestart.h"

#include "cliio.h"

#include <QCommandLineParser>

bool CommandLineStart::parse(QCommandLineParser &parser, const QStringList &arguments, QString *helpText,
                             QString *error)
{
    if (!parser.parse(arguments)) {
        *error = parser.errorText();
        return false;
    }
    if (parser.isSet(QStringLiteral("help"))) {
        *helpText = parser.helpText();
        return false;
    }
    return true;
}

std::optional<int> CommandLineStart::earlyExit(const QString &command, const QString &helpText,
                                               const QString &error)
{
    if (!helpText.isEmpty()) {
        CliIo::out() << helpText << Qt::flush;
        return CliIo::Ok;
    }
    if (!error.isEmpty()) {
        CliIo::err() << command << ": " << error << "\n" << Qt::flush;
        return CliIo::Usage;
    }
    return std::nullopt;
}
