// InspectScan: pages stream in from LockScanJob (or ClusterScanJob) and are merged by (node, key), since a
// later page may update a lock met earlier (another resource key, a companion).
#include "inspectscan.h"

#include "cliserver.h"
#include "inspect/clusterscanjob.h"
#include "inspect/inspectformat.h"
#include "inspect/lockjson.h"

#include <QTextStream>

#include <algorithm>

namespace {

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

// Runs `job` to its end, merging its pages into `records`.
template<typename Job>
std::pair<RedisError, ScanProgress> collect(Job &job, QList<LockRecord> *records, QTextStream *progress)
{
    QHash<QPair<QString, QByteArray>, qsizetype> indexOf;
    while (!job.atEnd()) {
        for (const LockRecord &r : job.nextPage()) {
            const auto it = indexOf.constFind({r.node, r.identity()});
            if (it != indexOf.constEnd()) {
                (*records)[*it] = r;
            } else {
                indexOf.insert({r.node, r.identity()}, records->size());
                records->append(r);
            }
        }
        if (progress && job.progress().pages % 20 == 0)
            *progress << "\rscanning… " << InspectFormat::count(job.progress().scannedKeys) << " keys, "
                      << InspectFormat::count(records->size()) << " locks" << Qt::flush;
    }
    if (progress)
        *progress << "\r\x1b[K" << Qt::flush;
    return std::make_pair(job.error(), job.progress());
}

} // namespace

std::optional<InspectFindings> InspectScan::run(CliServer &server, const ScanOptions &options,
                                                QTextStream *progress, QString *error)
{
    InspectFindings found;
    RedisError infoError;
    found.info = ServerInfo::fetch(server.connection(), &infoError);
    if (infoError) {
        *error = infoError.message();
        return std::nullopt;
    }
    if (found.info.mode == QLatin1String("sentinel")) {
        *error
            = QStringLiteral("%1 is a Redis Sentinel, not a data server: connect with --sentinel %1 --master "
                             "NAME (without --master the names are listed)")
                  .arg(server.settings().endpoint());
        return std::nullopt;
    }
    // The server itself says whether it is a cluster node: then every master is scanned, --cluster or not.
    found.cluster = server.settings().cluster || found.info.mode == QLatin1String("cluster");

    RedisError scanError;
    QStringList missing; // cluster nodes or slots that could not be scanned
    if (found.cluster) {
        ConnectionSettings seed = server.settings();
        seed.cluster = true;
        ClusterScanJob job(seed, options);
        std::tie(scanError, found.progress) = collect(job, &found.records, progress);
        for (const ClusterSlotMap::Node &n : job.masters())
            found.nodes << n.endpoint();
        // Masters that could not be scanned (down, frozen, refusing reads) and slots no master serves: what
        // their keys hold is unknown, so the result is incomplete (exit 4), never clean.
        missing << job.missing();
    } else {
        LockScanJob job(server.connection(), options);
        std::tie(scanError, found.progress) = collect(job, &found.records, progress);
    }
    if (scanError) {
        *error = QStringLiteral("scan failed: ") + scanError.message();
        return std::nullopt;
    }
    std::stable_sort(found.records.begin(), found.records.end(),
                     [](const LockRecord &a, const LockRecord &b) {
                         const int sa = severity(a), sb = severity(b);
                         return sa != sb ? sa > sb : a.identity() < b.identity();
                     });
    found.incomplete = LockJson::incompleteBecause(found.records, found.progress, found.info, missing);
    return found;
}
