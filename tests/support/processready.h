// Starting a long-running executable (lockscope-cli serve, prometheus) and waiting until it says it is ready
// on standard error, for the tests that talk to it over the network; and running one that reads standard
// input (serve --hash-password).
#pragma once

#include <QByteArray>
#include <QProcess>
#include <QProcessEnvironment>
#include <QRegularExpression>
#include <QStringList>

namespace ProcessReady {

// Starts `program` in `process` and reads its standard error until `ready` matches it: false when it does
// not within `timeoutMs` or the process ends first (with a warning quoting what it wrote). `match` gets the
// match, for its captures; `stderrSoFar` (may be null) what was read.
bool start(QProcess &process, const QString &program, const QStringList &arguments,
           const QRegularExpression &ready, const QProcessEnvironment &environment,
           QRegularExpressionMatch *match, QByteArray *stderrSoFar = nullptr, int timeoutMs = 30000);

// Runs `program` with `input` on its standard input until it ends (at most 30 s) and returns its standard
// output; `exitCode` gets its exit code (-1 when it did not end normally).
QByteArray runWithInput(const QString &program, const QStringList &arguments, const QByteArray &input,
                        int *exitCode);

} // namespace ProcessReady
