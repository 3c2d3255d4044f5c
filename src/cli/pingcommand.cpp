// ping: a connection check that reports the server's identity and round-trip time.
#include "pingcommand.h"

#include "cliio.h"
#include "cliserver.h"
#include "commandlinestart.h"

#include <QCommandLineParser>
#include <QElapsedTimer>

#include <algorithm>

namespace {

const QString kName = QStringLiteral("lockscope-cli ping");

} // namespace

PingArguments PingArguments::parse(const QStringList &arguments)
{
    PingArguments out;
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Connect to a Redis server and measure the round trip."));
    parser.addHelpOption();
    ConnectionOptions::addTo(parser);
    parser.addOption(
        {QStringLiteral("count"), QStringLiteral("Number of PINGs (default 3)."), QStringLiteral("n")});
    if (!CommandLineStart::parse(parser, arguments, &out.helpText, &out.error))
        return out;
    if (!ConnectionOptions::read(parser, &out.connection, &out.error))
        return out;
    bool countOk = true;
    if (parser.isSet(QStringLiteral("count")))
        out.count = parser.value(QStringLiteral("count")).toInt(&countOk);
    if (!countOk || out.count < 1 || out.count > 1000)
        out.error = QStringLiteral("--count expects a whole number from 1 to 1000");
    return out;
}

std::optional<PingResult> PingCommand::run(CliServer &server, int count, QString *error)
{
    PingResult result;
    result.server = server.settings().describe();
    result.sandbox = server.sandbox() != nullptr;
    result.count = count;
    RedisError infoError;
    result.info = ServerInfo::fetch(server.connection(), &infoError);
    if (infoError) {
        *error = infoError.message();
        return std::nullopt;
    }
    QList<double> samples;
    for (int i = 0; i < count; ++i) {
        QElapsedTimer timer;
        timer.start();
        const RedisResult r = server.connection().command({"PING"});
        if (!r.ok()) {
            *error = r.error.message();
            return std::nullopt;
        }
        samples << double(timer.nsecsElapsed()) / 1e6;
    }
    std::sort(samples.begin(), samples.end());
    result.medianMs = samples.at(samples.size() / 2);
    return result;
}

void PingCommand::print(QTextStream &out, const PingResult &result)
{
    const ServerInfo &info = result.info;
    out << "PONG from " << result.server << (result.sandbox ? " (sandbox)" : "") << "\n"
        << "  " << info.summary() << (info.readOnly ? " · read-only" : " · read-write") << "\n"
        << "  round trip: median " << QString::number(result.medianMs, 'f', 3) << " ms over " << result.count
        << (result.count == 1 ? " PING" : " PINGs") << "\n"
        << Qt::flush;
}

int runPingCommand(const QStringList &arguments)
{
    const PingArguments args = PingArguments::parse(arguments);
    if (const std::optional<int> exitCode = CommandLineStart::earlyExit(kName, args.helpText, args.error))
        return *exitCode;
    CliServer server;
    QString error;
    if (!server.open(args.connection, &error)) {
        CliIo::err() << kName << ": " << error << "\n" << Qt::flush;
        return CliIo::Failure;
    }
    const std::optional<PingResult> result = PingCommand::run(server, args.count, &error);
    if (!result) {
        CliIo::err() << kName << ": " << error << "\n" << Qt::flush;
        return CliIo::Failure;
    }
    PingCommand::print(CliIo::out(), *result);
    return CliIo::Ok;
}
