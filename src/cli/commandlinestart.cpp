// CommandLineStart: QCommandLineParser's own error text, and its help text, returned rather than printed.
#include "commandlinestart.h"

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
