// The seed stories told again with the user's own lock in place of theirs ("Run the stories against it" in
// Learn's Write your own lock): each story's actors, steps, faults and lease stay as they are, only the lock
// changes, and the checker says what the run showed. A story whose fault needs commands of its own lock (a
// crash between SETNX and EXPIRE, a delay between GET and DEL) cannot strike a lock of one script per step:
// its row says so instead of a verdict. One verdict per story is what that one run showed, nothing more.
#pragma once

#include "sim/scenario.h"

#include <QList>
#include <QString>

#include <functional>
#include <memory>

class CustomLockScripts;

class StoriesAgainstLock
{
public:
    struct Row
    {
        QString storyId;
        QString title;
        bool ran = false; // false: `note` says why there is no verdict
        bool broken = false;
        QString property; // the worst property broken ("lost-update"), when broken
        QString verdict; // one sentence: what broke and how, or that nothing did in this run
        QString note;
    };

    // The seed stories (the articles' flaws), in the order Learn lists them.
    static QStringList storyIds();
    // `story` with `lua` as its lock (its lease and watchdog kept). Empty id with `why` when it cannot be.
    static Scenario withLock(const Scenario &story, const std::shared_ptr<const CustomLockScripts> &lua, QString *why);
    // Runs each story with the lock, one after another on sandboxes of their own; `progress` after each row.
    static QList<Row> run(const std::shared_ptr<const CustomLockScripts> &lua,
                          const std::function<void(const Row &, int done, int total)> &progress = {},
                          const std::function<bool()> &cancelled = {});
};
