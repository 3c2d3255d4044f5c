// `lockscope-cli explore`: search fault schedules until a lock breaks, shrink and confirm the failure, write
// it as a story (--story) and the report (--json); `explore merge A.json B.json…` joins shards' reports.
// Exit codes: 3 a violation found and confirmed, 0 none found within the budget, 2 bad arguments (nothing is
// run or written), 1 the run failed.
#pragma once

#include "explore/explorer.h"

#include <QString>
#include <QStringList>

struct ExploreArguments
{
    // Reads `arguments` (the first is the command's name). Never fails: problems come back in `error`.
    static ExploreArguments parse(const QStringList &arguments);

    QString helpText;
    QString error;
    Explorer::Options options;
    QString jsonPath; // "-": standard output instead of the summary
    QString storyPath;
    bool quiet = false;
    // explore merge
    bool merge = false;
    QStringList mergeFiles;
};

int runExploreCommand(const QStringList &arguments);
