// The preset scenarios shipped in resources/scenarios/ (compiled into lockscope_core): each with a title, a
// teaching text and the expectations it must meet. The CLI's `presets`/`--preset`, the Simulator's presets
// menu and the Learn place's stories all come from here.
#pragma once

#include "scenario.h"

#include <QList>
#include <QString>
#include <QStringList>

class PresetLibrary
{
public:
    struct Preset
    {
        QString id;
        QString resourcePath; // ":/scenarios/<id>.json"
        QByteArray json; // the file as shipped
        Scenario scenario;
    };

    // Every preset that parsed, sorted by id. Parsed once, on first use.
    static const QList<Preset> &all();
    static const Preset *find(const QString &id);
    static QStringList ids();
    // Presets that failed to parse ("<file>: <error>"); empty in a correct build (a test checks it).
    static QStringList loadErrors();
};
