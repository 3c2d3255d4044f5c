// `lockscope-cli lock`: runs one algorithm of the catalog for real against a server (or N sandbox servers
// for Redlock) and prints every step: acquire reply, token or fence, TTL, watchdog renewals, release.
#pragma once

#include <QStringList>

int runLockCommand(const QStringList &arguments);
