// InspectArguments: the options, their help text, and every check of their values in the order the user meets
// them.
#include "inspectarguments.h"

#include "inspect/formatcatalog.h"
#include "inspect/lockdiagnostics.h"

#include "commandlinestart.h"

#include <QCommandLineParser>

namespace {

void addInspectOptions(QCommandLineParser &parser)
{
    parser.setApplicationDescription(QStringLiteral(
        "Find every lock on a Redis server: its kind and library, owners, TTL, waiters and what looks "
        "wrong.\n"
        "Read-only: SCAN with pipelined TYPE/PTTL and bounded reads, never KEYS, never a write."));
    parser.addHelpOption();
    ConnectionOptions::addTo(parser);
    InspectArguments::addScanOptions(parser);
    parser.addOption(
        {QStringLiteral("json"), QStringLiteral("Print one JSON object (with --watch: one per line).")});
    parser.addOption(
        {QStringLiteral("watch"), QStringLiteral("Keep printing what happens to the locks until Ctrl-C.")});
    parser.addOption({QStringLiteral("interval"),
                      QStringLiteral("With --watch, how often TTLs are read again, in ms (default 1000)."),
                      QStringLiteral("ms")});
    parser.addOption(
        {QStringLiteral("fail-on"),
         QStringLiteral(
             "Exit with 3 when a lock has one of these diagnoses (comma-separated codes: "
             "no-ttl, watchdog-stalled, orphan-queue, job-missing, "
             "ttl-above-threshold, malformed, contended, or \"any\"). An inspection that could not "
             "see everything exits 4, never 0."),
         QStringLiteral("codes")});
}

} // namespace

void InspectArguments::addScanOptions(QCommandLineParser &parser)
{
    parser.addOption(
        {QStringLiteral("pattern"),
         QStringLiteral("SCAN MATCH pattern; repeat for several (default \"*\": every key, listing those "
                        "that look like locks)."),
         QStringLiteral("P")});
    parser.addOption(
        {QStringLiteral("lock-pattern"),
         QStringLiteral(
             "With \"*\", also list keys named like a lock even when their data fits no lock format "
             "(shown as such, never alarmed on). A word matches a whole part of the name (\"lock\" "
             "matches order:lock:1 and SendInvoiceLock, not blocklist); a glob matches the whole key. "
             "Repeatable (default: %1).")
             .arg(QString::fromLatin1(ScanOptions::defaultLockNamePatterns().join(' '))),
         QStringLiteral("P")});
    parser.addOption(
        {QStringLiteral("count"),
         QStringLiteral("SCAN COUNT per page (default %1: each SCAN holds the server while it walks them).")
             .arg(ScanOptions::kDefaultCount),
         QStringLiteral("N")});
    parser.addOption(
        {QStringLiteral("max-ops"),
         QStringLiteral(
             "Budget: at most N commands per second to the server (default: no budget beyond the scan's "
             "own pacing, which keeps its round trips to a share of the server's time)."),
         QStringLiteral("N")});
    parser.addOption(
        {QStringLiteral("formats"),
         QStringLiteral(
             "Also recognise the lock formats in FILE (JSON, see docs/formats.md); repeatable. The "
             "user's folder ~/.config/LockScope/formats is always read."),
         QStringLiteral("FILE")});
    parser.addOption(
        {QStringLiteral("ttl-threshold"),
         QStringLiteral("Diagnose TTLs longer than this many seconds (default 600; 0 turns it off)."),
         QStringLiteral("s")});
}

namespace {

// Reads the inspect-only options (--interval, --fail-on). Empty when they are good, else why not.
QString readWatchAndFailOn(const QCommandLineParser &parser, InspectArguments *out)
{
    if (parser.isSet(QStringLiteral("interval"))) {
        bool ok = false;
        out->intervalMs = parser.value(QStringLiteral("interval")).toInt(&ok);
        if (!ok || out->intervalMs < 100 || out->intervalMs > 3'600'000)
            return QStringLiteral("--interval expects milliseconds from 100 to 3600000");
    }
    if (parser.isSet(QStringLiteral("fail-on"))) {
        QStringList known {QStringLiteral("any")};
        for (const LockDiagnosis &d : LockDiagnostics::catalog())
            known << d.code;
        for (const QString &code : parser.value(QStringLiteral("fail-on")).split(u',', Qt::SkipEmptyParts)) {
            if (!known.contains(code.trimmed()))
                return QStringLiteral("--fail-on: unknown diagnosis '%1' (known: %2)")
                    .arg(code, known.join(QStringLiteral(", ")));
            out->failOn << code.trimmed();
        }
    }
    return {};
}

} // namespace

QString InspectArguments::readScanOptions(const QCommandLineParser &parser,
                                          const std::optional<ConnectionProfile> &profile, ScanOptions *out,
                                          QStringList *skippedFormats)
{
    ScanOptions &options = *out;
    if (profile) {
        // The profile's scan settings; the flags below override them.
        if (!profile->lockPatterns.isEmpty()) {
            options.patterns.clear();
            for (const QString &p : profile->lockPatterns)
                options.patterns << p.toUtf8();
        }
        options.count = profile->scanCount;
        options.maxOpsPerSecond = profile->scanMaxOps;
    }
    if (parser.isSet(QStringLiteral("pattern"))) {
        options.patterns.clear();
        for (const QString &p : parser.values(QStringLiteral("pattern")))
            options.patterns << p.toUtf8();
    }
    if (parser.isSet(QStringLiteral("lock-pattern"))) {
        options.lockNamePatterns.clear();
        for (const QString &p : parser.values(QStringLiteral("lock-pattern")))
            options.lockNamePatterns << p.toUtf8();
    }
    if (parser.isSet(QStringLiteral("count"))) {
        bool ok = false;
        options.count = parser.value(QStringLiteral("count")).toInt(&ok);
        if (!ok)
            return QStringLiteral("--count expects a whole number from 1 to 100000, not '%1'")
                .arg(parser.value(QStringLiteral("count")));
    }
    if (parser.isSet(QStringLiteral("ttl-threshold"))) {
        bool ok = false;
        const qint64 seconds = parser.value(QStringLiteral("ttl-threshold")).toLongLong(&ok);
        if (!ok || seconds < 0)
            return QStringLiteral("--ttl-threshold expects a whole number of seconds, 0 or more");
        options.ttlThresholdMs = seconds * 1000;
    }
    if (parser.isSet(QStringLiteral("max-ops"))) {
        bool ok = false;
        options.maxOpsPerSecond = parser.value(QStringLiteral("max-ops")).toInt(&ok);
        if (!ok || options.maxOpsPerSecond < 100)
            return QStringLiteral("--max-ops expects a whole number of commands per second, 100 or more");
    }
    if (parser.isSet(QStringLiteral("formats"))) {
        QStringList formatErrors;
        options.formats = FormatCatalog::withFiles(parser.values(QStringLiteral("formats")), &formatErrors);
        if (!options.formats)
            return QStringLiteral("bad format file:\n  ") + formatErrors.join(QStringLiteral("\n  "));
    }
    // Skipped files are warned about before validate() can refuse the options, as the user meets them.
    *skippedFormats = options.formats->errors();
    return options.validate();
}

InspectArguments InspectArguments::parse(const QStringList &arguments)
{
    InspectArguments out;
    QCommandLineParser parser;
    addInspectOptions(parser);
    if (!CommandLineStart::parse(parser, arguments, &out.helpText, &out.error))
        return out;
    if (!parser.positionalArguments().isEmpty()) {
        out.error = QStringLiteral("unexpected argument '%1'").arg(parser.positionalArguments().first());
        return out;
    }
    if (!ConnectionOptions::read(parser, &out.connection, &out.error))
        return out;
    out.json = parser.isSet(QStringLiteral("json"));
    out.watch = parser.isSet(QStringLiteral("watch"));
    out.error = readScanOptions(parser, out.connection.profile, &out.scan, &out.skippedFormats);
    if (out.error.isEmpty())
        out.error = readWatchAndFailOn(parser, &out);
    return out;
}
