// ExploreResult: the report's JSON, its five-line summary, and the merge of shards.
#include "exploreresult.h"

#include <QJsonArray>

#include <algorithm>

namespace {

QString length(double ms)
{
    return ms >= 1000 ? QString::number(ms / 1000.0, 'f', 2) + QStringLiteral(" s")
                      : QString::number(qRound(ms)) + QStringLiteral(" ms");
}

// Smaller is simpler: fewer faults, then fewer workers, then shorter faults.
double sizeOf(const QJsonObject &report)
{
    const QJsonObject minimal = report.value(QStringLiteral("minimal")).toObject();
    const QJsonArray faults = minimal.value(QStringLiteral("faults")).toArray();
    double length = 0;
    for (const QJsonValue &f : faults)
        length += f.toObject().value(QStringLiteral("duration_ms")).toDouble();
    return faults.size() * 1e9 + minimal.value(QStringLiteral("workers")).toInt() * 1e7 + length;
}

} // namespace

QJsonObject ExploreResult::toJson() const
{
    QJsonObject o {{QStringLiteral("lockscope_explore"), 1},
                   {QStringLiteral("target"), target},
                   {QStringLiteral("lease_ms"), leaseMs},
                   {QStringLiteral("workers"), workers},
                   {QStringLiteral("faults"), QJsonArray::fromStringList(faultKinds)},
                   {QStringLiteral("properties"), QJsonArray::fromStringList(properties)},
                   {QStringLiteral("mode"), mode},
                   {QStringLiteral("seed"), QString::number(seed)},
                   {QStringLiteral("shard"), QStringLiteral("%1/%2").arg(shardIndex).arg(shardCount)},
                   {QStringLiteral("server"), server},
                   {QStringLiteral("found"), found},
                   {QStringLiteral("schedules_tried"), double(schedulesTried)},
                   {QStringLiteral("runs"), double(runs)},
                   {QStringLiteral("seconds"), std::round(seconds * 100) / 100},
                   {QStringLiteral("stopped_because"), stoppedBecause},
                   {QStringLiteral("coverage"), coverage},
                   {QStringLiteral("coverage_text"), coverageText}};
    if (found) {
        o.insert(QStringLiteral("violation"),
                 QJsonObject {{QStringLiteral("kind"), property}, {QStringLiteral("sentence"), sentence}});
        o.insert(QStringLiteral("first_violation"),
                 QJsonObject {{QStringLiteral("schedules"), double(firstViolationSchedules)},
                              {QStringLiteral("seconds"), std::round(firstViolationSeconds * 100) / 100},
                              {QStringLiteral("faults"), firstFailing.faultsJson()},
                              {QStringLiteral("workers"), firstFailing.workers}});
        o.insert(QStringLiteral("minimal"),
                 QJsonObject {{QStringLiteral("workers"), minimal.workers},
                              {QStringLiteral("faults"), minimal.faultsJson()},
                              {QStringLiteral("text"), minimal.describe()}});
        o.insert(QStringLiteral("reproduced"), QJsonObject {{QStringLiteral("runs"), reproducedRuns},
                                                            {QStringLiteral("violated"), reproducedViolated}});
        o.insert(QStringLiteral("data_lost"), dataLost);
        o.insert(QStringLiteral("fencing_rejections"), fencingRejections);
        if (storyRuns > 0)
            o.insert(QStringLiteral("story_replayed"), QJsonObject {{QStringLiteral("runs"), storyRuns},
                                                                    {QStringLiteral("violated"), storyReplayed}});
        if (!storyProblem.isEmpty())
            o.insert(QStringLiteral("story_problem"), storyProblem);
    } else {
        o.insert(QStringLiteral("violation"), QJsonValue::Null);
        if (stoppedBecause == QLatin1String("failed"))
            o.insert(QStringLiteral("failure"), sentence); // why the search could not run
    }
    if (!confirmations.isEmpty()) {
        QJsonArray byLength;
        for (const Boundary::Step &c : confirmations)
            byLength.append(QJsonObject {{QStringLiteral("duration_ms"), c.ms},
                                         {QStringLiteral("runs"), c.runs},
                                         {QStringLiteral("violated"), c.violated}});
        o.insert(QStringLiteral("confirmations"), byLength);
    }
    if (boundary) {
        QJsonObject b {{QStringLiteral("fault"), boundary->fault},
                       {QStringLiteral("process"), boundary->process},
                       {QStringLiteral("fails_at_ms"), boundary->failsAtMs},
                       {QStringLiteral("text"), boundary->text}};
        if (boundary->triedBelowMs >= 0) {
            b.insert(QStringLiteral("tried_below_ms"), boundary->triedBelowMs);
            b.insert(QStringLiteral("below_runs"), boundary->belowRuns);
            b.insert(QStringLiteral("below_violated"), boundary->belowViolated);
        }
        if (!boundary->grey.isEmpty()) {
            QJsonArray grey;
            for (const Boundary::Step &g : boundary->grey)
                grey.append(QJsonObject {{QStringLiteral("ms"), g.ms},
                                         {QStringLiteral("runs"), g.runs},
                                         {QStringLiteral("violated"), g.violated}});
            b.insert(QStringLiteral("sometimes_at"), grey);
        }
        o.insert(QStringLiteral("boundary"), b);
    } else {
        o.insert(QStringLiteral("boundary"), QJsonValue::Null);
    }
    if (closestMarginMs)
        o.insert(QStringLiteral("closest_call"), QJsonObject {{QStringLiteral("margin_ms"), std::round(*closestMarginMs * 10) / 10},
                                                              {QStringLiteral("text"), closestText}});
    else
        o.insert(QStringLiteral("closest_call"), QJsonValue::Null);
    o.insert(QStringLiteral("unconfirmed"), QJsonArray::fromStringList(unconfirmed));
    return o;
}

QString ExploreResult::summaryOf(const QJsonObject &r)
{
    QStringList lines;
    const QString target = r.value(QStringLiteral("target")).toString();
    const int lease = r.value(QStringLiteral("lease_ms")).toInt();
    const qint64 tried = qint64(r.value(QStringLiteral("schedules_tried")).toDouble());
    const double seconds = r.value(QStringLiteral("seconds")).toDouble();
    const QString shard = r.value(QStringLiteral("shard")).toString();
    const QString where = QStringLiteral("%1 · lease %2 · seed %3%4")
                              .arg(target, length(lease), r.value(QStringLiteral("seed")).toString(),
                                   shard == QLatin1String("0/1") ? QString() : QStringLiteral(" · shard ") + shard);
    if (r.value(QStringLiteral("stopped_because")).toString() == QLatin1String("failed")
        && !r.value(QStringLiteral("found")).toBool()) {
        // A search that could not run found nothing and tried nothing worth counting: no "none found".
        lines << QStringLiteral("FAILED after %1 schedules of %2 (%3 s): nothing can be said of the lock")
                     .arg(tried)
                     .arg(target)
                     .arg(seconds, 0, 'f', 1);
        lines << QStringLiteral("  %1").arg(where);
        lines << QStringLiteral("  %1").arg(r.value(QStringLiteral("failure")).toString());
        return lines.join(u'\n') + u'\n';
    }
    if (r.value(QStringLiteral("found")).toBool()) {
        const QJsonObject v = r.value(QStringLiteral("violation")).toObject();
        const QJsonObject first = r.value(QStringLiteral("first_violation")).toObject();
        const QJsonObject minimal = r.value(QStringLiteral("minimal")).toObject();
        const QJsonObject rep = r.value(QStringLiteral("reproduced")).toObject();
        lines << QStringLiteral("FOUND %1 in %2 — %3").arg(v.value(QStringLiteral("kind")).toString(), target,
                                                          v.value(QStringLiteral("sentence")).toString());
        const int firstAfter = first.value(QStringLiteral("schedules")).toInt();
        lines << QStringLiteral("  first seen after %1 schedule%2 (%3 s); %4 schedules in %5 s (%6)")
                     .arg(firstAfter)
                     .arg(firstAfter == 1 ? QString() : QStringLiteral("s"))
                     .arg(first.value(QStringLiteral("seconds")).toDouble(), 0, 'f', 1)
                     .arg(tried)
                     .arg(seconds, 0, 'f', 1)
                     .arg(where);
        const bool sightingOnly = r.value(QStringLiteral("stopped_because")).toString() == QLatin1String("first sighting");
        lines << QStringLiteral("  %1: %2 workers, %3")
                     .arg(sightingOnly ? QStringLiteral("schedule") : QStringLiteral("minimal"))
                     .arg(minimal.value(QStringLiteral("workers")).toInt())
                     .arg(minimal.value(QStringLiteral("text")).toString());
        QString again = QStringLiteral("  reproduced in %1 of %2 reruns")
                            .arg(rep.value(QStringLiteral("violated")).toInt())
                            .arg(rep.value(QStringLiteral("runs")).toInt());
        if (sightingOnly)
            again = QStringLiteral("  seen once, neither shrunk nor confirmed (--first-sighting)");
        const QJsonObject story = r.value(QStringLiteral("story_replayed")).toObject();
        const QString storyProblem = r.value(QStringLiteral("story_problem")).toString();
        if (!storyProblem.isEmpty())
            again += QStringLiteral("; its story could not be replayed: ") + storyProblem;
        else if (!story.isEmpty())
            again += QStringLiteral("; its story replayed it in %1 of %2")
                         .arg(story.value(QStringLiteral("violated")).toInt())
                         .arg(story.value(QStringLiteral("runs")).toInt());
        const int refused = r.value(QStringLiteral("fencing_rejections")).toInt();
        if (refused > 0 && !r.value(QStringLiteral("data_lost")).toBool())
            again += QStringLiteral("; no data lost: the fenced store refused %1 stale write(s)").arg(refused);
        else if (refused > 0)
            again += QStringLiteral("; the fenced store refused %1 stale write(s), yet a rerun lost an update")
                         .arg(refused);
        lines << again;
        const QJsonObject b = r.value(QStringLiteral("boundary")).toObject();
        lines << (b.isEmpty() ? QStringLiteral("  boundary: no fault length decides it")
                              : QStringLiteral("  boundary: ") + b.value(QStringLiteral("text")).toString());
    } else {
        lines << QStringLiteral("NONE FOUND in %1 schedules of %2 (%3 s) — not a proof: only these schedules were tried")
                     .arg(tried)
                     .arg(target)
                     .arg(seconds, 0, 'f', 1);
        lines << QStringLiteral("  %1").arg(where);
        lines << QStringLiteral("  covered: %1").arg(r.value(QStringLiteral("coverage_text")).toString());
        const QJsonObject c = r.value(QStringLiteral("closest_call")).toObject();
        lines << (c.isEmpty() ? QStringLiteral("  closest call: the lock never changed hands between two workers")
                              : QStringLiteral("  closest call: ") + c.value(QStringLiteral("text")).toString());
        const QJsonArray unconfirmed = r.value(QStringLiteral("unconfirmed")).toArray();
        lines << (unconfirmed.isEmpty()
                      ? QStringLiteral("  no violation was seen, not even once")
                      : QStringLiteral("  seen once but never again (not counted): %1")
                            .arg(unconfirmed.first().toString()));
    }
    return lines.join(u'\n') + u'\n';
}

bool ExploreResult::merge(const QList<QJsonObject> &shards, QJsonObject *merged, QString *error)
{
    if (shards.isEmpty()) {
        *error = QStringLiteral("give the shards' reports to merge");
        return false;
    }
    const QJsonObject &first = shards.first();
    QJsonObject out;
    qint64 tried = 0, runs = 0;
    double seconds = 0;
    QJsonObject coverage;
    QJsonArray unconfirmed;
    std::optional<double> closest;
    QJsonValue closestCall = QJsonValue::Null;
    int best = -1;
    QStringList seenShards;
    for (qsizetype i = 0; i < shards.size(); ++i) {
        const QJsonObject &s = shards.at(i);
        if (s.value(QStringLiteral("lockscope_explore")).toInt() != 1) {
            *error = QStringLiteral("report %1 is not a lockscope-cli explore --json report").arg(i + 1);
            return false;
        }
        for (const char *field : {"target", "lease_ms", "seed", "mode"}) {
            if (s.value(QLatin1String(field)) != first.value(QLatin1String(field))) {
                *error = QStringLiteral("report %1 explored another search (%2 differs): only shards of one "
                                        "search merge")
                             .arg(i + 1)
                             .arg(QLatin1String(field));
                return false;
            }
        }
        const QString shard = s.value(QStringLiteral("shard")).toString();
        if (seenShards.contains(shard)) {
            *error = QStringLiteral("shard %1 is given twice").arg(shard);
            return false;
        }
        seenShards << shard;
        tried += qint64(s.value(QStringLiteral("schedules_tried")).toDouble());
        runs += qint64(s.value(QStringLiteral("runs")).toDouble());
        seconds = std::max(seconds, s.value(QStringLiteral("seconds")).toDouble());
        const QJsonObject cov = s.value(QStringLiteral("coverage")).toObject();
        for (auto it = cov.constBegin(); it != cov.constEnd(); ++it) {
            QJsonObject mine = coverage.value(it.key()).toObject();
            const QJsonObject theirs = it.value().toObject();
            mine.insert(QStringLiteral("schedules"), mine.value(QStringLiteral("schedules")).toInt()
                                                         + theirs.value(QStringLiteral("schedules")).toInt());
            for (const char *range : {"at_ms", "length_ms"}) {
                const QJsonArray a = mine.value(QLatin1String(range)).toArray();
                const QJsonArray b = theirs.value(QLatin1String(range)).toArray();
                if (b.size() != 2)
                    continue;
                mine.insert(QLatin1String(range),
                            a.size() != 2 ? b
                                          : QJsonArray {std::min(a.at(0).toDouble(), b.at(0).toDouble()),
                                                        std::max(a.at(1).toDouble(), b.at(1).toDouble())});
            }
            coverage.insert(it.key(), mine);
        }
        for (const QJsonValue &u : s.value(QStringLiteral("unconfirmed")).toArray())
            unconfirmed.append(u);
        const QJsonObject c = s.value(QStringLiteral("closest_call")).toObject();
        if (!c.isEmpty() && (!closest || c.value(QStringLiteral("margin_ms")).toDouble() < *closest)) {
            closest = c.value(QStringLiteral("margin_ms")).toDouble();
            closestCall = c;
        }
        if (s.value(QStringLiteral("found")).toBool() && (best < 0 || sizeOf(s) < sizeOf(shards.at(best))))
            best = int(i);
    }
    out = best >= 0 ? shards.at(best) : first;
    out.insert(QStringLiteral("shard"), QStringLiteral("merged %1 shards (%2)").arg(shards.size()).arg(seenShards.join(u',')));
    out.insert(QStringLiteral("schedules_tried"), double(tried));
    out.insert(QStringLiteral("runs"), double(runs));
    out.insert(QStringLiteral("seconds"), seconds);
    out.insert(QStringLiteral("coverage"), coverage);
    QStringList text;
    for (auto it = coverage.constBegin(); it != coverage.constEnd(); ++it)
        text << QStringLiteral("%1: %2 schedules").arg(it.key()).arg(it.value().toObject().value(QStringLiteral("schedules")).toInt());
    out.insert(QStringLiteral("coverage_text"), text.join(QStringLiteral("; ")));
    out.insert(QStringLiteral("unconfirmed"), unconfirmed);
    out.insert(QStringLiteral("closest_call"), closestCall);
    *merged = out;
    return true;
}
