// Probes scan pages on worker threads with connections of their own, so while one page is being read the
// next one is already on the wire and the previous one is being classified: the round trips of a big scan
// overlap instead of adding up. Results are taken back in the order pages were submitted.
#pragma once

#include "keyprober.h"
#include "redis/connectionsettings.h"

#include <QHash>
#include <QList>
#include <QMap>

#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

class RedisConnection;
class ScanPacer;

class ProbePool
{
public:
    // `settings` are used read-only, whatever they say. `workers` ≥ 1. `pacer` (shared with the scan, may be
    // null) paces every worker's rounds.
    ProbePool(const ConnectionSettings &settings, const ScanOptions &options, int workers,
              ScanPacer *pacer = nullptr);
    ~ProbePool(); // stops the workers (interrupting what they are doing)
    ProbePool(const ProbePool &) = delete;
    ProbePool &operator=(const ProbePool &) = delete;

    // Queues one page; returns its ticket.
    quint64 submit(const QList<ProbeTarget> &targets);
    // Waits for the page `ticket` (submitted earlier) and hands its result over. False with `error` set when
    // its probe failed. `redirected`, when given, receives the keys a cluster node redirected (MOVED/ASK)
    // instead of reading them (KeyProber::takeRedirected), for the caller to read where they now live.
    bool take(quint64 ticket, QList<ScannedKey> *out, RedisError *error,
              QList<QPair<QByteArray, RedisError>> *redirected = nullptr);
    // Thread-safe: makes every worker's blocked call return; later pages fail with Interrupted.
    void interrupt();
    // Keys whose TYPE was not read, by reason, over every worker.
    QMap<QString, qint64> unreadKeys() const;

private:
    struct Job
    {
        quint64 ticket = 0;
        QList<ProbeTarget> targets;
    };
    struct Result
    {
        QList<ScannedKey> keys;
        QList<QPair<QByteArray, RedisError>> redirected;
        RedisError error;
        bool ok = false;
    };
    struct Worker
    {
        std::thread thread;
        std::unique_ptr<RedisConnection> connection;
        QMap<QString, qint64> unread;
    };
    void run(Worker *worker);

    ConnectionSettings m_settings;
    ScanOptions m_options;
    ScanPacer *m_pacer = nullptr;
    std::vector<std::unique_ptr<Worker>> m_workers;
    mutable std::mutex m_mutex;
    std::condition_variable m_jobsChanged;
    std::condition_variable m_resultsChanged;
    QList<Job> m_jobs;
    QHash<quint64, Result> m_results;
    quint64 m_nextTicket = 1;
    bool m_stopping = false;
    bool m_interrupted = false;
};
