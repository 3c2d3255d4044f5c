// `lockscope-cli ping`: connect, say who answered and how fast.
#pragma once

#include <QStringList>

int runPingCommand(const QStringList &arguments);
