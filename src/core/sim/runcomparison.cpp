// RunComparison: the verdict of each run in words about the data, and the table's JSON and text forms.
#include "runcomparison.h"

#include <QJsonObject>

#include <algorithm>

namespace {

QString plural(qint64 n, const char *one, const char *many)
{
    return QStringLiteral("%1 %2").arg(n).arg(QLatin1String(n == 1 ? one : many));
}

} // namespace

RunComparison::Row RunComparison::row(const QString &variant, const RunReport &report)
{
    Row r;
    r.variant = variant;
    if (!report.clients.isEmpty() && !report.clients.first().library.isEmpty()) {
        const RunReport::ClientWorker &c = report.clients.first();
        r.library = c.version.isEmpty() ? c.library : QStringLiteral("%1 %2").arg(c.library, c.version);
    } else {
        r.library = report.algorithm;
    }
    const SafetyChecker::Result &s = report.safety;
    r.acquisitions = report.metrics.acquisitions;
    r.overlaps = s.overlaps;
    r.staleHolders = s.staleHolders;
    r.lostUpdates = s.lostUpdates;
    r.fencingRejections = s.fencingRejections;
    r.unknownOutcomes = report.unknownOutcomes;
    r.locksWithoutTtl = report.locksWithoutTtl;
    r.counter = report.counters > 0 || !report.counterKey.isEmpty();
    // Worst first: what happened to the data decides, then to the lock. Never "passed": a story may expect
    // exactly this.
    if (const QString failure = report.failure(); !failure.isEmpty()) {
        r.verdict = Verdict::NoVerdict;
        r.verdictText = QStringLiteral("no verdict: %1").arg(failure);
    } else if (r.counter && r.lostUpdates > 0) {
        r.verdict = Verdict::DataLost;
        r.verdictText = QStringLiteral("data lost: %1").arg(plural(r.lostUpdates, "update", "updates"));
    } else if (r.locksWithoutTtl > 0) {
        r.verdict = Verdict::LockStuck;
        r.verdictText = QStringLiteral("lock stuck: %1 without TTL, nobody gets it again")
                            .arg(plural(r.locksWithoutTtl, "key", "keys"));
    } else if (r.overlaps + r.staleHolders > 0 && r.counter && r.fencingRejections > 0) {
        r.verdict = Verdict::SafeByFencing;
        r.verdictText = QStringLiteral("data safe: fencing refused %1")
                            .arg(plural(r.fencingRejections, "stale write", "stale writes"));
    } else if (r.overlaps + r.staleHolders + s.foreignReleases > 0) {
        r.verdict = Verdict::TwoHolders;
        r.verdictText = s.foreignReleases > 0 && r.overlaps + r.staleHolders == 0
            ? QStringLiteral("lock broken: a release deleted another holder's key")
            : r.counter ? QStringLiteral("two holders at once; no update lost this time")
                        : QStringLiteral("two holders at once");
    } else if (r.unknownOutcomes > 0) {
        r.verdict = Verdict::SafeUnknown;
        r.verdictText = QStringLiteral("safe as far as seen: %1 unknown")
                            .arg(plural(r.unknownOutcomes, "outcome", "outcomes"));
    } else {
        r.verdict = Verdict::Safe;
        r.verdictText = r.counter ? QStringLiteral("data safe, one holder at a time")
                                  : QStringLiteral("one holder at a time");
    }
    return r;
}

QList<RunComparison::Row> RunComparison::rows(const QList<QPair<QString, RunReport>> &runs)
{
    QList<Row> out;
    for (const auto &[variant, report] : runs)
        out << row(variant, report);
    return out;
}

bool RunComparison::isBad(Verdict verdict)
{
    return verdict == Verdict::DataLost || verdict == Verdict::LockStuck || verdict == Verdict::TwoHolders;
}

QString RunComparison::verdictName(Verdict verdict)
{
    switch (verdict) {
    case Verdict::NoVerdict:
        return QStringLiteral("no-verdict");
    case Verdict::DataLost:
        return QStringLiteral("data-lost");
    case Verdict::LockStuck:
        return QStringLiteral("lock-stuck");
    case Verdict::TwoHolders:
        return QStringLiteral("two-holders");
    case Verdict::SafeByFencing:
        return QStringLiteral("safe-by-fencing");
    case Verdict::SafeUnknown:
        return QStringLiteral("safe-unknown");
    case Verdict::Safe:
        return QStringLiteral("safe");
    }
    return QString();
}

QJsonArray RunComparison::toJson(const QList<Row> &rows)
{
    QJsonArray out;
    for (const Row &r : rows) {
        QJsonObject o {
            {QStringLiteral("variant"), r.variant},
            {QStringLiteral("library"), r.library},
            {QStringLiteral("acquisitions"), double(r.acquisitions)},
            {QStringLiteral("overlaps"), r.overlaps},
            {QStringLiteral("stale_holders"), r.staleHolders},
            {QStringLiteral("fencing_rejections"), r.fencingRejections},
            {QStringLiteral("unknown_outcomes"), double(r.unknownOutcomes)},
            {QStringLiteral("locks_without_ttl"), double(r.locksWithoutTtl)},
            {QStringLiteral("verdict"), verdictName(r.verdict)},
            {QStringLiteral("verdict_text"), r.verdictText},
        };
        // Without a counter there was no data to lose: not zero, unknown.
        o.insert(QStringLiteral("lost_updates"), r.counter ? QJsonValue(r.lostUpdates) : QJsonValue());
        out.append(o);
    }
    return out;
}

QStringList RunComparison::textTable(const QList<Row> &rows)
{
    const QStringList header {
        QStringLiteral("variant"),        QStringLiteral("library"),       QStringLiteral("acquisitions"),
        QStringLiteral("overlaps"),       QStringLiteral("stale holders"), QStringLiteral("lost updates"),
        QStringLiteral("writes refused"), QStringLiteral("unknown"),       QStringLiteral("verdict")};
    QList<QStringList> cells {header};
    for (const Row &r : rows) {
        cells << QStringList {r.variant.isEmpty() ? QStringLiteral("-") : r.variant,
                              r.library,
                              QString::number(r.acquisitions),
                              QString::number(r.overlaps),
                              QString::number(r.staleHolders),
                              r.counter ? QString::number(r.lostUpdates) : QStringLiteral("-"),
                              QString::number(r.fencingRejections),
                              QString::number(r.unknownOutcomes),
                              r.verdictText};
    }
    QList<qsizetype> widths(header.size(), 0);
    for (const QStringList &line : cells) {
        for (qsizetype c = 0; c < line.size(); ++c)
            widths[c] = std::max(widths.at(c), line.at(c).size());
    }
    QStringList out;
    for (const QStringList &line : cells) {
        QString text;
        for (qsizetype c = 0; c < line.size(); ++c) {
            const bool last = c + 1 == line.size();
            // Names left, numbers right, the verdict as it is.
            if (last)
                text += line.at(c);
            else if (c < 2)
                text += line.at(c).leftJustified(widths.at(c)) + QStringLiteral("  ");
            else
                text += line.at(c).rightJustified(widths.at(c)) + QStringLiteral("  ");
        }
        out << text;
    }
    return out;
}
