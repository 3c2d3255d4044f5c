// `lockscope-cli sandbox`: start a private redis-server and keep it until interrupted (or --seconds pass).
#pragma once

#include <QStringList>

int runSandboxCommand(const QStringList &arguments);
