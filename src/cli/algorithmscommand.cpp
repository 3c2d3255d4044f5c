// algorithms: lists the catalog as text or JSON; with an id, explains one algorithm and shows its scripts.
#include "algorithmscommand.h"

#include "cliio.h"
#include "commandlinestart.h"
#include "locks/lockcatalog.h"
#include "locks/luascript.h"

#include <QCommandLineParser>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTextStream>

namespace {

const QString kName = QStringLiteral("lockscope-cli algorithms");

// Wraps `text` at `width` columns, every line but the first indented by `indent` spaces.
QString wrap(const QString &text, int indent, int width = 100)
{
    QString out;
    int column = indent;
    const QStringList words = text.split(u' ', Qt::SkipEmptyParts);
    for (const QString &word : words) {
        if (column > indent && column + 1 + word.size() > width) {
            out += u'\n' + QString(indent, u' ');
            column = indent;
        } else if (column > indent) {
            out += u' ';
            ++column;
        }
        out += word;
        column += int(word.size());
    }
    return out;
}

void printDetails(QTextStream &out, const LockAlgorithmInfo &a, bool withScripts)
{
    out << a.id << " — " << a.title << "\n"
        << "  origin:   " << wrap(a.origin, 12) << "\n\n"
        << "  " << wrap(a.explanation, 2) << "\n\n"
        << "  flaw:     " << wrap(a.flaw, 12) << "\n";
    if (!a.faults.isEmpty())
        out << "  show it:  " << wrap(a.faults.join(QStringLiteral(", ")), 12) << "\n";
    out << "  commands: " << a.commands.join(QStringLiteral(", ")) << "\n";
    if (!a.scripts.isEmpty())
        out << "  scripts:  " << wrap(a.scripts.join(QStringLiteral(".lua, ")) + QStringLiteral(".lua"), 12)
            << "\n";
    QStringList traits;
    if (a.checksOwner)
        traits << QStringLiteral("checks the owner on release");
    if (a.reentrant)
        traits << QStringLiteral("reentrant");
    if (a.publishesRelease)
        traits << QStringLiteral("waiters sleep on pub/sub");
    if (a.fencing)
        traits << QStringLiteral("fencing tokens");
    if (a.multiServer)
        traits << QStringLiteral("N independent servers");
    if (a.defaults.watchdog)
        traits << QStringLiteral("watchdog renewal");
    if (!traits.isEmpty())
        out << "  traits:   " << wrap(traits.join(QStringLiteral(", ")), 12) << "\n";
    const LockOptions &d = a.defaults;
    out << "  defaults: lease " << d.leaseMs << " ms, wait " << LockOptions::waitName(d.wait);
    if (d.wait != WaitStrategy::BusySpin && d.wait != WaitStrategy::PubSub)
        out << " " << d.retryIntervalMs
            << (d.retryJitterMs ? QStringLiteral(" ± %1").arg(d.retryJitterMs) : QString()) << " ms";
    out << ", acquire timeout " << d.acquireTimeoutMs << " ms\n";
    if (withScripts) {
        for (const QString &name : a.scripts) {
            const LuaScript *script = LuaScript::find(name);
            out << "\n----- " << name << ".lua (sha1 " << (script ? script->sha1() : QByteArray("?"))
                << ") -----\n"
                << (script ? QString::fromUtf8(script->source()) : QStringLiteral("(missing)\n"));
        }
    }
    out << Qt::flush;
}

} // namespace

AlgorithmsArguments AlgorithmsArguments::parse(const QStringList &arguments)
{
    AlgorithmsArguments out;
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "List the lock algorithms LockScope can run: id, title, where it comes from and its known flaw.\n"
        "With an ID, explain that algorithm in full."));
    parser.addHelpOption();
    parser.addPositionalArgument(QStringLiteral("id"), QStringLiteral("One algorithm to explain (optional)."),
                                 QStringLiteral("[ID]"));
    parser.addOption({QStringLiteral("json"), QStringLiteral("Print JSON instead of text.")});
    parser.addOption({QStringLiteral("scripts"), QStringLiteral("With an ID: also print its Lua scripts.")});
    if (!CommandLineStart::parse(parser, arguments, &out.helpText, &out.error))
        return out;
    const QStringList positional = parser.positionalArguments();
    if (positional.size() > 1) {
        out.error = QStringLiteral("give at most one algorithm id");
        return out;
    }
    out.json = parser.isSet(QStringLiteral("json"));
    out.scripts = parser.isSet(QStringLiteral("scripts"));
    if (positional.size() == 1) {
        out.algorithm = LockCatalog::find(positional.first());
        if (!out.algorithm)
            out.error = QStringLiteral("unknown algorithm '%1'; known: %2")
                            .arg(positional.first(), LockCatalog::ids().join(QStringLiteral(", ")));
    } else if (out.scripts) {
        out.error = QStringLiteral("--scripts needs an algorithm id");
    }
    return out;
}

void AlgorithmsCommand::printCatalog(QTextStream &out, const QList<LockAlgorithmInfo> &algorithms, bool json)
{
    if (json) {
        QJsonArray list;
        for (const LockAlgorithmInfo &a : algorithms)
            list.append(a.toJson());
        out << QJsonDocument(list).toJson(QJsonDocument::Indented) << Qt::flush;
        return;
    }
    for (const LockAlgorithmInfo &a : algorithms) {
        out << a.id << "\n"
            << "    " << a.title << "\n"
            << "    origin: " << wrap(a.origin, 12) << "\n"
            << "    flaw:   " << wrap(a.flaw, 12) << "\n\n";
    }
    out << "Run 'lockscope-cli algorithms ID' for one in full, or 'lockscope-cli lock --algorithm ID "
           "--sandbox' to run "
           "it.\n"
        << Qt::flush;
}

void AlgorithmsCommand::printAlgorithm(QTextStream &out, const LockAlgorithmInfo &a, bool json, bool scripts)
{
    if (!json) {
        printDetails(out, a, scripts);
        return;
    }
    QJsonObject o = a.toJson();
    if (scripts) {
        QJsonObject sources;
        for (const QString &name : a.scripts) {
            if (const LuaScript *s = LuaScript::find(name))
                sources.insert(name, QString::fromUtf8(s->source()));
        }
        o.insert(QStringLiteral("script_sources"), sources);
    }
    out << QJsonDocument(o).toJson(QJsonDocument::Indented) << Qt::flush;
}

int runAlgorithmsCommand(const QStringList &arguments)
{
    const AlgorithmsArguments args = AlgorithmsArguments::parse(arguments);
    if (const std::optional<int> exitCode = CommandLineStart::earlyExit(kName, args.helpText, args.error))
        return *exitCode;
    if (args.algorithm)
        AlgorithmsCommand::printAlgorithm(CliIo::out(), *args.algorithm, args.json, args.scripts);
    else
        AlgorithmsCommand::printCatalog(CliIo::out(), LockCatalog::all(), args.json);
    return CliIo::Ok;
}
