// The side-by-side table of a comparison: one row per variant (per library) with what its run did to the
// lock and to the data, and a verdict in words that cannot be misread — what happened to the data, never
// whether the scenario's expectations were met (a story may expect a library to lose an update).
#pragma once

#include "runreport.h"

#include <QJsonArray>
#include <QList>
#include <QString>

class RunComparison
{
public:
    // What happened to the data (or, without a counter, to the lock), from worst to best.
    enum class Verdict {
        NoVerdict, // the run failed or was cut short: it is no evidence
        DataLost, // updates were lost
        LockStuck, // a lock key was left without TTL: everyone after is locked out
        TwoHolders, // holders overlapped, and no data was there to lose (or none was lost by chance)
        SafeByFencing, // holders overlapped, and the fenced store refused the stale writes
        SafeUnknown, // nothing unsafe seen, but some outcomes are unknown
        Safe, // one holder at a time, nothing lost
    };

    struct Row
    {
        QString variant; // empty for a run without variants
        QString library; // the external library ("redis-py 4.3.4"), or LockScope's algorithm id
        qint64 acquisitions = 0;
        int overlaps = 0;
        int staleHolders = 0;
        int lostUpdates = 0;
        int fencingRejections = 0; // stale writes the fenced store refused
        qint64 unknownOutcomes = 0;
        qint64 locksWithoutTtl = 0;
        bool counter = false; // the run had data (a counter) that updates could be lost from
        Verdict verdict = Verdict::NoVerdict;
        QString verdictText; // "data lost: 1 update", "data safe: fencing refused 1 stale write", …
    };

    // `runs`: (variant, report) in the order they ran.
    static QList<Row> rows(const QList<QPair<QString, RunReport>> &runs);
    static Row row(const QString &variant, const RunReport &report);
    // Bad verdicts (data lost, lock stuck, two holders) read red; safe ones green; no verdict grey.
    static bool isBad(Verdict verdict);
    static QString verdictName(Verdict verdict); // stable, for JSON: "data-lost", "safe-by-fencing", …
    static QJsonArray toJson(const QList<Row> &rows);
    // The table as fixed-width text lines for a terminal (a header, then one line per row).
    static QStringList textTable(const QList<Row> &rows);
};
