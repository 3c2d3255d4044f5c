// PresetLibrary: reads and validates the compiled-in scenario files once.
#include "presetlibrary.h"

#include "scenarioparser.h"

#include <QDir>
#include <QFile>

namespace {
struct Loaded
{
    QList<PresetLibrary::Preset> presets;
    QStringList errors;
};

const Loaded &loaded()
{
    static const Loaded data = [] {
        Loaded l;
        const ScenarioParser parser;
        QDir dir(QStringLiteral(":/scenarios"));
        const QStringList files = dir.entryList({QStringLiteral("*.json")}, QDir::Files, QDir::Name);
        for (const QString &file : files) {
            QFile f(dir.filePath(file));
            if (!f.open(QIODevice::ReadOnly)) {
                l.errors << QStringLiteral("%1: cannot read: %2").arg(file, f.errorString());
                continue;
            }
            PresetLibrary::Preset p;
            p.resourcePath = f.fileName();
            p.json = f.readAll();
            QStringList errors;
            if (!parser.parse(p.json, &p.scenario, &errors)) {
                for (const QString &e : errors)
                    l.errors << QStringLiteral("%1: %2").arg(file, e);
                continue;
            }
            p.id = p.scenario.id;
            if (file != p.id + QStringLiteral(".json"))
                l.errors << QStringLiteral("%1: the file name must be the id (%2.json)").arg(file, p.id);
            l.presets.append(p);
        }
        return l;
    }();
    return data;
}
} // namespace

const QList<PresetLibrary::Preset> &PresetLibrary::all()
{
    return loaded().presets;
}

const PresetLibrary::Preset *PresetLibrary::find(const QString &id)
{
    for (const Preset &p : all()) {
        if (p.id == id)
            return &p;
    }
    return nullptr;
}

QStringList PresetLibrary::ids()
{
    QStringList list;
    for (const Preset &p : all())
        list << p.id;
    return list;
}

QStringList PresetLibrary::loadErrors()
{
    return loaded().errors;
}
