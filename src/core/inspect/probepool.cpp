// ProbePool: a mutex-protected job queue and result map; each worker owns its connection and prober.
#include "probepool.h"

#include "redis/redisconnection.h"

ProbePool::ProbePool(const ConnectionSettings &settings, const ScanOptions &options, int workers,
                     ScanPacer *pacer)
    : m_settings(settings)
    , m_options(options)
    , m_pacer(pacer)
{
    m_settings.readOnly = true;
    m_settings.clientName = QStringLiteral("lockscope-probe");
    for (int i = 0; i < std::max(1, workers); ++i) {
        auto w = std::make_unique<Worker>();
        w->connection = std::make_unique<RedisConnection>(m_settings);
        Worker *raw = w.get();
        m_workers.push_back(std::move(w));
        raw->thread = std::thread([this, raw] { run(raw); });
    }
}

ProbePool::~ProbePool()
{
    {
        std::lock_guard lock(m_mutex);
        m_stopping = true;
        m_interrupted = true;
        for (const auto &w : m_workers)
            w->connection->interrupt();
    }
    m_jobsChanged.notify_all();
    for (const auto &w : m_workers)
        w->thread.join();
}

quint64 ProbePool::submit(const QList<ProbeTarget> &targets)
{
    quint64 ticket;
    {
        std::lock_guard lock(m_mutex);
        ticket = m_nextTicket++;
        m_jobs.append({ticket, targets});
    }
    m_jobsChanged.notify_one();
    return ticket;
}

bool ProbePool::take(quint64 ticket, QList<ScannedKey> *out, RedisError *error,
                     QList<QPair<QByteArray, RedisError>> *redirected)
{
    std::unique_lock lock(m_mutex);
    m_resultsChanged.wait(lock, [&] { return m_results.contains(ticket); });
    Result r = m_results.take(ticket);
    *out = std::move(r.keys);
    *error = r.error;
    if (redirected)
        *redirected = std::move(r.redirected);
    return r.ok;
}

void ProbePool::interrupt()
{
    std::lock_guard lock(m_mutex);
    m_interrupted = true;
    for (const auto &w : m_workers)
        w->connection->interrupt();
}

QMap<QString, qint64> ProbePool::unreadKeys() const
{
    std::lock_guard lock(m_mutex);
    QMap<QString, qint64> total;
    for (const auto &w : m_workers) {
        for (auto [reason, n] : w->unread.asKeyValueRange())
            total[reason] += n;
    }
    return total;
}

void ProbePool::run(Worker *worker)
{
    KeyProber prober(m_options);
    prober.setPacer(m_pacer);
    while (true) {
        Job job;
        bool interrupted = false;
        {
            std::unique_lock lock(m_mutex);
            m_jobsChanged.wait(lock, [&] { return m_stopping || !m_jobs.isEmpty(); });
            if (m_jobs.isEmpty())
                return; // stopping
            job = m_jobs.takeFirst();
            interrupted = m_interrupted;
        }
        Result result;
        if (interrupted) {
            result.error = {RedisError::Code::Interrupted, QStringLiteral("Interrupted")};
        } else {
            RedisError error;
            if (!worker->connection->isOpen())
                error = worker->connection->open();
            if (!error)
                result.ok = prober.probe(*worker->connection, job.targets, &result.keys, &error);
            result.error = error;
            result.redirected = prober.takeRedirected(); // this page's only: the prober serves the next one
        }
        {
            std::lock_guard lock(m_mutex);
            worker->unread = prober.unreadKeys();
            m_results.insert(job.ticket, std::move(result));
        }
        m_resultsChanged.notify_all();
    }
}
