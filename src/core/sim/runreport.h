// The result of a run as the CLI prints it, the GUI's cards show it and `--json` writes it (the shape is
// fixed by issue 5), plus the expectation checks that decide pass/fail.
#pragma once

#include "expectation.h"
#include "persistenterrortracker.h"
#include "runmetrics.h"
#include "safetychecker.h"

#include <QHash>
#include <QJsonObject>
#include <QList>
#include <QString>

struct RunReport
{
    QString scenario;
    QString title;
    QString algorithm;
    quint64 seed = 0;
    QString server; // "sandbox 127.0.0.1:port" or the endpoint given
    // How pub/sub waiters listened: "sharded" (SSUBSCRIBE, SPUBLISH) or "classic"; empty when none wait so.
    QString pubSub;
    int servers = 1; // independent masters (Redlock's N)
    RunMetrics metrics;
    SafetyChecker::Result safety;
    QString counterKey; // the first counter's key
    int counters = 0; // one per lock; expected and actual below are their sums
    qint64 locksWithoutTtl = 0; // lock keys left with no TTL at the end (PTTL -1): stuck forever
    QStringList stuckKeys; // which keys those are (external clients: the library's own key names)
    // Operations whose outcome is unknown: a request to an external client that got no reply in time, or
    // an error that may have come after the command took effect.
    qint64 unknownOutcomes = 0;
    // External clients: the library each worker ran and the processes it ran as.
    struct ClientWorker
    {
        QString worker;
        QString library;
        QString version;
        QList<qint64> pids;
        QString stderrTail; // the end of what the adapter wrote on standard error (its log is gone with the run)
    };
    QList<ClientWorker> clients;
    qint64 failedRounds = 0; // Redlock rounds that did not win (no quorum or validity spent), counted by the
                             // workers themselves (also without a history)
    qint64 countedCycles = 0; // completed cycles counted by the workers themselves (also without a history)
    qint64 countedCommands = 0; // Redis commands of LockScope's own workers' completed steps, likewise
    qint64 historyEvents = 0;
    qint64 historyDropped = 0; // events that did not fit: the checker saw an incomplete history
    QStringList outages; // server outages seen during the run ("12.3 s – 14.0 s: connection refused")
    QString stopReason; // empty when the run ended as planned ("interrupted", "server died", …)
    bool serverLost = false; // the servers stopped answering (not by a scheduled fault) and never came back
    // The run gave up early because a server kept refusing its commands the same way (a renamed or forbidden
    // command, OOM, READONLY…): which command, what the server said. stopReason says it in one line.
    std::optional<PersistentErrorTracker::Failure> persistentError;
    QList<Expectation::Check> checks;

    // How far the counter ended outside what the applied writes (and those of unknown outcome) allow.
    qint64 counterLost() const;
    // The values expectations refer to ("overlaps", "violations", …).
    QHash<QString, double> expectationValues() const;
    // Evaluates `expectations` into `checks`.
    void evaluate(const QList<Expectation> &expectations);
    bool passed() const;
    // The run gave up on `failure`: persistentError and stopReason say so.
    void setPersistentError(const PersistentErrorTracker::Failure &failure);
    // Why the run is no evidence about its scenario (the servers were lost, or refused it for good), in one
    // line; empty when it is.
    QString failure() const;
    QJsonObject toJson() const;
    // A readable summary for the terminal.
    QString summaryText() const;
};
