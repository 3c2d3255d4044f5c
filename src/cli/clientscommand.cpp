// clients: a table for people, or JSON for scripts; --install fetches the npm packages ahead of a run.
#include "clientscommand.h"

#include "cliio.h"
#include "sim/clientcatalog.h"

#include <QCommandLineParser>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace {

QString pinnedVersion(const ClientCatalog::Adapter &a)
{
    for (const auto &[name, version] : a.npmPackages) {
        if (name == a.library)
            return version;
    }
    return QString();
}

// "ready", "installs on first use", or what is missing.
QString stateText(const ClientCatalog::Status &s)
{
    if (s.runtimePath.isEmpty())
        return QStringLiteral("runtime missing");
    if (!s.libraryInstalled)
        return s.problem.contains(QLatin1String("first use")) ? QStringLiteral("installs on first use")
                                                               : QStringLiteral("library missing");
    return s.problem.isEmpty() ? QStringLiteral("ready") : QStringLiteral("broken");
}

} // namespace

int runClientsCommand(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "List the client adapters: real lock libraries the Simulator runs as workers, one process each\n"
        "(a scenario's \"client\": {\"adapter\": ID}; docs/client-protocol.md to write your own)."));
    parser.addHelpOption();
    parser.addOption({QStringLiteral("json"), QStringLiteral("Print JSON instead of a table.")});
    parser.addOption({QStringLiteral("install"),
                      QStringLiteral("Install the npm packages of the adapters named (all without names) now, "
                                     "instead of on first use.")});
    parser.addPositionalArgument(QStringLiteral("id"), QStringLiteral("Adapters to list or install (default: all)."),
                                 QStringLiteral("[ID...]"));
    if (!parser.parse(arguments)) {
        CliIo::err() << "lockscope-cli clients: " << parser.errorText() << "\n" << Qt::flush;
        return CliIo::Usage;
    }
    if (parser.isSet(QStringLiteral("help"))) {
        CliIo::out() << parser.helpText() << Qt::flush;
        return CliIo::Ok;
    }
    QList<const ClientCatalog::Adapter *> chosen;
    for (const QString &id : parser.positionalArguments()) {
        const ClientCatalog::Adapter *a = ClientCatalog::find(id);
        if (!a) {
            CliIo::err() << "lockscope-cli clients: no adapter is called " << id << "; there are "
                         << ClientCatalog::ids().join(QStringLiteral(", ")) << "\n"
                         << Qt::flush;
            return CliIo::Usage;
        }
        chosen << a;
    }
    if (chosen.isEmpty()) {
        for (const ClientCatalog::Adapter &a : ClientCatalog::all())
            chosen << &a;
    }
    if (parser.isSet(QStringLiteral("install"))) {
        int failures = 0;
        for (const ClientCatalog::Adapter *a : chosen) {
            ExternalClient::Launch launch;
            QString error;
            const bool ok = ClientCatalog::prepare(*a, &launch, &error, [](const QString &message) {
                CliIo::err() << message << "\n" << Qt::flush;
            });
            if (!ok) {
                CliIo::err() << "lockscope-cli clients: " << error << "\n" << Qt::flush;
                ++failures;
            }
        }
        if (failures > 0)
            return CliIo::Failure;
    }
    QJsonArray list;
    for (const ClientCatalog::Adapter *a : chosen) {
        const ClientCatalog::Status s = ClientCatalog::status(*a);
        const QString pinned = pinnedVersion(*a);
        if (parser.isSet(QStringLiteral("json"))) {
            QJsonObject npm;
            for (const auto &[name, version] : a->npmPackages)
                npm.insert(name, version);
            QJsonObject o {{QStringLiteral("id"), a->id},
                           {QStringLiteral("title"), a->title},
                           {QStringLiteral("library"), a->library},
                           {QStringLiteral("language"), a->language},
                           {QStringLiteral("summary"), a->summary},
                           {QStringLiteral("runtime"), a->runtime},
                           {QStringLiteral("runtime_present"), !s.runtimePath.isEmpty()},
                           {QStringLiteral("library_installed"), s.libraryInstalled},
                           {QStringLiteral("state"), stateText(s)},
                           {QStringLiteral("requires"),
                            QJsonObject {{QStringLiteral("debian"), QJsonArray::fromStringList(a->debianPackages)},
                                         {QStringLiteral("npm"), npm}}},
                           {QStringLiteral("options"), a->options}};
            // The version the library reports when it is installed; unknown (null) otherwise, with the pin.
            o.insert(QStringLiteral("version"), s.version.isEmpty() ? QJsonValue() : QJsonValue(s.version));
            if (!pinned.isEmpty())
                o.insert(QStringLiteral("pinned_version"), pinned);
            if (!s.problem.isEmpty())
                o.insert(QStringLiteral("problem"), s.problem);
            list.append(o);
            continue;
        }
        const QString version = !s.version.isEmpty() ? s.version
            : !pinned.isEmpty()                      ? pinned + QStringLiteral(" (pinned)")
                                                     : QStringLiteral("?");
        CliIo::out() << a->id.leftJustified(24) << a->language.leftJustified(9)
                     << (a->library + u' ' + version).leftJustified(36) << stateText(s) << "\n"
                     << QString(33, u' ') << a->summary << "\n";
        if (!s.problem.isEmpty() && stateText(s) != QLatin1String("ready"))
            CliIo::out() << QString(33, u' ') << s.problem << "\n";
    }
    if (parser.isSet(QStringLiteral("json")))
        CliIo::out() << QJsonDocument(list).toJson(QJsonDocument::Indented);
    else
        CliIo::out() << "\nAdapters are unpacked, and their npm packages installed, in " << ClientCatalog::clientsDir()
                     << "\n";
    CliIo::out() << Qt::flush;
    return CliIo::Ok;
}
