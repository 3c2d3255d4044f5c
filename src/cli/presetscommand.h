// `lockscope-cli presets`: the shipped scenarios, with what each one shows.
#pragma once

#include <QStringList>

int runPresetsCommand(const QStringList &arguments);
