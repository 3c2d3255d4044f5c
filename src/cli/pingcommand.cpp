// ping: a connection check that reports the server's identity and round-trip time.
#include "pingcommand.h"

#include "cliio.h"
#include "cliserver.h"
#include "redis/serverinfo.h"

#include <QCommandLineParser>
#include <QElapsedTimer>

#include <algorithm>

int runPingCommand(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Connect to a Redis server and measure the round trip."));
    parser.addHelpOption();
    ConnectionOptions::addTo(parser);
    parser.addOption(
        {QStringLiteral("count"), QStringLiteral("Number of PINGs (default 3)."), QStringLiteral("n")});
    if (!parser.parse(arguments)) {
        CliIo::err() << "lockscope-cli ping: " << parser.errorText() << "\n" << Qt::flush;
        return CliIo::Usage;
    }
    if (parser.isSet(QStringLiteral("help"))) {
        CliIo::out() << parser.helpText() << Qt::flush;
        return CliIo::Ok;
    }
    ConnectionOptions options;
    QString error;
    if (!ConnectionOptions::read(parser, &options, &error)) {
        CliIo::err() << "lockscope-cli ping: " << error << "\n" << Qt::flush;
        return CliIo::Usage;
    }
    bool countOk = true;
    const int count
        = parser.isSet(QStringLiteral("count")) ? parser.value(QStringLiteral("count")).toInt(&countOk) : 3;
    if (!countOk || count < 1 || count > 1000) {
        CliIo::err() << "lockscope-cli ping: --count expects a whole number from 1 to 1000\n" << Qt::flush;
        return CliIo::Usage;
    }

    CliServer server;
    if (!server.open(options, &error)) {
        CliIo::err() << "lockscope-cli ping: " << error << "\n" << Qt::flush;
        return CliIo::Failure;
    }
    RedisError infoError;
    const ServerInfo info = ServerInfo::fetch(server.connection(), &infoError);
    if (infoError) {
        CliIo::err() << "lockscope-cli ping: " << infoError.message() << "\n" << Qt::flush;
        return CliIo::Failure;
    }
    QList<double> samples;
    for (int i = 0; i < count; ++i) {
        QElapsedTimer timer;
        timer.start();
        const RedisResult r = server.connection().command({"PING"});
        if (!r.ok()) {
            CliIo::err() << "lockscope-cli ping: " << r.error.message() << "\n" << Qt::flush;
            return CliIo::Failure;
        }
        samples << double(timer.nsecsElapsed()) / 1e6;
    }
    std::sort(samples.begin(), samples.end());
    const double median = samples.at(samples.size() / 2);
    CliIo::out() << "PONG from " << server.settings().describe() << (server.sandbox() ? " (sandbox)" : "")
                 << "\n"
                 << "  " << info.summary() << (info.readOnly ? " · read-only" : " · read-write") << "\n"
                 << "  round trip: median " << QString::number(median, 'f', 3) << " ms over " << count
                 << (count == 1 ? " PING" : " PINGs") << "\n"
                 << Qt::flush;
    return CliIo::Ok;
}
