// The honest safety checker (ALGORITHMS.md §5): reads a run's history and reports only violations that
// definitely happened given the real-time order of events — no false positives, and each one names the
// workers, the lock and the time window.
#pragma once

#include "historyevent.h"
#include "violation.h"

#include <QHash>
#include <QList>
#include <QStringList>

class SafetyChecker
{
public:
    struct Counter
    {
        qint64 initial = 0;
        qint64 final = 0; // read from Redis after the run
        bool observed = false; // false when the final value could not be read
    };

    struct Input
    {
        QList<HistoryEvent> events; // ordered by time (EventHistory::events())
        QStringList workerNames; // index = worker id
        QStringList lockNames; // index = lock id
        qint64 endUs = 0; // when the history ended
        QHash<int, Counter> counters; // lock id → the counter it protects
    };

    struct Result
    {
        int overlaps = 0;
        int staleHolders = 0;
        int foreignReleases = 0;
        int lostUpdates = 0;
        // Stale writes the fenced store refused: the fence working, not a violation.
        int fencingRejections = 0;
        int maxInside = 0; // most workers ever inside the critical section of one lock at once
        qint64 counterExpected = 0; // initial + every applied write's change
        // With writes of unknown outcome (no reply came), the counter may hold anything in this range; lost
        // updates are counted only outside it.
        qint64 counterExpectedLow = 0;
        qint64 counterExpectedHigh = 0;
        int unknownWrites = 0;
        qint64 counterActual = 0;
        bool counterObserved = false;
        QList<Violation> details; // at most kMaxDetails; the counts above are always exact
        // Everything that broke safety (fencing rejections are excluded: they are the protection working).
        int violations() const { return overlaps + staleHolders + foreignReleases + lostUpdates; }
    };

    static constexpr int kMaxDetails = 1000;

    static Result check(const Input &input);
};
