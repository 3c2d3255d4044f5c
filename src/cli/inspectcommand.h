// `lockscope-cli inspect`: scan a server for locks and print them as a table or JSON; --watch keeps printing
// what happens to them until Ctrl-C.
#pragma once

#include <QStringList>

int runInspectCommand(const QStringList &arguments);
