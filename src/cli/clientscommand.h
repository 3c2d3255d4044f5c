// `lockscope-cli clients`: the shipped client adapters (real lock libraries the Simulator can drive), the
// library version each finds, whether its runtime is here, and what it still needs.
#pragma once

#include <QStringList>

int runClientsCommand(const QStringList &arguments);
