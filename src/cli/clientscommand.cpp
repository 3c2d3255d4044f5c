// clients: a table for people, or JSON for scripts; --install fetches the npm packages and builds the JVM and
// Go adapters ahead of a run.
#include "clientscommand.h"

#include "clientscheckcommand.h"

#include "cliio.h"
#include "commandlinestart.h"

#include <QCommandLineParser>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTextStream>

namespace {

const QString kName = QStringLiteral("lockscope-cli clients");

QJsonObject versions(const QList<QPair<QString, QString>> &pins)
{
    QJsonObject o;
    for (const auto &[name, version] : pins)
        o.insert(name, version);
    return o;
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

QJsonObject stateJson(const ClientState &state)
{
    const ClientCatalog::Adapter *a = state.adapter;
    const ClientCatalog::Status &s = state.status;
    const QString pinned = ClientCatalog::pinnedVersion(*a);
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
                                 {QStringLiteral("npm"), versions(a->npmPackages)},
                                 {QStringLiteral("maven"), versions(a->mavenArtifacts)},
                                 {QStringLiteral("go"), versions(a->goModules)}}},
                   {QStringLiteral("options"), a->options}};
    // The version the library reports when it is installed; unknown (null) otherwise, with the pin.
    o.insert(QStringLiteral("version"), s.version.isEmpty() ? QJsonValue() : QJsonValue(s.version));
    if (!pinned.isEmpty())
        o.insert(QStringLiteral("pinned_version"), pinned);
    if (!s.problem.isEmpty())
        o.insert(QStringLiteral("problem"), s.problem);
    return o;
}

void printRow(QTextStream &out, const ClientState &state)
{
    const ClientCatalog::Adapter *a = state.adapter;
    const ClientCatalog::Status &s = state.status;
    const QString pinned = ClientCatalog::pinnedVersion(*a);
    const QString version = !s.version.isEmpty() ? s.version
        : !pinned.isEmpty()                      ? pinned + QStringLiteral(" (pinned)")
                                                 : QStringLiteral("?");
    out << a->id.leftJustified(24) << a->language.leftJustified(9)
        << (a->library + u' ' + version).leftJustified(36) << stateText(s) << "\n"
        << QString(33, u' ') << a->summary << "\n";
    if (!s.problem.isEmpty() && stateText(s) != QLatin1String("ready"))
        out << QString(33, u' ') << s.problem << "\n";
}

} // namespace

ClientsArguments ClientsArguments::parse(const QStringList &arguments)
{
    ClientsArguments out;
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "List the client adapters: real lock libraries the Simulator runs as workers, one process each\n"
        "(a scenario's \"client\": {\"adapter\": ID}; docs/client-protocol.md to write your own)."));
    parser.addHelpOption();
    parser.addOption({QStringLiteral("json"), QStringLiteral("Print JSON instead of a table.")});
    parser.addOption(
        {QStringLiteral("install"),
         QStringLiteral("Install the npm packages and build the JVM and Go programs of the adapters named "
                        "(all without names) now, instead of on first use.")});
    parser.addPositionalArgument(QStringLiteral("id"),
                                 QStringLiteral("Adapters to list or install (default: all). `lockscope-cli clients "
                                                "check ID` (or `check -- COMMAND…`) checks an adapter against the "
                                                "protocol: see `lockscope-cli clients check --help`."),
                                 QStringLiteral("[ID...]"));
    if (!CommandLineStart::parse(parser, arguments, &out.helpText, &out.error))
        return out;
    for (const QString &id : parser.positionalArguments()) {
        const ClientCatalog::Adapter *a = ClientCatalog::find(id);
        if (!a) {
            out.error = QStringLiteral("no adapter is called %1; there are %2")
                            .arg(id, ClientCatalog::ids().join(QStringLiteral(", ")));
            return out;
        }
        out.adapters << a;
    }
    if (out.adapters.isEmpty()) {
        for (const ClientCatalog::Adapter &a : ClientCatalog::all())
            out.adapters << &a;
    }
    out.json = parser.isSet(QStringLiteral("json"));
    out.install = parser.isSet(QStringLiteral("install"));
    return out;
}

bool ClientsCommand::install(const QList<const ClientCatalog::Adapter *> &adapters, QTextStream &progress)
{
    int failures = 0;
    for (const ClientCatalog::Adapter *a : adapters) {
        ExternalClient::Launch launch;
        QString error;
        const bool ok = ClientCatalog::prepare(*a, &launch, &error, [&progress](const QString &message) {
            progress << message << "\n" << Qt::flush;
        });
        if (!ok) {
            progress << kName << ": " << error << "\n" << Qt::flush;
            ++failures;
        }
    }
    return failures == 0;
}

QList<ClientState> ClientsCommand::run(const QList<const ClientCatalog::Adapter *> &adapters)
{
    QList<ClientState> states;
    for (const ClientCatalog::Adapter *a : adapters)
        states << ClientState {a, ClientCatalog::status(*a)};
    return states;
}

void ClientsCommand::print(QTextStream &out, const QList<ClientState> &states, bool json)
{
    if (json) {
        QJsonArray list;
        for (const ClientState &state : states)
            list.append(stateJson(state));
        out << QJsonDocument(list).toJson(QJsonDocument::Indented) << Qt::flush;
        return;
    }
    for (const ClientState &state : states)
        printRow(out, state);
    out << "\nAdapters are unpacked, their npm packages installed and their programs built, in "
        << ClientCatalog::clientsDir()
        << "\n"
        << Qt::flush;
}

int runClientsCommand(const QStringList &arguments)
{
    if (arguments.value(1) == QLatin1String("check"))
        return runClientsCheckCommand(QStringList {arguments.value(0) + QStringLiteral(" check")} + arguments.mid(2));
    const ClientsArguments args = ClientsArguments::parse(arguments);
    if (const std::optional<int> exitCode = CommandLineStart::earlyExit(kName, args.helpText, args.error))
        return *exitCode;
    if (args.install && !ClientsCommand::install(args.adapters, CliIo::err()))
        return CliIo::Failure;
    ClientsCommand::print(CliIo::out(), ClientsCommand::run(args.adapters), args.json);
    return CliIo::Ok;
}
