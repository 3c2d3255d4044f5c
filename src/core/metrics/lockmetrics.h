// The metrics view of `lockscope-cli serve`: OpenMetrics (or Prometheus text) rendered from the targets'
// monitors at the moment of a scrape. Per target: up, the address read, failovers, scans, notifications,
// commands sent, locks by kind and library, unknown values by reason. Per lock, for a bounded number of
// locks (the diagnosed first, then the longest held): TTL, time held, hold count, holders, waiters, time
// since the last renewal against its period, one series per diagnosis. Per key pattern: acquisitions,
// releases, renewals, expiries while held, losses and a histogram of hold times.
// Unknown is absent, never 0: a value that could not be read has no sample (and is counted by reason), and a
// target that cannot be read reports up 0 and no lock series at all, rather than its last readings.
#pragma once

#include "openmetricswriter.h"

#include <QByteArray>
#include <QList>

#include <memory>

class MonitoredTarget;

class LockMetrics
{
public:
    // Locks given series of their own per target. Enough for every lock an alert could name on a server in
    // trouble (the diagnosed come first), small enough that a server with 100,000 locks costs Prometheus
    // a few thousand series, not a million.
    static constexpr int kDefaultMaxLockSeries = 500;

    struct Options
    {
        int maxLockSeries = kDefaultMaxLockSeries;
    };

    struct SnapshotData;
    // Everything a scrape shows, read from the targets at one moment: the per-lock rows already chosen and
    // computed, the rest copied. Immutable, so it may be written out on any thread while the targets go on.
    class Snapshot
    {
    public:
        Snapshot() = default;

    private:
        friend class LockMetrics;
        explicit Snapshot(std::shared_ptr<const SnapshotData> data)
            : m_data(std::move(data))
        {
        }
        std::shared_ptr<const SnapshotData> m_data;
    };

    // On the targets' thread: cheap next to write() (the text is most of a scrape's time).
    static Snapshot snapshot(const QList<const MonitoredTarget *> &targets, const Options &options);
    // On any thread.
    static QByteArray write(const Snapshot &snapshot, OpenMetricsWriter::Format format);
    // Both at once.
    static QByteArray render(const QList<const MonitoredTarget *> &targets, const Options &options,
                             OpenMetricsWriter::Format format);
};
