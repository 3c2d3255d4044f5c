// "Fork from here": a recorded story run again on the real server with one thing changed — the lease,
// fencing on or off, the pause's length, the algorithm — to be shown beside the recording on one time axis.
// A lock already held cannot be given another lease or algorithm halfway, so the fork runs the story from
// its start with the change in force; compare() then checks what the fork point promises: that the steps
// before it played out the same in both runs, and says where they did not.
#pragma once

#include "historyevent.h"
#include "scenario.h"

#include <QList>
#include <QString>

class StoryFork
{
public:
    enum class Change { Lease, Fencing, PauseLength, Algorithm };
    struct Choice
    {
        Change change = Change::Lease;
        qint64 ms = 0; // Lease, PauseLength
        bool fencing = true; // Fencing: on or off
        QString algorithmId; // Algorithm
    };
    struct Divergence
    {
        bool same = true; // every step before the fork played out the same
        int stepIndex = -1; // when not: the scenario index of the first step whose outcome differed
        QString what; // "B: acquire ok in the recording, failed in the fork"
    };

    // What may change when forking at step `stepIndex` (a scenario index): the pause length only while a
    // pause step is still to come, fencing only when the story has a counter to protect.
    static QList<Change> changesAt(const Scenario &story, int stepIndex);
    // The value the recording had for `change` ("2 s", "off", "redisson-reentrant").
    static QString currentValue(const Scenario &story, int stepIndex, Change change);
    // The story to run: `recorded` (one run's own scenario, variants resolved) with `choice` applied; the
    // pause length changes the first pause step at or after `stepIndex`. Without expectations (the two runs
    // side by side are the point) or variants. False with `error` when the change does not apply.
    static bool apply(const Scenario &recorded, int stepIndex, const Choice &choice, Scenario *fork,
                      QString *error);
    // "lease 2 s → 4 s", "fencing off → on".
    static QString describe(const Scenario &recorded, int stepIndex, const Choice &choice);
    // What each actor's steps did before step `stepIndex` came due, in both runs: acquire, release, read
    // and write outcomes and the counter values read, and lease expiries (times and renewals aside).
    static Divergence compare(const Scenario &story, const QList<HistoryEvent> &recorded,
                              const QList<HistoryEvent> &fork, int stepIndex);
};
