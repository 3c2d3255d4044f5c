// DistributedLock: the acquire loop with its wait strategies, renewal bookkeeping, server checks.
#include "distributedlock.h"

#include "logging.h"

#include <QRandomGenerator>

DistributedLock::DistributedLock(LockClient &client, const QString &algorithm, const QByteArray &name,
                                 qint64 threadId, const LockOptions &options)
    : m_client(client)
    , m_algorithm(algorithm)
    , m_name(name)
    , m_threadId(threadId)
    , m_options(options)
    , m_leaseArgument(QByteArray::number(options.leaseMs))
    , m_clock(client.clock(options.clock))
    , m_random(options.seed ? options.seed ^ (quint64(threadId) * 0x9E3779B97F4A7C15ULL)
                            : QRandomGenerator::global()->generate64())
{
}

DistributedLock::~DistributedLock()
{
    stopRenewal();
}

RedisError DistributedLock::checkServers(const LockServers &servers) const
{
    if (servers.isEmpty())
        return {RedisError::Code::BadArgument, QStringLiteral("no connection given for the lock operation")};
    const qsizetype used = usesAllServers() ? servers.size() : 1;
    for (qsizetype i = 0; i < used; ++i) {
        if (const RedisError e = LockIo::requireWritable(servers.at(i)))
            return e;
    }
    return {};
}

RedisError DistributedLock::prepare(const LockServers &servers) const
{
    if (const RedisError e = checkServers(servers))
        return e;
    const QStringList scripts = scriptNames();
    const qsizetype used = usesAllServers() ? servers.size() : 1;
    for (qsizetype i = 0; i < used; ++i) {
        if (const RedisError e = LuaScript::loadAll(*servers.at(i), scripts))
            return e;
    }
    return {};
}

bool DistributedLock::renewalLost() const
{
    return m_renewal != 0 && m_client.watchdog().wasLost(m_renewal);
}

void DistributedLock::startRenewal(const LockServers &servers)
{
    if (!m_options.watchdog)
        return;
    LockWatchdog::RenewFunction renew = renewFunction(m_options.leaseMs);
    if (!renew)
        return;
    LockWatchdog::Task task;
    task.key = m_name;
    task.threadId = m_threadId;
    task.server = servers.first()->settings();
    task.periodMs = m_options.effectiveWatchdogPeriodMs();
    task.leaseMs = m_options.leaseMs;
    task.renew = std::move(renew);
    m_renewal = m_client.watchdog().start(std::move(task));
}

void DistributedLock::stopRenewal()
{
    if (m_renewal == 0)
        return;
    m_client.watchdog().cancel(m_renewal);
    m_renewal = 0;
}

void DistributedLock::abandonWait(const LockServers &, LockIo &) { }

ExtendResult DistributedLock::attemptExtend(const LockServers &servers, LockIo &io, qint64 leaseMs)
{
    ExtendResult r;
    r.leaseMs = leaseMs;
    const LockWatchdog::RenewFunction renew = renewFunction(leaseMs);
    if (!renew) {
        r.error = {RedisError::Code::BadArgument, QStringLiteral("%1 cannot be extended").arg(m_algorithm)};
        return r;
    }
    switch (renew(*servers.first(), io, &r.reply, &r.error)) {
    case RenewalEvent::Outcome::Renewed:
        r.outcome = ExtendResult::Outcome::Extended;
        break;
    case RenewalEvent::Outcome::Lost:
        r.outcome = ExtendResult::Outcome::Lost;
        break;
    default:
        r.outcome = ExtendResult::Outcome::Error;
        break;
    }
    return r;
}

ReleaseResult DistributedLock::releasedAll(ReleaseResult r, ReleaseResult::Outcome outcome)
{
    r.outcome = outcome;
    m_holdCount = 0;
    r.holdCount = 0;
    return r;
}

ReleaseResult DistributedLock::getThenDelete(RedisConnection &connection, LockIo &io,
                                             const QByteArray &expected)
{
    ReleaseResult r;
    r.holdCount = m_holdCount;
    const RedisResult get = io.command(connection, {"GET", m_name});
    r.reply = get.reply;
    r.error = get.error;
    if (!get.ok())
        return r;
    if (get.reply.isNil())
        return releasedAll(r, ReleaseResult::Outcome::Expired);
    if (expected.isEmpty() || get.reply.bytes() != expected)
        return releasedAll(r, ReleaseResult::Outcome::NotOwner);
    if (io.hooks().betweenGetAndDel)
        io.hooks().betweenGetAndDel(m_threadId, m_name);
    // The flaw: whatever the key holds *now* is deleted, ours or not.
    const RedisResult del = io.command(connection, {"DEL", m_name});
    r.reply = del.reply;
    r.error = del.error;
    if (!del.ok())
        return r;
    return releasedAll(
        r, del.reply.toInteger() == 1 ? ReleaseResult::Outcome::Released : ReleaseResult::Outcome::Expired);
}

qint64 DistributedLock::probeTtl(RedisConnection &connection, LockIo &io, const QByteArray &key)
{
    if (!m_options.probeTtl)
        return LockTtl::Unknown;
    const RedisResult r = io.command(connection, {"PTTL", key});
    return r.ok() ? ttlFromReply(r.reply) : LockTtl::Unknown;
}

qint64 DistributedLock::ttlFromReply(const RedisReply &reply)
{
    bool ok = false;
    const qint64 ttl = reply.toInteger(&ok);
    return ok ? ttl : LockTtl::Unknown;
}

qint64 DistributedLock::plannedDelayMs(int attempt)
{
    const qint64 interval = m_options.retryIntervalMs;
    const qint64 jitter = m_options.retryJitterMs;
    auto jittered = [&](qint64 base) {
        if (jitter <= 0)
            return base;
        std::uniform_int_distribution<qint64> spread(-jitter, jitter);
        return qMax<qint64>(0, base + spread(m_random));
    };
    switch (m_options.wait) {
    case WaitStrategy::BusySpin:
        return 0;
    case WaitStrategy::FixedInterval:
    case WaitStrategy::PubSub: // no channel to sleep on: poll
        return interval;
    case WaitStrategy::Jitter:
        return jittered(interval);
    case WaitStrategy::ExponentialBackoff: {
        const int doublings = qBound(0, attempt - 1, 30);
        const qint64 base = qMin(m_options.backoffMaxMs, interval << doublings);
        return jittered(base);
    }
    }
    return interval;
}

void DistributedLock::notifyAttempt(AcquireResult &attempt, qint64 startUs, int commands) const
{
    if (!m_attemptObserver)
        return;
    // The attempt's own figures; acquire() puts the whole call's back afterwards.
    attempt.startUs = startUs;
    attempt.endUs = LockClock::monotonicUs();
    attempt.commands = commands;
    attempt.attempts = 1;
    m_attemptObserver(attempt);
}

AcquireResult DistributedLock::tryAcquire(const LockServers &servers)
{
    AcquireResult r;
    const qint64 startUs = LockClock::monotonicUs();
    if (const RedisError e = checkServers(servers)) {
        r.error = e;
    } else {
        LockIo io(m_client.faultHooks(), m_threadId);
        const bool wasHeld = isHeld();
        r = attemptAcquire(servers, io);
        if (r.errorCommand.isEmpty())
            r.errorCommand = io.failedCommand(r.error);
        r.attemptStartUs = io.firstSendUs() > 0 ? io.firstSendUs() : startUs;
        notifyAttempt(r, startUs, io.commands());
        r.commands = io.commands();
        r.attempts = 1;
        if (r.acquired() && (!wasHeld || renewalLost())) {
            m_acquiredAtUs = startUs;
            stopRenewal();
            startRenewal(servers);
        }
    }
    r.startUs = startUs;
    r.endUs = LockClock::monotonicUs();
    return r;
}

AcquireResult DistributedLock::acquire(const LockServers &servers)
{
    const qint64 startUs = LockClock::monotonicUs();
    AcquireResult r;
    if (const RedisError e = checkServers(servers)) {
        r.error = e;
        r.startUs = startUs;
        r.endUs = LockClock::monotonicUs();
        return r;
    }
    const qint64 timeoutMs = m_options.acquireTimeoutMs;
    const qint64 deadlineMs = m_clock.nowMs() + qMax<qint64>(0, timeoutMs);
    const QByteArray channel = m_options.wait == WaitStrategy::PubSub ? waitChannel() : QByteArray();
    LockSubscription subscription;
    bool subscribeTried = false;
    int commands = 0;
    int attempts = 0;
    for (;;) {
        LockIo io(m_client.faultHooks(), m_threadId);
        const bool wasHeld = isHeld();
        const qint64 attemptStartUs = LockClock::monotonicUs();
        r = attemptAcquire(servers, io);
        if (r.errorCommand.isEmpty())
            r.errorCommand = io.failedCommand(r.error);
        r.attemptStartUs = io.firstSendUs() > 0 ? io.firstSendUs() : attemptStartUs;
        notifyAttempt(r, attemptStartUs, io.commands());
        commands += io.commands();
        ++attempts;
        if (r.acquired()) {
            if (!wasHeld || renewalLost()) {
                m_acquiredAtUs = startUs;
                stopRenewal();
                startRenewal(servers);
            }
            break;
        }
        const bool retryable = r.outcome == AcquireResult::Outcome::Refused
            || r.outcome == AcquireResult::Outcome::ValiditySpent;
        if (!retryable)
            break;
        if (m_client.isStopped()) {
            r.outcome = AcquireResult::Outcome::Interrupted;
            break;
        }
        const qint64 remainingMs = deadlineMs - m_clock.nowMs();
        if (timeoutMs == 0 || (timeoutMs > 0 && remainingMs <= 0)) {
            if (timeoutMs > 0)
                r.outcome = AcquireResult::Outcome::TimedOut;
            LockIo cleanup(m_client.faultHooks(), m_threadId);
            abandonWait(servers, cleanup);
            commands += cleanup.commands();
            break;
        }
        auto cap = [&](qint64 ms) { return timeoutMs > 0 ? qMin(ms, remainingMs) : ms; };

        if (!channel.isEmpty() && !subscription.isValid() && !subscribeTried) {
            // Redisson: subscribe once, then try again at once (a release may have come in between).
            subscribeTried = true;
            RedisError error;
            subscription
                = m_client.subscriber().subscribe(servers.first()->settings(), channel,
                                                  int(qBound(qint64(1), cap(3000), qint64(3000))), &error);
            // A client stopped meanwhile (the end of a run) is no reason to warn: the next check ends the wait.
            if (!subscription.isValid() && !m_client.isStopped())
                qCWarning(lcLocks) << "cannot subscribe to" << channel
                                   << "- polling instead:" << error.message();
            continue;
        }
        if (subscription.isValid()) {
            // Sleep until a release message, or until the holder's lease would have run out (a lost
            // message, a crashed holder). A TTL unknown or without expiry falls back on the retry interval.
            const qint64 waitMs
                = r.ttlMs > 0 ? r.ttlMs : (r.ttlMs == 0 ? 1 : qMax<qint64>(1, m_options.retryIntervalMs));
            subscription.wait(cap(waitMs));
        } else {
            const qint64 delayMs = cap(plannedDelayMs(attempts));
            if (delayMs > 0)
                m_client.sleepUs(delayMs * 1000);
        }
        if (m_client.isStopped()) {
            r.outcome = AcquireResult::Outcome::Interrupted;
            LockIo cleanup(m_client.faultHooks(), m_threadId);
            abandonWait(servers, cleanup);
            commands += cleanup.commands();
            break;
        }
    }
    r.commands = commands;
    r.attempts = attempts;
    r.startUs = startUs;
    r.endUs = LockClock::monotonicUs();
    return r;
}

ReleaseResult DistributedLock::release(const LockServers &servers)
{
    ReleaseResult r;
    const qint64 startUs = LockClock::monotonicUs();
    if (const RedisError e = checkServers(servers)) {
        r.error = e;
        r.holdCount = m_holdCount;
    } else {
        LockIo io(m_client.faultHooks(), m_threadId);
        r = attemptRelease(servers, io);
        if (r.errorCommand.isEmpty())
            r.errorCommand = io.failedCommand(r.error);
        r.commands = io.commands();
        r.effectUs = io.lastSendUs();
        if (m_holdCount == 0) {
            stopRenewal();
            m_token.clear();
        }
    }
    r.startUs = startUs;
    r.endUs = LockClock::monotonicUs();
    return r;
}

ExtendResult DistributedLock::extend(const LockServers &servers, qint64 leaseMs)
{
    ExtendResult r;
    const qint64 startUs = LockClock::monotonicUs();
    if (const RedisError e = checkServers(servers)) {
        r.error = e;
    } else {
        LockIo io(m_client.faultHooks(), m_threadId);
        r = attemptExtend(servers, io, leaseMs > 0 ? leaseMs : m_options.leaseMs);
        if (r.errorCommand.isEmpty())
            r.errorCommand = io.failedCommand(r.error);
        r.commands = io.commands();
        if (r.outcome == ExtendResult::Outcome::Lost) {
            m_holdCount = 0;
            stopRenewal();
        }
    }
    r.startUs = startUs;
    r.endUs = LockClock::monotonicUs();
    return r;
}
