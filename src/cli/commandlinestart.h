// The first two answers every subcommand's command line gives: is it well formed, and was --help asked for.
// Shared by the commands whose arguments are read into a value (InspectArguments, LockArguments).
#pragma once

#include <QString>
#include <QStringList>

class QCommandLineParser;

namespace CommandLineStart {

// Parses `arguments` with `parser` (its options already added). False when the command goes no further:
// --help was asked for (`helpText` set, exit 0) or the arguments are malformed (`error` set, exit 2).
bool parse(QCommandLineParser &parser, const QStringList &arguments, QString *helpText, QString *error);

} // namespace CommandLineStart
