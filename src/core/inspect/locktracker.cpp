// LockTracker: comparing a reading with the previous one. A renewal is a TTL higher than the previous
// reading predicts; its time is the PEXPIRE notification when there was one, else estimated from the lease.
#include "locktracker.h"

#include "inspectclock.h"
#include "inspectformat.h"

#include <algorithm>

namespace {

// Who holds it, as a set: a semaphore's holders come back in score order, which a refresh reshuffles
// (redis-semaphore's two holders refreshing in turn read as "released (owner changed)" every few seconds).
QByteArray ownerIds(const LockRecord &r)
{
    QList<QByteArray> ids;
    for (const LockOwner &o : r.owners)
        ids << o.id;
    std::sort(ids.begin(), ids.end());
    QByteArray joined;
    for (const QByteArray &id : ids)
        joined += id + '|';
    return joined;
}

qint64 countTotal(const LockRecord &r)
{
    qint64 total = 0;
    for (const LockOwner &o : r.owners)
        total += std::max<qint64>(o.count, 0);
    return total;
}

QString ownerText(const LockRecord &r)
{
    return r.owners.isEmpty() ? QString() : QStringLiteral("by %1").arg(r.ownerSummary());
}

// A TTL reading is this much above the prediction before it counts as a renewal (the reading's own timing,
// rounding). Small, so that a renewal every second of a 61 s lease (RQ's scheduler) is seen as one.
qint64 tolerance(qint64 pttl)
{
    return std::max<qint64>(50, pttl / 500);
}

} // namespace

QList<LockEvent> LockTracker::observe(const LockRecord &record, Source source)
{
    QList<LockEvent> out;
    const auto emitEvent = [&](State &s, LockEvent::Type type, qint64 at, const QString &detail) {
        LockEvent e {type, at, record.pttlMs, detail};
        s.history.append(e);
        out.append(e);
    };
    // A record that says nothing of when it was read was read just now: never the clock's start, which would
    // date the acquisition to the machine's boot.
    const qint64 now = record.readAtMs > 0 ? record.readAtMs : InspectClock::monotonicMs();
    if (!record.exists()) {
        // Only the fair-lock queue is left: the lock itself expired or was released, whatever its queue says.
        if (isPresent(record.key))
            return observeGone(record.key, now);
        return {};
    }
    auto it = m_states.find(record.key);
    if (it == m_states.end()) {
        State s;
        s.history.setWatchedSince(now);
        const Hint hint = m_pendingHints.take(record.key);
        s.hint = hint.event;
        s.hintAtMs = hint.atMs;
        it = m_states.insert(record.key, s);
        const bool justTaken = source == Source::Live;
        const qint64 at = justTaken && it->hintAtMs >= 0 ? it->hintAtMs : now;
        emitEvent(*it, justTaken ? LockEvent::Type::Acquired : LockEvent::Type::Seen, at, ownerText(record));
        if (justTaken && record.pttlMs > 0)
            it->history.noteLease(record.pttlMs);
    } else if (!it->present) {
        const qint64 at = it->hintAtMs >= 0 ? it->hintAtMs : now;
        emitEvent(*it, LockEvent::Type::Acquired, at, ownerText(record));
        if (record.pttlMs > 0)
            it->history.noteLease(record.pttlMs + (now - at));
    } else {
        State &s = *it;
        // Data the server refused this time says nothing about who holds it: compare owners only when read.
        const bool dataUnread = !record.unknownReason(QStringLiteral("data")).isEmpty();
        const QByteArray ids = dataUnread ? s.ownerIds : ownerIds(record);
        if (ids != s.ownerIds) {
            // A different holder: the previous one let go (or lost it) between the readings.
            emitEvent(s, LockEvent::Type::Released, now, QStringLiteral("owner changed"));
            emitEvent(s, LockEvent::Type::Acquired, now, ownerText(record));
        } else if (!dataUnread && record.ownerSignature() != s.signature) {
            const qint64 total = countTotal(record);
            emitEvent(s, LockEvent::Type::Changed, now,
                      total != s.countTotal
                          ? QStringLiteral("hold count %1 → %2").arg(s.countTotal).arg(total)
                          : QStringLiteral("mode %1").arg(record.rwMode));
        }
        if (ids == s.ownerIds && record.pttlMs >= 0) {
            const qint64 predicted = s.pttlMs >= 0 ? s.pttlMs - (now - s.readAtMs) : -1;
            // A PEXPIRE notification since the last reading is a renewal even when it moved the TTL very
            // little (renewed right after being set); without notifications the TTL must visibly go up.
            const bool notified = s.expireHintAtMs > s.readAtMs;
            if (notified || s.pttlMs == -1
                || (s.pttlMs >= 0 && record.pttlMs > predicted + tolerance(s.pttlMs))) {
                const qint64 lease = std::max(record.pttlMs, s.history.observedLeaseMs());
                qint64 at = s.expireHintAtMs >= s.readAtMs ? s.expireHintAtMs : now - (lease - record.pttlMs);
                at = std::clamp(at, s.readAtMs, now);
                emitEvent(s, LockEvent::Type::Renewed, at,
                          s.pttlMs == -1 ? QStringLiteral("TTL set")
                                         : QStringLiteral("TTL back to %1")
                                               .arg(InspectFormat::duration(record.pttlMs + (now - at))));
                s.history.noteLease(record.pttlMs + (now - at));
            }
        }
    }
    State &s = *it;
    s.present = true;
    if (record.unknownReason(QStringLiteral("data")).isEmpty()) {
        s.signature = record.ownerSignature();
        s.ownerIds = ownerIds(record);
        s.countTotal = countTotal(record);
    }
    s.pttlMs = record.pttlMs;
    s.readAtMs = now;
    s.hint.clear();
    s.hintAtMs = -1;
    return out;
}

QList<LockEvent> LockTracker::observeAndDiagnose(LockRecord &record, Source source,
                                                 const DiagnosticContext &base)
{
    const QList<LockEvent> events = observe(record, source);
    DiagnosticContext context = base;
    context.nowEpochMs = InspectClock::wallMs();
    fillContext(record.key, InspectClock::monotonicMs(), &context);
    LockDiagnostics::diagnose(record, context);
    return events;
}

QList<LockEvent> LockTracker::observeGone(const QByteArray &key, qint64 atMs, const QString &unobserved)
{
    auto it = m_states.find(key);
    if (it == m_states.end() || !it->present)
        return {};
    State &s = *it;
    LockEvent e;
    e.pttlMs = -2;
    const qint64 ttlLeft = s.pttlMs >= 0 ? s.pttlMs - (atMs - s.readAtMs) : -1;
    if (!unobserved.isEmpty() && s.hint.isEmpty() && (s.pttlMs < 0 || ttlLeft > tolerance(s.pttlMs))) {
        // Nobody could see it go (the server was unreachable, restarted, loading) and its TTL had not run
        // out: released, or lost in a restart without persistence — saying which would be a guess.
        e.type = LockEvent::Type::Lost;
        e.atMs = atMs;
        e.detail = unobserved;
    } else if (!unobserved.isEmpty() && s.hint.isEmpty()) {
        // Its TTL ran out while nobody could look: that much is known.
        e.type = LockEvent::Type::Expired;
        e.atMs = std::clamp(s.readAtMs + s.pttlMs, s.readAtMs, atMs);
        e.detail = QStringLiteral("its TTL ran out while the server could not be read");
    } else if (s.hint == "expired") {
        e.type = LockEvent::Type::Expired;
        e.atMs = s.hintAtMs;
    } else if (s.hint == "del" || s.hint == "hdel" || s.hint == "unlink" || s.hint == "zrem") {
        e.type = LockEvent::Type::Released;
        e.atMs = s.hintAtMs;
    } else {
        // No notification: it expired if its TTL had run out by now, else someone deleted it.
        const bool expired = s.pttlMs >= 0 && ttlLeft <= tolerance(s.pttlMs);
        e.type = expired ? LockEvent::Type::Expired : LockEvent::Type::Released;
        e.atMs = expired ? std::clamp(s.readAtMs + s.pttlMs, s.readAtMs, atMs) : atMs;
    }
    // A lock that was being renewed and then expired: its owner stopped (paused or died) — the stall itself.
    if (e.type == LockEvent::Type::Expired && s.history.renewals() > 0)
        e.detail = QStringLiteral("its owner had renewed it %1 and stopped: paused or dead")
                       .arg(s.history.renewalIntervalMs() > 0
                                ? QStringLiteral("every %1")
                                      .arg(InspectFormat::duration(s.history.renewalIntervalMs()))
                                : QStringLiteral("before"));
    s.history.append(e);
    s.present = false;
    s.hint.clear();
    s.hintAtMs = -1;
    if (m_states.size() > kMaxStates)
        prune();
    return {e};
}

void LockTracker::prune()
{
    for (auto it = m_states.begin(); it != m_states.end();) {
        if (!it->present)
            it = m_states.erase(it);
        else
            ++it;
    }
}

void LockTracker::noteNotification(const QByteArray &key, const QByteArray &event, qint64 atMs)
{
    auto it = m_states.find(key);
    if (it == m_states.end()) {
        // Not a known lock (yet): keep the first hint, in case a probe finds a new lock here.
        if (m_pendingHints.size() >= kMaxPendingHints)
            m_pendingHints.clear(); // old hints of keys that never became locks
        if (!m_pendingHints.contains(key))
            m_pendingHints.insert(key, {event, atMs});
        return;
    }
    State &s = *it;
    if (event == "expire" || event == "pexpire") {
        s.expireHintAtMs = atMs;
        if (s.present)
            return; // a renewal: the next reading decides
    }
    // The first deciding event since the last reading wins: "del" then "set" is a release then an acquire.
    if (s.hintAtMs < 0 || (s.present && (event == "del" || event == "expired"))) {
        s.hint = event;
        s.hintAtMs = atMs;
    }
}

const LockHistory *LockTracker::history(const QByteArray &key) const
{
    auto it = m_states.constFind(key);
    return it == m_states.constEnd() ? nullptr : &it->history;
}

bool LockTracker::isPresent(const QByteArray &key) const
{
    auto it = m_states.constFind(key);
    return it != m_states.constEnd() && it->present;
}

void LockTracker::fillContext(const QByteArray &key, qint64 nowMs, DiagnosticContext *context) const
{
    const LockHistory *h = history(key);
    if (!h)
        return;
    context->renewalsSeen = h->renewals();
    context->renewalIntervalMs = h->renewalIntervalMs();
    context->renewalJitterMs = h->renewalJitterMs();
    context->observedLeaseMs = h->observedLeaseMs();
    context->sinceLastRenewalMs = h->lastRenewalMs() >= 0 ? nowMs - h->lastRenewalMs() : -1;
}
