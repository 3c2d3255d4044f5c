// ProcessReady: reads standard error in short waits, so a process that dies early is noticed at once.
#include "processready.h"

#include <QElapsedTimer>

bool ProcessReady::start(QProcess &process, const QString &program, const QStringList &arguments,
                         const QRegularExpression &ready, const QProcessEnvironment &environment,
                         QRegularExpressionMatch *match, QByteArray *stderrSoFar, int timeoutMs)
{
    process.setProcessEnvironment(environment);
    process.setProcessChannelMode(QProcess::SeparateChannels);
    process.start(program, arguments);
    if (!process.waitForStarted())
        return false;
    QByteArray err;
    QElapsedTimer t;
    t.start();
    bool matched = false;
    while (!matched && t.elapsed() < timeoutMs && process.state() == QProcess::Running) {
        process.waitForReadyRead(200);
        err += process.readAllStandardError();
        *match = ready.match(QString::fromUtf8(err));
        matched = match->hasMatch();
    }
    if (stderrSoFar)
        *stderrSoFar = err;
    if (!matched)
        qWarning("%s did not start: %s", qPrintable(program), err.constData());
    return matched;
}

QByteArray ProcessReady::runWithInput(const QString &program, const QStringList &arguments,
                                      const QByteArray &input, int *exitCode)
{
    QProcess process;
    process.start(program, arguments);
    *exitCode = -1;
    if (!process.waitForStarted())
        return {};
    process.write(input);
    process.closeWriteChannel();
    if (!process.waitForFinished(30000)) {
        process.kill();
        process.waitForFinished();
        return {};
    }
    if (process.exitStatus() == QProcess::NormalExit)
        *exitCode = process.exitCode();
    return process.readAllStandardOutput();
}
