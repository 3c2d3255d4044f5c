// presets: a table for people, or JSON for scripts.
#include "presetscommand.h"

#include "cliio.h"
#include "sim/presetlibrary.h"

#include <QCommandLineParser>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

int runPresetsCommand(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("List the preset scenarios (run one with 'lockscope-cli simulate --preset ID')."));
    parser.addHelpOption();
    parser.addOption({QStringLiteral("json"), QStringLiteral("Print JSON instead of a table.")});
    if (!parser.parse(arguments)) {
        CliIo::err() << "lockscope-cli presets: " << parser.errorText() << "\n" << Qt::flush;
        return CliIo::Usage;
    }
    if (parser.isSet(QStringLiteral("help"))) {
        CliIo::out() << parser.helpText() << Qt::flush;
        return CliIo::Ok;
    }
    if (!PresetLibrary::loadErrors().isEmpty()) {
        CliIo::err() << "lockscope-cli presets: some presets are broken:\n  "
                     << PresetLibrary::loadErrors().join(QStringLiteral("\n  ")) << "\n"
                     << Qt::flush;
    }
    if (parser.isSet(QStringLiteral("json"))) {
        QJsonArray list;
        for (const PresetLibrary::Preset &p : PresetLibrary::all()) {
            QStringList expect;
            for (const Expectation &e : p.scenario.expect)
                expect << e.toString();
            list.append(QJsonObject {
                {QStringLiteral("id"), p.id},
                {QStringLiteral("title"), p.scenario.title},
                {QStringLiteral("summary"), p.scenario.summary},
                {QStringLiteral("kind"),
                 p.scenario.kind == Scenario::Kind::Story ? QStringLiteral("story")
                                                          : QStringLiteral("workload")},
                {QStringLiteral("algorithm"), p.scenario.algorithm.id},
                {QStringLiteral("client"), p.scenario.client.isSet() ? QJsonValue(p.scenario.client.name())
                                                                    : QJsonValue()},
                {QStringLiteral("servers"), p.scenario.servers.count},
                {QStringLiteral("variants"), QJsonArray::fromStringList(p.scenario.variantNames())},
                {QStringLiteral("expect"), QJsonArray::fromStringList(expect)}});
        }
        CliIo::out() << QJsonDocument(list).toJson(QJsonDocument::Indented) << Qt::flush;
        return CliIo::Ok;
    }
    for (const PresetLibrary::Preset &p : PresetLibrary::all()) {
        const QString kind
            = p.scenario.kind == Scenario::Kind::Story ? QStringLiteral("story") : QStringLiteral("workload");
        CliIo::out() << p.id.leftJustified(26) << kind.leftJustified(9)
                     << (p.scenario.client.isSet() ? QStringLiteral("client ") + p.scenario.client.name()
                                                   : p.scenario.algorithm.id)
                            .leftJustified(24)
                     << p.scenario.title << "\n";
        if (!p.scenario.variants.isEmpty())
            CliIo::out() << QString(35, u' ')
                         << "compares: " << p.scenario.variantNames().join(QStringLiteral(" vs ")) << "\n";
    }
    CliIo::out() << Qt::flush;
    return CliIo::Ok;
}
