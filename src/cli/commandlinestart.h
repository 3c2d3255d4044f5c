// The first two answers every subcommand's command line gives: is it well formed, and was --help asked for.
// Shared by every command whose arguments are read into a value (InspectArguments, LockArguments, …).
#pragma once

#include <QString>
#include <QStringList>

#include <optional>

class QCommandLineParser;

namespace CommandLineStart {

// Parses `arguments` with `parser` (its options already added). False when the command goes no further:
// --help was asked for (`helpText` set, exit 0) or the arguments are malformed (`error` set, exit 2).
bool parse(QCommandLineParser &parser, const QStringList &arguments, QString *helpText, QString *error);

// What a command prints when its command line ends it: `helpText` on standard output (exit 0), else
// "COMMAND: error" on standard error (exit 2). Empty when neither is set and the command goes on.
std::optional<int> earlyExit(const QString &command, const QString &helpText, const QString &error);

} // namespace CommandLineStart
