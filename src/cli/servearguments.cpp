// ServeArguments: the command line and each config file target go through the same parser and the same
// readers (ConnectionOptions, InspectArguments' scan options), so a target reads alike in both places.
#include "servearguments.h"

#include "commandlinestart.h"
#include "inspectarguments.h"
#include "metricsserver.h"

#include <QCommandLineParser>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>

namespace {

const QString kCommand = QStringLiteral("lockscope-cli serve");

void addTargetOptions(QCommandLineParser &parser)
{
    ConnectionOptions::addTo(parser);
    InspectArguments::addScanOptions(parser);
    parser.addOption(
        {QStringLiteral("name"),
         QStringLiteral("The target's name, its `target` label (default: the profile's name, the "
                        "Sentinel master's name, or host:port)."),
         QStringLiteral("NAME")});
}

void addServeOptions(QCommandLineParser &parser)
{
    parser.setApplicationDescription(QStringLiteral(
        "Follow one or more servers' locks live (read-only: paced scans, keyspace notifications, polls) and "
        "serve them as Prometheus metrics on GET /metrics (and /healthz) until SIGTERM or Ctrl-C."));
    parser.addHelpOption();
    addTargetOptions(parser);
    parser.addOptions({
        {QStringLiteral("config"),
         QStringLiteral("JSON file listing the targets (and listen, web_config_file, max_lock_series, "
                        "max_commands_per_second, the http_ bounds); see man lockscope-cli. Instead of connection "
                        "options."),
         QStringLiteral("FILE")},
        {QStringLiteral("listen"),
         QStringLiteral(
             "Address and port to serve on (default 127.0.0.1:%1: this machine only; :%1 for every "
             "address; port 0 for any free one).")
             .arg(ServeArguments::kDefaultPort),
         QStringLiteral("HOST:PORT")},
        {QStringLiteral("web-config"),
         QStringLiteral("TLS and basic auth, as Prometheus exporters configure them (tls_server_config, "
                        "basic_auth_users with bcrypt hashes), written as JSON."),
         QStringLiteral("FILE")},
        {QStringLiteral("max-lock-series"),
         QStringLiteral("Locks given series of their own, per target: the diagnosed first, then the longest "
                        "held; lockscope_locks_not_exported counts the rest (default %1).")
             .arg(LockMetrics::kDefaultMaxLockSeries),
         QStringLiteral("N")},
        {QStringLiteral("max-commands-per-second"),
         QStringLiteral("Commands per second each target's polling may send to read its locks again; a pass "
                        "over many locks then takes longer (lockscope_poll_pass_seconds). 0: no cap "
                        "(default %1).")
             .arg(PollBudget::kDefaultMaxCommandsPerSecond),
         QStringLiteral("N")},
        {QStringLiteral("http-max-header-bytes"),
         QStringLiteral("Bytes a request's line and headers may take together; a longer head is answered 431 "
                        "and its connection closed (default %1).")
             .arg(HttpLimits::kDefaultMaxHeaderBytes),
         QStringLiteral("BYTES")},
        {QStringLiteral("http-header-timeout"),
         QStringLiteral("Seconds a request's head may take to arrive, from its first byte (or from the "
                        "connection, TLS handshake included); then 408 and the connection closes (default %1).")
             .arg(HttpLimits::kDefaultHeaderTimeoutMs / 1000),
         QStringLiteral("SECONDS")},
        {QStringLiteral("http-idle-timeout"),
         QStringLiteral("Seconds a kept-alive connection may wait for its next request, and an answer for its "
                        "client to read it (default %1).")
             .arg(HttpLimits::kDefaultIdleTimeoutMs / 1000),
         QStringLiteral("SECONDS")},
        {QStringLiteral("http-max-connections"),
         QStringLiteral("Connections served at once; more are answered 503 (closed unanswered over TLS) and "
                        "logged (default %1).")
             .arg(HttpLimits::kDefaultMaxConnections),
         QStringLiteral("N")},
        {QStringLiteral("hash-password"),
         QStringLiteral(
             "Read a password from standard input and print its bcrypt hash for basic_auth_users.")},
    });
}

// A password file others can read is a password others can read.
void warnIfLoose(const QCommandLineParser &parser, QStringList *warnings)
{
    for (const char *option : {"password-file", "sentinel-password-file"}) {
        const QString path = parser.value(QString::fromLatin1(option));
        if (path.isEmpty())
            continue;
        const QFileInfo info(path);
        if (info.permissions() & (QFileDevice::ReadGroup | QFileDevice::ReadOther))
            *warnings << QStringLiteral(
                             "warning: %1 can be read by other users than its owner (chmod 600 it)")
                             .arg(path);
    }
}

QString defaultName(const ConnectionOptions &o)
{
    if (o.profile)
        return o.profile->name;
    if (o.sandbox)
        return QStringLiteral("sandbox");
    if (o.settings.sentinel.enabled())
        return o.settings.sentinel.masterName;
    return o.settings.endpoint();
}

// One target from a parser that holds its options. Empty when good, else why not.
QString readTarget(const QCommandLineParser &parser, ServeTarget *out, QStringList *warnings)
{
    QString error;
    if (!ConnectionOptions::read(parser, &out->connection, &error))
        return error;
    if (parser.isSet(QStringLiteral("read-write")))
        return QStringLiteral("serve only ever reads: --read-write has no use here");
    if (out->connection.settings.sentinel.enabled() && out->connection.settings.sentinel.masterName.isEmpty())
        return QStringLiteral("--sentinel needs --master NAME: the master whose locks to follow");
    QStringList skipped;
    error = InspectArguments::readScanOptions(parser, out->connection.profile, &out->scan, &skipped);
    for (const QString &e : std::as_const(skipped))
        *warnings << QStringLiteral("warning: a format file was skipped: %1").arg(e);
    if (!error.isEmpty())
        return error;
    warnIfLoose(parser, warnings);
    out->name = parser.isSet(QStringLiteral("name")) ? parser.value(QStringLiteral("name"))
                                                     : defaultName(out->connection);
    if (out->name.trimmed().isEmpty())
        return QStringLiteral("--name: a target needs a name");
    return {};
}

// A config file target's JSON object as the command line it stands for. Empty when good, else why not.
QString targetArguments(const QJsonObject &object, QStringList *arguments)
{
    for (auto it = object.constBegin(); it != object.constEnd(); ++it) {
        const QString key = it.key();
        if (key == QLatin1String("password") || key == QLatin1String("sentinel_password"))
            return QStringLiteral("\"%1\": a password is never written in the config file; give "
                                  "\"%1_file\" (a file only its owner reads) or \"%1_env\"")
                .arg(key);
        if (key == QLatin1String("sandbox") || key == QLatin1String("read_write"))
            return QStringLiteral("\"%1\" has no place in serve's targets").arg(key);
        const QString option = QStringLiteral("--") + QString(key).replace(u'_', u'-');
        const QJsonArray values = it.value().isArray() ? it.value().toArray() : QJsonArray {it.value()};
        for (const QJsonValue &v : values) {
            if (v.isBool()) {
                if (v.toBool())
                    *arguments << option;
            } else if (v.isString()) {
                *arguments << option << v.toString();
            } else if (v.isDouble()) {
                *arguments << option << QString::number(v.toDouble(), 'g', 15);
            } else {
                return QStringLiteral("\"%1\": expected a string, a number, true or a list of them").arg(key);
            }
        }
    }
    return {};
}

// serve's HTTP bounds: option name, range, and where each goes in HttpLimits. Seconds may have decimals.
struct HttpOption
{
    const char *option;
    double min;
    double max;
    bool seconds;
    void (*set)(HttpLimits *, double);
};

const QList<HttpOption> &httpOptions()
{
    static const QList<HttpOption> options {
        {"--http-max-header-bytes", 256, 1024 * 1024, false,
         [](HttpLimits *l, double v) { l->maxHeaderBytes = qsizetype(v); }},
        {"--http-header-timeout", 0.05, 3600, true,
         [](HttpLimits *l, double v) { l->headerTimeoutMs = int(v * 1000); }},
        {"--http-idle-timeout", 0.05, 86400, true,
         [](HttpLimits *l, double v) { l->idleTimeoutMs = int(v * 1000); }},
        {"--http-max-connections", 1, 10000, false,
         [](HttpLimits *l, double v) { l->maxConnections = int(v); }},
    };
    return options;
}

// One HTTP bound from its text. Empty when good, else why not.
QString readHttpOption(const HttpOption &o, const QString &text, HttpLimits *limits)
{
    bool ok = false;
    const double v = o.seconds ? text.toDouble(&ok) : double(text.toLongLong(&ok));
    if (!ok || !(v >= o.min && v <= o.max))
        return QStringLiteral("%1 %2: expected %3 from %4 to %5")
            .arg(QString::fromLatin1(o.option), text,
                 o.seconds ? QStringLiteral("seconds") : QStringLiteral("a whole number"))
            .arg(o.min)
            .arg(o.max);
    o.set(limits, v);
    return {};
}

// The config file into `out` (targets, and the serving options the command line did not give).
QString readConfig(const QString &path, const QCommandLineParser &cli, ServeArguments *out)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return QStringLiteral("--config %1: %2").arg(path, file.errorString());
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(file.readAll(), &parseError);
    if (!doc.isObject())
        return QStringLiteral("--config %1: not a JSON object (%2 at byte %3)")
            .arg(path, parseError.errorString())
            .arg(parseError.offset);
    const QJsonObject root = doc.object();
    static const QStringList known {"targets",
                                    "listen",
                                    "web_config_file",
                                    "max_lock_series",
                                    "max_commands_per_second",
                                    "http_max_header_bytes",
                                    "http_header_timeout",
                                    "http_idle_timeout",
                                    "http_max_connections"};
    for (const QString &key : root.keys()) {
        if (!known.contains(key))
            return QStringLiteral("--config %1: unknown key \"%2\" (known: %3)")
                .arg(path, key, known.join(QStringLiteral(", ")));
    }
    if (!cli.isSet(QStringLiteral("listen")) && root.contains(QLatin1String("listen")))
        out->listen = root.value(QLatin1String("listen")).toString();
    if (!cli.isSet(QStringLiteral("web-config")) && root.contains(QLatin1String("web_config_file")))
        out->webConfigFile = root.value(QLatin1String("web_config_file")).toString();
    if (!cli.isSet(QStringLiteral("max-lock-series")) && root.contains(QLatin1String("max_lock_series")))
        out->maxLockSeries = root.value(QLatin1String("max_lock_series")).toInt(-1);
    if (!cli.isSet(QStringLiteral("max-commands-per-second"))
        && root.contains(QLatin1String("max_commands_per_second")))
        out->maxCommandsPerSecond = root.value(QLatin1String("max_commands_per_second")).toInt(-1);
    for (const HttpOption &o : httpOptions()) {
        const QString key = QString::fromLatin1(o.option).mid(2).replace(u'-', u'_');
        if (cli.isSet(QString::fromLatin1(o.option).mid(2)) || !root.contains(key))
            continue;
        const QJsonValue v = root.value(key);
        const QString text = v.isDouble() ? QString::number(v.toDouble(), 'g', 15) : v.toString();
        if (QString e = readHttpOption(o, text, &out->httpLimits); !e.isEmpty())
            return QStringLiteral("--config %1: \"%2\": %3").arg(path, key, e);
    }
    const QJsonArray targets = root.value(QLatin1String("targets")).toArray();
    if (targets.isEmpty())
        return QStringLiteral("--config %1: \"targets\" lists no target").arg(path);
    for (qsizetype i = 0; i < targets.size(); ++i) {
        const QString where = QStringLiteral("--config %1: targets[%2]").arg(path).arg(i);
        if (!targets.at(i).isObject())
            return QStringLiteral("%1: expected an object").arg(where);
        QStringList arguments {kCommand};
        QString error = targetArguments(targets.at(i).toObject(), &arguments);
        if (!error.isEmpty())
            return QStringLiteral("%1: %2").arg(where, error);
        QCommandLineParser parser;
        addTargetOptions(parser);
        if (!parser.parse(arguments))
            return QStringLiteral("%1: %2").arg(where, parser.errorText());
        ServeTarget target;
        error = readTarget(parser, &target, &out->warnings);
        if (!error.isEmpty())
            return QStringLiteral("%1: %2").arg(where, error);
        out->targets << target;
    }
    return {};
}

} // namespace

ServeArguments ServeArguments::parse(const QStringList &arguments)
{
    ServeArguments out;
    QCommandLineParser parser;
    addServeOptions(parser);
    if (!CommandLineStart::parse(parser, arguments, &out.helpText, &out.error))
        return out;
    if (!parser.positionalArguments().isEmpty()) {
        out.error = QStringLiteral("unexpected argument '%1'").arg(parser.positionalArguments().first());
        return out;
    }
    if (parser.isSet(QStringLiteral("hash-password"))) {
        out.hashPassword = true;
        return out;
    }
    out.listen = parser.isSet(QStringLiteral("listen")) ? parser.value(QStringLiteral("listen")) : out.listen;
    out.webConfigFile = parser.value(QStringLiteral("web-config"));
    if (parser.isSet(QStringLiteral("max-lock-series"))) {
        bool ok = false;
        out.maxLockSeries = parser.value(QStringLiteral("max-lock-series")).toInt(&ok);
        if (!ok)
            out.maxLockSeries = -1;
    }
    if (parser.isSet(QStringLiteral("max-commands-per-second"))) {
        bool ok = false;
        out.maxCommandsPerSecond = parser.value(QStringLiteral("max-commands-per-second")).toInt(&ok);
        if (!ok)
            out.maxCommandsPerSecond = -1;
    }
    for (const HttpOption &o : httpOptions()) {
        const QString name = QString::fromLatin1(o.option).mid(2);
        if (!parser.isSet(name))
            continue;
        out.error = readHttpOption(o, parser.value(name), &out.httpLimits);
        if (!out.error.isEmpty())
            return out;
    }
    if (parser.isSet(QStringLiteral("config"))) {
        static const QStringList serving {"config",
                                          "listen",
                                          "web-config",
                                          "max-lock-series",
                                          "max-commands-per-second",
                                          "http-max-header-bytes",
                                          "http-header-timeout",
                                          "http-idle-timeout",
                                          "http-max-connections"};
        for (const QString &name : parser.optionNames()) {
            if (!serving.contains(name)) {
                out.error
                    = QStringLiteral("--%1: with --config, each target's options are in the config file")
                          .arg(name);
                return out;
            }
        }
        out.error = readConfig(parser.value(QStringLiteral("config")), parser, &out);
    } else {
        ServeTarget target;
        out.error = readTarget(parser, &target, &out.warnings);
        out.targets << target;
    }
    if (!out.error.isEmpty())
        return out;
    if (out.maxLockSeries < 0 || out.maxLockSeries > 1'000'000) {
        out.error = QStringLiteral("max lock series: expected a whole number from 0 to 1000000");
        return out;
    }
    if (out.maxCommandsPerSecond < 0 || out.maxCommandsPerSecond > 1'000'000) {
        out.error = QStringLiteral(
            "max commands per second: expected a whole number from 0 (no cap) to 1000000");
        return out;
    }
    QSet<QString> names;
    for (const ServeTarget &t : std::as_const(out.targets)) {
        if (names.contains(t.name)) {
            out.error = QStringLiteral("two targets are named '%1': give each its own \"name\"").arg(t.name);
            return out;
        }
        names.insert(t.name);
    }
    QHostAddress address;
    quint16 port = 0;
    if (!MetricsServer::parseListen(out.listen, &address, &port))
        out.error = QStringLiteral("--listen %1: expected HOST:PORT with an IP address (127.0.0.1:%2, "
                                   "[::1]:%2, :%2 for every address)")
                        .arg(out.listen)
                        .arg(kDefaultPort);
    return out;
}
