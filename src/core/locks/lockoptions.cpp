// LockOptions: validation and JSON, with messages that name the field and the allowed values.
#include "lockoptions.h"

#include <QJsonValue>
#include <QStringList>

namespace {

struct WaitName
{
    WaitStrategy wait;
    const char *name;
};

constexpr WaitName waitNameTable[] = {
    {WaitStrategy::BusySpin, "busy-spin"}, {WaitStrategy::FixedInterval, "fixed"},
    {WaitStrategy::Jitter, "jitter"},      {WaitStrategy::ExponentialBackoff, "backoff"},
    {WaitStrategy::PubSub, "pubsub"},
};

} // namespace

QString LockOptions::waitName(WaitStrategy wait)
{
    for (const WaitName &w : waitNameTable) {
        if (w.wait == wait)
            return QString::fromLatin1(w.name);
    }
    return QString();
}

std::optional<WaitStrategy> LockOptions::waitFromName(const QString &name)
{
    for (const WaitName &w : waitNameTable) {
        if (name == QLatin1String(w.name))
            return w.wait;
    }
    return std::nullopt;
}

QStringList LockOptions::waitNames()
{
    QStringList names;
    for (const WaitName &w : waitNameTable)
        names << QString::fromLatin1(w.name);
    return names;
}

QString LockOptions::validate() const
{
    if (leaseMs < 1 || leaseMs > 24LL * 3600 * 1000)
        return QStringLiteral("lease_ms must be from 1 ms to 24 hours (got %1)").arg(leaseMs);
    if (watchdogPeriodMs < 0)
        return QStringLiteral("watchdog_period_ms must be 0 (lease/3) or positive (got %1)")
            .arg(watchdogPeriodMs);
    if (watchdog && effectiveWatchdogPeriodMs() >= leaseMs)
        return QStringLiteral(
                   "watchdog_period_ms (%1) must be shorter than lease_ms (%2), or the lock expires "
                   "between renewals")
            .arg(effectiveWatchdogPeriodMs())
            .arg(leaseMs);
    if (retryIntervalMs < 0 || retryIntervalMs > 600000)
        return QStringLiteral("retry_interval_ms must be from 0 to 600000 (got %1)").arg(retryIntervalMs);
    if (retryJitterMs < 0 || retryJitterMs > retryIntervalMs + 600000)
        return QStringLiteral("retry_jitter_ms must be 0 or positive (got %1)").arg(retryJitterMs);
    if (backoffMaxMs < retryIntervalMs)
        return QStringLiteral("backoff_max_ms (%1) must be at least retry_interval_ms (%2)")
            .arg(backoffMaxMs)
            .arg(retryIntervalMs);
    if (acquireTimeoutMs < -1)
        return QStringLiteral("acquire_timeout_ms must be -1 (until stopped), 0 (one attempt) or positive "
                              "(got %1)")
            .arg(acquireTimeoutMs);
    if (fairWaitMs < 1)
        return QStringLiteral("fair_wait_ms must be positive (got %1)").arg(fairWaitMs);
    if (unlockLatchMs < 1)
        return QStringLiteral("unlock_latch_ms must be positive (got %1)").arg(unlockLatchMs);
    if (serverTimeoutMs < 1 || serverTimeoutMs > 60000)
        return QStringLiteral("server_timeout_ms must be from 1 to 60000 (got %1)").arg(serverTimeoutMs);
    if (driftFactor < 0 || driftFactor >= 1)
        return QStringLiteral("drift_factor must be from 0 to less than 1 (got %1)").arg(driftFactor);
    if (driftExtraMs < 0)
        return QStringLiteral("drift_extra_ms must be 0 or positive (got %1)").arg(driftExtraMs);
    return QString();
}

QJsonObject LockOptions::toJson() const
{
    return QJsonObject {
        {QStringLiteral("lease_ms"), double(leaseMs)},
        {QStringLiteral("watchdog"), watchdog},
        {QStringLiteral("watchdog_period_ms"), double(watchdogPeriodMs)},
        {QStringLiteral("wait"), waitName(wait)},
        {QStringLiteral("retry_interval_ms"), double(retryIntervalMs)},
        {QStringLiteral("retry_jitter_ms"), double(retryJitterMs)},
        {QStringLiteral("backoff_max_ms"), double(backoffMaxMs)},
        {QStringLiteral("acquire_timeout_ms"), double(acquireTimeoutMs)},
        {QStringLiteral("clock"), QString::fromLatin1(LockClock::sourceName(clock))},
        {QStringLiteral("probe_ttl"), probeTtl},
        {QStringLiteral("seed"), double(seed)},
        {QStringLiteral("fair_wait_ms"), double(fairWaitMs)},
        {QStringLiteral("unlock_latch"), unlockLatch},
        {QStringLiteral("unlock_latch_ms"), double(unlockLatchMs)},
        {QStringLiteral("rw_mode"),
         rwMode == RwMode::Read ? QStringLiteral("read") : QStringLiteral("write")},
        {QStringLiteral("server_timeout_ms"), serverTimeoutMs},
        {QStringLiteral("drift_factor"), driftFactor},
        {QStringLiteral("drift_extra_ms"), double(driftExtraMs)},
    };
}

bool LockOptions::fromJson(const QJsonObject &json, LockOptions *options, QString *error)
{
    LockOptions o = *options;
    auto fail = [error](const QString &text) {
        if (error)
            *error = text;
        return false;
    };
    auto integer = [&](const QString &key, auto *out) {
        const QJsonValue v = json.value(key);
        const double d = v.toDouble();
        if (!v.isDouble() || d != double(qint64(d)))
            return fail(QStringLiteral("%1 must be a whole number").arg(key));
        *out = decltype(+*out)(d);
        return true;
    };
    auto boolean = [&](const QString &key, bool *out) {
        const QJsonValue v = json.value(key);
        if (!v.isBool())
            return fail(QStringLiteral("%1 must be true or false").arg(key));
        *out = v.toBool();
        return true;
    };
    for (auto it = json.begin(); it != json.end(); ++it) {
        const QString key = it.key();
        bool ok = true;
        if (key == QLatin1String("lease_ms"))
            ok = integer(key, &o.leaseMs);
        else if (key == QLatin1String("watchdog"))
            ok = boolean(key, &o.watchdog);
        else if (key == QLatin1String("watchdog_period_ms"))
            ok = integer(key, &o.watchdogPeriodMs);
        else if (key == QLatin1String("wait")) {
            const std::optional<WaitStrategy> w = waitFromName(it.value().toString());
            if (!w)
                return fail(
                    QStringLiteral("wait must be one of %1").arg(waitNames().join(QLatin1String(", "))));
            o.wait = *w;
        } else if (key == QLatin1String("retry_interval_ms"))
            ok = integer(key, &o.retryIntervalMs);
        else if (key == QLatin1String("retry_jitter_ms"))
            ok = integer(key, &o.retryJitterMs);
        else if (key == QLatin1String("backoff_max_ms"))
            ok = integer(key, &o.backoffMaxMs);
        else if (key == QLatin1String("acquire_timeout_ms"))
            ok = integer(key, &o.acquireTimeoutMs);
        else if (key == QLatin1String("clock")) {
            const QString v = it.value().toString();
            if (v == QLatin1String("monotonic"))
                o.clock = LockClock::Source::Monotonic;
            else if (v == QLatin1String("cached"))
                o.clock = LockClock::Source::Cached;
            else
                return fail(
                    QStringLiteral("clock must be \"monotonic\" or \"cached\" (seed 000's 5 ms cache)"));
        } else if (key == QLatin1String("probe_ttl"))
            ok = boolean(key, &o.probeTtl);
        else if (key == QLatin1String("seed"))
            ok = integer(key, &o.seed);
        else if (key == QLatin1String("fair_wait_ms"))
            ok = integer(key, &o.fairWaitMs);
        else if (key == QLatin1String("unlock_latch"))
            ok = boolean(key, &o.unlockLatch);
        else if (key == QLatin1String("unlock_latch_ms"))
            ok = integer(key, &o.unlockLatchMs);
        else if (key == QLatin1String("rw_mode")) {
            const QString v = it.value().toString();
            if (v == QLatin1String("read"))
                o.rwMode = RwMode::Read;
            else if (v == QLatin1String("write"))
                o.rwMode = RwMode::Write;
            else
                return fail(QStringLiteral("rw_mode must be \"read\" or \"write\""));
        } else if (key == QLatin1String("server_timeout_ms"))
            ok = integer(key, &o.serverTimeoutMs);
        else if (key == QLatin1String("drift_factor")) {
            if (!it.value().isDouble())
                return fail(QStringLiteral("drift_factor must be a number"));
            o.driftFactor = it.value().toDouble();
        } else if (key == QLatin1String("drift_extra_ms"))
            ok = integer(key, &o.driftExtraMs);
        else
            return fail(QStringLiteral("unknown lock option \"%1\"").arg(key));
        if (!ok)
            return false;
    }
    const QString problem = o.validate();
    if (!problem.isEmpty())
        return fail(problem);
    *options = o;
    return true;
}
