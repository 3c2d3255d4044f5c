// What a lock scan looks for and how hard it may read: patterns, page size, read bounds, thresholds.
#pragma once

#include "formatcatalog.h"
#include "locks/redissonnames.h"

#include <QByteArray>
#include <QList>
#include <QMetaType>
#include <QString>

struct ScanOptions
{
    // SCAN MATCH patterns, scanned one after the other. "*" means every key: then only keys that look
    // like locks by their data, or whose name matches lockNamePatterns, are listed. Keys found by any
    // other pattern are all listed (as "named like a lock", without alarms, when they fit no format).
    // lockNamePatterns: words ("lock") match a whole name part, globs ("*lck*") the whole key.
    QList<QByteArray> patterns {QByteArrayLiteral("*")};
    QList<QByteArray> lockNamePatterns = defaultLockNamePatterns();
    // SCAN COUNT: keys the server looks at per page. One SCAN call holds the server as long as it walks them
    // (~1 µs a key): with 200, other clients' p99 went to 2.1–2.3× idle on 1 M keys, because a GET landing
    // behind a SCAN waited its whole walk; with 64 it stays within 1.1× for 1.5× redis-cli --scan's time
    // (docs/benchmarks.md, scan impact).
    static constexpr int kDefaultCount = 64;
    int count = kDefaultCount;

    // Bounds on what one key may cost, whatever is stored under it.
    int maxValueBytes = 512; // GETRANGE prefix of strings
    int maxHashFields = 100; // HSCAN COUNT beyond which a hash is sampled, not read
    int maxQueue = 50; // entries read of a fair-lock queue, and holders read of a zset
    // Set by the scan itself, not the user: the server is a replica of this master ("its master" when the
    // address could not be read), so channel subscribers cannot be counted on it.
    QString replicaOf;
    // The lock formats to recognise (built in, plus the user's folder and --formats files).
    std::shared_ptr<const FormatCatalog> formats = FormatCatalog::standard();

    // Extra read-only connections that probe pages in parallel with the SCAN walk (0: probe on the scan's
    // own connection, one page at a time). 0 by default: a second connection kept the server busy without a
    // gap and doubled other clients' p99 for a quarter less time (docs/benchmarks.md, scan impact).
    int probeConnections = 0;
    // Gentleness (ScanPacer): the share of the server's time the scan may take with its round trips, the
    // commands per pipelined chunk, and an optional budget in commands per second (0: none beyond the share).
    // One connection never takes more than its round trips, so a share of 1 waits for nothing; chunks of 128
    // commands hold the server ~0.1 ms each, under an idle p99, while smaller chunks cost the client a round
    // trip (two system calls) per few keys and slowed the scan more than they spared anyone.
    double serverShare = 1.0;
    int pipelineChunk = 128;
    int maxOpsPerSecond = 0;

    qint64 ttlThresholdMs = 10 * 60 * 1000; // diagnosis ttl-above-threshold

    static QList<QByteArray> defaultLockNamePatterns();
    bool scansAllKeys() const;
    // Whether `key` is named like a lock (a lock-name word or glob matches it).
    bool isLockNamed(const QByteArray &key) const;
    // Whether a scan with these patterns would find `key`, and if so whether it was asked for by a pattern of
    // the user's own (anything but "*").
    bool covers(const QByteArray &key, bool *explicitPattern) const;
    // Empty when usable, else what is wrong (for the CLI and the GUI's settings).
    QString validate() const;
};

Q_DECLARE_METATYPE(ScanOptions)
