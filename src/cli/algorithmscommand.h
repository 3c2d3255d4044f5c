// `lockscope-cli algorithms`: the lock catalog — every algorithm's id, title, origin and flaw; one
// algorithm in full with its Lua scripts.
#pragma once

#include <QStringList>

int runAlgorithmsCommand(const QStringList &arguments);
