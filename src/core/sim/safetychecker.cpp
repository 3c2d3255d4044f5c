// SafetyChecker: one pass over the history building holder episodes, critical sections and writes, then
// the checks that need whole episodes (foreign releases, lost updates).
#include "safetychecker.h"

#include <QSet>

#include <cmath>
#include <limits>

namespace {

constexpr qint64 kForever = std::numeric_limits<qint64>::max();

quint64 opKey(const HistoryEvent &e)
{
    return (quint64(e.log) << 48) ^ quint64(e.opId);
}

quint64 holderKey(int worker, int lock)
{
    return (quint64(quint32(worker)) << 32) | quint32(lock);
}

QString seconds(qint64 us)
{
    return QString::number(double(us) / 1e6, 'f', 3) + QStringLiteral(" s");
}

QString millis(qint64 us)
{
    return QString::number(double(us) / 1e3, 'f', 1) + QStringLiteral(" ms");
}

// One uninterrupted tenure of a lock by one worker, from its first successful acquire to its release.
struct Episode
{
    int worker = -1;
    qint64 okUs = 0; // the lock surely existed from here…
    qint64 releaseInvokeUs = kForever; // …until its owner began releasing it,
    qint64 validUntilUs = kForever; // …or its lease ran out (invoke + lease, extended by renewals),
    qint64 serverFaultUs = kForever; // …or a server lost it (restart, failover, kill)
    qint64 definiteEnd() const { return std::min({releaseInvokeUs, validUntilUs, serverFaultUs}); }
};

struct Release
{
    int worker = -1;
    int lock = -1;
    qint64 invokeUs = 0;
    qint64 okUs = 0;
};

struct Write
{
    int worker = -1;
    qint64 okUs = 0;
    qint64 read = 0;
    bool hasRead = false;
    qint64 written = 0;
};

struct Inside
{
    qint64 enterUs = 0;
    int process = -1;
};

struct OpenOverlap
{
    int lock = -1;
    int first = -1; // was inside already
    int second = -1; // entered while `first` was inside
    qint64 startUs = 0;
};

class Run
{
public:
    explicit Run(const SafetyChecker::Input &input)
        : m_in(input)
    {
    }

    SafetyChecker::Result check()
    {
        for (const HistoryEvent &e : m_in.events)
            step(e);
        for (auto it = m_inside.begin(); it != m_inside.end(); ++it) {
            const QList<int> workers = it.value().keys();
            for (int w : workers)
                leave(w, it.key(), m_in.endUs, true);
        }
        checkForeignReleases();
        checkLostUpdates();
        return m_result;
    }

private:
    QString worker(int w) const
    {
        return w >= 0 && w < m_in.workerNames.size() ? m_in.workerNames.at(w)
                                                     : QStringLiteral("worker %1").arg(w);
    }
    QString lock(int l) const
    {
        return l >= 0 && l < m_in.lockNames.size() ? m_in.lockNames.at(l) : QStringLiteral("lock %1").arg(l);
    }

    void add(Violation v)
    {
        if (m_result.details.size() < SafetyChecker::kMaxDetails)
            m_result.details.append(std::move(v));
    }

    Episode *openEpisode(int w, int l)
    {
        QList<Episode> &list = m_episodes[l];
        for (qsizetype i = list.size() - 1; i >= 0; --i) {
            if (list[i].worker == w && list[i].releaseInvokeUs == kForever)
                return &list[i];
        }
        return nullptr;
    }

    void step(const HistoryEvent &e)
    {
        if (e.phase == HistoryEvent::Phase::Invoke) {
            m_invokes.insert(opKey(e), e);
            return;
        }
        // The matching invoke; when it was not recorded (history cut), the completion stands in for it.
        HistoryEvent invoke = e;
        if (const auto found = m_invokes.constFind(opKey(e)); found != m_invokes.constEnd()) {
            invoke = found.value();
            m_invokes.erase(found);
        }
        switch (e.kind) {
        case HistoryEvent::Kind::Acquire:
            if (e.phase == HistoryEvent::Phase::Ok)
                acquired(e, invoke);
            break;
        case HistoryEvent::Kind::Renew:
            if (e.phase == HistoryEvent::Phase::Ok)
                renewed(e, invoke);
            break;
        case HistoryEvent::Kind::Release:
            released(e, invoke);
            break;
        case HistoryEvent::Kind::Enter:
            enter(e);
            break;
        case HistoryEvent::Kind::Exit:
            leave(e.worker, e.lock, e.timeUs, false);
            break;
        case HistoryEvent::Kind::Read:
            m_lastRead.insert(holderKey(e.worker, e.lock), e.value);
            break;
        case HistoryEvent::Kind::Write:
            wrote(e, invoke);
            break;
        case HistoryEvent::Kind::Fault:
            fault(e);
            break;
        default:
            break;
        }
    }

    void acquired(const HistoryEvent &e, const HistoryEvent &invoke)
    {
        // The lease runs from the attempt that set the key, not from the start of a waiting acquire call. The
        // completion says which lease was set (an external library may set none whatever was asked).
        const qint64 lease = e.value;
        const qint64 start = e.effectUs > 0 ? std::max(invoke.timeUs, e.effectUs) : invoke.timeUs;
        // A lease its library renews unseen cannot be called spent: nobody knows when it would run out.
        const bool unseen
            = HistoryEvent::AcquireOutcome(e.outcome) == HistoryEvent::AcquireOutcome::RenewedUnseen;
        const qint64 until = lease > 0 && !unseen ? start + lease * 1000 : kForever;
        const quint64 key = holderKey(e.worker, e.lock);
        int &depth = m_depth[key];
        if (depth == 0) {
            m_validUntil[key] = until;
            m_episodes[e.lock].append(Episode {e.worker, e.timeUs, kForever, until, kForever});
        } else {
            m_validUntil[key] = std::max(m_validUntil.value(key), until);
            if (Episode *ep = openEpisode(e.worker, e.lock))
                ep->validUntilUs = std::max(ep->validUntilUs, until);
        }
        ++depth;
    }

    void renewed(const HistoryEvent &e, const HistoryEvent &invoke)
    {
        const qint64 lease = invoke.value;
        const qint64 until = lease > 0 ? invoke.timeUs + lease * 1000 : kForever;
        const quint64 key = holderKey(e.worker, e.lock);
        m_validUntil[key] = std::max(m_validUntil.value(key), until);
        if (Episode *ep = openEpisode(e.worker, e.lock))
            ep->validUntilUs = std::max(ep->validUntilUs, until);
    }

    void released(const HistoryEvent &e, const HistoryEvent &invoke)
    {
        const quint64 key = holderKey(e.worker, e.lock);
        const auto outcome = HistoryEvent::ReleaseOutcome(e.outcome);
        if (e.phase == HistoryEvent::Phase::Ok && outcome == HistoryEvent::ReleaseOutcome::StillHeld) {
            m_depth[key] = std::max(0, m_depth.value(key) - 1);
            return;
        }
        // Released, not the owner, expired, failed or unknown: either way the worker no longer counts on it.
        m_depth[key] = 0;
        if (Episode *ep = openEpisode(e.worker, e.lock))
            ep->releaseInvokeUs = invoke.timeUs;
        if (e.phase == HistoryEvent::Phase::Ok && outcome == HistoryEvent::ReleaseOutcome::Released
            && e.value > 0)
            // The deleting command went out at effectUs at the earliest (after a two-step release's GET).
            m_releases.append(Release {e.worker, e.lock, std::max(invoke.timeUs, e.effectUs), e.timeUs});
    }

    void enter(const HistoryEvent &e)
    {
        QHash<int, Inside> &inside = m_inside[e.lock];
        for (auto it = inside.constBegin(); it != inside.constEnd(); ++it) {
            if (it.key() != e.worker)
                m_openOverlaps.append(OpenOverlap {e.lock, it.key(), e.worker, e.timeUs});
        }
        inside.insert(e.worker, Inside {e.timeUs, e.process});
        m_result.maxInside = std::max(m_result.maxInside, int(inside.size()));
    }

    void leave(int w, int l, qint64 atUs, bool historyEnded)
    {
        QHash<int, Inside> &inside = m_inside[l];
        if (!inside.contains(w))
            return;
        inside.remove(w);
        for (qsizetype i = m_openOverlaps.size() - 1; i >= 0; --i) {
            const OpenOverlap o = m_openOverlaps.at(i);
            if (o.lock != l || (o.first != w && o.second != w))
                continue;
            m_openOverlaps.removeAt(i);
            ++m_result.overlaps;
            Violation v;
            v.type = Violation::Type::Overlap;
            v.lock = l;
            v.workers = {o.second, o.first};
            v.startUs = o.startUs;
            v.endUs = atUs;
            v.openEnded = historyEnded;
            v.text = QStringLiteral("%1 and %2 were both inside the critical section of %3 for %4 (from %5)")
                         .arg(worker(o.first), worker(o.second), lock(l), millis(atUs - o.startUs),
                              seconds(o.startUs));
            add(v);
        }
        const qint64 validUntil = m_validUntil.value(holderKey(w, l), kForever);
        if (atUs > validUntil) {
            ++m_result.staleHolders;
            Violation v;
            v.type = Violation::Type::StaleHolder;
            v.lock = l;
            v.workers = {w};
            v.startUs = validUntil;
            v.endUs = atUs;
            v.openEnded = historyEnded;
            v.text
                = QStringLiteral("%1 was still inside the critical section of %2 %3 after its lease ran out "
                                 "(at %4) without a renewal")
                      .arg(worker(w), lock(l), millis(atUs - validUntil), seconds(validUntil));
            add(v);
        }
    }

    void wrote(const HistoryEvent &e, const HistoryEvent &invoke)
    {
        if (e.phase == HistoryEvent::Phase::Fail
            && HistoryEvent::WriteOutcome(e.outcome) == HistoryEvent::WriteOutcome::FencedOut) {
            ++m_result.fencingRejections;
            Violation v;
            v.type = Violation::Type::FencingRejection;
            v.lock = e.lock;
            v.workers = {e.worker};
            v.startUs = invoke.timeUs;
            v.endUs = e.timeUs;
            v.text = QStringLiteral("the fenced store refused %1's write with stale token %2 on %3")
                         .arg(worker(e.worker))
                         .arg(invoke.token)
                         .arg(lock(e.lock));
            add(v);
            return;
        }
        const quint64 key = holderKey(e.worker, e.lock);
        if (e.phase == HistoryEvent::Phase::Info) {
            // No answer: the write may or may not have been applied. The counter's expected value becomes
            // a range that allows both.
            ++m_result.unknownWrites;
            if (m_lastRead.contains(key))
                m_unknownDeltas[e.lock].append(e.value - m_lastRead.value(key));
            return;
        }
        if (e.phase != HistoryEvent::Phase::Ok)
            return;
        Write w;
        w.worker = e.worker;
        w.okUs = e.timeUs;
        w.written = e.value;
        w.hasRead = m_lastRead.contains(key);
        w.read = m_lastRead.value(key);
        m_writes[e.lock].append(w);
    }

    void fault(const HistoryEvent &e)
    {
        const auto type = HistoryEvent::FaultType(e.outcome);
        if (type == HistoryEvent::FaultType::Crash) {
            // A crashed process does nothing more: its sections end now, but its locks stay in Redis.
            for (auto it = m_inside.begin(); it != m_inside.end(); ++it) {
                QList<int> crashed;
                for (auto in = it.value().constBegin(); in != it.value().constEnd(); ++in) {
                    if (in.value().process == e.process)
                        crashed << in.key();
                }
                for (int w : crashed)
                    leave(w, it.key(), e.timeUs, false);
            }
        } else if (type == HistoryEvent::FaultType::ServerRestart
                   || type == HistoryEvent::FaultType::ServerKill
                   || type == HistoryEvent::FaultType::Failover) {
            // From here on no lock is known to exist: the server may have lost it.
            for (auto it = m_episodes.begin(); it != m_episodes.end(); ++it) {
                for (Episode &ep : it.value())
                    ep.serverFaultUs = std::min(ep.serverFaultUs, e.timeUs);
            }
        }
    }

    void checkForeignReleases()
    {
        for (const Release &r : m_releases) {
            for (const Episode &ep : m_episodes.value(r.lock)) {
                if (ep.worker == r.worker)
                    continue;
                // The other worker's lock surely existed for the whole time the release may have executed,
                // and the release deleted a key: it deleted that worker's lock.
                if (r.invokeUs >= ep.okUs && r.okUs <= ep.definiteEnd()) {
                    ++m_result.foreignReleases;
                    Violation v;
                    v.type = Violation::Type::ForeignRelease;
                    v.lock = r.lock;
                    v.workers = {r.worker, ep.worker};
                    v.startUs = r.invokeUs;
                    v.endUs = r.okUs;
                    v.text
                        = QStringLiteral("%1 released %2 at %3 while it belonged to %4: it deleted %4's lock")
                              .arg(worker(r.worker), lock(r.lock), seconds(r.invokeUs), worker(ep.worker));
                    add(v);
                    break;
                }
            }
        }
    }

    void checkLostUpdates()
    {
        qint64 expected = 0;
        qint64 actual = 0;
        bool anyObserved = false;
        for (auto it = m_in.counters.constBegin(); it != m_in.counters.constEnd(); ++it) {
            const QList<Write> writes = m_writes.value(it.key());
            qint64 delta = 0;
            int withRead = 0;
            for (const Write &w : writes) {
                if (w.hasRead) {
                    delta += w.written - w.read;
                    ++withRead;
                }
            }
            // Which updates were lost: a write whose successor did not read what it wrote was overwritten.
            // (Completions of concurrent writes may be recorded out of server order, so this only names
            // examples; the counter read back after the run, when there is one, gives the count.)
            QList<Violation> examples;
            for (qsizetype i = 0; i + 1 < writes.size(); ++i) {
                const Write &a = writes.at(i);
                const Write &b = writes.at(i + 1);
                if (!b.hasRead || b.read == a.written)
                    continue;
                Violation v;
                v.type = Violation::Type::LostUpdate;
                v.lock = it.key();
                v.workers = {b.worker, a.worker};
                v.startUs = a.okUs;
                v.endUs = b.okUs;
                v.text = QStringLiteral(
                             "%1's update of the counter protected by %2 (%3 → %4 at %5) was lost: %6 "
                             "wrote %7 from a stale read of %8")
                             .arg(worker(a.worker), lock(it.key()))
                             .arg(a.read)
                             .arg(a.written)
                             .arg(seconds(a.okUs), worker(b.worker))
                             .arg(b.written)
                             .arg(b.read);
                examples.append(v);
            }
            const SafetyChecker::Counter &c = it.value();
            const qint64 expectedHere = c.initial + delta;
            expected += expectedHere;
            // Writes of unknown outcome widen what the counter may hold: each one happened or did not.
            qint64 low = expectedHere, high = expectedHere;
            for (qint64 d : m_unknownDeltas.value(it.key())) {
                low += std::min<qint64>(d, 0);
                high += std::max<qint64>(d, 0);
            }
            m_result.counterExpectedLow += low;
            m_result.counterExpectedHigh += high;
            int lostHere = int(examples.size());
            if (c.observed) {
                anyObserved = true;
                actual += c.final;
                const double meanDelta = withRead > 0 ? double(delta) / withRead : 0.0;
                const qint64 outside = c.final < low ? low - c.final : c.final > high ? c.final - high : 0;
                lostHere = meanDelta != 0.0 ? std::abs(int(std::llround(double(outside) / meanDelta))) : 0;
            }
            m_result.lostUpdates += lostHere;
            for (qsizetype i = 0; i < std::min<qsizetype>(lostHere, examples.size()); ++i)
                add(examples.at(i));
        }
        m_result.counterExpected = expected;
        m_result.counterActual = actual;
        m_result.counterObserved = anyObserved;
    }

    const SafetyChecker::Input &m_in;
    SafetyChecker::Result m_result;
    QHash<quint64, HistoryEvent> m_invokes;
    QHash<quint64, int> m_depth;
    QHash<quint64, qint64> m_validUntil;
    QHash<int, QList<Episode>> m_episodes;
    QList<Release> m_releases;
    QHash<int, QHash<int, Inside>> m_inside;
    QList<OpenOverlap> m_openOverlaps;
    QHash<quint64, qint64> m_lastRead;
    QHash<int, QList<Write>> m_writes;
    QHash<int, QList<qint64>> m_unknownDeltas; // per lock: the change each write of unknown outcome meant
};

} // namespace

SafetyChecker::Result SafetyChecker::check(const Input &input)
{
    return Run(input).check();
}
