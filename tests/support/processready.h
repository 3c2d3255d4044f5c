// Starting a long-running executable (lockscope-cli serve, prometheus) and waiting until it says it is ready
// on standard error, for the tests that talk to it over the network.
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

} // namespace ProcessReady
