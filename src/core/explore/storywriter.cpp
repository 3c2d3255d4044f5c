// StoryWriter: a failing run's history, step by step, in a story's words.
#include "storywriter.h"

#include <QHash>

#include <algorithm>

namespace {

using Kind = HistoryEvent::Kind;
using Phase = HistoryEvent::Phase;
using Action = Scenario::Step::Action;

QString seconds(double ms)
{
    return QString::number(ms / 1000.0, 'f', 3) + QStringLiteral(" s");
}

QString length(double ms)
{
    return ms >= 1000 ? QString::number(ms / 1000.0, 'f', 2) + QStringLiteral(" s")
                      : QString::number(qRound(ms)) + QStringLiteral(" ms");
}

double msOf(qint64 us)
{
    return std::round(double(us) / 100.0) / 10.0; // 0.1 ms: what a story's at_ms can say
}

struct TimedStep
{
    Scenario::Step step;
    int order = 0; // ties keep the order they were made in
};

} // namespace

QString StoryWriter::expectationFor(ScheduleVerdict::Property property)
{
    switch (property) {
    case ScheduleVerdict::Property::LostUpdate:
        return QStringLiteral("lost_updates >= 1");
    case ScheduleVerdict::Property::Overlap:
        return QStringLiteral("overlaps >= 1");
    case ScheduleVerdict::Property::ForeignRelease:
        return QStringLiteral("foreign_releases >= 1");
    case ScheduleVerdict::Property::StuckLock:
        return QStringLiteral("locks_without_ttl >= 1");
    }
    return QString();
}

Scenario StoryWriter::write(const ExploreTarget &target, const ScheduleVerdict &failing,
                            ScheduleVerdict::Property property, const Context &context)
{
    const FaultSchedule &schedule = failing.schedule;
    const QStringList actors = FaultSchedule::actorNames(schedule.workers);
    const double lease = target.leaseMs();
    // The servers the schedule ran on (a replica for a failover, the proxy for dropped connections).
    Scenario s = target.scenarioFor(schedule, 0, QStringLiteral("lockscope:sim:"));
    s.kind = Scenario::Kind::Story;
    s.workload = Scenario::Workload();
    s.story.actors = actors;
    // The violation's window: steps after it (and a lease more) add nothing to the story.
    qint64 violationStartUs = -1, violationEndUs = -1;
    for (const Violation &v : failing.report.safety.details) {
        if (v.type == Violation::Type::FencingRejection || v.type == Violation::Type::StaleHolder)
            continue;
        if (violationStartUs < 0 || v.startUs < violationStartUs) {
            violationStartUs = v.startUs;
            violationEndUs = v.endUs;
        }
    }
    const double cutoffMs = property == ScheduleVerdict::Property::StuckLock || violationEndUs < 0
        ? 1e18
        : msOf(violationEndUs) + lease;

    // The run's worker names ("P1-T1") become the story's actors ("A").
    const auto rename = [&](const QString &text) { return failing.inActorsWords(text); };

    QList<TimedStep> steps;
    const auto add = [&](double atMs, const QString &actor, Action action, double ms, const QString &note) {
        Scenario::Step st;
        st.atMs = std::max(0.0, atMs);
        st.actor = actor;
        st.action = action;
        st.ms = ms;
        st.note = note;
        steps.append({st, int(steps.size())});
        return &steps.last().step;
    };

    // When each worker's lease runs out, by its holds (acquired, or last renewed, + the lease).
    QHash<int, QList<ScheduleVerdict::Hold>> holdsOf;
    for (const ScheduleVerdict::Hold &h : failing.holds)
        holdsOf[h.worker] << h;
    const auto leaseEndAt = [&](int worker, double atMs) -> double {
        for (const ScheduleVerdict::Hold &h : holdsOf.value(worker)) {
            const double end = h.releaseInvokeMs >= 0 ? h.releaseInvokeMs : 1e18;
            if (h.acquiredMs <= atMs && atMs <= end) {
                double renewed = h.acquiredMs;
                for (double r : h.renewalsMs) {
                    if (r <= atMs)
                        renewed = r;
                }
                return renewed + lease;
            }
        }
        return -1;
    };

    // When a server fault really struck, from the run's history (the injector records it once done). A
    // story steps one thing after another, so a fault that struck while an acquire was on its way is told
    // just after that acquire: the lock it took is what the fault then wipes, as it was in the run.
    const auto serverFaultAt = [&](HistoryEvent::FaultType type, int server, double scheduledMs) {
        double at = scheduledMs;
        for (const HistoryEvent &e : failing.events) {
            if (e.kind == Kind::Fault && e.outcome == quint8(type) && e.value == server && msOf(e.timeUs) >= scheduledMs - 1) {
                at = msOf(e.timeUs);
                break;
            }
        }
        QHash<quint64, double> asked;
        for (const HistoryEvent &e : failing.events) {
            if (e.kind != Kind::Acquire)
                continue;
            const quint64 op = (quint64(e.log) << 48) ^ quint64(e.opId);
            if (e.phase == Phase::Invoke)
                asked.insert(op, msOf(e.timeUs));
            else if (e.phase == Phase::Ok && asked.contains(op) && asked.value(op) <= at && at < msOf(e.timeUs))
                at = msOf(e.timeUs) + 0.1;
        }
        return at;
    };

    // The schedule's faults: story steps where a story has one, scenario faults where it does not. Told
    // first, so at the same millisecond the fault reads before what it causes.
    s.faults.clear();
    for (const ScheduledFault &f : schedule.faults) {
        const QString actor = actors.value(f.target);
        switch (f.type) {
        case ScheduledFault::Type::Pause:
            if (f.point == ScheduledFault::Point::InsideRelease) {
                Scenario::Fault sf;
                sf.type = Scenario::Fault::Type::GetDelDelay;
                sf.process = f.target;
                sf.atMs = f.atMs;
                sf.delayMs = f.durationMs;
                sf.once = true;
                s.faults << sf;
                add(f.atMs, QString(), Action::Note, 0,
                    QStringLiteral("From here, %1's next release stalls for %2 between its GET and its DEL.")
                        .arg(actor, length(f.durationMs)));
            } else {
                const double leaseEnd = leaseEndAt(f.target, f.atMs);
                QString note = QStringLiteral("%1 pauses for %2: a stop-the-world pause, its renewer stops too")
                                   .arg(actor, length(f.durationMs));
                if (leaseEnd >= 0 && leaseEnd < f.atMs + f.durationMs)
                    note += QStringLiteral("; its lease runs out at %1, while it sleeps").arg(seconds(leaseEnd));
                add(f.atMs, actor, Action::Pause, f.durationMs, note + u'.');
            }
            break;
        case ScheduledFault::Type::Crash:
            if (f.point == ScheduledFault::Point::InsideAcquire) {
                Scenario::Fault sf;
                sf.type = Scenario::Fault::Type::CrashAfterSetnx;
                sf.process = f.target;
                sf.atMs = f.atMs;
                s.faults << sf;
                add(f.atMs, QString(), Action::Note, 0,
                    QStringLiteral("From here, %1's next acquire dies between its SETNX and its EXPIRE.").arg(actor));
            } else {
                add(f.atMs, actor, Action::Crash, 0,
                    QStringLiteral("%1 crashes: what it holds stays in Redis until it expires.").arg(actor));
            }
            break;
        case ScheduledFault::Type::Cut:
            add(f.atMs, actor, Action::Partition, f.durationMs,
                QStringLiteral("%1 is cut off from the servers for %2.").arg(actor, length(f.durationMs)));
            break;
        case ScheduledFault::Type::Restart: {
            Scenario::Step *st = add(serverFaultAt(HistoryEvent::FaultType::ServerRestart, f.target, f.atMs), QString(),
                                     Action::ServerRestart, 0,
                                     QStringLiteral("Server %1 restarts without persistence: it forgets every lock.")
                                         .arg(f.target));
            st->server = f.target;
            break;
        }
        case ScheduledFault::Type::Failover: {
            const double failoverAt = serverFaultAt(HistoryEvent::FaultType::Failover, f.target, f.atMs);
            Scenario::Step *lag = add(std::max(0.0, failoverAt - f.durationMs), QString(), Action::ServerPause,
                                      f.durationMs + 10000,
                                      QStringLiteral("Replication lags: server %1's replica stops receiving.")
                                          .arg(f.target));
            lag->server = f.target;
            lag->replica = true;
            Scenario::Step *st = add(failoverAt, QString(), Action::Failover, 0,
                                     QStringLiteral("Server %1's master dies; its replica, which never received "
                                                    "the last %2 of writes, is promoted.")
                                         .arg(f.target)
                                         .arg(length(f.durationMs)));
            st->server = f.target;
            break;
        }
        case ScheduledFault::Type::Delay:
        case ScheduledFault::Type::Drop:
        case ScheduledFault::Type::ClockJump:
            s.faults << target.scenarioFaults(FaultSchedule {schedule.workers, {f}, QString()});
            add(f.atMs, QString(), Action::Note, 0, f.describe(actors) + u'.');
            break;
        }
    }
    // The operations, from the run's history.
    QHash<quint64, HistoryEvent> invokes;
    QHash<int, double> acquireAsked; // worker → when its open acquire was invoked
    const double sectionMs = target.criticalSectionMs();
    for (const HistoryEvent &e : failing.events) {
        if (e.worker < 0 || e.worker >= actors.size())
            continue;
        const QString actor = actors.at(e.worker);
        const quint64 op = (quint64(e.log) << 48) ^ quint64(e.opId);
        const double at = msOf(e.timeUs);
        if (e.phase == Phase::Invoke) {
            invokes.insert(op, e);
            if (e.kind == Kind::Acquire)
                acquireAsked.insert(e.worker, at);
            if (at > cutoffMs)
                continue;
            if (e.kind == Kind::Write)
                add(at, actor, Action::Write, 0,
                    QStringLiteral("%1 writes %2 to the counter the lock protects.").arg(actor).arg(e.value));
            continue;
        }
        const double invokedAt = invokes.contains(op) ? msOf(invokes.value(op).timeUs) : at;
        if (invokedAt > cutoffMs)
            continue;
        switch (e.kind) {
        case Kind::Acquire:
            if (e.phase == Phase::Ok && e.value == 0 && lease > 0) {
                // An acquire recorded without a TTL is the one that died between SETNX and EXPIRE.
                add(invokedAt, actor, Action::Acquire, 0,
                    QStringLiteral("%1 asks for the lock: its SETNX takes the key at %2, and %1 dies before "
                                   "sending EXPIRE — the key has no TTL.")
                        .arg(actor, seconds(at)));
            } else if (e.phase == Phase::Ok) {
                QString note = QStringLiteral("%1 asks for the lock and takes it at %2 (lease %3)")
                                   .arg(actor, seconds(at), length(lease));
                if (target.base().resource.fencedStore && e.token > 0)
                    note += QStringLiteral(", fencing token %1").arg(e.token);
                add(invokedAt, actor, Action::Acquire, 0, note + u'.');
            }
            // An acquire that gave up takes no step: in the run that worker held nothing then.
            break;
        case Kind::Read:
            if (e.phase == Phase::Ok) {
                add(at, actor, Action::Read, 0, QStringLiteral("%1 reads the counter: %2.").arg(actor).arg(e.value));
                add(at, actor, Action::Work, sectionMs,
                    QStringLiteral("%1 works for %2 inside the critical section.").arg(actor, length(sectionMs)));
            }
            break;
        case Kind::Release: {
            QString what;
            switch (HistoryEvent::ReleaseOutcome(e.outcome)) {
            case HistoryEvent::ReleaseOutcome::Released:
                what = QStringLiteral("its release deletes the key");
                break;
            case HistoryEvent::ReleaseOutcome::NotOwner:
                what = QStringLiteral("its release finds the lock is not its own and deletes nothing");
                break;
            case HistoryEvent::ReleaseOutcome::AlreadyExpired:
                what = QStringLiteral("its release finds the lock already gone");
                break;
            default:
                what = e.phase == Phase::Ok ? QStringLiteral("it releases") : QStringLiteral("its release fails");
                break;
            }
            for (const Violation &v : failing.report.safety.details) {
                if (v.type == Violation::Type::ForeignRelease && v.workers.value(0) == e.worker
                    && std::abs(msOf(v.startUs) - invokedAt) < 1.0)
                    what = QStringLiteral("its release deletes %1's lock").arg(actors.value(v.workers.value(1)));
            }
            add(invokedAt, actor, Action::Release, 0, QStringLiteral("%1 is done: %2.").arg(actor, what));
            break;
        }
        default:
            break;
        }
    }

    if (violationStartUs >= 0 && !failing.sentence.isEmpty())
        add(msOf(violationStartUs), QString(), Action::Note, 0, rename(failing.sentence) + u'.');

    std::stable_sort(steps.begin(), steps.end(), [](const TimedStep &a, const TimedStep &b) {
        return a.step.atMs < b.step.atMs || (a.step.atMs == b.step.atMs && a.order < b.order);
    });
    for (const TimedStep &t : std::as_const(steps))
        s.story.steps << t.step;

    const QString propertyName = ScheduleVerdict::propertyName(property);
    s.id = QStringLiteral("explore-%1-%2").arg(target.name(), propertyName);
    s.title = QStringLiteral("Found by explore: %1 — %2").arg(target.name(), propertyName);
    s.summary = QStringLiteral("%1. %2").arg(schedule.describe(), rename(failing.sentence));
    QStringList teaching;
    teaching << QStringLiteral("LockScope's explorer found this schedule by searching faults on a real Redis, "
                               "without being told where to strike, and shrank it to what still breaks the lock.");
    if (!context.reproduced.isEmpty())
        teaching << QStringLiteral("The shrunk schedule broke it again in %1.").arg(context.reproduced);
    if (!context.boundary.isEmpty())
        teaching << context.boundary + u'.';
    if (!context.command.isEmpty())
        teaching << QStringLiteral("Found with: %1").arg(context.command);
    s.teaching = teaching.join(u' ');
    s.expect.clear();
    Expectation e;
    QString why;
    Expectation::parse(expectationFor(property), &e, &why);
    s.expect << e;
    s.variants.clear();
    return s;
}
