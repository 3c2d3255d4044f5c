// RunReport: JSON and text forms.
#include "runreport.h"

#include <QJsonArray>

#include <algorithm>

QHash<QString, double> RunReport::expectationValues() const
{
    const RunMetrics &m = metrics;
    return {
        {QStringLiteral("overlaps"), safety.overlaps},
        {QStringLiteral("stale_holders"), safety.staleHolders},
        {QStringLiteral("foreign_releases"), safety.foreignReleases},
        {QStringLiteral("lost_updates"), safety.lostUpdates},
        {QStringLiteral("fencing_rejections"), safety.fencingRejections},
        {QStringLiteral("violations"), safety.violations()},
        {QStringLiteral("acquisitions"), double(m.acquisitions)},
        {QStringLiteral("cycles"), double(m.cycles)},
        {QStringLiteral("cycles_per_s"), m.cyclesPerS},
        {QStringLiteral("failed_acquires"), double(m.failedAcquires)},
        {QStringLiteral("errors"), double(m.errors)},
        {QStringLiteral("renewals"), double(m.renewals)},
        {QStringLiteral("renewal_period_ms"), double(m.renewalInterval.p50) / 1000.0},
        {QStringLiteral("expiries"), double(m.expiries)},
        {QStringLiteral("fairness_jain"), m.fairnessJain},
        {QStringLiteral("counter_lost"), double(counterLost())},
        {QStringLiteral("unknown_outcomes"), double(unknownOutcomes)},
        {QStringLiteral("acquire_p50_us"), double(m.acquireLatency.p50)},
        {QStringLiteral("acquire_p99_us"), double(m.acquireLatency.p99)},
        {QStringLiteral("handoff_p50_us"), double(m.handoffLatency.p50)},
        {QStringLiteral("longest_wait_us"), double(m.longestWaitUs)},
        {QStringLiteral("max_holders"), double(safety.maxInside)},
        {QStringLiteral("locks_without_ttl"), double(locksWithoutTtl)},
        {QStringLiteral("failed_rounds"), double(failedRounds)},
        {QStringLiteral("rounds"), double(m.rounds)},
        {QStringLiteral("rounds_won"), double(m.roundsWon)},
        {QStringLiteral("rounds_no_quorum"), double(m.roundsNoQuorum)},
        {QStringLiteral("rounds_validity_spent"), double(m.roundsValiditySpent)},
    };
}

qint64 RunReport::counterLost() const
{
    if (!safety.counterObserved)
        return 0;
    const qint64 low = std::min(safety.counterExpectedLow, safety.counterExpected);
    const qint64 high = std::max(safety.counterExpectedHigh, safety.counterExpected);
    const qint64 v = safety.counterActual;
    return v < low ? low - v : v > high ? v - high : 0;
}

void RunReport::evaluate(const QList<Expectation> &expectations)
{
    checks.clear();
    const QHash<QString, double> values = expectationValues();
    for (const Expectation &e : expectations)
        checks.append(e.evaluate(values));
}

bool RunReport::passed() const
{
    for (const Expectation::Check &c : checks) {
        if (!c.passed)
            return false;
    }
    return true;
}

void RunReport::setPersistentError(const PersistentErrorTracker::Failure &failure)
{
    persistentError = failure;
    stopReason = QStringLiteral("the server keeps refusing the run: %1").arg(failure.describe());
}

QString RunReport::failure() const
{
    return serverLost || persistentError ? stopReason : QString();
}

QJsonObject RunReport::toJson() const
{
    const RunMetrics &m = metrics;
    QJsonArray details;
    for (const Violation &v : safety.details)
        details.append(v.toJson());
    QJsonArray checkList;
    for (const Expectation::Check &c : checks)
        checkList.append(c.toJson());
    QJsonArray perWorker;
    for (qint64 n : m.acquisitionsPerWorker)
        perWorker.append(double(n));
    QJsonObject report {
        {QStringLiteral("scenario"), scenario},
        {QStringLiteral("title"), title},
        {QStringLiteral("algorithm"), algorithm},
        {QStringLiteral("seed"), double(seed)},
        {QStringLiteral("server"), server},
        {QStringLiteral("pubsub"), pubSub.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(pubSub)},
        {QStringLiteral("duration_s"), double(m.durationUs) / 1e6},
        {QStringLiteral("workers"), m.workers},
        {QStringLiteral("acquisitions"), double(m.acquisitions)},
        {QStringLiteral("cycles"), double(m.cycles)},
        {QStringLiteral("cycles_per_s"), m.cyclesPerS},
        {QStringLiteral("failed_acquires"), double(m.failedAcquires)},
        {QStringLiteral("acquire_latency_us"), m.acquireLatency.toJson()},
        {QStringLiteral("handoff_latency_us"), m.handoffLatency.toJson()},
        {QStringLiteral("hold_time_us"), m.holdTime.toJson()},
        {QStringLiteral("longest_wait_us"), double(m.longestWaitUs)},
        {QStringLiteral("fairness_jain"), m.fairnessJain},
        {QStringLiteral("acquisitions_per_worker"), perWorker},
        {QStringLiteral("renewals"), double(m.renewals)},
        {QStringLiteral("renewal_interval_us"), m.renewalInterval.toJson()},
        {QStringLiteral("expiries"), double(m.expiries)},
        {QStringLiteral("errors"), double(m.errors)},
        {QStringLiteral("commands_per_acquisition"), m.commandsPerAcquisition},
        {QStringLiteral("locks_without_ttl"), double(locksWithoutTtl)},
        {QStringLiteral("failed_rounds"), double(failedRounds)},
        {QStringLiteral("counted_cycles"), double(countedCycles)},
        {QStringLiteral("counted_commands"), double(countedCommands)},
        {QStringLiteral("unknown_outcomes"), double(unknownOutcomes)},
        {QStringLiteral("violations"),
         QJsonObject {{QStringLiteral("overlaps"), safety.overlaps},
                      {QStringLiteral("stale_holders"), safety.staleHolders},
                      {QStringLiteral("foreign_releases"), safety.foreignReleases},
                      {QStringLiteral("lost_updates"), safety.lostUpdates},
                      {QStringLiteral("fencing_rejections"), safety.fencingRejections},
                      {QStringLiteral("total"), safety.violations()},
                      {QStringLiteral("details"), details}}},
        {QStringLiteral("history"),
         QJsonObject {{QStringLiteral("events"), double(historyEvents)},
                      {QStringLiteral("dropped"), double(historyDropped)},
                      {QStringLiteral("complete"), historyDropped == 0}}},
        {QStringLiteral("outages"), QJsonArray::fromStringList(outages)},
        {QStringLiteral("expect"),
         QJsonObject {{QStringLiteral("passed"), passed()}, {QStringLiteral("checks"), checkList}}},
    };
    if (!counterKey.isEmpty()) {
        QJsonObject counter {{QStringLiteral("key"), counterKey},
                             {QStringLiteral("count"), std::max(1, counters)},
                             {QStringLiteral("expected"), double(safety.counterExpected)}};
        counter.insert(QStringLiteral("actual"),
                       safety.counterObserved ? QJsonValue(double(safety.counterActual)) : QJsonValue());
        report.insert(QStringLiteral("counter"), counter);
    }
    if (!stopReason.isEmpty())
        report.insert(QStringLiteral("stop_reason"), stopReason);
    if (persistentError) {
        const PersistentErrorTracker::Failure &f = *persistentError;
        report.insert(
            QStringLiteral("persistent_error"),
            QJsonObject {{QStringLiteral("operation"), PersistentErrorTracker::operationName(f.operation)},
                         {QStringLiteral("command"), f.command},
                         {QStringLiteral("error"), f.error},
                         {QStringLiteral("failures"), double(f.failures)},
                         {QStringLiteral("first_s"), double(f.firstUs) / 1e6},
                         {QStringLiteral("last_s"), double(f.lastUs) / 1e6}});
    }
    if (!stuckKeys.isEmpty())
        report.insert(QStringLiteral("locks_without_ttl_keys"), QJsonArray::fromStringList(stuckKeys));
    if (!clients.isEmpty()) {
        QJsonArray list;
        for (const ClientWorker &c : clients) {
            QJsonArray pids;
            for (qint64 pid : c.pids)
                pids.append(double(pid));
            QJsonObject o {{QStringLiteral("worker"), c.worker},
                           {QStringLiteral("library"), c.library},
                           {QStringLiteral("version"), c.version},
                           {QStringLiteral("pids"), pids}};
            if (!c.stderrTail.isEmpty())
                o.insert(QStringLiteral("stderr_tail"), c.stderrTail);
            list.append(o);
        }
        report.insert(QStringLiteral("clients"), list);
    }
    if (m.rounds > 0) {
        QJsonObject redlock {{QStringLiteral("servers"), servers},
                             {QStringLiteral("quorum"), servers / 2 + 1},
                             {QStringLiteral("rounds"), double(m.rounds)},
                             {QStringLiteral("won"), double(m.roundsWon)},
                             {QStringLiteral("no_quorum"), double(m.roundsNoQuorum)},
                             {QStringLiteral("validity_spent"), double(m.roundsValiditySpent)}};
        if (m.roundsWon > 0) {
            redlock.insert(QStringLiteral("validity_min_ms"), double(m.validityMinMs));
            redlock.insert(QStringLiteral("validity_p50_ms"), double(m.validityP50Ms));
        }
        report.insert(QStringLiteral("redlock"), redlock);
    }
    return report;
}

static QString us(qint64 v)
{
    if (v >= 1000000)
        return QString::number(double(v) / 1e6, 'f', 2) + QStringLiteral(" s");
    if (v >= 1000)
        return QString::number(double(v) / 1e3, 'f', 2) + QStringLiteral(" ms");
    return QString::number(v) + QStringLiteral(" µs");
}

QString RunReport::summaryText() const
{
    const RunMetrics &m = metrics;
    QString t;
    t += QStringLiteral("%1 — %2\n").arg(scenario, title);
    t += QStringLiteral("  algorithm %1 · %2 workers · %3 s · seed %4 · %5\n")
             .arg(algorithm)
             .arg(m.workers)
             .arg(double(m.durationUs) / 1e6, 0, 'f', 1)
             .arg(seed)
             .arg(server);
    if (pubSub == QLatin1String("sharded"))
        t += QStringLiteral("  waiters listened on sharded pub/sub (SSUBSCRIBE, releases SPUBLISH), as Redisson "
                            ">= 3.22 does on a Redis >= 7 cluster\n");
    t += QStringLiteral("  %1 acquisitions, %2 cycles/s, %3 gave up, %4 errors\n")
             .arg(m.acquisitions)
             .arg(m.cyclesPerS, 0, 'f', 1)
             .arg(m.failedAcquires)
             .arg(m.errors);
    t += QStringLiteral("  acquire latency p50 %1 · p99 %2 · max %3;  hand-off p50 %4;  fairness %5\n")
             .arg(us(m.acquireLatency.p50), us(m.acquireLatency.p99), us(m.acquireLatency.max),
                  us(m.handoffLatency.p50))
             .arg(m.fairnessJain, 0, 'f', 3);
    if (clients.isEmpty()) {
        t += QStringLiteral("  renewals %1 · expiries %2 · %3 Redis commands per acquisition\n")
                 .arg(m.renewals)
                 .arg(m.expiries)
                 .arg(m.commandsPerAcquisition, 0, 'f', 1);
    } else {
        // An external library's Redis commands are its own; what LockScope sees is its requests.
        t += QStringLiteral("  renewals %1 (reported by the library) · expiries %2 · %3 outcomes unknown\n")
                 .arg(m.renewals)
                 .arg(m.expiries)
                 .arg(unknownOutcomes);
        QStringList who;
        for (const ClientWorker &c : clients) {
            QStringList pids;
            for (qint64 pid : c.pids)
                pids << QString::number(pid);
            who << QStringLiteral("%1 %2 %3 (pid %4)").arg(c.worker, c.library, c.version, pids.join(u','));
        }
        t += QStringLiteral("  workers: %1\n").arg(who.join(QStringLiteral("; ")));
    }
    if (m.rounds > 0) {
        t += QStringLiteral(
                 "  Redlock on %1 servers (quorum %2): %3 rounds, %4 won, %5 without a quorum, %6 with "
                 "the validity spent")
                 .arg(servers)
                 .arg(servers / 2 + 1)
                 .arg(m.rounds)
                 .arg(m.roundsWon)
                 .arg(m.roundsNoQuorum)
                 .arg(m.roundsValiditySpent);
        if (m.roundsWon > 0)
            t += QStringLiteral("; validity left p50 %1 ms, least %2 ms")
                     .arg(m.validityP50Ms)
                     .arg(m.validityMinMs);
        t += u'\n';
    }
    // One arg() call for each line with the user's text (the key prefix, the expectation): a "%1" in it stays
    // as written instead of taking the next number.
    if (!counterKey.isEmpty())
        t += QStringLiteral("  %1: expected %2, actual %3\n")
                 .arg(counters > 1 ? QStringLiteral("%1 counters (%2 and the next ones, summed)")
                                         .arg(QString::number(counters), counterKey)
                                   : QStringLiteral("counter ") + counterKey,
                      QString::number(safety.counterExpected),
                      safety.counterObserved ? QString::number(safety.counterActual)
                                             : QStringLiteral("unknown"));
    t += QStringLiteral("  violations: %1 overlaps, %2 stale holders, %3 foreign releases, %4 lost updates; "
                        "%5 fencing rejections\n")
             .arg(safety.overlaps)
             .arg(safety.staleHolders)
             .arg(safety.foreignReleases)
             .arg(safety.lostUpdates)
             .arg(safety.fencingRejections);
    for (qsizetype i = 0; i < std::min<qsizetype>(5, safety.details.size()); ++i)
        t += QStringLiteral("    • %1\n").arg(safety.details.at(i).text);
    if (safety.details.size() > 5)
        t += QStringLiteral("    … and %1 more (see --json)\n").arg(safety.details.size() - 5);
    if (historyDropped > 0)
        t += QStringLiteral(
                 "  WARNING: %1 events did not fit in memory; the check saw an incomplete history\n")
                 .arg(historyDropped);
    if (!stuckKeys.isEmpty())
        t += QStringLiteral("  left without a TTL (they never expire; the Inspector's no-ttl): %1\n")
                 .arg(stuckKeys.join(QStringLiteral(", ")));
    for (const QString &o : outages)
        t += QStringLiteral("  outage: %1\n").arg(o);
    if (!stopReason.isEmpty())
        t += QStringLiteral("  stopped early: %1\n").arg(stopReason);
    for (const Expectation::Check &c : checks)
        t += QStringLiteral("  %1 expect %2 (actual %3)\n")
                 .arg(c.passed ? QStringLiteral("✔") : QStringLiteral("✘"), c.expectation,
                      QString::number(c.actual));
    if (!checks.isEmpty())
        t += passed() ? QStringLiteral("PASSED\n")
                      : QStringLiteral("FAILED: the run did not show what the scenario expects\n");
    return t;
}
