// The options of one lock: lease, watchdog, how to wait, acquire timeout, clock source, and the few knobs
// that belong to one family (fair wait window, read or write side, Redlock timeouts). Plain values, with
// validation that names the field, and JSON for simulator scenarios.
#pragma once

#include "lockclock.h"

#include <QJsonObject>
#include <QString>

#include <memory>
#include <optional>

class CustomLockScripts;

enum class WaitStrategy {
    BusySpin, // retry at once (seed 001): fastest hand-off, floods the server
    FixedInterval, // sleep retryIntervalMs between attempts (seeds 000, 002, 003)
    Jitter, // sleep retryIntervalMs ± retryJitterMs, uniformly (node redlock: 200 ± 100 ms)
    ExponentialBackoff, // retryIntervalMs, then ×2 per attempt up to backoffMaxMs (± retryJitterMs)
    PubSub, // Redisson: sleep on the lock's channel until a release message or the holder's TTL ends
};

struct LockOptions
{
    enum class RwMode { Read, Write };

    qint64 leaseMs = 30000; // TTL set on acquire; with the watchdog, the timeout it renews back to
    bool watchdog = false; // renew while held (compare-and-PEXPIRE, or Redisson's HEXISTS+PEXPIRE)
    qint64 watchdogPeriodMs = 0; // 0: leaseMs / 3 (Redisson: 30 s / 3 = 10 s)
    WaitStrategy wait = WaitStrategy::FixedInterval;
    qint64 retryIntervalMs = 50;
    qint64 retryJitterMs = 0;
    qint64 backoffMaxMs = 1000;
    qint64 acquireTimeoutMs = 10000; // 0: a single attempt; -1: keep trying until LockClient::stop()
    LockClock::Source clock = LockClock::Source::Monotonic; // measures the acquire timeout and validity
    bool probeTtl = false; // string locks: after a refused SET, ask PTTL so the result carries the TTL
    quint64 seed = 0; // random retry delays; 0 picks a random seed

    // Redisson family
    qint64 fairWaitMs = 300000; // fair lock: how long a waiter without acquireTimeoutMs keeps its place
                                // (Redisson 3.13.3+: 5 min)
    bool unlockLatch = true; // write redisson_unlock_latch:{N}:<id> on release, as Redisson 3.24+ does
    qint64 unlockLatchMs = 16000; // its PX (Redisson: (timeout + retry delay) × retry attempts)
    RwMode rwMode = RwMode::Write; // redisson-rw: which side this lock object takes

    // custom-lua: the user's own scripts (not part of the JSON: a scenario carries them in its algorithm)
    std::shared_ptr<const CustomLockScripts> customScripts;

    // Redlock
    int serverTimeoutMs = 50; // per server, for each round (much smaller than the lease)
    double driftFactor = 0.01; // validity = lease − elapsed − (lease × driftFactor + driftExtraMs)
    qint64 driftExtraMs = 2;

    qint64 effectiveWatchdogPeriodMs() const
    {
        return watchdogPeriodMs > 0 ? watchdogPeriodMs : qMax<qint64>(1, leaseMs / 3);
    }

    // Empty when usable; otherwise which field is wrong and what is allowed.
    QString validate() const;

    QJsonObject toJson() const;
    // Reads the fields present in `json` over `*options` (absent fields keep their value). Unknown fields
    // and wrong types are errors that name the field.
    static bool fromJson(const QJsonObject &json, LockOptions *options, QString *error);

    static QString waitName(WaitStrategy wait);
    static std::optional<WaitStrategy> waitFromName(const QString &name);
    static QStringList waitNames();
};
