// InspectReport: columns cut to width with an ellipsis; keys shown with Bytes::displayName, never raw.
#include "inspectreport.h"

#include "cliio.h"
#include "inspect/inspectformat.h"
#include "inspect/lockjson.h"
#include "redis/bytes.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QTextStream>

#include <algorithm>

namespace {

QString ttlCell(const LockRecord &r)
{
    return r.pttlMs == LockRecord::kPttlUnknown ? QStringLiteral("unknown") : InspectFormat::ttl(r.pttlMs);
}

// The key, and the field of a lock kept in a shared hash: "huey.results.mailer › mailer.lock.send-digest".
QString shownKey(const LockRecord &r)
{
    const QString key = Bytes::displayName(r.key, 60);
    return r.field.isEmpty() ? key : key + QStringLiteral(" › ") + Bytes::displayName(r.field, 60);
}

QString cell(const QString &text, int width)
{
    return text.size() > width ? text.left(width - 1) + QStringLiteral("…") : text.leftJustified(width);
}

} // namespace

void InspectReport::printTable(QTextStream &out, const InspectFindings &found)
{
    const QList<LockRecord> &records = found.records;
    const ScanProgress &progress = found.progress;
    const ServerInfo &info = found.info;
    const QStringList &nodes = found.nodes;
    const QStringList &incomplete = found.incomplete;
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
        keyWidth
            = std::max(keyWidth,
                       int(std::min<qsizetype>(
                           48, shownKey(r).size() + (r.groupKeys.isEmpty() ? 0 : 10))));
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
        QString key = shownKey(r);
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
            out << "  " << shownKey(r) << "  " << d.code << ": " << d.text << "\n";
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
            out << "  " << shownKey(r) << "  " << u.field << ": " << u.reason << "\n";
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

QJsonObject InspectReport::json(const InspectFindings &found)
{
    QJsonObject root = LockJson::inspection(found.records, found.progress, found.info, found.incomplete);
    if (found.cluster)
        root.insert(QStringLiteral("nodes"), QJsonArray::fromStringList(found.nodes));
    return root;
}

void InspectReport::printFoundLines(QTextStream &out, const InspectFindings &found)
{
    for (const LockRecord &r : found.records) {
        QJsonObject o = LockJson::lock(r);
        o.insert(QStringLiteral("event"), QStringLiteral("found"));
        out << QJsonDocument(o).toJson(QJsonDocument::Compact) << "\n";
    }
    out << Qt::flush;
}

int InspectReport::exitCode(const InspectFindings &found, const QStringList &failOn)
{
    bool failed = false;
    for (const LockRecord &r : found.records) {
        for (const LockDiagnosis &d : r.diagnoses)
            failed |= failOn.contains(d.code) || (failOn.contains(QStringLiteral("any")));
    }
    return failed ? CliIo::ExpectFailed : !found.incomplete.isEmpty() ? CliIo::Incomplete : CliIo::Ok;
}
