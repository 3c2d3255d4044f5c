// `lockscope-cli simulate`: run a scenario file or a preset headless, print a summary, exit 0/3 on its
// expectations (2: bad scenario or arguments, 1: the run failed).
#pragma once

#include <QStringList>

int runSimulateCommand(const QStringList &arguments);
