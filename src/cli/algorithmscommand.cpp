// algorithms: lists the catalog as text or JSON; with an id, explains one algorithm and shows its scripts.
#include "algorithmscommand.h"

#include "cliio.h"
#include "locks/lockcatalog.h"
#include "locks/luascript.h"

#include <QCommandLineParser>
#include <QJsonArray>
#include <QJsonDocument>

namespace {

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

void printDetails(const LockAlgorithmInfo &a, bool withScripts)
{
    QTextStream &out = CliIo::out();
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

int runAlgorithmsCommand(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "List the lock algorithms LockScope can run: id, title, where it comes from and its known flaw.\n"
        "With an ID, explain that algorithm in full."));
    parser.addHelpOption();
    parser.addPositionalArgument(QStringLiteral("id"), QStringLiteral("One algorithm to explain (optional)."),
                                 QStringLiteral("[ID]"));
    parser.addOption({QStringLiteral("json"), QStringLiteral("Print JSON instead of text.")});
    parser.addOption({QStringLiteral("scripts"), QStringLiteral("With an ID: also print its Lua scripts.")});
    if (!parser.parse(arguments)) {
        CliIo::err() << "lockscope-cli algorithms: " << parser.errorText() << "\n" << Qt::flush;
        return CliIo::Usage;
    }
    if (parser.isSet(QStringLiteral("help"))) {
        CliIo::out() << parser.helpText() << Qt::flush;
        return CliIo::Ok;
    }
    const QStringList positional = parser.positionalArguments();
    if (positional.size() > 1) {
        CliIo::err() << "lockscope-cli algorithms: give at most one algorithm id\n" << Qt::flush;
        return CliIo::Usage;
    }
    const bool json = parser.isSet(QStringLiteral("json"));
    if (positional.size() == 1) {
        const LockAlgorithmInfo *a = LockCatalog::find(positional.first());
        if (!a) {
            CliIo::err() << "lockscope-cli algorithms: unknown algorithm '" << positional.first()
                         << "'; known: " << LockCatalog::ids().join(QStringLiteral(", ")) << "\n"
                         << Qt::flush;
            return CliIo::Usage;
        }
        if (json) {
            QJsonObject o = a->toJson();
            if (parser.isSet(QStringLiteral("scripts"))) {
                QJsonObject sources;
                for (const QString &name : a->scripts) {
                    if (const LuaScript *s = LuaScript::find(name))
                        sources.insert(name, QString::fromUtf8(s->source()));
                }
                o.insert(QStringLiteral("script_sources"), sources);
            }
            CliIo::out() << QJsonDocument(o).toJson(QJsonDocument::Indented) << Qt::flush;
        } else {
            printDetails(*a, parser.isSet(QStringLiteral("scripts")));
        }
        return CliIo::Ok;
    }
    if (parser.isSet(QStringLiteral("scripts"))) {
        CliIo::err() << "lockscope-cli algorithms: --scripts needs an algorithm id\n" << Qt::flush;
        return CliIo::Usage;
    }
    if (json) {
        QJsonArray list;
        for (const LockAlgorithmInfo &a : LockCatalog::all())
            list.append(a.toJson());
        CliIo::out() << QJsonDocument(list).toJson(QJsonDocument::Indented) << Qt::flush;
        return CliIo::Ok;
    }
    QTextStream &out = CliIo::out();
    for (const LockAlgorithmInfo &a : LockCatalog::all()) {
        out << a.id << "\n"
            << "    " << a.title << "\n"
            << "    origin: " << wrap(a.origin, 12) << "\n"
            << "    flaw:   " << wrap(a.flaw, 12) << "\n\n";
    }
    out << "Run 'lockscope-cli algorithms ID' for one in full, or 'lockscope-cli lock --algorithm ID "
           "--sandbox' to run "
           "it.\n"
        << Qt::flush;
    return CliIo::Ok;
}
