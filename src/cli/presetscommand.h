// `lockscope-cli presets`: the shipped scenarios, with what each one shows. Its command line
// (PresetsArguments) and its table or JSON (PresetsCommand::print); the presets themselves are
// PresetLibrary's, read in-process, so there is nothing to run.
#pragma once

#include "sim/presetlibrary.h"

#include <QStringList>

class QTextStream;

struct PresetsArguments
{
    // Reads `arguments`; the first one is the command's name ("lockscope-cli presets"). Never fails: a bad
    // command line comes back with `error` set.
    static PresetsArguments parse(const QStringList &arguments);

    QString helpText; // --help: the text to print (exit 0)
    QString error; // why the command cannot run, printed after "lockscope-cli presets: " (exit 2)

    bool json = false;
};

namespace PresetsCommand {

// One line per preset (id, kind, algorithm or client, title; the variants it compares below), or with
// `json` one indented JSON array.
void print(QTextStream &out, const QList<PresetLibrary::Preset> &presets, bool json);

} // namespace PresetsCommand

int runPresetsCommand(const QStringList &arguments);
