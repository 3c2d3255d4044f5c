// Reads what the classifier needs about a batch of keys in two or three pipelined round trips: TYPE of every
// key, the bounded detail reads for the candidates, then what only lock-like keys need (PTTL, and the
// companions, channels and job their format names). Shared by the scanner's pages and live refreshes.
// A read the server refuses is kept as such (with the server's words), never turned into a default.
#pragma once

#include "redis/rediserror.h"
#include "redis/redisresult.h"
#include "scannedkey.h"
#include "scanoptions.h"

#include <QByteArray>
#include <QList>
#include <QMap>

#include <functional>

class RedisConnection;
class ScanPacer;
using RedisCommand = QList<QByteArray>;

struct ProbeTarget
{
    enum class Purpose {
        Lock, // a key that may be a lock
        LockViaQueue, // a lock name met through its fair-lock queue: read the queue even if the lock is gone
        Companion, // a companion found by the scan (read timeout, unlock latch, …): only TYPE and PTTL
    };

    QByteArray key;
    Purpose purpose = Purpose::Lock;
    bool lockNamed = false;
    bool explicitPattern = false; // found by a pattern the user gave
};

class KeyProber
{
public:
    explicit KeyProber(const ScanOptions &options);

    // Probes `targets` with read-only commands only. Returns false with `error` set when the connection
    // failed (server gone, timeout, interrupted); failures of single reads stay with their key. Keys gone by
    // the time they are read come back with type "none"; keys whose TYPE could not be read come back with an
    // empty type, counted in unreadKeys() with the reason.
    bool probe(RedisConnection &connection, const QList<ProbeTarget> &targets, QList<ScannedKey> *out,
               RedisError *error);

    // Keys whose TYPE was not read, since construction, by reason ("NOPERM …", "LOADING …").
    const QMap<QString, qint64> &unreadKeys() const { return m_unread; }
    qint64 unreadKeyCount() const;
    // Keys a cluster node redirected (MOVED/ASK) instead of reading: to be read on the node that has them.
    QList<QPair<QByteArray, RedisError>> takeRedirected();

    // Set when the server is a replica (of `master`): channel subscribers are counted where clients
    // subscribed, usually on the master, so a replica's count is unknown, not 0.
    void setReplicaOf(const QString &master) { m_replicaOf = master; }

    // Runs between the two rounds: lets tests change keys exactly there, where a busy server would.
    void setBetweenRoundsHook(std::function<void()> hook) { m_betweenRounds = std::move(hook); }
    // Rounds go out in the pacer's chunks, waiting as it says (a scan's probes); without one, whole.
    void setPacer(ScanPacer *pacer) { m_pacer = pacer; }
    // Every command goes out after ASKING: the connection reads keys a cluster node answered ASK for (a slot
    // being imported there, which it serves to an ASKING client only, one command at a time).
    void setAsking(bool asking) { m_asking = asking; }

private:
    // One pipelined round (in chunks when paced). A transport error, or a refusal of the whole round, fails
    // the round; a single key's error reply does not.
    bool runRound(RedisConnection &c, const QList<RedisCommand> &commands, QList<RedisResult> *results,
                  RedisError *error);

    ScanPacer *m_pacer = nullptr;
    ScanOptions m_options;
    std::function<void()> m_betweenRounds;
    QMap<QString, qint64> m_unread;
    QList<QPair<QByteArray, RedisError>> m_redirected;
    QString m_replicaOf;
    bool m_asking = false;
};
