// presets: a table for people, or JSON for scripts.
#include "presetscommand.h"

#include "cliio.h"
#include "commandlinestart.h"

#include <QCommandLineParser>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace {

const QString kName = QStringLiteral("lockscope-cli presets");

QString kindName(const Scenario &scenario)
{
    return scenario.kind == Scenario::Kind::Story ? QStringLiteral("story") : QStringLiteral("workload");
}

QJsonArray presetsJson(const QList<PresetLibrary::Preset> &presets)
{
    QJsonArray list;
    for (const PresetLibrary::Preset &p : presets) {
        QStringList expect;
        for (const Expectation &e : p.scenario.expect)
            expect << e.toString();
        list.append(
            QJsonObject {{QStringLiteral("id"), p.id},
                         {QStringLiteral("title"), p.scenario.title},
                         {QStringLiteral("summary"), p.scenario.summary},
                         {QStringLiteral("kind"), kindName(p.scenario)},
                         {QStringLiteral("algorithm"), p.scenario.algorithm.id},
                         {QStringLiteral("client"),
                          p.scenario.client.isSet() ? QJsonValue(p.scenario.client.name()) : QJsonValue()},
                         {QStringLiteral("servers"), p.scenario.servers.count},
                         {QStringLiteral("variants"), QJsonArray::fromStringList(p.scenario.variantNames())},
                         {QStringLiteral("expect"), QJsonArray::fromStringList(expect)}});
    }
    return list;
}

} // namespace

PresetsArguments PresetsArguments::parse(const QStringList &arguments)
{
    PresetsArguments out;
    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("List the preset scenarios (run one with 'lockscope-cli simulate --preset ID')."));
    parser.addHelpOption();
    parser.addOption({QStringLiteral("json"), QStringLiteral("Print JSON instead of a table.")});
    if (!CommandLineStart::parse(parser, arguments, &out.helpText, &out.error))
        return out;
    out.json = parser.isSet(QStringLiteral("json"));
    return out;
}

void PresetsCommand::print(QTextStream &out, const QList<PresetLibrary::Preset> &presets, bool json)
{
    if (json) {
        out << QJsonDocument(presetsJson(presets)).toJson(QJsonDocument::Indented) << Qt::flush;
        return;
    }
    for (const PresetLibrary::Preset &p : presets) {
        out << p.id.leftJustified(26) << kindName(p.scenario).leftJustified(9)
            << (p.scenario.client.isSet() ? QStringLiteral("client ") + p.scenario.client.name()
                                          : p.scenario.algorithm.id)
                   .leftJustified(24)
            << p.scenario.title << "\n";
        if (!p.scenario.variants.isEmpty())
            out << QString(35, u' ') << "compares: " << p.scenario.variantNames().join(QStringLiteral(" vs "))
                << "\n";
    }
    out << Qt::flush;
}

int runPresetsCommand(const QStringList &arguments)
{
    const PresetsArguments args = PresetsArguments::parse(arguments);
    if (const std::optional<int> exitCode = CommandLineStart::earlyExit(kName, args.helpText, args.error))
        return *exitCode;
    if (!PresetLibrary::loadErrors().isEmpty()) {
        CliIo::err() << kName << ": some presets are broken:\n  "
                     << PresetLibrary::loadErrors().join(QStringLiteral("\n  ")) << "\n"
                     << Qt::flush;
    }
    PresetsCommand::print(CliIo::out(), PresetLibrary::all(), args.json);
    return CliIo::Ok;
}
