// Reads what the classifier needs about a batch of keys in two or three pipelined round trips: TYPE of every
// key, the bounded detail reads for the candidates, then what only lock-like keys need (PTTL, companions).
// Shared by the scanner's pages and live refreshes.
#pragma once

#include "redis/rediserror.h"
#include "redis/redisresult.h"

#include <QByteArray>
#include "scannedkey.h"
#include "scanoptions.h"

#include <QList>

#include <functional>

class RedisConnection;
class ScanPacer;
using RedisCommand = QList<QByteArray>;

struct ProbeTarget
{
    enum class Purpose {
        Lock, // a key that may be a lock
        LockViaQueue, // a lock name met through its fair-lock queue: read the queue even if the lock is gone
        Companion, // a Redisson companion (read timeout, unlock latch): only TYPE and PTTL
    };

    QByteArray key;
    Purpose purpose = Purpose::Lock;
    bool lockNamed = false;
};

class KeyProber
{
public:
    explicit KeyProber(const ScanOptions &options);

    // Probes `targets` with read-only commands only. Returns false with `error` set when the connection
    // failed (server gone, timeout, interrupted); failures of single reads go to ScannedKey::readErrors.
    // Keys gone by the time they are read come back with type "none".
    bool probe(RedisConnection &connection, const QList<ProbeTarget> &targets, QList<ScannedKey> *out,
               RedisError *error);

    // Keys whose TYPE the server refused (an ACL that limits keys), since construction.
    qint64 unreadableKeys() const { return m_unreadable; }

    // Runs between the two rounds: lets tests change keys exactly there, where a busy server would.
    void setBetweenRoundsHook(std::function<void()> hook) { m_betweenRounds = std::move(hook); }
    // Rounds go out in the pacer's chunks, waiting as it says (a scan's probes); without one, whole.
    void setPacer(ScanPacer *pacer) { m_pacer = pacer; }

private:
    // One pipelined round (in chunks when paced). A transport error, or a refusal of the whole round, fails
    // the round; a single key's error reply does not.
    bool runRound(RedisConnection &c, const QList<RedisCommand> &commands, QList<RedisResult> *results,
                  RedisError *error);

    ScanPacer *m_pacer = nullptr;
    ScanOptions m_options;
    std::function<void()> m_betweenRounds;
    qint64 m_unreadable = 0;
};
