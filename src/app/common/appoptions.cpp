// AppOptions: QCommandLineParser set-up for `lockscope`.
#include "appoptions.h"

#include "redis/redisconnection.h"
#include "sim/presetlibrary.h"
#include "version.h"

#include <QCommandLineParser>

QString AppOptions::versionText()
{
    return QStringLiteral("lockscope %1 (Qt %2, hiredis %3, %4)")
        .arg(QStringLiteral(LOCKSCOPE_VERSION), QString::fromLatin1(qVersion()),
             RedisConnection::hiredisVersion(), RedisConnection::tlsLibraryVersion());
}

bool AppOptions::isInfoOnly(const QStringList &arguments)
{
    for (const QString &a : arguments.mid(1)) {
        if (a == QLatin1String("--version") || a == QLatin1String("-v") || a == QLatin1String("--help")
            || a == QLatin1String("-h") || a == QLatin1String("--help-all"))
            return true;
    }
    return false;
}

AppOptions::Outcome AppOptions::parse(const QStringList &arguments, AppOptions *out, QString *message)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("LockScope: inspect, simulate and learn Redis distributed locks.\n"
                       "With no server given, a private sandbox redis-server is started and used."));
    parser.addHelpOption();
    parser.addVersionOption();
    ConnectionOptions::addTo(parser);
    parser.addOptions({
        {QStringLiteral("story"),
         QStringLiteral("Open the Learn place on this story (see 'lockscope-cli presets')."),
         QStringLiteral("id")},
        {QStringLiteral("preset"), QStringLiteral("Open the Simulator with this preset scenario loaded."),
         QStringLiteral("id")},
        {QStringLiteral("run"), QStringLiteral("With --preset: start it at once on the sandbox servers.")},
    });
    if (!parser.parse(arguments)) {
        *message = parser.errorText();
        return Outcome::ExitUsage;
    }
    if (parser.isSet(QStringLiteral("version"))) {
        *message = versionText();
        return Outcome::ExitOk;
    }
    if (parser.isSet(QStringLiteral("help"))) {
        *message = parser.helpText();
        return Outcome::ExitOk;
    }
    if (!parser.positionalArguments().isEmpty()) {
        *message = QStringLiteral("unexpected argument '%1' (see --help)")
                       .arg(parser.positionalArguments().first());
        return Outcome::ExitUsage;
    }
    for (const QString &option : {QStringLiteral("story"), QStringLiteral("preset")}) {
        const QString id = parser.value(option);
        if (parser.isSet(option) && !PresetLibrary::find(id)) {
            *message = QStringLiteral("no story or preset '%1'; they are: %2")
                           .arg(id, PresetLibrary::ids().join(QStringLiteral(", ")));
            return Outcome::ExitUsage;
        }
    }
    if (parser.isSet(QStringLiteral("story")) && parser.isSet(QStringLiteral("preset"))) {
        *message = QStringLiteral("give --story or --preset, not both");
        return Outcome::ExitUsage;
    }
    if (parser.isSet(QStringLiteral("run")) && !parser.isSet(QStringLiteral("preset"))) {
        *message = QStringLiteral("--run needs --preset ID (the scenario to run)");
        return Outcome::ExitUsage;
    }
    out->story = parser.value(QStringLiteral("story"));
    out->preset = parser.value(QStringLiteral("preset"));
    out->run = parser.isSet(QStringLiteral("run"));
    QString error;
    if (!ConnectionOptions::read(parser, &out->connection, &error)) {
        *message = error;
        return Outcome::ExitUsage;
    }
    return Outcome::Run;
}
