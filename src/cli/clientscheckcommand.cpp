// clients check: unpack the check next to nothing of the user's (a temporary folder), make sure its Python
// can import redis-py (a clear "install python3-redis" otherwise), prepare a shipped adapter as a run would,
// then hand the terminal to the check: its lines are the report.
#include "clientscheckcommand.h"

#include "cliio.h"
#include "commandlinestart.h"

#include "sim/clientcatalog.h"
#include "sim/externalclient.h"

#include <QCommandLineParser>
#include <QFile>
#include <QJsonDocument>
#include <QProcess>
#include <QProcessEnvironment>
#include <QTemporaryDir>

namespace {

const QString kName = QStringLiteral("lockscope-cli clients check");

} // namespace

ClientsCheckArguments ClientsCheckArguments::parse(const QStringList &arguments)
{
    ClientsCheckArguments out;
    // What follows "--" is the adapter's command line, never options of ours.
    const qsizetype dashes = arguments.indexOf(QStringLiteral("--"));
    const QStringList ours = dashes < 0 ? arguments : arguments.mid(0, dashes);
    if (dashes >= 0)
        out.command = arguments.mid(dashes + 1);
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Check a client adapter against the protocol (docs/client-protocol.md): the hello and its supports,\n"
        "acquire and release (the key, its token, its PTTL), a second process refused then served, not-held,\n"
        "leases, extend, auto-renewal, the counter, replies in order, nothing but JSON on stdout, exit on EOF.\n"
        "It starts a redis-server of its own on 127.0.0.1 (redis-server must be on PATH).\n\n"
        "  lockscope-cli clients check redis-py                  a shipped adapter\n"
        "  lockscope-cli clients check -- python3 my_adapter.py  your own\n\n"
        "Exit status: 0 every check passed, 1 a check failed, 2 the check could not run."));
    parser.addHelpOption();
    parser.addOption({QStringLiteral("options"), QStringLiteral("hello's options, as JSON (a scenario's client.options)."),
                      QStringLiteral("JSON")});
    parser.addOption({QStringLiteral("python"),
                      QStringLiteral("The Python 3 that runs the check; it needs redis-py (default /usr/bin/python3, "
                                     "with Debian's python3-redis)."),
                      QStringLiteral("PATH")});
    parser.addPositionalArgument(QStringLiteral("id"), QStringLiteral("A shipped adapter (see lockscope-cli clients)."),
                                 QStringLiteral("[ID | -- COMMAND [ARG...]]"));
    if (!CommandLineStart::parse(parser, ours, &out.helpText, &out.error))
        return out;
    const QStringList ids = parser.positionalArguments();
    if (ids.size() > 1 || (ids.isEmpty() == out.command.isEmpty())) {
        out.error = QStringLiteral("give one adapter: a shipped adapter's id, or -- and your adapter's command line");
        return out;
    }
    if (!ids.isEmpty()) {
        if (!ClientCatalog::find(ids.first())) {
            out.error = QStringLiteral("no adapter is called %1; there are %2")
                            .arg(ids.first(), ClientCatalog::ids().join(QStringLiteral(", ")));
            return out;
        }
        out.adapterId = ids.first();
    }
    if (parser.isSet(QStringLiteral("options"))) {
        out.options = parser.value(QStringLiteral("options"));
        QJsonParseError e;
        if (!QJsonDocument::fromJson(out.options.toUtf8(), &e).isObject()) {
            out.error = QStringLiteral("--options: not a JSON object (%1)").arg(e.errorString());
            return out;
        }
    }
    if (parser.isSet(QStringLiteral("python")))
        out.python = parser.value(QStringLiteral("python"));
    return out;
}

int runClientsCheckCommand(const QStringList &arguments)
{
    const ClientsCheckArguments args = ClientsCheckArguments::parse(arguments);
    if (const std::optional<int> exitCode = CommandLineStart::earlyExit(kName, args.helpText, args.error))
        return *exitCode;

    // The check needs redis-py: say so plainly rather than let Python print a traceback.
    QProcess probe;
    probe.start(args.python, {QStringLiteral("-c"), QStringLiteral("import redis")});
    if (!probe.waitForFinished(30000) || probe.exitStatus() != QProcess::NormalExit || probe.exitCode() != 0) {
        CliIo::err() << kName << ": " << args.python
                     << (probe.error() == QProcess::FailedToStart ? QStringLiteral(" cannot be run")
                                                                  : QStringLiteral(" cannot import redis (redis-py)"))
                     << ": install python3-redis (Debian) or give --python a Python 3 that has redis-py\n"
                     << Qt::flush;
        return CliIo::Usage;
    }

    QStringList command = args.command;
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    QString workingDirectory;
    if (!args.adapterId.isEmpty()) {
        ExternalClient::Launch launch;
        QString error;
        if (!ClientCatalog::prepare(*ClientCatalog::find(args.adapterId), &launch, &error,
                                    [](const QString &message) { CliIo::err() << message << "\n" << Qt::flush; })) {
            CliIo::err() << kName << ": " << error << "\n" << Qt::flush;
            return CliIo::Usage; // the check could not run
        }
        command = launch.argv;
        for (const QString &pair : std::as_const(launch.environment))
            environment.insert(pair.section(u'=', 0, 0), pair.section(u'=', 1));
        workingDirectory = launch.workingDirectory;
    }

    QTemporaryDir dir;
    const QString script = dir.filePath(QStringLiteral("conformance.py"));
    if (!dir.isValid() || !QFile::copy(QStringLiteral(":/conformance/conformance.py"), script)) {
        CliIo::err() << kName << ": cannot unpack the check into a temporary folder: " << dir.errorString() << "\n"
                     << Qt::flush;
        return CliIo::Usage;
    }
    QStringList checkArgs {script};
    if (!args.options.isEmpty())
        checkArgs << QStringLiteral("--options") << args.options;
    checkArgs << QStringLiteral("--") << command;
    QProcess check;
    check.setProcessChannelMode(QProcess::ForwardedChannels);
    check.setInputChannelMode(QProcess::ForwardedInputChannel);
    check.setProcessEnvironment(environment);
    if (!workingDirectory.isEmpty())
        check.setWorkingDirectory(workingDirectory);
    check.start(args.python, checkArgs);
    // Every check is bounded by its own timeouts (docs/client-protocol.md); the whole is bounded too.
    if (!check.waitForFinished(20 * 60 * 1000)) {
        check.kill();
        check.waitForFinished(5000);
        CliIo::err() << kName << ": the check did not end within 20 minutes\n" << Qt::flush;
        return CliIo::Usage;
    }
    if (check.exitStatus() != QProcess::NormalExit || check.exitCode() > 2) {
        CliIo::err() << kName << ": the check itself failed (" << args.python << " exited with "
                     << check.exitCode() << ")\n" << Qt::flush;
        return CliIo::Usage;
    }
    return check.exitCode(); // the check's own: 0 passed, 1 a check failed, 2 could not run
}
