// inspect: one scan (SCAN pages + pipelined probes, read-only), printed as a table or as one JSON object;
// --watch then follows the locks live; --fail-on turns diagnoses into exit code 3 for scripts and checks.
#include "inspectcommand.h"

#include "checkedoutput.h"
#include "cliio.h"
#include "cliserver.h"
#include "inspect/clusterscanjob.h"
#include "inspect/formatcatalog.h"
#include "inspect/inspectformat.h"
#include "inspect/lockdiagnostics.h"
#include "inspect/lockscanjob.h"
#include "inspectwatch.h"
#include "interruptwatcher.h"
#include "inspect/lockjson.h"
#include "redis/bytes.h"
#include "redis/serverinfo.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>

#include <algorithm>

namespace {

const QString kName = QStringLiteral("lockscope-cli inspect");

int usage(const QString &message)
{
    CliIo::err() << kName << ": " << message << "\n" << Qt::flush;
    return CliIo::Usage;
}

int severity(const LockRecord &r)
{
    int score = 0;
    for (const LockDiagnosis &d : r.diagnoses)
        score += d.code == QLatin1String("contended")                                                   ? 1
            : d.code == QLatin1String("ttl-above-threshold") || d.code == QLatin1String("orphan-queue") ? 10
                                                                                                        : 100;
    // Locks before keys merely named like one.
    return r.kind == LockKind::Named ? score - 1 : score;
}

// Why this inspection is not the whole truth, one sentence each (empty when it is complete).
QString ttlCell(const LockRecord &r)
{
    return r.pttlMs == LockRecord::kPttlUnknown ? QStringLiteral("unknown") : InspectFormat::ttl(r.pttlMs);
}

QString cell(const QString &text, int width)
{
    return text.size() > width ? text.left(width - 1) + QStringLiteral("…") : text.leftJustified(width);
}

void printTable(const QList<LockRecord> &records, const ScanProgress &progress, const ServerInfo &info,
                const QStringList &nodes, const QStringList &incomplete)
{
    QTextStream &out = CliIo::out();
    out << info.summary() << (info.readOnly ? " · read-only" : " · read-write") << "\n";
    if (!nodes.isEmpty())
        out << "Cluster of " << nodes.size() << (nodes.size() == 1 ? " master: " : " masters: ")
            << nodes.join(QStringLiteral(", ")) << "\n";
    const int nodeWidth = nodes.isEmpty() ? 0 : int(std::max<qsizetype>(4, nodes.first().size()));
    if (records.isEmpty()) {
        out << (incomplete.isEmpty() ? "No locks found in " : "No locks found among the ")
            << InspectFormat::count(progress.scannedKeys) << " keys scanned"
            << (incomplete.isEmpty() ? ".\n"
                                     : QStringLiteral(" that could be read — this is NOT a clean result:\n"));
        for (const QString &why : incomplete)
            out << "  incomplete: " << why << "\n";
        out << Qt::flush;
        return;
    }
    int keyWidth = 12;
    for (const LockRecord &r : records)
        keyWidth = std::max(keyWidth,
                            int(std::min<qsizetype>(
                                48, Bytes::displayName(r.key, 60).size() + (r.groupKeys.isEmpty() ? 0 : 10))));
    out << "\n"
        << cell(QStringLiteral("KEY"), keyWidth) << "  "
        << (nodeWidth ? cell(QStringLiteral("NODE"), nodeWidth) + QStringLiteral("  ")
                    + cell(QStringLiteral("SLOT"), 5) + QStringLiteral("  ")
                      : QString())
        << cell(QStringLiteral("KIND"), 12) << "  " << cell(QStringLiteral("LIBRARY"), 22) << "  "
        << cell(QStringLiteral("OWNER"), 28) << "  " << QStringLiteral("TTL").rightJustified(11) << "  "
        << QStringLiteral("WAIT").rightJustified(4) << "  DIAGNOSES\n";
    int named = 0;
    for (const LockRecord &r : records) {
        named += r.kind == LockKind::Named;
        QString key = Bytes::displayName(r.key, 60);
        if (!r.groupKeys.isEmpty())
            key += QStringLiteral(" (+%1 keys)").arg(r.groupKeys.size());
        QStringList codes;
        for (const LockDiagnosis &d : r.diagnoses)
            codes << d.code;
        const qint64 waiters = r.waiters();
        out << cell(key, keyWidth) << "  "
            << (nodeWidth ? cell(r.node, nodeWidth) + QStringLiteral("  ") + cell(QString::number(r.slot), 5)
                        + QStringLiteral("  ")
                          : QString())
            << cell(LockKinds::label(r.kind), 12) << "  " << cell(r.library, 22) << "  "
            << cell(r.ownerSummary(), 28) << "  " << ttlCell(r).rightJustified(11) << "  "
            << (waiters < 0 ? QStringLiteral("?") : QString::number(waiters)).rightJustified(4) << "  "
            << codes.join(QStringLiteral(", ")) << "\n";
    }
    bool header = false;
    for (const LockRecord &r : records) {
        for (const LockDiagnosis &d : r.diagnoses) {
            if (!header) {
                out << "\nDiagnoses:\n";
                header = true;
            }
            out << "  " << Bytes::displayName(r.key, 60) << "  " << d.code << ": " << d.text << "\n";
            if (!d.evidence.isEmpty())
                out << "      evidence: " << d.evidence << "\n";
        }
    }
    header = false;
    for (const LockRecord &r : records) {
        for (const LockUnknown &u : r.unknowns) {
            if (!u.refused)
                continue;
            if (!header) {
                out << "\nNot read (shown as unknown, not as a value):\n";
                header = true;
            }
            out << "  " << Bytes::displayName(r.key, 60) << "  " << u.field << ": " << u.reason << "\n";
        }
    }
    out << "\n"
        << InspectFormat::count(records.size() - named) << (records.size() - named == 1 ? " lock" : " locks");
    if (named > 0)
        out << " and " << named << (named == 1 ? " key" : " keys")
            << " named like a lock without a lock's shape";
    out << " in " << InspectFormat::count(progress.scannedKeys) << " keys scanned ("
        << InspectFormat::duration(progress.elapsedMs) << ")\n";
    if (!incomplete.isEmpty()) {
        out << "INCOMPLETE — what is not listed here was not seen, not found clean:\n";
        for (const QString &why : incomplete)
            out << "  " << why << "\n";
    }
    out << Qt::flush;
}

} // namespace

int runInspectCommand(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Find every lock on a Redis server: its kind and library, owners, TTL, waiters and what looks "
        "wrong.\n"
        "Read-only: SCAN with pipelined TYPE/PTTL and bounded reads, never KEYS, never a write."));
    parser.addHelpOption();
    ConnectionOptions::addTo(parser);
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
             "Repeatable (default: lock locks mutex mutexes semaphore semaphores)."),
         QStringLiteral("P")});
    parser.addOption(
        {QStringLiteral("count"), QStringLiteral("SCAN COUNT per page (default %1: each SCAN holds the server while it walks them).")
                               .arg(ScanOptions::kDefaultCount), QStringLiteral("N")});
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
        {QStringLiteral("json"), QStringLiteral("Print one JSON object (with --watch: one per line).")});
    parser.addOption(
        {QStringLiteral("watch"), QStringLiteral("Keep printing what happens to the locks until Ctrl-C.")});
    parser.addOption({QStringLiteral("interval"),
                      QStringLiteral("With --watch, how often TTLs are read again, in ms (default 1000)."),
                      QStringLiteral("ms")});
    parser.addOption(
        {QStringLiteral("ttl-threshold"),
         QStringLiteral("Diagnose TTLs longer than this many seconds (default 600; 0 turns it off)."),
         QStringLiteral("s")});
    parser.addOption(
        {QStringLiteral("fail-on"),
         QStringLiteral(
             "Exit with 3 when a lock has one of these diagnoses (comma-separated codes: "
             "no-ttl, watchdog-stalled, orphan-queue, job-missing, "
             "ttl-above-threshold, malformed, contended, or \"any\"). An inspection that could not "
             "see everything exits 4, never 0."),
         QStringLiteral("codes")});
    if (!parser.parse(arguments))
        return usage(parser.errorText());
    if (parser.isSet(QStringLiteral("help"))) {
        CliIo::out() << parser.helpText() << Qt::flush;
        return CliIo::Ok;
    }
    if (!parser.positionalArguments().isEmpty())
        return usage(QStringLiteral("unexpected argument '%1'").arg(parser.positionalArguments().first()));
    ConnectionOptions connection;
    QString error;
    if (!ConnectionOptions::read(parser, &connection, &error))
        return usage(error);

    ScanOptions options;
    if (connection.profile) {
        // The profile's scan settings; the flags below override them.
        if (!connection.profile->lockPatterns.isEmpty()) {
            options.patterns.clear();
            for (const QString &p : connection.profile->lockPatterns)
                options.patterns << p.toUtf8();
        }
        options.count = connection.profile->scanCount;
        options.maxOpsPerSecond = connection.profile->scanMaxOps;
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
            return usage(QStringLiteral("--count expects a whole number from 1 to 100000, not '%1'")
                             .arg(parser.value(QStringLiteral("count"))));
    }
    if (parser.isSet(QStringLiteral("ttl-threshold"))) {
        bool ok = false;
        const qint64 seconds = parser.value(QStringLiteral("ttl-threshold")).toLongLong(&ok);
        if (!ok || seconds < 0)
            return usage(QStringLiteral("--ttl-threshold expects a whole number of seconds, 0 or more"));
        options.ttlThresholdMs = seconds * 1000;
    }
    int intervalMs = 1000;
    if (parser.isSet(QStringLiteral("interval"))) {
        bool ok = false;
        intervalMs = parser.value(QStringLiteral("interval")).toInt(&ok);
        if (!ok || intervalMs < 100 || intervalMs > 3'600'000)
            return usage(QStringLiteral("--interval expects milliseconds from 100 to 3600000"));
    }
    QStringList failOn;
    if (parser.isSet(QStringLiteral("fail-on"))) {
        QStringList known {QStringLiteral("any")};
        for (const LockDiagnosis &d : LockDiagnostics::catalog())
            known << d.code;
        for (const QString &code : parser.value(QStringLiteral("fail-on")).split(u',', Qt::SkipEmptyParts)) {
            if (!known.contains(code.trimmed()))
                return usage(QStringLiteral("--fail-on: unknown diagnosis '%1' (known: %2)")
                                 .arg(code, known.join(QStringLiteral(", "))));
            failOn << code.trimmed();
        }
    }
    if (parser.isSet(QStringLiteral("max-ops"))) {
        bool ok = false;
        options.maxOpsPerSecond = parser.value(QStringLiteral("max-ops")).toInt(&ok);
        if (!ok || options.maxOpsPerSecond < 100)
            return usage(
                QStringLiteral("--max-ops expects a whole number of commands per second, 100 or more"));
    }
    if (parser.isSet(QStringLiteral("formats"))) {
        QStringList formatErrors;
        options.formats = FormatCatalog::withFiles(parser.values(QStringLiteral("formats")), &formatErrors);
        if (!options.formats)
            return usage(QStringLiteral("bad format file:\n  ") + formatErrors.join(QStringLiteral("\n  ")));
    }
    for (const QString &e : options.formats->errors())
        CliIo::err() << kName << ": warning: a format file was skipped: " << e << "\n" << Qt::flush;
    if (const QString problem = options.validate(); !problem.isEmpty())
        return usage(problem);

    CliServer server;
    if (!server.open(connection, &error)) {
        CliIo::err() << kName << ": " << error << "\n" << Qt::flush;
        return CliIo::Failure;
    }
    RedisError infoError;
    const ServerInfo info = ServerInfo::fetch(server.connection(), &infoError);
    if (infoError) {
        CliIo::err() << kName << ": " << infoError.message() << "\n" << Qt::flush;
        return CliIo::Failure;
    }

    if (info.mode == QLatin1String("sentinel")) {
        CliIo::err() << kName << ": " << server.settings().endpoint()
                     << " is a Redis Sentinel, not a data server: connect with --sentinel "
                     << server.settings().endpoint()
                     << " --master NAME (without --master the names are listed)\n"
                     << Qt::flush;
        return CliIo::Failure;
    }
    // The server itself says whether it is a cluster node: then every master is scanned, --cluster or not.
    const bool cluster = server.settings().cluster || info.mode == QLatin1String("cluster");

    // Pages stream in; a later page may update a lock met earlier (another resource key, a companion).
    QHash<QPair<QString, QByteArray>, qsizetype> indexOf;
    QList<LockRecord> records;
    const bool progressToTerminal = !parser.isSet(QStringLiteral("json")) && CliIo::stdoutIsTerminal();
    const auto runJob = [&](auto &job) {
        while (!job.atEnd()) {
            for (const LockRecord &r : job.nextPage()) {
                const auto it = indexOf.constFind({r.node, r.key});
                if (it != indexOf.constEnd()) {
                    records[*it] = r;
                } else {
                    indexOf.insert({r.node, r.key}, records.size());
                    records.append(r);
                }
            }
            if (progressToTerminal && job.progress().pages % 20 == 0)
                CliIo::err() << "\rscanning… " << InspectFormat::count(job.progress().scannedKeys)
                             << " keys, " << InspectFormat::count(records.size()) << " locks" << Qt::flush;
        }
        if (progressToTerminal)
            CliIo::err() << "\r\x1b[K" << Qt::flush;
        return std::make_pair(job.error(), job.progress());
    };
    RedisError scanError;
    ScanProgress progress;
    QStringList nodes;
    QStringList missing; // cluster nodes or slots that could not be scanned
    if (cluster) {
        ConnectionSettings seed = server.settings();
        seed.cluster = true;
        ClusterScanJob job(seed, options);
        std::tie(scanError, progress) = runJob(job);
        for (const ClusterSlotMap::Node &n : job.masters())
            nodes << n.endpoint();
        // Masters that could not be scanned (down, frozen, refusing reads) and slots no master serves: what
        // their keys hold is unknown, so the result is incomplete (exit 4), never clean.
        missing << job.missing();
    } else {
        LockScanJob job(server.connection(), options);
        std::tie(scanError, progress) = runJob(job);
    }
    if (scanError) {
        CliIo::err() << kName << ": scan failed: " << scanError.message() << "\n" << Qt::flush;
        return CliIo::Failure;
    }
    std::stable_sort(records.begin(), records.end(), [](const LockRecord &a, const LockRecord &b) {
        const int sa = severity(a), sb = severity(b);
        return sa != sb ? sa > sb : a.key < b.key;
    });

    const QStringList incomplete = LockJson::incompleteBecause(records, progress, info, missing);
    const bool json = parser.isSet(QStringLiteral("json"));
    if (json && !parser.isSet(QStringLiteral("watch"))) {
        QJsonObject root = LockJson::inspection(records, progress, info, incomplete);
        if (cluster)
            root.insert(QStringLiteral("nodes"), QJsonArray::fromStringList(nodes));
        CliIo::stdoutDevice().beginDocument();
        CliIo::out() << QJsonDocument(root).toJson(QJsonDocument::Indented) << Qt::flush;
        CliIo::stdoutDevice().endDocument();
    } else if (json) {
        for (const LockRecord &r : records) {
            QJsonObject o = LockJson::lock(r);
            o.insert(QStringLiteral("event"), QStringLiteral("found"));
            CliIo::out() << QJsonDocument(o).toJson(QJsonDocument::Compact) << "\n";
        }
        CliIo::out() << Qt::flush;
    } else {
        CliIo::stdoutDevice().beginDocument();
        printTable(records, progress, info, nodes, incomplete);
        CliIo::stdoutDevice().endDocument();
    }

    bool failed = false;
    for (const LockRecord &r : records) {
        for (const LockDiagnosis &d : r.diagnoses)
            failed |= failOn.contains(d.code) || (failOn.contains(QStringLiteral("any")));
    }
    if (!incomplete.isEmpty() && !json)
        CliIo::err() << kName << ": incomplete: " << incomplete.join(QStringLiteral("; ")) << "\n"
                     << Qt::flush;

    if (parser.isSet(QStringLiteral("watch"))) {
        if (!json)
            CliIo::out() << "\nWatching (Ctrl-C to stop)…\n" << Qt::flush;
        // On a cluster every master is watched: each publishes only its own keys' changes.
        ConnectionSettings watched = server.settings();
        watched.cluster = cluster;
        InspectWatch watch(watched, options, json, intervalMs);
        InterruptWatcher interrupts;
        // Nobody reads what --watch prints any more: stop, and with it every request to the server.
        interrupts.stopWhenOutputLost();
        QObject::connect(&interrupts, &InterruptWatcher::interrupted, qApp, &QCoreApplication::quit);
        if (CliIo::stdoutProblem().isEmpty()) {
            watch.start(records);
            QCoreApplication::exec();
        }
        if (interrupts.outputLost())
            return CliIo::Failure; // main() names the reason
        if (!json)
            CliIo::out() << "\nStopped after " << watch.eventsPrinted()
                         << (watch.eventsPrinted() == 1 ? " event.\n" : " events.\n") << Qt::flush;
    }
    // A diagnosis asked for is reported whatever else was missed; otherwise an incomplete look is never "ok".
    return failed ? CliIo::ExpectFailed : !incomplete.isEmpty() ? CliIo::Incomplete : CliIo::Ok;
}
