// lockscope-cli serve: a Prometheus exporter of lock health.
#pragma once

#include <QStringList>

int runServeCommand(const QStringList &arguments);
