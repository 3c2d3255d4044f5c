// ScheduleGenerator: the guided candidates from a profile run, then random ones, split across shards.
#include "schedulegenerator.h"

#include <QJsonArray>

#include <algorithm>

namespace {

using T = ScheduledFault::Type;
using P = ScheduledFault::Point;

// An instant of the profile worth aiming at.
struct Edge
{
    int worker = 0;
    double atMs = 0;
    P point = P::AtTime;
    QString name;
    double holdAcquiredMs = 0; // when the hold this edge belongs to began
};

QString ms(double v)
{
    return QString::number(qRound(v));
}

} // namespace

ScheduleGenerator::ScheduleGenerator(const ExploreTarget &target, const Options &options)
    : m_target(target)
    , m_options(options)
    , m_random(options.seed * 1000003ULL + quint64(options.shardIndex) * 7919ULL + 17)
{
    if (m_options.maxPauseMs <= 0)
        m_options.maxPauseMs = 3.0 * target.leaseMs();
    if (m_options.maxDelayMs <= 0)
        m_options.maxDelayMs = target.leaseMs();
    m_options.shardCount = std::max(1, m_options.shardCount);
}

void ScheduleGenerator::setProfile(const ScheduleVerdict &profile)
{
    m_profile = profile;
    if (m_options.mode == Mode::Guided)
        buildGuided();
}

// The edges of the profile run: for the first holds of each worker, the instants a fault there can hurt most.
void ScheduleGenerator::buildGuided()
{
    const double lease = m_target.leaseMs();
    const int workers = m_target.workers();
    QList<Edge> afterAcquire, midHold, beforeRenewal, beforeRelease, leaseEnd, insideAcquire, insideRelease;
    QHash<int, int> seen;
    for (const ScheduleVerdict::Hold &h : m_profile.holds) {
        if (h.worker < 0 || h.worker >= workers || seen.value(h.worker) >= 2)
            continue;
        seen[h.worker]++;
        afterAcquire << Edge {h.worker, h.acquiredMs + 1, P::AtTime, QStringLiteral("right after an acquire"),
                              h.acquiredMs};
        // Halfway through the critical section: a server fault there loses a lock that is surely taken and
        // still held, whatever the jitter of the hand-offs around it.
        const double midMs = h.enterMs >= 0 && h.exitMs > h.enterMs ? (h.enterMs + h.exitMs) / 2
                                                                     : h.acquiredMs + m_target.criticalSectionMs() / 2;
        midHold << Edge {h.worker, midMs, P::AtTime, QStringLiteral("halfway through a hold"), h.acquiredMs};
        if (!h.renewalsMs.isEmpty())
            beforeRenewal << Edge {h.worker, std::max(0.0, h.renewalsMs.first() - 2), P::AtTime,
                                   QStringLiteral("just before a renewal")};
        if (h.releaseInvokeMs >= 0)
            beforeRelease << Edge {h.worker, std::max(0.0, h.releaseInvokeMs - 1), P::AtTime,
                                   QStringLiteral("just before a release")};
        leaseEnd << Edge {h.worker, h.acquiredMs + lease - 2, P::AtTime, QStringLiteral("around the lease's end")};
        if (m_target.hasPoint(P::InsideAcquire))
            insideAcquire << Edge {h.worker, std::max(0.0, h.acquireInvokeMs - 1), P::InsideAcquire,
                                   QStringLiteral("between two commands of an acquire")};
        if (m_target.hasPoint(P::InsideRelease) && h.enterMs >= 0)
            insideRelease << Edge {h.worker, h.enterMs, P::InsideRelease,
                                   QStringLiteral("between two commands of a release")};
    }
    const QList<double> lengthFactors {1.25, 2.0, 1.05, 3.0, 0.75, 0.5};
    const auto lengths = [&](double max) {
        QList<double> list;
        for (double f : lengthFactors) {
            const double v = std::min(max, f * lease);
            if (!list.contains(v))
                list << v;
        }
        return list;
    };
    // One list per kind of fault, most promising first; then taken round-robin so every kind is tried early.
    QList<QList<FaultSchedule>> perType;
    const auto single = [&](T type, const Edge &e, double length, int target = -1) {
        FaultSchedule s;
        s.workers = workers;
        ScheduledFault f;
        f.type = type;
        f.target = target >= 0 ? target : e.worker;
        f.atMs = e.atMs;
        f.point = e.point;
        f.durationMs = length;
        s.faults << f;
        s.origin = QStringLiteral("guided: %1 %2 of %3").arg(ScheduledFault::typeName(type), e.name,
                                                              FaultSchedule::actorNames(workers).value(e.worker));
        return s;
    };
    for (T type : m_options.faults) {
        QList<FaultSchedule> list;
        QList<QList<Edge>> edges;
        QList<double> ladder {0};
        switch (type) {
        case T::Pause:
            edges = {afterAcquire, insideRelease, beforeRenewal, beforeRelease};
            ladder = lengths(m_options.maxPauseMs);
            break;
        case T::Cut:
            edges = {afterAcquire, beforeRelease, beforeRenewal};
            ladder = lengths(m_options.maxPauseMs);
            break;
        case T::Delay:
            edges = {afterAcquire, beforeRelease};
            ladder.clear();
            for (double f : {0.6, 1.0, 0.3})
                ladder << std::min(m_options.maxDelayMs, f * lease);
            break;
        case T::Crash:
            edges = {insideAcquire, afterAcquire, beforeRelease};
            break;
        case T::Drop:
            edges = {afterAcquire, beforeRelease, leaseEnd};
            break;
        case T::Restart:
            // Right after an acquire: a restart takes tens of ms, and the lock must still be held after it.
            edges = {afterAcquire, midHold};
            break;
        case T::Failover: {
            // Halfway through a hold whose lock was written after the replica stopped receiving: the run's very
            // first acquire races with the replication pause that starts with the run, so it is left out.
            ladder = {lease / 2, lease, 5};
            QList<Edge> later;
            for (const Edge &e : std::as_const(midHold)) {
                if (e.holdAcquiredMs >= 10)
                    later << e;
            }
            edges = {later, midHold, afterAcquire};
            break;
        }
        case T::ClockJump:
            ladder = {lease, 2 * lease, 0.5 * lease};
            for (double l : ladder)
                for (int w = 0; w < workers; ++w)
                    list << single(type, Edge {w, 0, P::AtTime, QStringLiteral("from the start")}, l);
            perType << list;
            continue;
        }
        // Length-major within each edge list: every edge at the first length, then the next length…
        for (const QList<Edge> &edgeList : std::as_const(edges)) {
            for (double length : std::as_const(ladder)) {
                for (const Edge &e : edgeList) {
                    if (type == T::Restart || type == T::Failover) {
                        for (int server = 0; server < (type == T::Failover ? 1 : m_target.serverCount()); ++server)
                            list << single(type, e, length, server);
                    } else {
                        list << single(type, e, length);
                    }
                }
            }
        }
        // Two servers restarting while one worker holds the lock (Redlock's majority forgets it): first, as one
        // restart of several servers cannot lose a majority's lock.
        if (type == T::Restart && m_target.serverCount() > 2) {
            QList<FaultSchedule> pairs;
            for (const Edge &e : midHold + afterAcquire) {
                for (int a = 0; a < m_target.serverCount(); ++a) {
                    for (int b = a + 1; b < m_target.serverCount(); ++b) {
                        FaultSchedule s = single(type, e, 0, a);
                        ScheduledFault second = s.faults.first();
                        second.target = b;
                        second.atMs += 1;
                        s.faults << second;
                        s.origin = QStringLiteral("guided: two restarts %1 of %2")
                                       .arg(e.name, FaultSchedule::actorNames(workers).value(e.worker));
                        pairs << s;
                    }
                }
            }
            list = pairs + list;
        }
        perType << list;
    }
    m_guided.clear();
    for (qsizetype i = 0;; ++i) {
        bool any = false;
        for (const QList<FaultSchedule> &list : std::as_const(perType)) {
            if (i < list.size()) {
                m_guided << list.at(i);
                any = true;
            }
        }
        if (!any)
            break;
    }
}

double ScheduleGenerator::randomLength(ScheduledFault::Type type)
{
    const double lease = m_target.leaseMs();
    switch (type) {
    case T::Pause:
    case T::Cut:
        return std::uniform_real_distribution<double>(1, m_options.maxPauseMs)(m_random);
    case T::Delay:
        return std::uniform_real_distribution<double>(1, m_options.maxDelayMs)(m_random);
    case T::Failover:
        return std::uniform_real_distribution<double>(1, lease)(m_random);
    case T::ClockJump:
        return std::uniform_real_distribution<double>(-2 * lease, 2 * lease)(m_random);
    case T::Crash:
    case T::Drop:
    case T::Restart:
        break;
    }
    return 0;
}

ScheduledFault ScheduleGenerator::randomFault(ScheduledFault::Type type, bool nearEdges)
{
    ScheduledFault f;
    f.type = type;
    const int workers = m_target.workers();
    f.target = f.hitsServer() ? std::uniform_int_distribution<int>(0, type == T::Failover ? 0 : m_target.serverCount() - 1)(m_random)
                              : std::uniform_int_distribution<int>(0, workers - 1)(m_random);
    const double end = std::max(m_profile.endMs, 1.0);
    f.atMs = std::uniform_real_distribution<double>(0, end)(m_random);
    f.durationMs = randomLength(type);
    if (nearEdges && !m_profile.holds.isEmpty()) {
        // Near a hold of the profile: within a few ms of its acquire, its renewal or its release.
        const auto &h = m_profile.holds.at(
            std::uniform_int_distribution<qsizetype>(0, m_profile.holds.size() - 1)(m_random));
        QList<double> instants {h.acquiredMs, h.releaseInvokeMs};
        if (!h.renewalsMs.isEmpty())
            instants << h.renewalsMs.first();
        const double base = instants.at(std::uniform_int_distribution<qsizetype>(0, instants.size() - 1)(m_random));
        f.atMs = std::max(0.0, base + std::uniform_real_distribution<double>(-5, 5)(m_random));
        if (!f.hitsServer())
            f.target = h.worker;
        if (f.type == T::Pause || f.type == T::Cut)
            f.durationMs = std::uniform_real_distribution<double>(0.5, 3.0)(m_random) * m_target.leaseMs();
        const bool inRelease = f.type == T::Pause && m_target.hasPoint(P::InsideRelease);
        const bool inAcquire = f.type == T::Crash && m_target.hasPoint(P::InsideAcquire);
        if ((inRelease || inAcquire) && std::uniform_int_distribution<int>(0, 2)(m_random) == 0) {
            f.point = inRelease ? P::InsideRelease : P::InsideAcquire;
            f.atMs = inRelease ? std::max(0.0, h.enterMs) : std::max(0.0, h.acquireInvokeMs - 1);
        }
    }
    if (type == T::ClockJump)
        f.atMs = 0;
    return f;
}

FaultSchedule ScheduleGenerator::randomSchedule(bool nearEdges)
{
    FaultSchedule s;
    s.workers = m_target.workers();
    const int count = std::uniform_int_distribution<int>(1, std::max(1, m_options.maxFaults))(m_random);
    for (int i = 0; i < count; ++i) {
        const T type = m_options.faults.at(
            std::uniform_int_distribution<qsizetype>(0, m_options.faults.size() - 1)(m_random));
        s.faults << randomFault(type, nearEdges);
    }
    std::sort(s.faults.begin(), s.faults.end(),
              [](const ScheduledFault &a, const ScheduledFault &b) { return a.atMs < b.atMs; });
    s.origin = nearEdges ? QStringLiteral("random near the edges") : QStringLiteral("random");
    return s;
}

QList<FaultSchedule> ScheduleGenerator::next(int count)
{
    QList<FaultSchedule> list;
    if (m_options.faults.isEmpty())
        return list;
    while (list.size() < count) {
        const quint64 number = m_candidate++;
        FaultSchedule s;
        if (m_options.mode == Mode::Guided && m_nextGuided < m_guided.size())
            s = m_guided.at(m_nextGuided++);
        else
            s = randomSchedule(m_options.mode == Mode::Guided);
        if (int(number % quint64(m_options.shardCount)) != m_options.shardIndex)
            continue; // another shard's
        list << s;
    }
    return list;
}

void ScheduleGenerator::noteTried(const FaultSchedule &schedule)
{
    QList<ScheduledFault::Type> counted; // a schedule with two restarts is one restart schedule
    for (const ScheduledFault &f : schedule.faults) {
        Coverage::Range &r = m_coverage.byType[f.type];
        if (!counted.contains(f.type)) {
            counted << f.type;
            ++r.schedules;
        }
        if (f.hasLength()) {
            r.minLengthMs = r.minLengthMs < 0 ? f.durationMs : std::min(r.minLengthMs, f.durationMs);
            r.maxLengthMs = std::max(r.maxLengthMs, f.durationMs);
        }
        r.minAtMs = r.minAtMs < 0 ? f.atMs : std::min(r.minAtMs, f.atMs);
        r.maxAtMs = std::max(r.maxAtMs, f.atMs);
        const QString point = schedule.origin.startsWith(QLatin1String("guided"))
            ? schedule.origin.section(u' ', 2, -1).section(QStringLiteral(" of "), 0, 0)
            : schedule.origin;
        if (!point.isEmpty() && !r.points.contains(point))
            r.points << point;
    }
}

QJsonObject ScheduleGenerator::Coverage::toJson() const
{
    QJsonObject o;
    for (auto it = byType.constBegin(); it != byType.constEnd(); ++it) {
        QJsonObject r {{QStringLiteral("schedules"), it->schedules},
                       {QStringLiteral("at_ms"), QJsonArray {qRound(it->minAtMs), qRound(it->maxAtMs)}},
                       {QStringLiteral("aimed_at"), QJsonArray::fromStringList(it->points)}};
        if (it->maxLengthMs >= 0)
            r.insert(QStringLiteral("length_ms"), QJsonArray {qRound(it->minLengthMs), qRound(it->maxLengthMs)});
        o.insert(ScheduledFault::typeName(it.key()), r);
    }
    return o;
}

QString ScheduleGenerator::Coverage::text() const
{
    QStringList parts;
    for (const QString &name : ScheduledFault::allTypeNames()) {
        T type;
        ScheduledFault::typeFromName(name, &type);
        if (!byType.contains(type))
            continue;
        const Range &r = byType.value(type);
        QString line = QStringLiteral("%1: %2 schedules").arg(name).arg(r.schedules);
        if (r.maxLengthMs >= 0)
            line += QStringLiteral(", %1–%2 ms long").arg(ms(r.minLengthMs), ms(r.maxLengthMs));
        line += QStringLiteral(", at %1–%2 s").arg(r.minAtMs / 1000, 0, 'f', 2).arg(r.maxAtMs / 1000, 0, 'f', 2);
        parts << line;
    }
    return parts.join(QStringLiteral("; "));
}
