// TimelineData: folds history events into per-lane spans and marks, the way the safety checker reads them
// (leases run from the winning attempt, renewals push them back, two-step releases delete late).
#include "timelinedata.h"

#include <QObject>

#include <bit>

using Kind = HistoryEvent::Kind;
using Phase = HistoryEvent::Phase;
using FaultType = HistoryEvent::FaultType;

qint64 TimelineData::Hold::keyEndUs() const
{
    const auto outcome = HistoryEvent::ReleaseOutcome(releaseOutcome);
    if (releaseOutcome >= 0 && outcome == HistoryEvent::ReleaseOutcome::Released)
        return std::min({validUntilUs, releaseEffectUs != kOpen ? releaseEffectUs : releaseEndUs, deletedUs});
    // A key without TTL lives until it is deleted.
    return std::min(flags & NoTtl ? kOpen : validUntilUs, deletedUs);
}

int TimelineData::Round::grantedCount() const
{
    return std::popcount(granted);
}

int TimelineData::Round::vote(int server) const
{
    const auto bit = quint16(1u << server);
    return (granted & bit) ? 1 : (answered & bit) ? 0 : -1;
}

bool TimelineData::Hold::expired(qint64 nowUs) const
{
    // Deleted (by another's release) before it ran out: not an expiry.
    if (validUntilUs == kOpen || validUntilUs > nowUs || deletedUs < validUntilUs)
        return false;
    const auto outcome = HistoryEvent::ReleaseOutcome(releaseOutcome);
    if (releaseOutcome >= 0 && outcome == HistoryEvent::ReleaseOutcome::Released)
        return (releaseEffectUs != kOpen ? releaseEffectUs : releaseEndUs) > validUntilUs;
    return true;
}

TimelineData::TimelineData(const Layout &layout)
    : m_layout(layout)
{
    const int workers = workerCount();
    const int locks = std::max(1, lockCount());
    if (m_layout.locks.isEmpty())
        m_layout.locks << QStringLiteral("lock");
    m_waits.resize(workers);
    m_holds.resize(qsizetype(workers) * locks);
    m_marks.resize(workers);
    m_rounds.resize(workers);
    m_renewals.resize(workers);
    m_processShades.resize(processCount());
    m_partitions.resize(processCount());
    m_processMarks.resize(processCount());
    m_layout.servers = std::max(1, m_layout.servers);
    m_serverShades.resize(m_layout.servers);
    m_serverMarks.resize(m_layout.servers);
    int number = 0;
    for (const Scenario::Step &s : m_layout.steps)
        m_stepNumbers << (s.note.isEmpty() ? 0 : ++number);
}

void TimelineData::append(const QList<HistoryEvent> &events)
{
    for (const HistoryEvent &e : events) {
        const auto index = quint32(m_events.size());
        m_events.append(e);
        m_firstUs = std::min(m_firstUs, e.timeUs);
        m_lastUs = std::max(m_lastUs, e.timeUs);
        process(e, index);
    }
    m_nowUs = std::max(m_nowUs, m_lastUs);
}

void TimelineData::setNowUs(qint64 nowUs)
{
    m_nowUs = std::max({m_nowUs, nowUs, m_lastUs});
}

void TimelineData::finish(qint64 endUs)
{
    m_finished = true;
    m_nowUs = std::max(endUs, m_lastUs);
    for (QList<Wait> &waits : m_waits) {
        if (!waits.isEmpty() && waits.last().endUs == kOpen)
            waits.last().endUs = m_nowUs;
    }
    for (QList<Shade> &shades : m_processShades) {
        for (Shade &s : shades) {
            if (s.endUs == kOpen)
                s.endUs = m_nowUs;
        }
    }
    for (QList<Shade> &shades : m_serverShades) {
        for (Shade &s : shades) {
            if (s.endUs == kOpen)
                s.endUs = m_nowUs;
        }
    }
    for (QList<Shade> &shades : m_partitions) {
        for (Shade &s : shades) {
            if (s.endUs == kOpen)
                s.endUs = m_nowUs;
        }
    }
    // Holds still open were never released: the worker held the lock to the end (its key lives on).
    for (QList<Hold> &holds : m_holds) {
        if (!holds.isEmpty() && holds.last().endUs == kOpen)
            holds.last().endUs = m_nowUs;
    }
}

QList<int> TimelineData::processesOf(int process) const
{
    QList<int> list;
    if (process >= 0) {
        if (process < processCount())
            list << process;
        return list;
    }
    for (int p = 0; p < processCount(); ++p)
        list << p;
    return list;
}

TimelineData::Hold *TimelineData::openHold(int worker, int lock)
{
    QList<Hold> &list = m_holds[worker * lockCount() + lock];
    if (!list.isEmpty() && list.last().releaseOutcome == -1 && !(list.last().flags & Hold::Crashed)
        && list.last().endUs == kOpen)
        return &list.last();
    return nullptr;
}

void TimelineData::closeHold(int worker, int lock, Hold &hold)
{
    m_depth.remove(worker * lockCount() + lock);
    // Judged when the release answered: a release that found the key gone before the lease ran out saw it
    // lost another way (a failover, a restart, someone's DEL), not expire. A release that failed leaves the
    // key to its TTL.
    const bool answered = hold.releaseOutcome >= 0 && hold.releaseEndUs != kOpen;
    if (hold.validUntilUs != kOpen && hold.expired(answered ? hold.releaseEndUs : kOpen - 1))
        ++m_closedExpiries;
}

void TimelineData::process(const HistoryEvent &e, quint32 index)
{
    if (e.kind == Kind::Fault) {
        fault(e, index);
        return;
    }
    const int w = e.worker;
    if (!validWorker(w))
        return;
    const HistoryEvent *invoke = nullptr;
    if (e.phase == Phase::Invoke) {
        m_pendingInvokes.insert(opKey(e), index);
    } else if (e.kind == Kind::Acquire || e.kind == Kind::Renew || e.kind == Kind::Release
               || e.kind == Kind::Write) {
        const auto it = m_pendingInvokes.find(opKey(e));
        if (it != m_pendingInvokes.end()) {
            invoke = &m_events.at(it.value());
            m_pendingInvokes.erase(it);
        }
    }
    const qint16 lock = qint16(validLock(e.lock) ? e.lock : -1);
    switch (e.kind) {
    case Kind::Acquire:
        if (e.phase == Phase::Invoke) {
            QList<Wait> &waits = m_waits[w];
            if (!waits.isEmpty() && waits.last().endUs == kOpen) // a lost completion: close it here
                waits.last().endUs = e.timeUs;
            waits.append(Wait {e.timeUs, kOpen, index, kNoEvent, Wait::Outcome::Waiting});
        } else {
            acquireDone(e, index, invoke);
        }
        return;
    case Kind::Release:
        if (e.phase != Phase::Invoke)
            releaseDone(e, index, invoke);
        return;
    case Kind::Renew:
        if (e.phase != Phase::Invoke)
            renewDone(e, index, invoke);
        return;
    case Kind::Read:
        m_marks[w].append(Mark {e.timeUs, e.timeUs, index, Mark::Type::Read, lock});
        return;
    case Kind::Write:
        if (e.phase == Phase::Invoke)
            return;
        {
            Mark::Type type = Mark::Type::Write;
            if (e.phase == Phase::Fail)
                type = Mark::Type::WriteRefused;
            else if (e.phase == Phase::Info)
                type = Mark::Type::WriteUnknown;
            m_marks[w].append(Mark {e.timeUs, invoke ? invoke->timeUs : e.timeUs, index, type, lock});
        }
        return;
    case Kind::Error:
        m_marks[w].append(Mark {e.timeUs, e.timeUs, index, Mark::Type::Error, lock});
        return;
    case Kind::Round: {
        Round round;
        round.startUs = e.effectUs > 0 ? std::min(e.effectUs, e.timeUs) : e.timeUs;
        round.endUs = e.timeUs;
        round.event = index;
        round.validityMs = qint32(std::clamp<qint64>(e.value, std::numeric_limits<qint32>::min(),
                                                     std::numeric_limits<qint32>::max()));
        round.granted = e.votesGranted;
        round.answered = e.votesAnswered;
        round.outcome = HistoryEvent::RoundOutcome(e.outcome);
        ++m_roundCount;
        m_roundsWon += round.won() ? 1 : 0;
        m_rounds[w].append(round);
        return;
    }
    case Kind::Enter:
    case Kind::Exit:
    case Kind::Expire:
    case Kind::Fault:
    case Kind::Note: // the event log shows it; on the timeline it would pass for an error
        return;
    }
}

void TimelineData::acquireDone(const HistoryEvent &e, quint32 index, const HistoryEvent *invoke)
{
    const int w = e.worker;
    QList<Wait> &waits = m_waits[w];
    if (waits.isEmpty() || waits.last().endUs != kOpen) {
        // The invoke was not seen (history cut): the completion stands in for it.
        waits.append(
            Wait {invoke ? invoke->timeUs : e.timeUs, kOpen, index, kNoEvent, Wait::Outcome::Waiting});
    }
    Wait &wait = waits.last();
    wait.endUs = std::max(wait.startUs, e.timeUs);
    wait.endEvent = index;
    if (e.phase == Phase::Fail) {
        wait.outcome = HistoryEvent::AcquireOutcome(e.outcome) == HistoryEvent::AcquireOutcome::Stopped
            ? Wait::Outcome::Stopped
            : Wait::Outcome::GaveUp;
        return;
    }
    if (e.phase == Phase::Info) {
        wait.outcome = Wait::Outcome::Unknown;
        return;
    }
    wait.outcome = Wait::Outcome::Acquired;
    if (!validLock(e.lock))
        return;
    const qint64 invokeUs = invoke ? invoke->timeUs : wait.startUs;
    // The lease the completion says was set (a library may set another one than asked, or none at all).
    const qint64 lease = e.value;
    const bool unseen
        = HistoryEvent::AcquireOutcome(e.outcome) == HistoryEvent::AcquireOutcome::RenewedUnseen;
    const qint64 from = e.effectUs > 0 ? std::max(invokeUs, e.effectUs) : invokeUs;
    const qint64 until = lease > 0 && !unseen ? from + lease * 1000 : kOpen;
    const int key = w * lockCount() + e.lock;
    int &depth = m_depth[key];
    if (depth > 0) {
        if (Hold *h = openHold(w, e.lock)) { // reentrant: the same tenure goes on
            h->validUntilUs = std::max(h->validUntilUs, until);
            ++depth;
            return;
        }
    }
    depth = 1;
    Hold h;
    h.startUs = e.timeUs;
    h.leaseFromUs = from;
    h.validUntilUs = until;
    h.acquireEvent = index;
    h.leaseMs = qint32(lease);
    if (lease <= 0)
        h.flags |= Hold::NoTtl; // the key was set without a TTL: nothing but a delete ends it
    else if (unseen)
        h.flags |= Hold::RenewedUnseen;
    m_holds[key].append(h);
}

void TimelineData::releaseDone(const HistoryEvent &e, quint32 index, const HistoryEvent *invoke)
{
    const int w = e.worker;
    const qint64 invokeUs = invoke ? invoke->timeUs : e.timeUs;
    const auto outcome = HistoryEvent::ReleaseOutcome(e.outcome);
    Hold *h = validLock(e.lock) ? openHold(w, e.lock) : nullptr;
    // value > 0: the release deleted the key without checking its owner (seeds 001 and 002). Whatever key was
    // there then went, be it another worker's: the lock lane draws what Redis held.
    const bool blindDelete
        = e.phase == Phase::Ok && outcome == HistoryEvent::ReleaseOutcome::Released && e.value > 0;
    if (!h) {
        m_marks[w].append(Mark {e.timeUs, invokeUs, index, Mark::Type::ReleaseWithoutHold, qint16(e.lock)});
        if (blindDelete && validLock(e.lock))
            deletedOthersKey(w, e.lock,
                             e.effectUs > 0 ? std::clamp(e.effectUs, invokeUs, e.timeUs) : e.timeUs);
        return;
    }
    const int key = w * lockCount() + e.lock;
    if (e.phase == Phase::Ok && outcome == HistoryEvent::ReleaseOutcome::StillHeld) {
        m_depth[key] = std::max(1, m_depth.value(key) - 1);
        return;
    }
    h->endUs = std::max(h->startUs, invokeUs);
    h->releaseEndUs = std::max(h->endUs, e.timeUs);
    h->releaseEvent = index;
    h->releaseOutcome = e.phase == Phase::Ok ? qint8(outcome) : qint8(-2);
    if (e.phase == Phase::Ok && outcome == HistoryEvent::ReleaseOutcome::Released)
        h->releaseEffectUs = e.effectUs > 0 ? std::clamp(e.effectUs, h->endUs, h->releaseEndUs) : e.timeUs;
    // Its own key had run out before the delete went out: the delete hit whoever held the key then.
    if (blindDelete && h->validUntilUs < h->releaseEffectUs)
        deletedOthersKey(w, e.lock, h->releaseEffectUs);
    closeHold(w, e.lock, *h);
}

void TimelineData::deletedOthersKey(int worker, int lock, qint64 atUs)
{
    for (int other = 0; other < workerCount(); ++other) {
        if (other == worker)
            continue;
        QList<Hold> &list = m_holds[other * lockCount() + lock];
        for (qsizetype i = list.size() - 1; i >= 0 && i >= list.size() - 2; --i) {
            Hold &h = list[i];
            if (std::min(h.startUs, h.leaseFromUs) <= atUs && atUs < h.keyEndUs())
                h.deletedUs = atUs;
        }
    }
}

void TimelineData::renewDone(const HistoryEvent &e, quint32 index, const HistoryEvent *invoke)
{
    const int w = e.worker;
    const qint64 invokeUs = invoke ? invoke->timeUs : e.timeUs;
    Mark::Type type = Mark::Type::RenewOk;
    if (e.phase == Phase::Fail)
        type = Mark::Type::RenewLost;
    else if (e.phase == Phase::Info)
        type = Mark::Type::RenewUnknown;
    m_renewals[w].append(Mark {e.timeUs, invokeUs, index, type, qint16(validLock(e.lock) ? e.lock : -1)});
    if (type != Mark::Type::RenewOk || !validLock(e.lock))
        return;
    ++m_renewalCount;
    const qint64 lease = invoke ? invoke->value : e.value;
    QList<Hold> &list = m_holds[w * lockCount() + e.lock];
    // The renewal belongs to the tenure it started in (it may complete just after a release began).
    for (qsizetype i = list.size() - 1; i >= 0 && i >= list.size() - 2; --i) {
        Hold &h = list[i];
        if (h.startUs <= invokeUs && (h.endUs == kOpen || h.endUs >= invokeUs)) {
            if (lease > 0)
                h.validUntilUs = std::max(h.validUntilUs, invokeUs + lease * 1000);
            ++h.renewals;
            return;
        }
    }
}

void TimelineData::crash(int process, qint64 timeUs, quint32 index)
{
    for (int p : processesOf(process)) {
        QList<Shade> &shades = m_processShades[p];
        if (!shades.isEmpty() && shades.last().type == Shade::Type::Crashed)
            continue;
        if (!shades.isEmpty() && shades.last().endUs == kOpen) // paused, then crashed
            shades.last().endUs = timeUs;
        shades.append(Shade {timeUs, kOpen, index, Shade::Type::Crashed});
        for (int w = 0; w < workerCount(); ++w) {
            if (m_layout.workerProcesses.value(w, -1) != p)
                continue;
            // The dead worker stops counting on its locks; their keys live on until their leases end.
            for (int l = 0; l < lockCount(); ++l) {
                if (Hold *h = openHold(w, l)) {
                    h->endUs = std::max(h->startUs, timeUs);
                    h->flags |= Hold::Crashed;
                    closeHold(w, l, *h);
                }
            }
            QList<Wait> &waits = m_waits[w];
            if (!waits.isEmpty() && waits.last().endUs == kOpen) {
                waits.last().endUs = std::max(waits.last().startUs, timeUs);
                waits.last().outcome = Wait::Outcome::Crashed;
            }
        }
    }
}

void TimelineData::fault(const HistoryEvent &e, quint32 index)
{
    const auto type = FaultType(e.outcome);
    switch (type) {
    case FaultType::PauseStart:
        for (int p : processesOf(e.process)) {
            QList<Shade> &shades = m_processShades[p];
            if (shades.isEmpty() || shades.last().endUs != kOpen)
                shades.append(Shade {e.timeUs, kOpen, index, Shade::Type::Paused});
        }
        return;
    case FaultType::PauseEnd:
        for (int p : processesOf(e.process)) {
            QList<Shade> &shades = m_processShades[p];
            if (!shades.isEmpty() && shades.last().endUs == kOpen
                && shades.last().type == Shade::Type::Paused)
                shades.last().endUs = e.timeUs;
        }
        return;
    case FaultType::Crash:
        if (validWorker(e.worker) && validLock(e.lock) && !openHold(e.worker, e.lock)) {
            // Died between SETNX and EXPIRE, in a history that has no acquire for it (the engine records the
            // SETNX that set the key as an acquire without lease first, and the crash closes that hold): the
            // key exists and has no TTL at all.
            Hold h;
            h.startUs = e.timeUs;
            h.leaseFromUs = e.timeUs;
            h.endUs = e.timeUs;
            h.acquireEvent = index;
            h.flags = Hold::Crashed | Hold::NoTtl;
            m_holds[e.worker * lockCount() + e.lock].append(h);
        }
        crash(e.process, e.timeUs, index);
        return;
    case FaultType::PartitionStart:
        for (int p : processesOf(e.process)) {
            QList<Shade> &shades = m_partitions[p];
            if (shades.isEmpty() || shades.last().endUs != kOpen)
                shades.append(Shade {e.timeUs, kOpen, index, Shade::Type::Partitioned});
        }
        return;
    case FaultType::PartitionEnd:
        for (int p : processesOf(e.process)) {
            QList<Shade> &shades = m_partitions[p];
            if (!shades.isEmpty() && shades.last().endUs == kOpen)
                shades.last().endUs = e.timeUs;
        }
        return;
    case FaultType::ProcessRestart:
        // A new process of an external client: the dead one's shade ends where the new one begins.
        for (int p : processesOf(e.process)) {
            QList<Shade> &shades = m_processShades[p];
            if (!shades.isEmpty() && shades.last().endUs == kOpen)
                shades.last().endUs = e.timeUs;
            m_processMarks[p].append(Mark {e.timeUs, e.timeUs, index, Mark::Type::Fault, -1});
        }
        return;
    case FaultType::NetworkDelay:
    case FaultType::ClockSkew:
    case FaultType::ConnectionsDropped:
        for (int p : processesOf(e.process))
            m_processMarks[p].append(Mark {e.timeUs, e.timeUs, index, Mark::Type::Fault, -1});
        return;
    case FaultType::ServerRestart:
    case FaultType::ServerPause:
    case FaultType::ServerKill:
    case FaultType::ServerResume:
    case FaultType::Failover: {
        const int server = int(e.value);
        if (server < 0 || server >= serverCount())
            return;
        m_serverActivity = true;
        m_serverMarks[server].append(ServerMark {e.timeUs, index, type});
        QList<Shade> &shades = m_serverShades[server];
        const bool open = !shades.isEmpty() && shades.last().endUs == kOpen;
        if (type == FaultType::ServerResume) {
            if (open)
                shades.last().endUs = e.timeUs;
        } else if (type == FaultType::ServerPause) {
            if (!open)
                shades.append(Shade {e.timeUs, kOpen, index, Shade::Type::ServerPaused});
        } else if (type == FaultType::ServerKill || type == FaultType::ServerRestart) {
            if (!open)
                shades.append(Shade {e.timeUs, kOpen, index, Shade::Type::ServerDown});
        }
        return;
    }
    case FaultType::StoryStep: {
        const int stepIndex = int(e.value);
        Step s;
        s.timeUs = e.timeUs;
        s.event = index;
        s.index = stepIndex;
        s.number = m_stepNumbers.value(stepIndex, 0);
        s.note = m_layout.steps.value(stepIndex).note;
        if (s.number > 0)
            m_steps.append(s);
        return;
    }
    case FaultType::None:
        return;
    }
}

const TimelineData::Round *TimelineData::roundOf(int worker, const Hold &hold) const
{
    if (!validWorker(worker))
        return nullptr;
    const QList<Round> &list = m_rounds.at(worker);
    const auto it = std::partition_point(list.begin(), list.end(),
                                         [&](const Round &r) { return r.endUs <= hold.startUs; });
    if (it == list.begin())
        return nullptr;
    const Round &r = *(it - 1);
    return r.won() && r.startUs >= hold.leaseFromUs - 1000 ? &r : nullptr;
}

const TimelineData::Step *TimelineData::stepAt(qint64 timeUs) const
{
    const Step *found = nullptr;
    for (const Step &s : m_steps) {
        if (s.timeUs > timeUs)
            break;
        found = &s;
    }
    return found;
}

TimelineData::WorkerState TimelineData::workerStateAt(int worker, qint64 timeUs) const
{
    if (!validWorker(worker))
        return WorkerState::Idle;
    const int p = m_layout.workerProcesses.value(worker, -1);
    if (p >= 0 && p < processCount()) {
        const QList<Shade> &shades = m_processShades.at(p);
        const qsizetype i = firstEndingAfter(shades, timeUs, [](const Shade &s) { return s.endUs; });
        if (i < shades.size() && shades.at(i).startUs <= timeUs)
            return shades.at(i).type == Shade::Type::Crashed ? WorkerState::Crashed : WorkerState::Paused;
    }
    for (int l = 0; l < lockCount(); ++l) {
        const QList<Hold> &list = holds(worker, l);
        const qsizetype i = firstEndingAfter(
            list, timeUs, [](const Hold &h) { return h.releaseEndUs != kOpen ? h.releaseEndUs : h.endUs; });
        if (i >= list.size() || list.at(i).startUs > timeUs)
            continue;
        const Hold &h = list.at(i);
        if (h.endUs != kOpen && timeUs >= h.endUs)
            return WorkerState::Releasing;
        return timeUs >= h.validUntilUs ? WorkerState::Stale : WorkerState::Holding;
    }
    const QList<Wait> &list = m_waits.at(worker);
    const qsizetype i = firstEndingAfter(list, timeUs, [](const Wait &w) { return w.endUs; });
    if (i < list.size() && list.at(i).startUs <= timeUs && timeUs < list.at(i).endUs)
        return WorkerState::Waiting;
    return WorkerState::Idle;
}

QString TimelineData::stateText(WorkerState state)
{
    using S = WorkerState;
    switch (state) {
    case S::Idle:
        return QString();
    case S::Waiting:
        return QObject::tr("waiting");
    case S::Holding:
        return QObject::tr("holding");
    case S::Stale:
        return QObject::tr("lease expired!");
    case S::Releasing:
        return QObject::tr("releasing");
    case S::Paused:
        return QObject::tr("paused");
    case S::Crashed:
        return QObject::tr("crashed");
    }
    return QString();
}

int TimelineData::expiries() const
{
    int open = 0;
    for (const QList<Hold> &list : m_holds) {
        if (list.isEmpty())
            continue;
        const Hold &h = list.last();
        if (h.releaseOutcome == -1 && !(h.flags & Hold::Crashed) && h.expired(m_nowUs))
            ++open;
        // A crashed holder's key: it expires at its lease end (counted once closed below).
    }
    return m_closedExpiries + open;
}

int TimelineData::expiriesUntil(qint64 timeUs) const
{
    int count = 0;
    for (const QList<Hold> &list : m_holds) {
        for (const Hold &h : list) {
            if (h.validUntilUs == kOpen || h.validUntilUs > timeUs)
                continue;
            // A release that answered is judged when it answered, as closeHold() does.
            const bool answered = h.releaseOutcome >= 0 && h.releaseEndUs != kOpen;
            if (h.expired(answered ? std::min(timeUs, h.releaseEndUs) : timeUs))
                ++count;
        }
    }
    return count;
}

qint64 TimelineData::memoryBytes() const
{
    qint64 bytes = m_events.capacity() * qint64(sizeof(HistoryEvent));
    for (const auto &l : m_waits)
        bytes += l.capacity() * qint64(sizeof(Wait));
    for (const auto &l : m_holds)
        bytes += l.capacity() * qint64(sizeof(Hold)) + qint64(sizeof(l));
    for (const auto &l : m_marks)
        bytes += l.capacity() * qint64(sizeof(Mark));
    for (const auto &l : m_rounds)
        bytes += l.capacity() * qint64(sizeof(Round));
    for (const auto &l : m_renewals)
        bytes += l.capacity() * qint64(sizeof(Mark));
    bytes += m_pendingInvokes.size() * 32;
    return bytes;
}
